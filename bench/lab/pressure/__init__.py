"""Hostile load campaign: how a 4-seat human table and ``/api/health`` fare while one
address (127.0.0.1) loads the server in the ways the security issues name.

It seeds the server's SQLite database with the longest game the rules allow (8 random
bots, ``{"scoring": "deals", "deals": 50}``: 16,786 actions with the default seed),
built with the engine and written with the store of the tree under test (``--source``,
run by that tree's Python), then starts that tree's ``maumau serve`` with its default
limits and an open-file limit of 1024 (soft; as a systemd service has it).  With
``--database postgresql``: a throwaway PostgreSQL cluster (no fsync), the game seeded
into it, and TWO ``maumau serve`` processes of the tree on it (``fleet.py``).  From
another address (127.0.0.2) a human table of 4 WebSocket clients plays all along (50
deals of the standard rules, so the game outlasts the run; the first legal action after
50 ms; the next round dealt at once; a new table if a game ends; on PostgreSQL created
at the first process, two seats at each), and ``/api/health`` is polled 10 times a
second on new connections (on PostgreSQL, each process in turn).  Then, one after
another, each for ``--phase-seconds``, in a process of its own (``--phases`` picks
some, in the order given):

- ``quiet``: nothing else, the reference;
- ``replay`` (a): 10 clients loop on ``GET /api/games/{id}/replay`` of the long game;
- ``sockets`` (c): idle WebSockets to one table (no ``hello``) until refused or 2,000;
  ``GET /`` and ``/api/health`` probed once a second while they are open;
- ``qr``: 4 loops on ``GET /api/games/{victim}/qr.svg`` with a 2,300-character ``Host``
  (``--qr-loops``, ``--host-length``); answers counted as 2xx, 4xx, 5xx, no answer;
- ``hello``: 32 WebSockets to the victim table (``--hello-sockets``), each saying
  ``hello`` with a made-up token again and again, opened again when the server closes
  one;
- ``health``: loops on ``GET /api/health``, 16 on SQLite, 64 on PostgreSQL
  (``--health-loops``);
- ``chat``: 30 tables of the attacker's (``--chat-tables``; from 127.0.0.11, .12, ...,
  10 each, the tables a minute one address may create), the host's socket at each
  sending chat lines as fast as the server answers; lines accepted and refused;
- ``ping``: one WebSocket at the victim table (a spectator) flooding ping frames, at
  most 256 unanswered; pings sent and answered, and how the server closed it;
- ``info``: 16 loops on ``GET /api/games/{victim}`` (``--info-loops``);
- ``bots`` (b): tables of 7 ``hard`` bots and the host's seat (nobody connected; its
  stand-in takes over at once, ``grace_seconds`` 0), ``bot_delay_ms`` 0, 50 deals,
  created and started until the server refuses or 10 run.  Last, because nothing
  stops such a table: it runs until the server does.

The victim table is the human table being played.  On PostgreSQL every attack's
loops, sockets or tables go half to each process (the ping flood's one socket to the
second).

Per phase: ``/api/health`` latency and the table's move round trip (the ``action``
until the mover's ``state`` whose ``ack`` is its id): p50, p99 and max, the p99's ratio
to the quiet phase's, what the server let the attacker do, and the errors the table
and the poller saw.  A request unanswered in 30 s (a move in 60 s), or whose
connection failed, counts as "no answer".  After each phase the run waits until
``/api/health`` is fast again.

    uv run python bench/pressure.py                                   # this tree
    uv run python bench/pressure.py --source /tmp/maumau-before --phase-seconds 20 \\
        --json before.json --markdown before.md
    uv run python bench/pressure.py --database postgresql --phases quiet,info,chat
    uv run python bench/pressure.py --compare before.json after.json --markdown cmp.md

``--compare`` runs nothing: it prints one markdown table of two runs (made by the same
command on the same machine, one after the other), per phase the moves' and health's
p50 and p99 of each, each with its ratio to its own run's quiet phase.

A script, not a test (``tests/bench/test_bench_pressure.py`` runs small pieces of it).
"""
