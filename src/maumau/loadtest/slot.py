"""A game slot: one load table after another, all seats played by the load tool.

A slot sets its table up (create, seats, one WebSocket per seat, ``hello``), starts
it, waits for ``game_end``, and sets up the next one: replacing a finished table is
part of the measured load.  A game that stops making progress, or whose client gave
up reconnecting, is abandoned and replaced.
"""

from __future__ import annotations

import asyncio
import time

from maumau.loadtest.context import ClientContext
from maumau.loadtest.lobby import Grant, LobbyError, open_table, start_table
from maumau.loadtest.seat import SeatClient, SeatFailed

clock = time.monotonic


class LiveGame:
    """One load table being played."""

    def __init__(self, ctx: ClientContext, grants: list[Grant]) -> None:
        self.ctx = ctx
        self.id = grants[0].game_id
        self.grants = grants
        self.seats: list[SeatClient] = []
        self.progress = clock()
        self.started = False
        self.over = False
        self.done: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def finish(self, now: float) -> None:
        """The game ended (``game_end``)."""
        if not self.over:
            self.over = True
            if self.ctx.tally.inside(now):
                self.ctx.tally.games_finished += 1
            self.done.set_result("finished")

    def abandon(self, code: str) -> None:
        """Give the game up (counted as the error ``code``)."""
        if not self.over:
            self.over = True
            self.ctx.tally.error(clock(), code)
            self.done.set_result(code)

    def close(self) -> None:
        self.over = True
        for seat in self.seats:
            seat.close()
        self.ctx.games.discard(self)
        if not self.done.done():
            self.done.set_result("closed")

    def check(self, now: float) -> None:
        """Called every half second: moves without answer, games without progress."""
        if not self.started or self.over:
            return
        for seat in self.seats:
            seat.check(now)
        stalled = now - self.progress > self.ctx.options.stall_timeout
        if stalled and not any(seat.reconnecting for seat in self.seats):
            self.abandon("stalled")


class GameSlot:
    """Keeps one table going for the whole run."""

    def __init__(self, ctx: ClientContext, index: int, gate: asyncio.Semaphore) -> None:
        self.ctx = ctx
        self.index = index
        self.gate = gate
        endpoints = ctx.options.endpoints
        self.endpoint = endpoints[index % len(endpoints)]
        players = ctx.options.players
        if ctx.options.spread == "seat":
            self.seat_endpoints = [endpoints[(index + j) % len(endpoints)] for j in range(players)]
        else:
            self.seat_endpoints = [self.endpoint] * players
        self.ready = asyncio.Event()  # the first table is set up
        self.failures = 0

    async def set_up(self) -> LiveGame:
        """A new table, every seat connected and greeted, not started yet."""
        ctx = self.ctx
        http = ctx.http_for(self.endpoint)
        async with self.gate:
            grants = await open_table(http, ctx.options.preset, ctx.options.players)
            game = LiveGame(ctx, grants)
            game.seats = [
                SeatClient(ctx, game, grant, self.seat_endpoints[n])
                for n, grant in enumerate(grants)
            ]
            ctx.games.add(game)
            try:
                await asyncio.gather(*(seat.open() for seat in game.seats))
            except BaseException:
                game.close()
                raise
        return game

    async def run(self, go: asyncio.Event) -> None:
        ctx = self.ctx
        first = True
        while not ctx.stopping:
            began = clock()
            try:
                game = await self.set_up()
            except (LobbyError, SeatFailed) as exc:
                await self._failed(exc.code)
                continue
            if first:
                first = False
                self.ready.set()
                await go.wait()
                began = clock()
            try:
                await start_table(ctx.http_for(self.endpoint), game.grants[0])
            except LobbyError as exc:
                game.close()
                await self._failed(exc.code)
                continue
            now = clock()
            game.started = True
            game.progress = now
            self.failures = 0
            if ctx.tally.inside(now):
                ctx.tally.games_started += 1
                ctx.tally.setup_ms.append((now - began) * 1000.0)
            try:
                await game.done
            finally:
                game.close()

    async def _failed(self, code: str) -> None:
        """Count a failed setup and wait a little longer each time before the next."""
        self.ctx.tally.error(clock(), f"setup_{code}")
        self.failures += 1
        delay = min(0.05 * 2**self.failures, 2.0)
        await asyncio.sleep(delay * (0.5 + self.ctx.rng.random()))
