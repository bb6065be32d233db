"""Catching up with other server processes: at most one catch-up of a table at a time.

Another process that changes a shared table (PostgreSQL) says so in a change notice;
the table then reads what it missed.  Notices that come while a catch-up runs are
caught by the next one, so a burst of notices costs a read or two, not one each.  A
request that must show the latest (table info, a ``hello`` whose token another
process may have just seated) waits for the next catch-up to start, the same way: any
number of them at once cost a read or two too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from maumau.engine import EngineError
from maumau.server.live.results import game_end, round_end
from maumau.server.live.table import Table
from maumau.server.wire.model import Model
from maumau.store import GameRow, StepRow, Store, StoreError

log = logging.getLogger("maumau.server")


class Follower:
    """Runs ``catch_up(table_too)`` (which takes the table's lock itself) after
    change notices of table ``table_id``."""

    def __init__(self, table_id: str, catch_up: Callable[[bool], Awaitable[None]]) -> None:
        self._table_id = table_id
        self._catch_up = catch_up
        self._behind = self._behind_table = False
        self._task: asyncio.Task[None] | None = None
        #: resolved when the next catch-up to start has ended (those waiting for it)
        self._next: asyncio.Future[None] | None = None

    def follow(self, steps_only: bool = False) -> None:
        """Another process changed the table: catch up soon.  When only steps were
        added, only the steps are read."""
        self._behind = True
        self._behind_table = self._behind_table or not steps_only
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def caught_up(self) -> None:
        """Catch up with everything committed before this call, and return when that
        is done: waits for the next catch-up to start (one that runs now may have read
        too early), which every caller meanwhile shares."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        done = self._next
        self.follow()
        await asyncio.shield(done)  # (a caller that leaves does not cancel the others')

    async def _run(self) -> None:
        try:
            while self._behind:
                table_too, self._behind, self._behind_table = self._behind_table, False, False
                done, self._next = self._next, None
                try:
                    await self._catch_up(table_too)
                except ReferenceError:  # the table left memory: nothing to catch up with
                    return
                except Exception:
                    log.exception(
                        "table %s: could not catch up with another process",
                        self._table_id,
                        extra={"table": self._table_id},
                    )
                finally:
                    _resolve(done)
        finally:
            _resolve(self._next)  # (left memory: nobody waits for a catch-up that won't come)
            self._next = None


def _resolve(done: asyncio.Future[None] | None) -> None:
    if done is not None and not done.done():
        done.set_result(None)


class Absences(Protocol):
    def start_absences(self) -> None: ...

    def poke(self) -> None: ...


class Followed(Protocol):
    """What catching up needs of a table's referee
    (:class:`maumau.server.live.referee.Referee`)."""

    table: Table
    store: Store
    clock: Callable[[], float]

    @property
    def stand_in(self) -> Absences:
        """Who starts and ends the absences, and moves for the absent (the stand-in)."""

    async def reload(self) -> None: ...

    async def finish_if_over(self) -> None: ...

    def close_all(self, code: str, message: str) -> None: ...

    def seats_changed(self) -> None: ...

    def broadcast(self, message: Model) -> None: ...

    def broadcast_lobby(self) -> None: ...

    def broadcast_state(self) -> None: ...


async def catch_up(referee: Followed, table_too: bool) -> None:
    """:meth:`Referee.reload`, reading outside the lock: the moves here wait for no
    read unless the stored table differs from this one (then it is read again under
    the lock, since a change made here meanwhile may be newer than what was read)."""
    table = referee.table
    try:
        row = await referee.store.game(table.id) if table_too else None
        steps = await referee.store.steps(table.id, table.step_count - 1)
    except StoreError:
        return
    news = bool(steps) and steps[-1].seq >= table.step_count
    if not news and (row is None or not table.differs(row)):
        return  # nothing new: the lock is not even waited for
    async with table.lock:
        if row is not None and table.differs(row):
            await referee.reload()
        else:
            await absorb(referee, None, steps)


async def absorb(referee: Followed, row: GameRow | None, steps: list[StepRow]) -> None:
    """Take what was read from the store (the caller holds the lock): the stored
    table ``row`` (``None``: not read) and the steps from this table's next one (some
    may be here already: read before they were committed here).  The players are
    told."""
    table = referee.table
    game = table.game
    rounds = 0 if game is None else len(game.results)
    finished = game is not None and game.finished
    steps = [s for s in steps if s.seq >= table.step_count]
    seats = table.seats
    if row is not None and table.adopt(row):
        if table.status == "closed":
            referee.close_all("table_closed", "the table was closed")
            return
        if table.seats != seats:
            referee.seats_changed()
        else:
            referee.broadcast_lobby()
            referee.stand_in.start_absences()
    if steps:
        try:  # (a step that does not follow on rebuilds from every committed step)
            for step in steps:
                table.accept(step)
        except (ValueError, EngineError):
            table.rebuild([*table.steps(), *[s for s in steps if s.seq >= table.step_count]])
    game = table.game
    if game is None:
        return
    if steps:
        if game.round_over and len(game.results) > rounds:
            table.ready.clear()
            table.round_ended_at = referee.clock()
        referee.broadcast_state()
        for index in range(rounds, len(game.results)):
            referee.broadcast(round_end(game, index))
        if game.finished and not finished:
            referee.broadcast(game_end(game))
            # the process that made the last move marks it finished too; until its
            # change arrives, this one would refuse the record it just announced
            await referee.finish_if_over()
    referee.stand_in.poke()
