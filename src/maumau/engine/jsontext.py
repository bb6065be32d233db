"""JSON text in the project's stable layout: what ``maumau`` prints and how records are
written, so that a record's text changes only where the game does.

Pure: no files, no clock.
"""

from __future__ import annotations

import json
from typing import Any


def dumps_json(value: Any, width: int = 100) -> str:
    """JSON text with a stable layout: a container of scalars (a hand, a draw pile) goes
    on one line; so does any other container that fits in ``width``, except an array of
    objects (rounds, actions), which has one item per line."""
    return _pretty(value, 0, width) + "\n"


def _pretty(value: Any, indent: int, width: int) -> str:
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, dict | list) or not value:
        return flat
    items = list(value.values() if isinstance(value, dict) else value)
    if not any(isinstance(v, dict | list) for v in items):
        return flat
    objects = isinstance(value, list) and any(isinstance(v, dict) for v in items)
    if indent + len(flat) <= width and not objects:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        parts = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent + 2, width)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(parts) + "\n" + " " * indent + "}"
    parts = [pad + _pretty(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(parts) + "\n" + " " * indent + "]"
