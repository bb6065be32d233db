"""What ``maumau admin`` asks of this server: announcements to show every client, and
tables to close.

The command leaves its notices in the database (:mod:`maumau.store.admin`); every
server process reads the ones it has not seen every :data:`POLL_SECONDS`, on SQLite and
PostgreSQL alike, with one query on the notices' primary key (nothing to read: an empty
answer).  An announcement goes to every connection of every table here at once, and to
each client that says hello while it lasts; a closed table's clients get ``closed``
(``table_closed``) with the operator's reason.  ``GET /api/announcement`` gives the
current one to pages without a table socket (the home page).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import Protocol

from fastapi import APIRouter, Request

from maumau.server.live.referee import Referee
from maumau.server.transport.connection import Connection
from maumau.server.wire.protocol import Announcement
from maumau.store import Store, StoreError
from maumau.store import admin as sql

log = logging.getLogger("maumau.server")

#: how often the notices are read
POLL_SECONDS = 2.0


class NoticesHost(Protocol):
    """What the notices need of their hub (:class:`maumau.server.live.hub.Hub`, which owns
    them)."""

    store: Store
    clock: Callable[[], float]

    @property
    def referees(self) -> Mapping[str, Referee]:
        """The live tables here, by id."""

    def unload(self, referee: Referee) -> None: ...


class Notices:
    """The notices of one hub: the current announcement and the last notice seen."""

    def __init__(self, hub: NoticesHost) -> None:
        self.hub = hub
        self.last = 0
        self.current: sql.Notice | None = None
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    async def run(self) -> None:
        store = self.hub.store
        while True:  # first what is current, then what comes
            try:
                self.last = await store.read(sql.last_notice)
                self.current = await store.read(
                    lambda conn: sql.announcement(conn, self.hub.clock())
                )
                break
            except StoreError as exc:
                log.debug("admin notices not read: %s", exc)
            await asyncio.sleep(POLL_SECONDS)
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                await self.poll()
            except StoreError as exc:
                log.debug("admin notices not read: %s", exc)
            except Exception:
                log.exception("admin notices could not be handled")

    async def poll(self) -> None:
        """Handle every notice made since the last one seen."""
        while True:
            notices = await self.hub.store.read(partial(sql.notices_after, after=self.last))
            for notice in notices:
                self.last = notice.id
                if notice.kind == "announce":
                    self.announce(notice)
                elif notice.kind == "close" and notice.game_id is not None:
                    await self.close(notice.game_id, notice.text)
            if len(notices) < sql.NOTICE_BATCH:
                return

    def message(self) -> str | None:
        """The current announcement as a message, if there is one that lasts."""
        notice = self.current
        if notice is None:
            return None
        if notice.expires is not None and notice.expires <= self.hub.clock():
            self.current = None
            return None
        return Announcement(text=notice.text, expires=notice.expires).model_dump_json()

    def announce(self, notice: sql.Notice) -> None:
        self.current = notice if notice.text else None
        text = Announcement(text=notice.text, expires=notice.expires).model_dump_json()
        for referee in list(self.hub.referees.values()):
            referee.send_all(text)
        log.info("announcement: %r", notice.text)

    def greet(self, conn: Connection) -> None:
        """Tell a client that just said hello the current announcement."""
        text = self.message()
        if text is not None:
            conn.send_text(text)

    async def close(self, game_id: str, reason: str) -> None:
        """The operator closed ``game_id`` (in the database): if it is live here, its
        clients are told why and it leaves memory."""
        referee = self.hub.referees.get(game_id)
        if referee is None:
            return
        table = referee.table
        async with table.lock:
            if table.status not in ("lobby", "playing"):
                return
            table.status = "closed"
            referee.close_all("table_closed", reason)
        self.hub.unload(referee)
        log.info("table %s closed by the operator", game_id)


router = APIRouter()


@router.get("/api/announcement", response_model=Announcement, tags=["server"])
async def announcement(request: Request) -> Announcement:
    """The operator's current announcement (``text`` empty: none)."""
    notices: Notices = request.app.state.hub.notices
    notice = notices.current
    if notices.message() is None or notice is None:
        return Announcement(text="")
    return Announcement(text=notice.text, expires=notice.expires)
