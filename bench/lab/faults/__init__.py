"""Fault campaign: kill the server and stop its database under load, and prove that no
acknowledged move is lost or doubled and that every game can go on.

Two campaigns, both scripted and repeatable from ``--seed``:

- **SQLite, kill -9.** One ``maumau serve`` process (started as ``python -m maumau
  serve``, so the pid killed is the server itself) on a fresh data directory, and
  ``maumau loadtest`` against it with a ledger of every acknowledged move.  At seeded
  random moments the server is killed with SIGKILL (``--kills`` times) and started
  again on the same data after a short seeded pause.
- **PostgreSQL, kill -9 and database stops.** A throwaway cluster (initdb as the
  ``postgres`` user, a free port, its socket in a temporary directory, PostgreSQL's
  default durability: fsync on), ``--pg-servers`` server processes on one database, the
  load tool spreading every table's seats over them; then, in a seeded order, kill -9
  of a server process (``--pg-kills``) and ``pg_ctl stop`` (``fast`` and ``immediate``
  in turn) for a few seconds followed by ``pg_ctl start`` (``--pg-stops``).  While the
  database is down the servers must stay alive and answer errors (``/api/health`` 503,
  a move refused with ``store_unavailable``); afterwards they must recover by
  themselves (health ok, moves acknowledged again, change notices between processes
  flowing) without being restarted.

Besides the load tool's tables the campaign keeps a few tables of its own ("probe
tables", four human seats, their tokens kept by the script; for PostgreSQL the seats
spread over the processes).  After every restart and every database stop it makes one
legal move at each, checks that every seat (on every process) sees it, and adds it to
its own ledger; a move refused during a database stop is sent again afterwards with the
same ``action_id`` and must then be applied exactly once.

Afterwards, with the servers up:

- every line of both ledgers is in ``steps`` exactly once (``game_id`` and
  ``client_id`` = ``action_id``, for the same seat); no ``client_id`` appears twice in
  one game;
- every game in status ``lobby`` or ``playing`` loads from the store and its record
  replays through the engine to the stored number of steps; ``GET /api/games/{id}``
  answers on every process; a spectator connected to every process gets the game's
  ``state`` at the stored version (the server resumed it where the database says);
- every probe table takes one more legal move, and the probe table left in the lobby
  starts and takes a move.
- no load game stalled (no new state for 30 s) or was given up by the load tool.

Two more observations: before the SQLite load starts, the script holds the SQLite write
lock while a move is being committed and greets a spectator meanwhile, which must be
shown only committed state (the move's commit then fails); and a monitor samples, once
a second, the acknowledged moves and (PostgreSQL) sessions waiting for a lock or idle
inside a transaction, and reports the longest time without an acknowledged move.

    uv run python bench/faults.py                          # both campaigns, seed 1
    uv run python bench/faults.py --only sqlite --kills 20 --games 50 --seed 7
    uv run python bench/faults.py --only pg --pg-kills 4 --pg-stops 3 --json faults.json

A script, not a test (``tests/bench/test_faults.py`` runs a small sample).  Exit status 0
when every check passed, 1 when any failed.
"""
