"""Hostile load campaign: a human table's move round trip and ``/api/health`` while one
address asks for replays of the longest game, starts bot-only tables and opens idle
sockets.

    uv run python bench/pressure.py                                  # this tree
    uv run python bench/pressure.py --source /tmp/maumau-before --phase-seconds 20

What it does and measures: ``bench/lab/pressure/`` (its package docstring, which
``--help`` prints), where the code is.
"""

from __future__ import annotations

import sys

from lab.pressure.cli import main

if __name__ == "__main__":
    sys.exit(main())
