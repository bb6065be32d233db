"""Hostile input campaign: malformed and hostile WebSocket messages and HTTP requests
against a real ``maumau serve`` process, with a few games in progress.

    uv run python bench/hostile.py                          # 10,000 messages, seed 1
    uv run python bench/hostile.py --messages 20000 --requests 5000 --seed 7 --json out.json

What it sends and checks: ``bench/lab/hostile/`` (its package docstring, which ``--help``
prints), where the code is.
"""

from __future__ import annotations

import sys

from lab.hostile.cli import main

if __name__ == "__main__":
    sys.exit(main())
