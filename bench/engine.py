#!/usr/bin/env python3
"""Engine benchmark: random legal play, state copies and random playouts.

Run from the repository root (see ``bench/README.md``)::

    uv run python bench/engine.py                     # the full run, 2-3 minutes
    uv run python bench/engine.py --quick             # a smoke run of a few seconds

What each section measures: ``bench/lab/engine/`` (its package docstring), where the
code is.
"""

from __future__ import annotations

import sys

from lab.engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
