"""Where the repository is, and paths as a results file may name them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def portable(path: Path | str) -> str:
    """``path`` as it may be written in a results file: relative to the repository when
    inside it, else only its last three parts (no machine's own directories)."""
    full = Path(path).resolve()
    if full.is_relative_to(ROOT):
        return str(full.relative_to(ROOT))
    return str(Path("...", *full.parts[-3:]))
