#!/usr/bin/env python3
"""Server under load: the whole server matrix in one run, with its reference points.

Run from the repository root::

    uv run python bench/server.py --quick                     # smoke run: 2 s warm-up, 5 s
    uv run python bench/server.py --json bench/results/server.json   # SQLite and PostgreSQL
    uv run python bench/server.py --show bench/results/server.json   # print a saved run again

What it runs and records, cell by cell: ``bench/lab/matrix/`` (its package docstring),
where the code is; ``--help`` lists the options.
"""

from __future__ import annotations

import sys

from lab.matrix.cli import main

if __name__ == "__main__":
    sys.exit(main())
