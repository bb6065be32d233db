"""The server's mark on a move it made for a seat, kept in the stored step.

Small and without heavy imports: the replay worker process reads stored steps too, and
importing the table (the store, pydantic) there cost it seconds before its first reply.
"""

from __future__ import annotations

from typing import Any

#: who made a move for a seat when its player did not: the turn timer ran out, or a
#: stand-in plays for an absent player.  Kept in the stored step (its ``"by"``), never
#: in the game record.
MOVERS = ("timeout", "stand_in")


def split_mark(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """A stored action step's data as a record action, and the server's mark on it."""
    mark = data.get("by")
    if mark is None:
        return data, None
    if mark not in MOVERS:
        raise ValueError(f"a stored step is marked by {mark!r}, not one of {MOVERS}")
    return {k: v for k, v in data.items() if k != "by"}, mark
