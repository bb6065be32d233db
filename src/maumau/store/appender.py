"""SQLite's writer thread: every write transaction in one hop.

Through SQLAlchemy and aiosqlite each statement of a transaction is a round trip
between the driver's thread and the event loop (begin, update, insert, commit).  On a
busy server the loop has a long queue of ready work, so each trip waits its turn, and a
transaction held SQLite's only write lock for tens of milliseconds while every group
of moves waiting to commit waited too.  So on SQLite one thread does all the writing,
one transaction at a time, each in one hand-over from the loop: groups of appends
through a plain ``sqlite3`` connection (:meth:`SqliteAppender.write`), every other
write through a synchronous SQLAlchemy engine (:meth:`SqliteAppender.run`).  The
fsync happens with the interpreter lock released.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from maumau.store.connect import SQLITE_PRAGMAS

T = TypeVar("T")

_TOUCH = "UPDATE games SET last_active_at = ? WHERE id = ?"
_INSERT = (
    "INSERT INTO steps (game_id, seq, kind, data, client_id, created_at) VALUES (?, ?, ?, ?, ?, ?)"
)


class SqliteAppender:
    """Writes groups of steps to the SQLite file at ``path`` from its own thread."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="maumau-appender")

    async def write(
        self, touches: Sequence[tuple[float, str]], rows: Sequence[dict[str, Any]]
    ) -> None:
        """In one transaction: set ``last_active_at`` for each ``(time, game id)`` and
        insert the step ``rows`` (an integrity error writes none of them and is raised
        as ``sqlite3.IntegrityError``; other failures as ``sqlite3.Error``)."""
        values = [
            (
                row["game_id"],
                row["seq"],
                row["kind"],
                json.dumps(row["data"]),
                row["client_id"],
                row["created_at"],
            )
            for row in rows
        ]
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._write, list(touches), values)

    async def run(self, work: Callable[[], T]) -> T:
        """``work()``, called on the writer thread, between the groups."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, work)

    def _write(self, touches: list[tuple[float, str]], values: list[tuple[Any, ...]]) -> None:
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(_TOUCH, touches)
            conn.executemany(_INSERT, values)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    self._drop()
            if isinstance(exc, sqlite3.OperationalError):
                self._drop()  # start afresh next time (the file may have gone away)
            raise

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            for pragma in SQLITE_PRAGMAS:
                conn.execute(pragma)
            self._conn = conn
        return self._conn

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._close)
        self._thread.shutdown(wait=True)

    def _close(self) -> None:
        self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
