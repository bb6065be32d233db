"""The referee of one live table: commits steps, then tells every connection.

Every change goes the same way, under the table's lock: the engine applies it (an
illegal move changes nothing), the store commits it, and only then are the players
told.  If the store refuses, the table is rebuilt from what was committed.  The
referee also moves for computer players: bot seats, absent players' seats after the
grace period, and a seat whose turn timer ran out (see :mod:`maumau.server.stand_in`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import NoReturn, TypeVar

from maumau.engine import EngineError, Game, IllegalAction
from maumau.engine.actions import Action
from maumau.server.connection import Connection
from maumau.server.errors import ServerError
from maumau.server.protocol import (
    Ack,
    Closed,
    Lobby,
    Model,
)
from maumau.server.results import game_end, round_end, welcome
from maumau.server.stand_in import StandIn
from maumau.server.states import state_texts
from maumau.server.table import Table, new_deal, read_action
from maumau.store import SeqConflict, StepRow, Store, StoreError

log = logging.getLogger("maumau.server")

T = TypeVar("T")


class Referee:
    """The one writer of a table, and its connections."""

    def __init__(self, table: Table, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.store = store
        self.clock = clock
        self.connections: set[Connection] = set()
        self.stand_in = StandIn(self)
        self.last_seen = max(table.last_active_at, table.created_at)
        #: other processes' connected seats: origin -> (seats, valid until, monotonic)
        self.remote: dict[str, tuple[frozenset[int], float]] = {}
        #: catching up with other processes' changes (see :meth:`follow`)
        self.behind = self.behind_table = False
        self.follower: asyncio.Task[None] | None = None

    # --- connections ------------------------------------------------------------------

    def connected(self) -> set[int]:
        """The seats somebody is connected to, here or (PostgreSQL) at another process."""
        seats = self.here()
        if self.remote:
            now = time.monotonic()
            for present, until in self.remote.values():
                if until > now:
                    seats |= present
        return seats

    def here(self) -> set[int]:
        """The seats somebody is connected to at this process."""
        return {c.seat for c in self.connections if c.seat is not None}

    def present_elsewhere(self, origin: str, seats: frozenset[int], until: float) -> None:
        """Another process says which seats are connected to it (until ``until``, a
        monotonic time, unless it says so again): players there are not absent."""
        before = self.connected()
        if seats:
            self.remote[origin] = (seats, until)
        else:
            self.remote.pop(origin, None)
        self.recount(before)

    def recount(self, before: set[int]) -> None:
        """Start or end absences after who is connected changed (``before``: who was)."""
        now = self.connected()
        if now == before:
            return
        for seat in now - before:
            self.stand_in.returned(seat)
        if self.table.game is not None or self.table.status == "playing":
            for seat in before - now:
                self.stand_in.absent(seat)
        self.broadcast_lobby()

    def announce(self) -> None:
        """Tell other processes (PostgreSQL) which seats are connected here."""
        if self.store.shared:
            task = asyncio.get_running_loop().create_task(
                self.store.announce([(self.table.id, sorted(self.here()))])
            )
            task.add_done_callback(_quiet)

    def join(self, conn: Connection, seat: int | None) -> None:
        table = self.table
        conn.seat = seat
        conn.greeted = True
        conn.round, conn.logged = -1, 0
        self.connections.add(conn)
        self.last_seen = self.clock()
        if seat is not None:
            self.announce()
        conn.send(welcome(self.table, seat))
        if seat is not None:
            self.stand_in.returned(seat)
        self.broadcast_lobby()
        if table.game is not None:
            conn.send_text(self.state_texts([conn])[0])
        self.stand_in.poke()

    def leave(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.last_seen = self.clock()
        seat = conn.seat
        if seat is not None and seat not in self.here():
            self.announce()
        if seat is not None and seat not in self.connected():
            self.stand_in.absent(seat)
        self.broadcast_lobby()
        if self.table.game is not None:
            self.stand_in.poke()  # between rounds, nobody may be left to wait for

    def seat_removed(self, position: int) -> None:
        """Seats after ``position`` moved down one: renumber the connections (each is
        welcomed again with its new seat; the removed seat's become spectators) and
        the absences, then tell everyone."""
        table = self.table
        self.stand_in.stop()
        table.stand_in.clear()
        for conn in self.connections:
            seat = conn.seat
            if seat is None or seat < position:
                continue
            conn.seat = None if seat == position else seat - 1
            conn.send(welcome(self.table, conn.seat))
        self.stand_in.start_absences()
        self.broadcast_lobby()
        self.announce()

    def close_all(self, code: str, message: str) -> None:
        for conn in list(self.connections):
            conn.close(Closed(code=code, message=message))
        self.connections.clear()
        self.stand_in.stop()

    # --- telling players --------------------------------------------------------------

    def broadcast(self, message: Model) -> None:
        text = message.model_dump_json()
        for conn in self.connections:
            conn.send_text(text)

    def broadcast_lobby(self) -> None:
        self.broadcast(Lobby(game=self.table.info(self.connected())))

    def broadcast_state(self, ack: tuple[Connection, str] | None = None) -> None:
        """Send every connection its ``state``; ``ack``: the connection whose move it
        follows and the move's ``action_id``."""
        texts = self.state_texts(self.connections, ack)
        for conn, text in zip(self.connections, texts, strict=True):
            conn.send_text(text)

    def state_texts(
        self, conns: Iterable[Connection], ack: tuple[Connection, str] | None = None
    ) -> list[str]:
        """The ``state`` message for each of ``conns``, as JSON text."""
        return state_texts(self.table, self.stand_in, conns, ack)

    # --- changing the game ------------------------------------------------------------

    async def act(
        self, conn: Connection, version: int, action_id: str, data: dict[str, object]
    ) -> None:
        """A player's move: once committed, the mover's ``state`` acknowledges it; a
        move whose ``action_id`` was applied already gets an ``ack``; else an error."""
        seat = conn.seat
        if seat is None:
            raise ServerError("not_seated", "spectators cannot act: claim a seat to play")
        action = read_action(seat, dict(data), self.table.rules)
        table = self.table
        async with table.lock:
            game = table.require_game()
            recent = table.recent.get(seat)
            done = None if recent is None else recent.get(action_id)
            if done is not None:
                conn.send(Ack(action_id=action_id, version=done, duplicate=True))
                return
            if version != game.version:
                raise ServerError(
                    "stale_version",
                    f"this move was made at version {version}, the game is at {game.version}",
                )
            await self.apply(seat, action, action_id, conn)

    async def apply(
        self,
        seat: int,
        action: Action,
        client_id: str | None = None,
        sender: Connection | None = None,
    ) -> None:
        """Apply, commit and announce one action (the caller holds the table's lock).
        The ``sender`` of a player's move finds its ``action_id`` in its ``state``."""
        table = self.table
        try:
            step = table.try_action(seat, action, client_id)
        except IllegalAction as exc:
            raise ServerError(exc.code, exc.message) from None
        await self.commit(step)
        game = table.require_game()
        if game.round_over:
            table.ready.clear()
            table.round_ended_at = self.clock()
        self.broadcast_state(None if sender is None or client_id is None else (sender, client_id))
        if game.round_over:
            self.round_ended(game)
        if game.finished:
            await self.finish_if_over()
        self.stand_in.poke()  # the next move, or the next deal when it is due

    async def commit(self, step: StepRow) -> None:
        """Store a step that the table has applied; on failure, undo it by rebuilding."""
        table = self.table
        try:
            # (an append is written to its end even if this task is cancelled meanwhile)
            await self.store.append(table.id, [step], self.clock())
        except asyncio.CancelledError:
            # the commit finished (or failed) all the same: find out which
            table.rebuild(table.steps())
            with contextlib.suppress(BaseException):
                await self.reload()
            raise
        except StoreError as exc:
            await self.failed(exc)
        except BaseException:  # crashed mid-commit: undo, then let it go on
            table.rebuild(table.steps())
            raise
        table.committed(step)

    async def failed(self, exc: StoreError) -> NoReturn:
        """Undo a step the store refused, and say why."""
        table = self.table
        if isinstance(exc, SeqConflict):
            table.rebuild(table.steps())
            await self.reload()
            raise ServerError(
                "conflict", "another server process changed this game first; try again"
            )
        table.rebuild(table.steps())
        log.warning("table %s: a step could not be stored: %s", table.id, exc)
        raise ServerError(
            "store_unavailable", "the database cannot be reached; nothing was changed"
        )

    async def reload(self, table_too: bool = True) -> None:
        """Catch up with what another process committed (the caller holds the lock):
        its steps, and (``table_too``) its changes to seats and status.  The players
        are told."""
        table = self.table
        game = table.game
        rounds = 0 if game is None else len(game.results)
        finished = game is not None and game.finished
        try:
            row = await self.store.game(table.id) if table_too else None
            steps = await self.store.steps(table.id, table.step_count - 1)
        except StoreError:
            table.rebuild(table.steps())
            return
        if row is not None and table.adopt(row):
            if table.status == "closed":
                self.close_all("table_closed", "the table was closed")
                return
            self.broadcast_lobby()
            self.stand_in.start_absences()
        if steps:
            self.accept_all(steps)
        game = table.game
        if game is None:
            return
        if steps:
            if game.round_over and len(game.results) > rounds:
                table.ready.clear()
                table.round_ended_at = self.clock()
            self.broadcast_state()
            for index in range(rounds, len(game.results)):
                self.broadcast(round_end(game, index))
            if game.finished and not finished:
                self.broadcast(game_end(game))
        self.stand_in.poke()

    def accept_all(self, steps: list[StepRow]) -> None:
        """Apply steps another process committed (a step that does not follow on
        rebuilds the game from every committed step)."""
        table = self.table
        try:
            for step in steps:
                table.accept(step)
        except (ValueError, EngineError):
            table.rebuild([*table.steps(), *[s for s in steps if s.seq >= table.step_count]])

    def follow(self, steps_only: bool = False) -> None:
        """Another process changed this table: catch up soon (at most one catch-up
        runs at a time; changes announced meanwhile are caught by the next).  When
        only steps were added, only the steps are read."""
        self.behind = True
        self.behind_table = self.behind_table or not steps_only
        if self.follower is None or self.follower.done():
            self.follower = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        while self.behind:
            table_too, self.behind, self.behind_table = self.behind_table, False, False
            try:
                async with self.table.lock:
                    await self.reload(table_too)
            except Exception:
                log.exception("table %s: could not catch up with another process", self.table.id)

    async def ready(self, conn: Connection) -> None:
        """A player is ready for the next round."""
        seat = conn.seat
        if seat is None:
            raise ServerError("not_seated", "spectators cannot act: claim a seat to play")
        async with self.table.lock:
            game = self.table.game
            if game is None or not game.round_over or game.finished:
                raise ServerError("not_between_rounds", "ready is only said between rounds")
            self.table.ready.add(seat)
            self.broadcast_state()
            self.stand_in.poke()

    def round_ended(self, game: Game) -> None:
        self.broadcast(round_end(game, len(game.results) - 1))
        if game.finished:
            self.broadcast(game_end(game))

    async def deal_if_due(self) -> None:
        """Deal the next round when the game waits for one (the caller holds the lock).
        A deal that cannot be stored is tried again by the stand-in loop."""
        table = self.table
        game = table.game
        if table.status != "playing":
            return
        if game is not None and (game.finished or not game.round_over):
            return
        step = table.try_deal(new_deal())
        await self.commit(step)
        table.ready.clear()
        table.round_ended_at = None
        self.broadcast_state()

    async def finish_if_over(self) -> None:
        """Mark a finished game as such in the store (the record already says so)."""
        table = self.table
        game = table.game
        if game is None or not game.finished or table.status != "playing":
            return
        table.status = "finished"
        try:
            await unbroken(self.store.set_status(table.id, "finished", self.clock()))
        except StoreError as exc:
            log.warning("table %s: could not mark finished: %s", table.id, exc)
        self.broadcast_lobby()


async def unbroken(work: Awaitable[T]) -> T:
    """Await ``work`` (a store write) to its end even if the awaiting task is cancelled
    (its client went away): a write is never abandoned halfway.  The cancellation is
    passed on once the write has finished."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), 30)
        raise


def _quiet(task: asyncio.Task[None]) -> None:
    """A presence notice that could not be sent is sent again with the next heartbeat."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("a presence notice was not sent: %s", task.exception())
