"""Computer players at a live table: bot seats, absent players and the turn timer.

A bot seat always plays itself.  A human seat is played by a stand-in (the table's
``stand_in_level``) once its player has been gone for the grace period, until they come
back; and when the turn timer runs out, the stand-in makes that one move.  Bots see
only what their seat may see: the seat's view and its legal actions.

One task at a time is scheduled: after every change the plan is made again, and a
task that wakes up to an older plan does nothing.  Every plan passes the table's
budget (:mod:`maumau.server.live.budget`): with no human player connected a table moves no
faster than the server's floor, and after a while, or past its creator's share, it is
paused until a human player connects; and, attended or not, a table whose ``hard``
players used more than their share of the workers waits until it is paid off.  The
``hard`` bot thinks in a worker process (:mod:`maumau.server.live.workers`); the cheap
levels take microseconds and stay here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import weakref
from collections.abc import Callable
from typing import Protocol, cast

from maumau.bots import Bot, make_bot
from maumau.engine import Action, Game, SeatView
from maumau.server.live.budget import Budget
from maumau.server.live.metrics import Counts
from maumau.server.live.table import Table
from maumau.server.wire.errors import ServerError

log = logging.getLogger("maumau.server")

#: seconds before a deal the store refused is tried again
RETRY_SECONDS = 1.0


class Host(Protocol):
    """What a stand-in needs of its table's referee
    (:class:`maumau.server.live.referee.Referee`, which owns it)."""

    table: Table
    clock: Callable[[], float]
    metrics: Counts

    def connected(self) -> set[int]: ...

    def broadcast_lobby(self) -> None: ...

    def broadcast_state(self) -> None: ...

    async def deal_if_due(self) -> None: ...

    async def apply(
        self,
        seat: int,
        action: Action,
        client_id: str | None = None,
        sender: None = None,
        by: str | None = None,
    ) -> None: ...


class StandIn:
    """Schedules the moves nobody at a keyboard makes."""

    def __init__(self, referee: Host) -> None:
        # weakly: the referee owns its stand-in, and a strong reference back would be a
        # cycle that keeps an unloaded table, whole game and all, in memory until the
        # cycle collector's next full collection (minutes apart on a busy server)
        self.referee: Host = cast(Host, weakref.proxy(referee))
        self.table = referee.table
        self.bots: dict[tuple[int, str], Bot] = {}
        self.generation = 0
        self.task: asyncio.Task[None] | None = None
        self.grace: dict[int, asyncio.TimerHandle] = {}
        #: human seats with no connection: seat -> (unix time since when, unix time when
        #: a stand-in takes over, ``None``: never, or it has taken over already)
        self.away: dict[int, tuple[float, float | None]] = {}
        #: (version, unix time) when the seat to move at that version runs out of time
        self.deadline: tuple[int, float] | None = None
        #: the version at which computer players were last offered a catch
        self.offered = -1
        #: a move is being made (its task holds the table's lock)
        self.busy = False
        #: the hub's budget of computer play (``None``: unlimited, and no workers)
        self.budget: Budget | None = None
        #: for good: the server is stopping (no computer move is planned any more)
        self.halted = False

    # --- who plays ----------------------------------------------------------------------

    def controlled(self, seat: int) -> bool:
        return self.table.is_bot(seat) or seat in self.table.stand_in

    def computer_seats(self) -> list[int]:
        """The seats a computer plays now in a game being played (a late friend may
        ask for one: :mod:`maumau.server.live.takeover`)."""
        table, game = self.table, self.table.game
        if table.status != "playing" or game is None or game.finished:
            return []
        return [s.position for s in table.seats if self.controlled(s.position)]

    def level_of(self, seat: int) -> str:
        row = self.table.seats[seat]
        return row.level if row.kind == "bot" and row.level else self.table.settings.stand_in_level

    def bot(self, seat: int) -> Bot:
        level = self.level_of(seat)
        key = (seat, level)
        bot = self.bots.get(key)
        if bot is None:
            bot = self.bots[key] = make_bot(level, secrets.randbits(32))
        return bot

    def absent(self, seat: int) -> None:
        """A human seat lost its last connection: start its grace period."""
        grace = self.table.settings.grace_seconds
        if self.halted or self.table.is_bot(seat) or seat in self.grace or seat in self.away:
            return
        now = self.referee.clock()
        taken = seat in self.table.stand_in
        self.away[seat] = (now, None if grace is None or taken else now + grace)
        if grace is None or taken:
            return
        loop = asyncio.get_running_loop()
        self.grace[seat] = loop.call_later(grace, self.take_over, seat)

    def returned(self, seat: int) -> None:
        """The player is back: cancel the grace period, give the seat back."""
        handle = self.grace.pop(seat, None)
        if handle is not None:
            handle.cancel()
        self.away.pop(seat, None)
        self.table.stand_in.discard(seat)

    def take_over(self, seat: int) -> None:
        self.grace.pop(seat, None)
        if seat in self.referee.connected() or self.table.status in ("finished", "closed"):
            return
        self.table.stand_in.add(seat)
        if seat in self.away:
            self.away[seat] = (self.away[seat][0], None)
        self.referee.metrics.took_over()
        self.referee.broadcast_lobby()
        if self.table.game is not None:
            self.referee.broadcast_state()
        self.poke()

    def start_absences(self) -> None:
        """Start the grace period of every human seat nobody is connected to (at the
        start of a game, and when a restarted server resumes one)."""
        connected = self.referee.connected()
        for row in self.table.seats:
            if row.kind == "human" and row.position not in connected:
                self.absent(row.position)

    def deadline_for(self, game: Game) -> float | None:
        """When the turn timer of the seat to move runs out (``None``: no timer runs)."""
        seconds = self.table.settings.turn_seconds
        seat = game.to_move
        if seconds is None or seat < 0 or game.round_over or self.controlled(seat):
            return None
        if self.deadline is None or self.deadline[0] != game.version:
            self.deadline = (game.version, self.referee.clock() + seconds)
        return self.deadline[1]

    def next_round_at(self, game: Game) -> float | None:
        """Between rounds: when the next round is dealt at the latest (``None``: at
        once, because every player present is ready, or no countdown is set)."""
        table = self.table
        if not game.round_over or game.finished:
            return None
        connected = self.referee.connected()
        waiting = [
            s.position
            for s in table.seats
            if s.kind == "human"
            and s.position in connected
            and s.position not in table.stand_in
            and s.position not in table.ready
        ]
        seconds = table.settings.next_round_seconds
        if not waiting or seconds <= 0:
            return None
        if table.round_ended_at is None:  # resumed between rounds: count from now
            table.round_ended_at = self.referee.clock()
        return table.round_ended_at + seconds

    # --- scheduling ---------------------------------------------------------------------

    def poke(self) -> None:
        """Plan the next computer move after a change (or nothing, if none is due)."""
        self.generation += 1
        if self.halted:
            return
        delay = self.plan()
        if delay is None:
            return
        self.task = asyncio.get_running_loop().create_task(self.run(delay, self.generation))

    def stop(self) -> None:
        """No more computer moves or takeovers (a move being made is finished)."""
        self.generation += 1
        for handle in self.grace.values():
            handle.cancel()
        self.grace.clear()
        self.away.clear()

    def halt(self) -> None:
        """:meth:`stop` for good: no computer move is planned after this, whatever
        changes (the server is stopping; another process, or this one started again,
        plays on from the record)."""
        self.halted = True
        self.stop()

    async def finish(self) -> None:
        """:meth:`halt`, then wait for a move being made to be committed, so that the
        store can be closed under nobody's feet."""
        self.halt()
        task = self.task
        if task is None or task.done():
            return
        if not self.busy:
            task.cancel()  # still waiting for its delay: nothing to finish
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), 10)

    def plan(self) -> float | None:
        """Seconds until the next computer move, or ``None``: what is due, as the
        budget allows it (``None`` also while the table is paused)."""
        delay = self.due()
        return (
            delay
            if self.budget is None
            else self.budget.admit(self.table, self.referee.connected(), self.show_paused, delay)
        )

    def show_paused(self, paused: bool) -> None:
        """The budget paused the table's computer play, or let it go on: tell everyone."""
        if self.table.paused != paused:
            self.table.paused = paused
            self.referee.broadcast_lobby()

    def due(self) -> float | None:
        """Seconds until the next computer move by the table's settings, or ``None``."""
        table = self.table
        game = table.game
        if table.status != "playing":
            return None
        if game is None:
            return 0.0  # the first deal is due
        if game.round_over:
            if game.finished:
                return None
            at = self.next_round_at(game)
            return 0.0 if at is None else max(0.0, at - self.referee.clock())
        delay = table.settings.bot_delay_ms / 1000
        if self.catchers(game):
            return delay
        seat = game.to_move
        if self.controlled(seat):
            return delay
        deadline = self.deadline_for(game)
        if deadline is not None:
            return max(0.0, deadline - self.referee.clock())
        return None

    def catchers(self, game: Game) -> list[int]:
        """Computer-played seats that may catch a missed call now, in seat order after
        the seat that missed it (the seat to move decides in its own turn)."""
        target = game.round.catchable
        if target < 0 or self.offered == game.version:
            return []
        n = game.n
        order = [(target + i) % n for i in range(1, n)]
        return [
            s for s in order if s != game.to_move and self.controlled(s) and game.legal_actions(s)
        ]

    async def run(self, delay: float, generation: int) -> None:
        await asyncio.sleep(delay)
        table = self.table
        async with table.lock:
            if generation != self.generation:
                return
            self.busy = True
            try:
                await self.move()
            except ServerError as exc:
                if exc.code == "conflict":  # another process moved first: it was reloaded
                    log.info(
                        "table %s: another process moved first", table.id, extra={"table": table.id}
                    )
                    self.poke()
                    return
                log.warning(
                    "table %s: a computer move failed: %s",
                    table.id,
                    exc.message,
                    extra={"table": table.id},
                )
                if exc.code == "store_unavailable":
                    self.retry_later()
            except Exception:
                log.exception(
                    "table %s: a computer move crashed", table.id, extra={"table": table.id}
                )
            finally:
                self.busy = False

    def retry_later(self) -> None:
        if self.halted:
            return
        generation = self.generation + 1
        self.generation = generation
        self.task = asyncio.get_running_loop().create_task(self.run(RETRY_SECONDS, generation))

    async def move(self) -> None:
        """Make the move that is due (the table's lock is held)."""
        referee = self.referee
        game = self.table.game
        if self.table.status != "playing":
            return
        if game is None or (game.round_over and not game.finished):
            at = None if game is None else self.next_round_at(game)
            if at is not None and at > referee.clock():
                self.poke()  # the countdown was moved since this was planned
                return
            await referee.deal_if_due()
            self.poke()
            return
        if game.round_over:
            return
        for seat in self.catchers(game):
            self.offered = game.version
            started = time.perf_counter()
            action = self.bot(seat).react(game.view(seat), game.legal_actions(seat))
            referee.metrics.decided(self.level_of(seat), time.perf_counter() - started)
            if action is not None:
                await referee.apply(seat, action, by=self.mover(seat))
                return
        self.offered = game.version
        seat = game.to_move
        deadline = self.deadline_for(game)
        expired = deadline is not None and deadline <= referee.clock()
        if not (self.controlled(seat) or expired):
            self.poke()
            return
        view, legal = game.view(seat), game.legal_actions(seat)
        level, started = self.level_of(seat), time.perf_counter()
        if level == "hard" and len(legal) > 1:
            action = await self.think(seat, view, legal)
        else:
            action = self.bot(seat).choose(view, legal)
        referee.metrics.decided(level, time.perf_counter() - started)
        await referee.apply(seat, action, by=self.mover(seat))

    def mover(self, seat: int) -> str | None:
        """Who makes a computer move for ``seat``: nobody but the seat itself for a bot
        seat, else a stand-in for an absent player, else the turn timer."""
        if self.table.is_bot(seat):
            return None
        return "stand_in" if seat in self.table.stand_in else "timeout"

    async def think(self, seat: int, view: SeatView, legal: tuple[Action, ...]) -> Action:
        """A ``hard`` decision: in a worker process (it searches for tens of
        milliseconds, which would hold up every table here).  Should the workers fail,
        the ``normal`` bot decides instead, so that the game goes on."""
        if self.budget is None:
            return await asyncio.to_thread(self.bot(seat).choose, view, legal)
        try:
            return await self.budget.decide(self.table.id, view, legal)
        except Exception:
            log.exception(
                "table %s: a worker could not decide; the normal bot does",
                self.table.id,
                extra={"table": self.table.id},
            )
            return make_bot("normal", secrets.randbits(32)).choose(view, legal)
