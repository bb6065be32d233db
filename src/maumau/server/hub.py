"""The hub: every live table of this process, loaded from the store on demand.

At start the hub resumes every unfinished game from its stored record; afterwards it
loads a table the first time someone asks for it, closes tables nobody has been
connected to for their idle time, and lets finished tables leave memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from maumau.server.config import ServerConfig
from maumau.server.errors import ServerError
from maumau.server.referee import Referee
from maumau.server.table import Table
from maumau.store import GameRow, Store, StoreError

log = logging.getLogger("maumau.server")


class Hub:
    """Tables by id, each with its referee."""

    def __init__(
        self, store: Store, config: ServerConfig, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.referees: dict[str, Referee] = {}
        self.loading = asyncio.Lock()
        self.sweeper: asyncio.Task[None] | None = None

    async def referee(self, game_id: str) -> Referee:
        """The referee of a table, loading it from the store if it is not live here."""
        referee = self.referees.get(game_id)
        if referee is not None:
            return referee
        async with self.loading:
            referee = self.referees.get(game_id)
            if referee is not None:
                return referee
            try:
                loaded = await self.store.load(game_id) if _plausible(game_id) else None
            except StoreError as exc:
                raise ServerError(
                    "store_unavailable", f"the table cannot be loaded: {exc}"
                ) from None
            if loaded is None:
                raise ServerError("unknown_game", f"there is no table {game_id!r}")
            row, steps = loaded
            return self.add(Table.load(row, steps))

    def add(self, table: Table) -> Referee:
        referee = Referee(table, self.store, self.clock)
        self.referees[table.id] = referee
        if table.status == "playing":
            referee.stand_in.start_absences()
            referee.stand_in.poke()
        return referee

    async def create(self, row: GameRow) -> Referee:
        try:
            await self.store.create_game(row)
        except StoreError as exc:
            raise ServerError("store_unavailable", f"the table cannot be stored: {exc}") from None
        return self.add(Table.load(row, []))

    async def resume(self) -> int:
        """Load every unfinished game; their computer players and timers start again."""
        ids = await self.store.game_ids(("lobby", "playing"))
        for game_id in ids:
            try:
                await self.referee(game_id)
            except Exception:
                log.exception("table %s could not be resumed", game_id)
        return len(ids)

    # --- housekeeping -----------------------------------------------------------------

    async def sweep(self) -> None:
        """Close idle tables and unload finished ones nobody watches."""
        now = self.clock()
        for referee in list(self.referees.values()):
            table = referee.table
            if referee.connections:
                referee.last_seen = now
                continue
            idle = now - referee.last_seen
            if table.status in ("lobby", "playing"):
                if idle >= table.settings.idle_close_seconds:
                    await self.close_table(referee)
            elif idle >= self.config.unload_seconds:
                self.unload(referee)

    async def close_table(self, referee: Referee) -> None:
        table = referee.table
        async with table.lock:
            try:
                await self.store.set_status(table.id, "closed", self.clock())
            except StoreError as exc:
                log.warning("table %s could not be closed: %s", table.id, exc)
                return
            table.status = "closed"
            referee.close_all("table_closed", "the table was closed: nobody was connected")
        self.unload(referee)
        log.info("table %s closed after its idle time", table.id)

    def unload(self, referee: Referee) -> None:
        referee.stand_in.stop()
        self.referees.pop(referee.table.id, None)

    async def run_sweeper(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_seconds)
            try:
                await self.sweep()
            except Exception:
                log.exception("the idle-table sweep failed")

    def start(self) -> None:
        self.sweeper = asyncio.get_running_loop().create_task(self.run_sweeper())

    async def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.sweeper
        for referee in list(self.referees.values()):
            await referee.stand_in.finish()
            referee.close_all("server_stopping", "the server is restarting; reconnect soon")
        self.referees.clear()

    @property
    def connections(self) -> int:
        return sum(len(r.connections) for r in self.referees.values())


def _plausible(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and all(c.isalnum() or c in "-_" for c in game_id)
