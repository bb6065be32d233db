"""SQLite's writer thread: every write transaction in one hop, and group commit.

Through SQLAlchemy and aiosqlite each statement of a transaction is a round trip
between the driver's thread and the event loop (begin, update, insert, commit).  On a
busy server the loop has a long queue of ready work, so each trip waits its turn, and a
transaction held SQLite's only write lock for tens of milliseconds while every group
of moves waiting to commit waited too.  So on SQLite one thread does all the writing,
one transaction at a time, each in one hand-over from the loop: appends through a
plain ``sqlite3`` connection (:meth:`SqliteAppender.append`), every other write
through a synchronous SQLAlchemy engine (:meth:`SqliteAppender.run`).  The fsync
happens with the interpreter lock released.

Appends are committed in groups, as :mod:`maumau.store.group` explains, but the
thread runs the group commit itself: an append joins the list of those waiting, the
thread takes the whole list when it is free and writes it in one transaction, and the
loop is handed the outcomes in one callback that wakes every caller.  A move's
commit so costs the busy loop no turns of its own (a writer task between the loop and
the thread cost three: to start each group, to learn it was written, to wake its
callers).  If a group breaks a key or a reference, each append of it is written alone,
so that each caller gets its own answer (``SeqConflict``, ``UnknownGame``).

A group is one ``INSERT`` into ``steps``, which SQLite commits by itself, and a trigger
makes each game active as of its last step (migration 0002): one statement, where
``BEGIN``, ``UPDATE games``, ``INSERT`` and ``COMMIT`` were four, and each statement
cost the thread a wait for the interpreter lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson
from sqlalchemy import Engine

from maumau.store.connect import set_pragmas, sqlite_writer
from maumau.store.errors import SeqConflict, StoreError, StoreUnavailable, UnknownGame
from maumau.store.group import settle, wait_settled
from maumau.store.rows import StepRow

T = TypeVar("T")

#: bound parameters per statement: SQLite's limit before 3.32 (32,766 since)
_MAX_PARAMS = 999


def _insert(rows: list[tuple[Any, ...]]) -> tuple[str, list[Any]]:
    """One ``INSERT`` of every row of ``steps``."""
    marks = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(rows))
    sql = f"INSERT INTO steps (game_id, seq, kind, data, client_id, created_at) VALUES {marks}"
    return sql, [v for row in rows for v in row]


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _json(data: dict[str, Any]) -> str:
    """A step's data as JSON text (with orjson: every move writes one)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass(slots=True)
class _Append:
    """One caller's steps for one game, as rows, waiting to be written."""

    game_id: str
    values: list[tuple[Any, ...]]
    done: asyncio.Future[None] = field(repr=False)
    #: the outcome, set by the writer thread: ``None`` (written) or the error
    failure: BaseException | None = None
    settled: bool = False
    #: set once settled, for a caller that was cancelled meanwhile
    waiter: asyncio.Future[None] | None = field(default=None, repr=False)


def _refused(item: _Append, exc: sqlite3.IntegrityError) -> StoreError:
    """What the caller of an append that SQLite refused is told: its game does not
    exist (the steps' foreign key) or one of its steps is taken (their primary key)."""
    failure: StoreError
    if exc.sqlite_errorname == "SQLITE_CONSTRAINT_FOREIGNKEY":
        failure = UnknownGame(f"no game {item.game_id!r}")
    else:
        numbers = ", ".join(str(v[1]) for v in item.values)
        failure = SeqConflict(f"game {item.game_id!r}: a step among {numbers} is already stored")
    failure.__cause__ = exc
    return failure


class SqliteAppender:
    """Writes to the SQLite file at ``path`` from its own thread; ``url`` names the
    database in errors."""

    def __init__(self, path: Path, url: str) -> None:
        self._path = path
        self._url = url
        self._conn: sqlite3.Connection | None = None
        #: the engine of every other write transaction, used only on this thread
        #: (:mod:`maumau.store.writer_thread`)
        self.engine: Engine = sqlite_writer(path)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="maumau-appender")
        self._lock = threading.Lock()
        self._waiting: list[_Append] = []
        self._draining = False  # a drain is queued on the thread and has not begun
        #: transactions and appends written, for benchmarks: rows per commit
        self.commits = 0
        self.appends = 0
        #: batches or appends that failed because the database was unavailable
        self.failures = 0

    async def append(self, game_id: str, steps: Sequence[StepRow], now: float) -> None:
        """Write ``steps`` with the next group; return once they are durable (a
        cancelled caller: see :func:`~maumau.store.group.wait_settled`).  A step with
        ``created_at`` 0.0 is stamped ``now``."""
        loop = asyncio.get_running_loop()
        values = [
            (game_id, s.seq, s.kind, _json(s.data), s.client_id, s.created_at or now) for s in steps
        ]
        item = _Append(game_id, values, loop.create_future())
        with self._lock:
            self._waiting.append(item)
            start, self._draining = not self._draining, True
        if start:
            self._thread.submit(self._drain, loop)
        await wait_settled(item)

    async def run(self, work: Callable[[], T]) -> T:
        """``work()``, called on the writer thread, between the groups."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, work)

    async def close(self) -> None:
        """Wait until every append made so far is written (or failed)."""
        await self.run(lambda: None)  # the thread does one thing at a time, in order

    async def stop(self) -> None:
        """Write what is waiting, then close the connections and the thread."""
        await self.run(self._stop)
        self._thread.shutdown(wait=True)

    # --- on the writer thread -----------------------------------------------------------

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            batch, self._waiting = self._waiting, []
            self._draining = False
        if not batch:
            return
        commits = self._commit(batch)
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            loop.call_soon_threadsafe(self._settle, batch, commits)

    def _commit(self, batch: list[_Append]) -> int:
        """Write ``batch``; set each append's ``failure``; return the commits made."""
        try:
            self._write([v for i in batch for v in i.values])
            return 1
        except sqlite3.IntegrityError:
            pass  # nothing of it was written: each alone, for each its own answer
        except BaseException as exc:
            for item in batch:
                item.failure = self._unavailable(exc)
            return 0
        commits = 0
        for item in batch:
            try:
                self._write(item.values)
                commits += 1
            except sqlite3.IntegrityError as exc:
                item.failure = _refused(item, exc)
            except BaseException as exc:
                item.failure = self._unavailable(exc)
        return commits

    def _unavailable(self, exc: BaseException) -> BaseException:
        if isinstance(exc, (sqlite3.Error, OSError)):
            self.failures += 1  # (only this thread counts them)
            failure = StoreUnavailable(
                f"database {self._url} unavailable: {type(exc).__name__}: {exc}"
            )
            failure.__cause__ = exc
            return failure
        return exc

    def _write(self, values: list[tuple[Any, ...]]) -> None:
        """One transaction that inserts the rows: one statement when they fit in one
        (nearly always), several between ``BEGIN`` and ``COMMIT`` otherwise."""
        conn = self._connection()
        chunks = _chunks(values, _MAX_PARAMS // 6)
        try:
            if len(chunks) == 1:
                conn.execute(*_insert(chunks[0]))
                return
            conn.execute("BEGIN IMMEDIATE")
            for chunk in chunks:
                conn.execute(*_insert(chunk))
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
            set_pragmas(conn)
            self._conn = conn
        return self._conn

    def _stop(self) -> None:
        self._drop()
        self.engine.dispose()

    def _drop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    # --- back on the loop ---------------------------------------------------------------

    def _settle(self, batch: list[_Append], commits: int) -> None:
        self.commits += commits
        for item in batch:
            if item.failure is None:
                self.appends += 1
            settle(item, item.failure)
