"""The hub: every live table of this process, loaded from the store on demand.

At start the hub resumes every unfinished game from its stored record; afterwards it
loads a table the first time someone asks for it, closes tables nobody has been
connected to for their idle time, and lets finished tables leave memory.  On
PostgreSQL several processes may hold the same table: each hears of the others'
changes (see :mod:`maumau.store.notify`) and catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from maumau.server.config import ServerConfig
from maumau.server.live.archive import Archive
from maumau.server.live.budget import Budget
from maumau.server.live.metrics import Counts
from maumau.server.live.notices import Notices
from maumau.server.live.referee import Referee
from maumau.server.live.table import Table, plausible_id
from maumau.server.live.tasks import quiet
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError, store_unavailable
from maumau.store import GameRow, Store, StoreError

log = logging.getLogger("maumau.server")

#: how often a process says which seats are connected to it (PostgreSQL), and how long
#: other processes believe it
PRESENCE_SECONDS = 10.0
PRESENCE_TTL = 3 * PRESENCE_SECONDS
#: a table of more steps than this is rebuilt off the event loop when it is loaded
LOAD_INLINE_STEPS = 1000


class Hub:
    """Tables by id, each with its referee."""

    def __init__(
        self,
        store: Store,
        config: ServerConfig,
        clock: Callable[[], float] = time.time,
        metrics: Counts | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        #: what ``/metrics`` shows (maumau.server.live.metrics)
        self.metrics = metrics or Counts()
        self.referees: dict[str, Referee] = {}
        self.loading = asyncio.Lock()
        self.sweeper: asyncio.Task[None] | None = None
        #: other processes' changes to shared tables (PostgreSQL only)
        self.listener = store.listener(
            self.changed, self.reconnected, self.present, self.asked, on_chat=self.chatted
        )
        if self.listener is not None:
            self.listener.on_lag = self.metrics.notify_lag.observe
            self.listener.on_request = self.seat_notice
        self.heartbeat: asyncio.Task[None] | None = None
        #: what computer play may cost (maumau.server.live.budget), and finished games'
        #: documents (maumau.server.live.archive)
        self.budget = Budget(config, self.referees)
        self.archive = Archive(store, config.replays_per_minute, self.live_table)
        #: what one client address may make the store read where other processes
        #: share it: looks for tokens this process does not know (``hello``), and
        #: catch-ups before table info (see :meth:`current`)
        self.token_lookups = AddressLimiter(config.token_lookups_per_minute)
        self.fresh_reads = AddressLimiter(config.fresh_reads_per_minute)
        #: what ``maumau admin`` asks of this server (maumau.server.live.notices)
        self.notices = Notices(self)
        #: the server is stopping (:mod:`maumau.server.ops.drain`): no computer moves, no
        #: new players
        self.draining = False

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
                loaded = await self.store.load(game_id) if plausible_id(game_id) else None
            except StoreError as exc:
                raise store_unavailable(f"table {game_id!r} cannot be loaded", exc) from None
            if loaded is None:
                raise ServerError("unknown_game", f"there is no table {game_id!r}")
            row, steps = loaded
            if len(steps) > LOAD_INLINE_STEPS:  # a long game: the loop serves meanwhile
                referee = self.add(await asyncio.to_thread(Table.load, row, steps))
            else:
                referee = self.add(Table.load(row, steps))
            await referee.chat.preload()  # its chat too, so that a hello reads nothing
            if self.store.shared:  # who is connected elsewhere, now, not at a heartbeat
                asyncio.get_running_loop().create_task(
                    self.store.ask_presence(game_id)
                ).add_done_callback(quiet)
            return referee

    async def current(self, game_id: str, address: str | None = None) -> Referee:
        """:meth:`referee`, caught up with other processes' changes when the database is
        shared (for answers that must show the latest: table info, the record).  The
        reads are shared by the requests that come meanwhile and made outside the
        table's lock (:meth:`Referee.caught_up`): asking costs the table's moves
        nothing.  A client ``address`` past its :attr:`fresh_reads` gets the table as
        this process knows it (current but for notices still on their way)."""
        referee = await self.referee(game_id)
        if address is None or not self.store.shared or self.fresh_reads.allow(address):
            await referee.caught_up()
        return referee

    async def live_table(self, game_id: str) -> Table | None:
        """The table ``game_id`` if it is in memory here (caught up with other
        processes' changes), else ``None``: nothing is loaded."""
        referee = self.referees.get(game_id)
        if referee is None:
            return None
        if self.store.shared:
            referee = await self.current(game_id)
        return referee.table

    def add(self, table: Table) -> Referee:
        referee = Referee(table, self.store, self.clock)
        referee.stand_in.budget = self.budget
        referee.metrics = self.metrics
        self.referees[table.id] = referee
        if self.draining:  # (loaded by a late request: nothing is played here now)
            referee.stand_in.halt()
        elif table.status == "playing":
            referee.stand_in.start_absences()
            referee.stand_in.poke()
        return referee

    async def create(self, row: GameRow) -> Referee:
        try:
            await self.store.create_game(row)
        except StoreError as exc:
            raise store_unavailable(f"table {row.id} cannot be stored", exc) from None
        # (a rematch is its first table's creator's; POST /api/games names its own)
        self.budget.created(row.id, self.budget.creator_of(row.rematch_of))
        referee = self.add(Table.load(row, []))
        referee.chat.new()  # a new table's chat: nothing to read
        return referee

    async def resume(self) -> int:
        """Load every unfinished game; their computer players and timers start again."""
        ids = await self.store.game_ids(("lobby", "playing"))
        for game_id in ids:
            try:
                await self.referee(game_id)
            except Exception:
                log.exception("table %s could not be resumed", game_id, extra={"table": game_id})
        return len(ids)

    # --- housekeeping -----------------------------------------------------------------

    async def sweep(self) -> None:
        """Close idle tables and unload finished ones nobody watches.  A table is idle
        when nobody has been connected to it anywhere (here, or at another process
        that says so) and nothing happened to it anywhere (another process's changes
        count, as they are heard) for its idle time; and the store closes it only if
        it is still as this process has it (:meth:`close_table`)."""
        now = self.clock()
        for referee in list(self.referees.values()):
            table = referee.table
            if referee.connections or referee.connected():
                referee.last_seen = now
                continue
            idle = now - referee.last_seen
            if table.status in ("lobby", "playing"):
                if idle >= table.settings.idle_close_seconds:
                    await self.close_table(referee)
            elif idle >= self.config.unload_seconds:
                self.unload(referee)

    async def close_table(self, referee: Referee) -> None:
        """Close an idle table, if the store still has it as this process does (its
        status and its number of steps): a process that is behind another one, which
        played on meanwhile, does not close it but catches up."""
        table = referee.table
        async with table.lock:
            try:
                closed = await self.store.close_unchanged(
                    table.id, table.status, table.step_count, self.clock()
                )
            except StoreError as exc:
                log.warning(
                    "table %s could not be closed: %s", table.id, exc, extra={"table": table.id}
                )
                return
            if not closed:  # changed elsewhere: not idle
                referee.last_seen = self.clock()
                referee.follow()
                return
            table.status = "closed"
            referee.close_all("table_closed", "the table was closed: nobody was connected")
        self.unload(referee)
        log.info("table %s closed after its idle time", table.id, extra={"table": table.id})

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

    # --- other processes ----------------------------------------------------------------

    def changed(self, game_id: str, steps_only: bool = False) -> None:
        """Another process changed a table: if it is live here, catch up."""
        referee = self.referees.get(game_id)
        if referee is not None:
            referee.last_seen = self.clock()  # (activity elsewhere: the table is not idle)
            referee.follow(steps_only)

    def chatted(self, game_id: str, message: str) -> None:
        """Another process's chat line, reaction or chat settings for a table."""
        referee = self.referees.get(game_id)
        if referee is not None:
            referee.chat.heard(message)

    def reconnected(self) -> None:
        """Change notices may have been missed while the listener was away: catch up
        with every live table."""
        now = self.clock()
        for referee in list(self.referees.values()):
            referee.last_seen = max(referee.last_seen, now)  # (what was missed may be play)
            referee.follow()
            referee.chat.missed()

    def present(self, origin: str, game_id: str, seats: frozenset[int]) -> None:
        """Another process says which seats of a table are connected to it."""
        referee = self.referees.get(game_id)
        if referee is not None:
            if seats:  # (somebody is at it elsewhere: the table is not idle)
                referee.last_seen = self.clock()
            referee.present_elsewhere(origin, seats, time.monotonic() + PRESENCE_TTL)

    def asked(self, game_id: str) -> None:
        """Another process just loaded a table: say which of its seats are here."""
        referee = self.referees.get(game_id)
        if referee is not None and referee.here():
            referee.announce()

    def seat_notice(self, origin: str, game_id: str, data: str) -> None:
        """Another process says a late friend's request for a seat opened or ended."""
        referee = self.referees.get(game_id)
        if referee is not None:
            referee.seat_requests.remote(data)

    async def run_heartbeat(self) -> None:
        """Say again, now and then, which seats are connected here (a process that
        died stops saying so, and its players count as absent once that expires)."""
        while True:
            await asyncio.sleep(PRESENCE_SECONDS)
            now = time.monotonic()
            for referee in list(self.referees.values()):
                expired = [o for o, (_, until) in referee.remote.items() if until <= now]
                if expired:
                    before = referee.connected() | {
                        s for o in expired for s in referee.remote[o][0]
                    }
                    for origin in expired:
                        del referee.remote[origin]
                    referee.recount(before)
            presence = [(r.table.id, sorted(r.here())) for r in self.referees.values()]
            try:
                await self.store.announce([(g, seats) for g, seats in presence if seats])
            except StoreError as exc:
                log.debug("presence heartbeat not sent: %s", exc)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.sweeper = loop.create_task(self.run_sweeper())
        self.notices.start()
        if self.listener is not None:
            self.listener.start()
            self.heartbeat = loop.create_task(self.run_heartbeat())

    def begin_drain(self) -> None:
        """The server stops: no computer move, turn timer or takeover starts here
        from now on, and no table is swept (a move being made is finished; see
        :mod:`maumau.server.ops.drain`)."""
        self.draining = True
        if self.sweeper is not None:
            self.sweeper.cancel()
        for referee in self.referees.values():
            referee.stand_in.halt()

    async def stop(self) -> None:
        await self.notices.stop()
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.heartbeat
        if self.listener is not None:
            await self.listener.stop()
            gone: list[tuple[str, list[int]]] = [
                (r.table.id, []) for r in self.referees.values() if r.here()
            ]
            with contextlib.suppress(StoreError):  # this process's players are gone
                await self.store.announce(gone)
        if self.sweeper is not None:
            self.sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.sweeper
        referees = list(self.referees.values())
        # (side by side: each waits a bounded while for a move being made)
        await asyncio.gather(*(r.stand_in.finish() for r in referees))
        for referee in referees:
            referee.close_all("server_stopping", "the server is restarting; reconnect soon", 1012)
        self.referees.clear()
        await self.budget.close()  # the worker processes
        await self.archive.close()

    @property
    def connections(self) -> int:
        return sum(len(r.connections) for r in self.referees.values())
