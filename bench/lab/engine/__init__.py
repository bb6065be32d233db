"""Engine benchmark: random legal play, state copies and random playouts.

Run from the repository root (see ``bench/README.md``)::

    uv run python bench/engine.py                     # the full run, 2-3 minutes
    uv run python bench/engine.py --quick             # a smoke run of a few seconds
    uv run python bench/engine.py --peers-python $PEERS_VENV/bin/python --json out.json

Sections, each for 2 and 4 players and the ``standard`` and ``penalty-100`` presets,
every figure the median of ``--reps`` runs (3 by default), all from fixed seeds:

1. **Public API**: the loop a library user writes -- ``Game.new(preset, players, seed)``,
   then ``legal_actions()`` / ``apply()`` with a uniformly random choice until the
   round is over, ``deal(next_seed)`` until the game is finished.  ``standard`` is one
   round per game; ``penalty-100`` plays whole multi-round games (games/s and
   rounds/s).  The time includes ``Game.new``, the deals and the random choice.
2. **State copy**: ``Round.copy()`` in µs over many random mid-round states, also
   ``copy(history=False)`` and ``copy(rng, history=False)`` (a generator made once and
   passed in, as a bot does), plus ``legal_actions()`` on the same states.
3. **Random playout**: ``maumau.engine.playout.random_playout`` from freshly dealt
   rounds and from random mid-round positions, as player actions/s with the state copy
   (``copy(rng, history=False)``) outside the timed part; the copy cost is reported
   apart, and the rate with it included.
4. **Peers** (only with ``--peers-python``): ``bench/peers.py --serve`` runs in that
   interpreter (OpenSpiel ``crazy_eights``, RLCard ``uno``); our runs and the peer runs
   alternate one by one, and each our/peer ratio is the median of the per-run ratios.
"""
