"""The ledger: one JSON line per move the server acknowledged.

A fault campaign kills the server during a run and then checks that every move in
the ledger is in the database exactly once.  Each client process appends whole lines
to the same file (``O_APPEND``, one ``write`` per batch, so lines never interleave),
and writes its batch out at least every few hundred milliseconds; ``fsync`` is not
needed, since it is the server that must not lose what it acknowledged.
"""

from __future__ import annotations

import json
import os

#: write the batch out once it holds this many bytes, even before the next flush
BATCH_BYTES = 32 * 1024


def create(path: str) -> None:
    """Start an empty ledger (truncating an old one)."""
    with open(path, "w", encoding="utf-8"):
        pass


class Ledger:
    """Appends acknowledged moves to the ledger file; ``None`` path: a no-op."""

    def __init__(self, path: str | None) -> None:
        self.fd = None if path is None else os.open(path, os.O_WRONLY | os.O_APPEND)
        self.lines: list[str] = []
        self.size = 0
        self.written = 0

    def acked(self, game_id: str, seat: int, action_id: str, version: int) -> None:
        if self.fd is None:
            return
        line = json.dumps(
            {"game_id": game_id, "seat": seat, "action_id": action_id, "version": version},
            separators=(",", ":"),
        )
        self.lines.append(line)
        self.size += len(line) + 1
        if self.size >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.fd is None or not self.lines:
            return
        data = ("\n".join(self.lines) + "\n").encode()
        self.lines.clear()
        self.size = 0
        view = memoryview(data)
        while view:
            done = os.write(self.fd, view)
            view = view[done:]
        self.written += 1

    def close(self) -> None:
        self.flush()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
