"""Chat lines are written in batches, not one transaction each.

A move must be durable before it is announced (:mod:`maumau.store.group`); a chat line
need not cost what a move costs.  So a line gets its id at once and is shown to its
table at once, and waits here, in memory, until the next flush: every
:data:`FLUSH_SECONDS`, or as soon as :data:`FLUSH_LINES` wait, all waiting lines of
every table are written in one transaction (pruning their tables to their last lines),
beside the moves' group commit, never in it.  Closing the store flushes what waits.
A crash loses at most the lines of the last flush interval, never a move.

The buffer is bounded: while the database cannot be written (each failed flush keeps
its lines for the next), at most :data:`MAX_LINES` wait; a line beyond them is refused
with :class:`StoreUnavailable`, as a line that cannot be stored always was.  A line
whose table is gone meanwhile (purged) is dropped at its flush.

Ids: on PostgreSQL each line takes the next value of ``chat_lines``' own sequence, in
a transaction that also tells the other processes of the line (its notice) and does
not wait for the disk; on SQLite, which one process serves, they count on from the
highest id stored, read once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store import chat as chat_store
from maumau.store.chat import ChatRow
from maumau.store.errors import StoreError, StoreUnavailable

T = TypeVar("T")

log = logging.getLogger("maumau.store")

#: how often waiting lines are written (seconds): what a crash may lose
FLUSH_SECONDS = 1.0
#: this many waiting lines are written at once, without waiting for the interval
FLUSH_LINES = 200
#: at most this many lines wait (the database cannot be written): more are refused
MAX_LINES = 5000


@dataclass(frozen=True, slots=True)
class Waiting:
    """A line waiting to be written: its table, the line, and how many lines its
    table keeps."""

    game_id: str
    row: ChatRow
    keep: int


class Transactions(Protocol):
    """What a buffer needs of its store (:class:`maumau.store.store.Store`, which owns
    it): its transactions, and whether other processes share the database."""

    #: this process's name in the notices (PostgreSQL)
    origin: str

    @property
    def shared(self) -> bool:
        """Other server processes may use the database (PostgreSQL)."""

    async def read(self, query: Callable[[AsyncConnection], Awaitable[T]]) -> T: ...

    async def write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T: ...


class ChatBuffer:
    """The chat lines of one store (one server process) waiting to be written."""

    def __init__(self, store: Transactions) -> None:
        self._store = store
        self._waiting: list[Waiting] = []
        #: SQLite: the last id given (``None``: not read yet)
        self._last_id: int | None = None
        self._ids = asyncio.Lock()
        self._flushing = asyncio.Lock()
        self._full = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._closed = False
        #: lines written, flushes (transactions) made, and lines dropped (table gone)
        self.written = 0
        self.flushes = 0
        self.dropped = 0

    async def add(
        self,
        game_id: str,
        seat: int | None,
        name: str | None,
        words: str,
        now: float,
        keep: int,
        notice: Callable[[ChatRow], str] | None = None,
    ) -> ChatRow:
        """A new line of ``game_id``'s chat, with its id: written at the next flush.
        ``notice(row)``: what the other processes are told (PostgreSQL), at once."""
        if self._closed:
            raise StoreUnavailable("the store is closed: the chat line cannot be stored")
        if len(self._waiting) >= MAX_LINES:
            raise StoreUnavailable(
                f"{MAX_LINES} chat lines wait for the database already: this one is refused"
            )
        store = self._store
        if store.shared:

            async def take(conn: AsyncConnection) -> ChatRow:
                await chat_store.quick(conn)
                (line_id,) = await chat_store.next_ids(conn, 1)
                row = ChatRow(line_id, seat, name, words, now)
                if notice is not None:
                    await chat_store.notify(conn, store.origin, game_id, notice(row))
                return row

            row = await store.read(take)
        else:
            row = ChatRow(await self._next_id(), seat, name, words, now)
        self._waiting.append(Waiting(game_id, row, keep))
        if len(self._waiting) >= FLUSH_LINES:
            self._full.set()
        self._start()
        return row

    def waiting(self, game_id: str) -> list[ChatRow]:
        """The lines of ``game_id`` not written yet, oldest first."""
        return [w.row for w in self._waiting if w.game_id == game_id]

    @property
    def timer(self) -> asyncio.Task[None] | None:
        """The task that flushes every interval while lines wait (it ends when none
        does; the next line starts another)."""
        return self._flusher

    @property
    def size(self) -> int:
        """How many lines wait."""
        return len(self._waiting)

    async def flush(self) -> None:
        """Write every waiting line now, in one transaction (:class:`StoreError` if the
        database cannot be written: the lines wait for the next flush)."""
        async with self._flushing:
            batch = self._waiting[:]
            if not batch:
                return
            try:
                await self._write(batch)
            except IntegrityError:  # a table is gone: each table's lines on their own
                for game_id in dict.fromkeys(w.game_id for w in batch):
                    lines = [w for w in batch if w.game_id == game_id]
                    try:
                        await self._write(lines)
                    except IntegrityError:
                        self.dropped += len(lines)
                        log.info("chat lines of a table that is gone were dropped: %s", game_id)
            # (lines added meanwhile stay; those of the batch are written or dropped)
            del self._waiting[: len(batch)]

    async def close(self) -> None:
        """Stop the timer and write what waits (a line added later is refused)."""
        self._closed = True
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        try:
            await self.flush()
        except StoreError as exc:
            log.warning("%d chat lines were not stored at close: %s", self.size, exc)

    async def _write(self, batch: list[Waiting]) -> None:
        rows = [(w.game_id, w.row) for w in batch]
        keep = max(w.keep for w in batch)
        await self._store.write(lambda conn: chat_store.add_lines(conn, rows, keep))
        self.flushes += 1
        self.written += len(batch)

    async def _next_id(self) -> int:
        async with self._ids:
            if self._last_id is None:
                self._last_id = await self._store.read(chat_store.last_id)
            self._last_id += 1
            return self._last_id

    def _start(self) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._full.wait(), FLUSH_SECONDS)
            self._full.clear()
            try:
                await self.flush()
            except StoreError as exc:
                log.warning("chat lines wait for the database (%d): %s", self.size, exc)
            if not self._waiting:  # (the next line starts the timer again)
                return
