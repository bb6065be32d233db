"""Where things are: the repository's root and the golden records (``tests/records``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"
