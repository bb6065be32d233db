"""Hostile load campaign: how a 4-seat human table and ``/api/health`` fare while one
address (127.0.0.1) loads the server in the ways the security issue names.

It seeds the server's SQLite database with the longest game the rules allow (8 random
bots, ``{"scoring": "deals", "deals": 50}``: 16,786 actions with the default seed),
built with the engine and written with the store of the tree under test (``--source``,
run by that tree's Python), then starts that tree's ``maumau serve`` with its default
limits and an open-file limit of 1024 (soft; as a systemd service has it).  From
another address (127.0.0.2) a human table of 4 WebSocket clients plays all along (50
deals of the standard rules, so the game outlasts the run; the first legal action after
50 ms; ``ready`` between rounds; a new table if a game ends), and ``/api/health`` is
polled 10 times a second on new connections.  Then, one after another, each for
``--phase-seconds``, in a process of its own:

- ``quiet``: nothing else, the reference;
- ``replay`` (a): 10 clients loop on ``GET /api/games/{id}/replay`` of the long game;
- ``sockets`` (c): idle WebSockets to one table (no ``hello``) until refused or 2,000;
  ``GET /`` and ``/api/health`` probed once a second while they are open;
- ``bots`` (b): tables of 7 ``hard`` bots and the host's seat (nobody connected; its
  stand-in takes over at once, ``grace_seconds`` 0), ``bot_delay_ms`` 0, 50 deals,
  created and started until the server refuses or 10 run.  Last, because nothing
  stops such a table: it runs until the server does.

Per phase: ``/api/health`` latency and the table's move round trip (the ``action``
until the mover's ``state`` whose ``ack`` is its id): p50, p99 and max, the p99's ratio
to the quiet phase's, what the server let the attacker do, and the errors the table
and the poller saw.  A request unanswered in 30 s (a move in 60 s), or whose
connection failed, counts as "no answer".  After each phase the run waits until
``/api/health`` is fast again.

    uv run python bench/pressure.py                                   # this tree
    uv run python bench/pressure.py --source /tmp/maumau-before --phase-seconds 20 \\
        --json before.json --markdown before.md

A script, not a test (``tests/test_bench_pressure.py`` runs small pieces of it).
"""
