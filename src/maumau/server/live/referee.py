"""The referee of one live table: commits steps, then tells every connection.

Every change goes the same way, under the table's lock: the engine applies it (an
illegal move changes nothing), the store commits it, and only then are the players
told.  If the store refuses, the table is rebuilt from what was committed.  The
referee also moves for computer players: bot seats, absent players' seats after the
grace period, and a seat whose turn timer ran out (see :mod:`maumau.server.live.stand_in`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import Callable, Iterable
from typing import NoReturn, TypeVar

from maumau.engine import Game, IllegalAction
from maumau.engine.actions import Action
from maumau.server.live.chat import ChatRoom
from maumau.server.live.follow import Follower, absorb, catch_up
from maumau.server.live.metrics import UNCOUNTED
from maumau.server.live.presence import Facts, PresenceNotices
from maumau.server.live.results import game_end, round_end, welcome
from maumau.server.live.seat_requests import OpenRequests
from maumau.server.live.stand_in import StandIn
from maumau.server.live.states import state_texts
from maumau.server.live.table import Table, new_deal, read_action
from maumau.server.live.tasks import quiet, unbroken
from maumau.server.transport.connection import Connection
from maumau.server.wire.errors import ServerError
from maumau.server.wire.model import Model
from maumau.server.wire.protocol import Ack, Closed, Lobby
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
        #: what ``/metrics`` counts (the hub's)
        self.metrics = UNCOUNTED
        self.last_seen = max(table.last_active_at, table.created_at)
        #: other processes' connected seats: origin -> (seats, valid until, monotonic)
        self.remote: dict[str, tuple[frozenset[int], float]] = {}
        # (through a weak proxy, as the stand-in: no cycle keeps an unloaded table alive)
        me: Referee = weakref.proxy(self)
        #: catching up with other processes' changes
        self.follower = Follower(table.id, lambda table_too: catch_up(me, table_too))
        self.presence = PresenceNotices(
            lambda: me.presence_facts(), lambda t: me.send_all(t), lambda: me.clock()
        )
        #: the table's reactions and chat (maumau.server.live.chat)
        self.chat = ChatRoom(me)
        #: the server is draining and this table is done here: no move is taken any more
        #: (see :mod:`maumau.server.ops.drain`)
        self.stopped = False
        #: late friends' open requests for computer-played seats (server/live/takeover.py)
        self.seat_requests = OpenRequests(self)

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

    def presence_facts(self) -> Facts:
        """Who is at the table: connected seats, stand-ins, spectators here, and the
        seats nobody is connected to."""
        spectators = sum(1 for c in self.connections if c.seat is None)
        away = tuple((s, since, at) for s, (since, at) in sorted(self.stand_in.away.items()))
        connected = tuple(sorted(self.connected()))
        return connected, tuple(sorted(self.table.stand_in)), spectators, away

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
        self.presence.changed()
        self.seat_requests.prune(self.stand_in.computer_seats())
        if now - before:
            self.stand_in.poke()  # a player came back elsewhere: a paused table goes on

    def announce(self) -> None:
        """Tell other processes (PostgreSQL) which seats are connected here."""
        if self.store.shared:
            task = asyncio.get_running_loop().create_task(
                self.store.announce([(self.table.id, sorted(self.here()))])
            )
            task.add_done_callback(quiet)

    def join(self, conn: Connection, seat: int | None, key: str | None = None) -> None:
        """Seat ``conn`` at ``seat``, the position the token hash ``key`` holds now
        (``None`` and ``None``: a spectator).  The caller holds the table's lock and
        found ``seat`` from ``key`` under it: seats change only under the lock."""
        table = self.table
        if not table.holds(seat, key):
            raise ValueError(f"table {table.id}: seat {seat} is not the one the token holds")
        conn.seat, conn.seat_key = seat, key
        conn.greeted = True
        conn.round, conn.logged = -1, 0
        self.connections.add(conn)
        self.last_seen = self.clock()
        if seat is not None:
            self.announce()
        conn.send(welcome(self.table, seat))
        if seat is not None:
            self.stand_in.returned(seat)
        conn.send(self.lobby())  # the whole table for the newcomer; a presence for the rest
        facts = self.presence_facts()
        if facts[3]:  # who is away, and since when: not in the lobby
            conn.send_text(self.presence.message(facts))
        self.presence.changed()
        if table.game is not None:
            conn.send_text(self.state_texts([conn])[0])
        self.seat_requests.prune(self.stand_in.computer_seats())
        self.seat_requests.greet(conn)
        self.stand_in.poke()

    def leave(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.seat_requests.left(conn)
        self.last_seen = self.clock()
        seat = conn.seat
        if seat is not None and seat not in self.here():
            self.announce()
        if seat is not None and seat not in self.connected():
            self.stand_in.absent(seat)
        self.presence.changed()
        if self.table.game is not None:
            self.stand_in.poke()  # between rounds, nobody may be left to wait for

    def seats_changed(self) -> None:
        """The seats changed (one was removed here, or another process changed them;
        the caller holds the lock): each connection's position is found again from
        its seat's identity, the token hash it presented.  A connection whose seat
        moved is welcomed again with its new position; one whose seat is gone is told
        so (``closed``, ``seat_removed``) and let go.  Then the absences start again
        from the new positions, and everyone is told."""
        table = self.table
        self.stand_in.stop()
        table.stand_in.clear()
        for conn in list(self.connections):
            key = conn.seat_key
            if key is None:
                continue
            seat = table.seat_of(key)
            if seat is None:
                self.connections.discard(conn)
                conn.seat = conn.seat_key = None
                conn.close(
                    Closed(code="seat_removed", message="your seat was removed from the table")
                )
            elif seat != conn.seat:
                conn.seat = seat
                conn.send(welcome(table, seat))
        self.seat_requests.bind()  # (a host at another process gave a seat to one here)
        self.stand_in.start_absences()
        self.broadcast_lobby()
        if table.game is not None:  # (a seat taken over elsewhere: its new name)
            self.broadcast_state()
        self.announce()

    def close_all(self, code: str, message: str, close_code: int = 1000) -> None:
        """Tell every connection ``closed`` (``code``, ``message``) and close it with the
        WebSocket ``close_code``."""
        for conn in list(self.connections):
            conn.close(Closed(code=code, message=message), close_code)
        self.connections.clear()
        self.seat_requests.clear()
        self.presence.cancel()
        self.stand_in.stop()

    # --- telling players --------------------------------------------------------------

    def broadcast(self, message: Model) -> None:
        self.send_all(message.model_dump_json())

    def send_all(self, text: str) -> None:
        for conn in self.connections:
            conn.send_text(text)

    def lobby(self) -> Lobby:
        facts = self.presence_facts()
        return Lobby(game=self.table.info(set(facts[0]), facts[2]))

    def broadcast_lobby(self) -> None:
        """Tell everyone the whole table (its seats, status or host changed)."""
        self.broadcast(self.lobby())
        facts = self.presence_facts()
        # (a lobby does not say who is away: a presence follows it when somebody is)
        self.presence.told = None if facts[3] else facts
        if facts[3]:
            self.presence.changed()
        self.seat_requests.prune(self.stand_in.computer_seats())

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
        game = self.table.require_game()
        clocks = self.stand_in.deadline_for(game), self.stand_in.next_round_at(game)
        return state_texts(self.table, clocks, conns, ack, self.clock())

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
            self.refuse_if_stopped()
            if conn.seat != seat:  # (seats change only in the lobby, where nobody acts)
                raise ServerError("game_not_started", "the seats changed: no game is on")
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

    def refuse_if_stopped(self) -> None:
        """A move that comes once the table is done here (the server is draining) is
        refused, not taken: the client sends it again where it reconnects."""
        if self.stopped:
            raise ServerError("server_stopping", "the server is restarting; reconnect soon")

    async def apply(
        self,
        seat: int,
        action: Action,
        client_id: str | None = None,
        sender: Connection | None = None,
        by: str | None = None,
    ) -> None:
        """Apply, commit and announce one action (the caller holds the table's lock).
        The ``sender`` of a player's move finds its ``action_id`` in its ``state``;
        ``by`` marks a move the server made for a player (``"timeout"``, ``"stand_in"``)."""
        table = self.table
        try:
            step = table.try_action(seat, action, client_id, by)
        except IllegalAction as exc:
            raise ServerError(exc.code, exc.message) from None
        started = time.perf_counter()
        await self.commit(step)
        game = table.require_game()
        if game.round_over:
            table.ready.clear()
            table.round_ended_at = self.clock()
        self.broadcast_state(None if sender is None or client_id is None else (sender, client_id))
        self.metrics.moved(time.perf_counter() - started)
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
        log.warning(
            "table %s: a step could not be stored: %s", table.id, exc, extra={"table": table.id}
        )
        raise ServerError(
            "store_unavailable", "the database cannot be reached; nothing was changed"
        )

    async def reload(self, table_too: bool = True) -> None:
        """Catch up with what another process committed (the caller holds the lock):
        its steps, and (``table_too``) its changes to seats and status.  The players
        are told."""
        table = self.table
        try:
            row = await self.store.game(table.id) if table_too else None
            steps = await self.store.steps(table.id, table.step_count - 1)
        except StoreError:
            table.rebuild(table.steps())
            return
        await absorb(self, row, steps)

    async def caught_up(self) -> None:
        """Catch up with everything other processes committed before now (shared
        databases; see :meth:`Follower.caught_up`): for answers that must show the
        latest."""
        if self.store.shared:
            await self.follower.caught_up()

    def follow(self, steps_only: bool = False) -> None:
        """Another process changed this table: catch up soon (see :mod:`follow`)."""
        self.follower.follow(steps_only)

    async def ready(self, conn: Connection) -> None:
        """A player is ready for the next round."""
        seat = conn.seat
        if seat is None:
            raise ServerError("not_seated", "spectators cannot act: claim a seat to play")
        async with self.table.lock:
            game = self.table.game
            if game is None or not game.round_over or game.finished:
                raise ServerError("not_between_rounds", "ready is only said between rounds")
            if seat in self.table.ready:
                return  # said already: nothing changes, so nobody is told anything
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
            log.warning(
                "table %s: could not mark finished: %s", table.id, exc, extra={"table": table.id}
            )
        self.broadcast_lobby()
