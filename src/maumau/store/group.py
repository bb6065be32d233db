"""Group commit: the appends of many games written in one transaction.

Each move must be durable before it is announced, and on SQLite with full syncing a
commit costs an fsync (about 0.6 ms here), which would cap a server at about 1,500
moves a second whatever its CPU.  So appends are queued, and one writer task commits
every append that is waiting in a single transaction: while one transaction is being
written the next batch gathers.  A lone append is written at once (no timer, no added
delay); under load the batches grow by themselves.

If the batch fails on an integrity error (a step number already taken, an unknown
game), nothing of it was written and each append is tried again in its own
transaction, so each caller gets its own answer (``SeqConflict``, ``UnknownGame``).
Any other failure (the database is unreachable) is every caller's answer.

This is the group commit of PostgreSQL; on SQLite the writer thread runs its own
(:mod:`maumau.store.appender`).  Both are a :class:`Committer`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.exc import IntegrityError

from maumau.store.errors import StoreUnavailable
from maumau.store.rows import StepRow

#: how long a cancelled caller waits for its append to be written (seconds)
CANCELLED_WAIT = 30.0


class Settles(Protocol):
    """An append's outcome, as its caller awaits it (:func:`wait_settled`)."""

    done: asyncio.Future[None]
    #: the outcome is known (``done`` may have been cancelled with its caller)
    settled: bool
    #: set once settled, for a caller that was cancelled meanwhile
    waiter: asyncio.Future[None] | None


async def wait_settled(item: Settles) -> None:
    """Await ``item``'s outcome.

    Cancelling the caller does not cancel the write: the steps are written (or fail)
    with their group all the same, and the caller's cancellation is passed on only
    once they have been, so that it knows the store's state.  (``done`` is awaited
    directly: through ``asyncio.shield`` each caller would wait one more turn of the
    loop.)
    """
    try:
        await item.done
    except asyncio.CancelledError:
        if not item.settled:
            item.waiter = asyncio.get_running_loop().create_future()
            await asyncio.wait([item.waiter], timeout=CANCELLED_WAIT)
        if item.done.done() and not item.done.cancelled():
            item.done.exception()  # seen: the cancellation is what is passed on
        raise


class Touching(Protocol):
    """An append as far as ``last_active_at`` goes: its game and its time."""

    @property
    def game_id(self) -> str: ...

    @property
    def now(self) -> float: ...


def latest_times(batch: Iterable[Touching]) -> dict[str, float]:
    """Each game of a group and its latest append's time (its new ``last_active_at``)."""
    latest: dict[str, float] = {}
    for item in batch:
        latest[item.game_id] = max(item.now, latest.get(item.game_id, item.now))
    return latest


def settle(item: Settles, failure: BaseException | None) -> None:
    """Give ``item``'s caller its outcome: written (``None``) or ``failure``."""
    item.settled = True
    if not item.done.done():
        if failure is None:
            item.done.set_result(None)
        else:
            item.done.set_exception(failure)
    if item.waiter is not None and not item.waiter.done():
        item.waiter.set_result(None)


@dataclass(slots=True)
class Append:
    """One caller's steps for one game, waiting to be written."""

    game_id: str
    steps: Sequence[StepRow]
    now: float
    done: asyncio.Future[None] = field(repr=False)
    settled: bool = False
    waiter: asyncio.Future[None] | None = field(default=None, repr=False)


class Committer(Protocol):
    """Appends written in groups: durable when :meth:`append` returns."""

    #: transactions and appends written, for benchmarks: rows per commit
    commits: int
    appends: int

    async def append(self, game_id: str, steps: Sequence[StepRow], now: float) -> None: ...

    async def close(self) -> None: ...


WriteBatch = Callable[[Sequence[Append]], Awaitable[None]]
WriteOne = Callable[[Append], Awaitable[None]]


class GroupCommit:
    """A queue of appends and the task that commits them together."""

    def __init__(self, write_batch: WriteBatch, write_one: WriteOne) -> None:
        self._write_batch = write_batch
        self._write_one = write_one
        self._waiting: list[Append] = []
        self._writer: asyncio.Task[None] | None = None
        #: transactions and appends written, for benchmarks: rows per commit
        self.commits = 0
        self.appends = 0

    async def append(self, game_id: str, steps: Sequence[StepRow], now: float) -> None:
        """Write ``steps`` with the next group; return once they are durable (a
        cancelled caller: see :func:`wait_settled`)."""
        loop = asyncio.get_running_loop()
        item = Append(game_id, steps, now, loop.create_future())
        self._waiting.append(item)
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._run())
        await wait_settled(item)

    async def close(self) -> None:
        """Let the writer finish what is queued."""
        writer = self._writer
        if writer is not None and not writer.done():
            await asyncio.wait([writer])

    async def _run(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                await self._commit(batch)
            except (Exception, asyncio.CancelledError) as exc:
                failure = (
                    StoreUnavailable("the store stopped while writing")
                    if isinstance(exc, asyncio.CancelledError)
                    else exc
                )
                for item in [*batch, *self._waiting]:
                    settle(item, failure)
                self._waiting = []
                if isinstance(exc, asyncio.CancelledError):
                    raise

    async def _commit(self, batch: list[Append]) -> None:
        if len(batch) == 1:
            await self._alone(batch[0])
            return
        try:
            await self._write_batch(batch)
        except IntegrityError:  # nothing of the group was written
            for item in batch:
                await self._alone(item)
            return
        self.commits += 1
        self.appends += len(batch)
        for item in batch:
            settle(item, None)

    async def _alone(self, item: Append) -> None:
        try:
            await self._write_one(item)
        except Exception as exc:
            settle(item, exc)
            return
        self.commits += 1
        self.appends += 1
        settle(item, None)
