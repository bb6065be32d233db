"""Hostile input campaign: malformed and hostile WebSocket messages and HTTP requests
against a real ``maumau serve`` process, with a few games in progress.

It starts the server on a free port with a fresh data directory, sets up games (four
humans mid-round; two humans and two computer players mid-round on a 32-card deck with
catches; a finished game; a table in the lobby), then sends:

- WebSocket: at least ``--messages`` hypothesis-generated hostile messages (random JSON
  of every shape, wrong types, unknown types, text that is not JSON, binary frames,
  oversized and huge frames, text frames of invalid UTF-8, real moves with one field
  mutated, hello with wrong tokens, messages before hello, moves from spectators...),
  spread over many connections.  Every one must be answered with an ``error`` carrying
  a code from ``docs/protocol.md`` (a resent ``action_id`` with its ``ack``, as the
  protocol says; a frame over 64 KiB, or invalid UTF-8, with the socket closed), and
  a ``ping`` after each batch must get its ``pong``.
- HTTP: schemathesis cases generated from the server's ``/openapi.json`` for every
  operation (negative and positive, with real and stranger game ids and tokens), plus
  raw malformed requests (invalid JSON, wrong content types, bodies over 64 KiB with and
  without a length, bad ``Authorization`` headers, unknown paths and methods).  No
  reply may be a 5xx; every 4xx must carry the documented ``{"error": {"code",
  "message"}}`` body with a documented code and its documented status.

Then the attacks of the security issue (:mod:`lab.hostile.attacks`; ``--no-attacks``
leaves them out), each on tables and from client addresses of its own, each with a
gate: a stranger with two seats removing one and saying ``hello`` with the other at
once (and the host removing a seat while another tab reconnects) must never be shown
another seat; 20 addresses flooding a finished game's replay are refused
``rate_limited`` and served gzip only when they ask; idle sockets are refused per
address and per table and closed at the hello deadline; trickled headers are closed at
the header deadline; hostile display names are refused ``bad_name``; every reply has
the documented security headers; a stranger's connect-disconnect loop sends a player
no ``lobby``; bot-only tables are refused past the cap per address.

Afterwards every game must be exactly as before (its info, every seat's view, the record,
and its rows in the database), the server must still be running and answer
``/api/health``, and its output must hold no traceback and no ERROR line.

    uv run python bench/hostile.py                          # 10,000 messages, seed 1
    uv run python bench/hostile.py --messages 20000 --requests 5000 --seed 7 --json out.json

A script, not a test (``tests/bench/test_hostile.py`` runs a small sample of the same probes
in-process, ``tests/bench/test_hostile_attacks.py`` a small run of every attack).  Exit status 0
when every check passed.
"""
