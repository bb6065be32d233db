"""Hostile load campaign: a human table's move round trip and ``/api/health`` while one
address asks for replays of the longest game, starts bot-only tables, opens idle
sockets, and floods QR codes, bad hellos, health checks, chat lines, ping frames and
table info, on SQLite or on two server processes sharing PostgreSQL.

    uv run python bench/pressure.py                                  # this tree
    uv run python bench/pressure.py --source /tmp/maumau-before --phase-seconds 20
    uv run python bench/pressure.py --database postgresql --phases quiet,hello,info
    uv run python bench/pressure.py --compare before.json after.json

What it does and measures: ``bench/lab/pressure/`` (its package docstring, which
``--help`` prints), where the code is.
"""

from __future__ import annotations

import sys

from lab.pressure.cli import main

if __name__ == "__main__":
    sys.exit(main())
