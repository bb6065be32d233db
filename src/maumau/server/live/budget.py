"""The budget of computer play: what tables nobody is at may cost, and what any
table's ``hard`` players may take of the bot workers.

A table with a human player connected plays as its settings say.  A table with none
(every human seat away, or none at all) is *unattended*: its computer players and
stand-ins would play it to the end at full speed, for nobody.  So, per server process:

- an unattended table moves at most every ``unattended_bot_delay_ms`` (a floor under
  its ``bot_delay_ms``);
- it plays unattended for at most ``unattended_seconds`` after its last human player
  left, then it is *paused*: no computer move, deal or timer runs until a human player
  connects again (a spectator does not count);
- of the tables one address created, at most ``unattended_tables_per_address`` play
  unattended at once; another one that would is paused at once;
- a table that neither was created by this process nor had a human player connected
  to it here (after a restart: every table) is paused while unattended, so a restart
  never plays bot-only tables at full speed;
- one address may have at most ``live_tables_per_address`` tables open (in the lobby
  or being played) at once: ``POST /api/games`` is refused with
  ``too_many_live_tables`` beyond that;
- attended or not, what a table's ``hard`` players cost is metered: the worker time of
  their decisions is charged to the table and to the address that created it, each
  of which may keep busy on average a share of one worker
  (``worker_share_per_table``, ``worker_share_per_address``; bursts of a few seconds
  of it).  A table that owes worker time, or whose creator does, waits before its next
  computer move until the debt is paid off; and the workers are handed out in turns,
  round-robin among the addresses (:mod:`maumau.server.live.pool_share`).  So no table and
  no address can take the pool from the others, however fast its tables are set to
  play and whoever watches them.

Which address created a table is kept in memory only: after a restart nobody is
connected, so every resumed table starts paused anyway.  The ``hard`` bot decides in a
worker process (:mod:`maumau.server.live.workers`), the cheap levels on the event loop: they
take microseconds, and are not metered.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from maumau.engine import Action, SeatView
from maumau.server.config import ServerConfig
from maumau.server.live.pool_share import Meter
from maumau.server.live.table import Table
from maumau.server.live.workers import Workers
from maumau.server.wire.errors import ServerError

LIVE = ("lobby", "playing")


class Live(Protocol):
    """A live table, as the hub holds it (its referee)."""

    @property
    def table(self) -> Table: ...


@dataclass(slots=True)
class Entry:
    """What the budget knows of one table."""

    #: the address that created it (``None``: unknown, e.g. resumed after a restart)
    creator: str | None
    #: when (budget clock) it was first seen with no human player connected, since one
    #: last was; ``None`` while one is
    alone_since: float | None = None


class Budget:
    """The limits on computer play and on live tables per address, for one hub."""

    def __init__(
        self,
        config: ServerConfig,
        referees: Mapping[str, Live],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.referees = referees
        self.clock = clock
        self.workers = Workers(config.bot_workers)
        #: the worker time the hard decisions of each table, of each creating address,
        #: may still use
        self.table_meter = Meter(config.worker_share_per_table, clock)
        self.address_meter = Meter(config.worker_share_per_address, clock)
        #: worker-seconds the hard decisions here used, and those of them after which
        #: their table or its creator owed worker time (for /metrics)
        self.worker_seconds = 0.0
        self.overdrawn = 0
        #: tables created here, or with a human player connected here since
        self.entries: dict[str, Entry] = {}
        #: address -> ids of its tables playing unattended now
        self.running: dict[str, set[str]] = {}
        #: address -> tables being created for it right now
        self.pending: dict[str, int] = {}

    # --- live tables per address --------------------------------------------------------

    def live_tables(self, address: str) -> int:
        """The tables ``address`` created that are open (lobby or playing) here, and
        those being created for it.  Tables that left memory are forgotten."""
        count = self.pending.get(address, 0)
        for game_id in list(self.entries):
            referee = self.referees.get(game_id)
            if referee is None:
                del self.entries[game_id]
            elif self.entries[game_id].creator == address and referee.table.status in LIVE:
                count += 1
        return count

    @contextmanager
    def creating(self, address: str) -> Iterator[None]:
        """Around creating a table for ``address``: refused (``too_many_live_tables``)
        when it has as many open as it may; counted while it is being created."""
        cap = self.config.live_tables_per_address
        if self.live_tables(address) >= cap:
            raise ServerError(
                "too_many_live_tables",
                f"this address has {cap} tables open already; finish or leave one first",
            )
        self.pending[address] = self.pending.get(address, 0) + 1
        try:
            yield
        finally:
            left = self.pending[address] - 1
            if left:
                self.pending[address] = left
            else:
                del self.pending[address]

    def created(self, game_id: str, creator: str | None) -> None:
        """A table was created in this process by ``creator``."""
        self.entries[game_id] = Entry(creator)

    def creator_of(self, game_id: str | None) -> str | None:
        entry = None if game_id is None else self.entries.get(game_id)
        return None if entry is None else entry.creator

    # --- worker time -------------------------------------------------------------------

    async def decide(self, game_id: str, view: SeatView, legal: Sequence[Action]) -> Action:
        """A ``hard`` decision at table ``game_id``, in a worker in its creator's turn,
        its worker time charged to the table and its creator."""
        creator = self.creator_of(game_id)
        key = f"table {game_id}" if creator is None else creator
        action, seconds = await self.workers.decide("hard", view, legal, key)
        self.charge(game_id, seconds)
        return action

    def charge(self, game_id: str, seconds: float) -> None:
        """Table ``game_id``'s computer players used ``seconds`` of a worker."""
        self.worker_seconds += seconds
        owes = self.table_meter.charge(game_id, seconds)
        creator = self.creator_of(game_id)
        if creator is not None:
            owes = self.address_meter.charge(creator, seconds) or owes
        if owes:
            self.overdrawn += 1

    def owed(self, game_id: str) -> float:
        """Seconds until neither table ``game_id`` nor its creator owes worker time."""
        wait = self.table_meter.wait(game_id)
        creator = self.creator_of(game_id)
        return wait if creator is None else max(wait, self.address_meter.wait(creator))

    # --- unattended play ---------------------------------------------------------------

    def admit(
        self,
        table: Table,
        connected: set[int],
        show_paused: Callable[[bool], None],
        delay: float | None,
    ) -> float | None:
        """The delay of the computer step a stand-in plans at ``table`` (``delay``;
        ``None``: none is due), as the budget allows it: at least the floor when nobody
        is at the table (``connected``: the seats somebody is connected to), ``None``
        when the table is paused (and marks it so, through ``show_paused``); and, at
        any table, no sooner than it (or its creator) owes no worker time."""
        admitted = self._admit(table, connected, show_paused, delay)
        return None if admitted is None else max(admitted, self.owed(table.id))

    def _admit(
        self,
        table: Table,
        connected: set[int],
        show_paused: Callable[[bool], None],
        delay: float | None,
    ) -> float | None:
        game_id = table.id
        entry = self.entries.get(game_id)
        seats = len(table.seats)
        attended = any(s < seats and not table.is_bot(s) for s in connected)
        if attended or table.status != "playing":
            if attended and entry is None:
                entry = self.entries[game_id] = Entry(None)
            if entry is not None:
                entry.alone_since = None
            self._stop_running(game_id, entry)
            show_paused(False)
            return delay
        if entry is not None and entry.alone_since is None:
            entry.alone_since = self.clock()
        if delay is None:  # nothing is due (an absent player's grace period runs)
            self._stop_running(game_id, entry)
            return None
        if entry is None or not self._may_run(game_id, entry):
            self._stop_running(game_id, entry)
            show_paused(True)
            return None
        if entry.creator is not None:
            self.running.setdefault(entry.creator, set()).add(game_id)
        show_paused(False)
        return max(delay, self.config.unattended_bot_delay_ms / 1000)

    def _may_run(self, game_id: str, entry: Entry) -> bool:
        assert entry.alone_since is not None
        if self.clock() - entry.alone_since >= self.config.unattended_seconds:
            return False
        creator = entry.creator
        if creator is None:
            return True
        running = self.running.get(creator, set())
        if game_id in running:
            return True
        return self.unattended_tables(creator) < self.config.unattended_tables_per_address

    def unattended_tables(self, address: str) -> int:
        """The tables ``address`` created that play unattended now."""
        running = self.running.get(address)
        if running is None:
            return 0
        for game_id in list(running):
            referee = self.referees.get(game_id)
            if referee is None or referee.table.status != "playing" or referee.table.paused:
                running.discard(game_id)
        if not running:
            del self.running[address]
        return len(running)

    def _stop_running(self, game_id: str, entry: Entry | None) -> None:
        if entry is None or entry.creator is None:
            return
        running = self.running.get(entry.creator)
        if running is not None:
            running.discard(game_id)
            if not running:
                del self.running[entry.creator]

    async def close(self) -> None:
        await self.workers.close()
