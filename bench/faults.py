"""Fault campaign: kill the server and stop its database under load, and prove that no
acknowledged move is lost or doubled and that every game can go on.

    uv run python bench/faults.py                          # both campaigns, seed 1
    uv run python bench/faults.py --only sqlite --kills 20 --games 50 --seed 7

What the campaigns do and check: ``bench/lab/faults/`` (its package docstring, which
``--help`` prints the first paragraph of), where the code is.
"""

from __future__ import annotations

import sys

from lab.faults.cli import main

if __name__ == "__main__":
    sys.exit(main())
