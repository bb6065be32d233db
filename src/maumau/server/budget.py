"""The budget of computer play: what tables nobody is at may cost.

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
  ``too_many_live_tables`` beyond that.

Which address created a table is kept in memory only: after a restart nobody is
connected, so every resumed table starts paused anyway.  The ``hard`` bot decides in a
worker process (:mod:`maumau.server.workers`), the cheap levels on the event loop: they
take microseconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from maumau.server.config import ServerConfig
from maumau.server.errors import ServerError
from maumau.server.table import Table
from maumau.server.workers import Workers

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
        when the table is paused (and marks it so, through ``show_paused``)."""
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
