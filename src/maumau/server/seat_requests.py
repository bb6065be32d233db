"""A table's open requests for a seat: late friends asking the host for a seat that a
computer plays (see :mod:`maumau.server.takeover` for the takeover itself).

A request lives in the memory of the process its asker is connected to, and only as
long as it is useful: it ends when the host answers it, when its asker withdraws it or
goes away, after :data:`REQUEST_SECONDS`, or as soon as its seat is no longer played
by a computer (its player came back, or another request got it).  Every cost a
stranger can cause is bounded: one open request per connection, at most
:data:`MAX_OPEN` per table, at most :data:`ASKS_PER_CONNECTION` asks per connection.
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol, cast

from maumau.server.connection import Connection
from maumau.server.errors import ServerError
from maumau.server.protocol import SeatAsked, SeatRequestEnded, SeatRequestInfo, SeatRequests
from maumau.server.table import Table

#: how long a request waits for the host's answer
REQUEST_SECONDS = 120.0
#: the most requests open at one table at once
MAX_OPEN = 4
#: the most requests one connection may make (a loop of ask and withdraw would keep
#: the host's prompt flickering)
ASKS_PER_CONNECTION = 10

#: why a request ended without a seat (the ``seat_request_ended`` reasons) or with one
Ending = Literal["declined", "expired", "withdrawn", "seat_taken", "name_taken", "granted", "gone"]


class RequestsHost(Protocol):
    """What the requests need of their table's referee."""

    table: Table
    connections: set[Connection]
    clock: Callable[[], float]


@dataclass(eq=False)
class SeatRequest:
    """One spectator's open request for ``seat`` under ``name``."""

    id: int
    conn: Connection
    seat: int
    name: str
    #: unix time after which it has expired
    expires: float
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def info(self) -> SeatRequestInfo:
        return SeatRequestInfo(
            request=self.id, seat=self.seat, name=self.name, expires=self.expires
        )


class OpenRequests:
    """The open requests of one table."""

    def __init__(self, host: RequestsHost, seconds: float = REQUEST_SECONDS) -> None:
        # weakly, as the stand-in: the referee owns its requests
        self.host: RequestsHost = cast(RequestsHost, weakref.proxy(host))
        self.seconds = seconds
        self.open: dict[int, SeatRequest] = {}
        self.asks: dict[Connection, int] = {}
        self._ids = itertools.count(1)

    def of(self, conn: Connection) -> SeatRequest | None:
        """The open request of ``conn``, if it has one."""
        return next((r for r in self.open.values() if r.conn is conn), None)

    def add(self, conn: Connection, seat: int, name: str) -> SeatRequest:
        """Open a request (the caller checked the seat and the name): the asker is told
        ``seat_asked``, the host the new list."""
        if self.of(conn) is not None:
            raise ServerError(
                "already_asked", "you have asked for a seat already; withdraw it first"
            )
        if len(self.open) >= MAX_OPEN:
            raise ServerError(
                "too_many_requests", f"{MAX_OPEN} requests for seats are open at this table already"
            )
        asked = self.asks.get(conn, 0)
        if asked >= ASKS_PER_CONNECTION:
            raise ServerError(
                "too_many_requests", f"a connection may ask for a seat {ASKS_PER_CONNECTION} times"
            )
        self.asks[conn] = asked + 1
        request = SeatRequest(next(self._ids), conn, seat, name, self.host.clock() + self.seconds)
        loop = asyncio.get_running_loop()
        request.timer = loop.call_later(self.seconds, self.end, request, "expired")
        self.open[request.id] = request
        conn.send(SeatAsked(request=request.id, seat=seat, expires=request.expires))
        self.tell_host()
        return request

    def end(self, request: SeatRequest, why: Ending) -> None:
        """End ``request``: its asker is told why (unless it got the seat or is gone),
        the host the new list."""
        if self.open.pop(request.id, None) is None:
            return
        if request.timer is not None:
            request.timer.cancel()
        if why != "granted" and why != "gone":
            request.conn.send(SeatRequestEnded(request=request.id, reason=why))
        self.tell_host()

    def left(self, conn: Connection) -> None:
        """``conn`` went away: its request ends."""
        self.asks.pop(conn, None)
        request = self.of(conn)
        if request is not None:
            self.end(request, "gone")

    def prune(self, playable: Iterable[int]) -> None:
        """End every request whose seat is not among ``playable`` (the seats a
        computer plays now, in a game being played)."""
        seats = set(playable)
        for request in list(self.open.values()):
            if request.seat not in seats:
                self.end(request, "seat_taken")

    def clear(self) -> None:
        """The table is done here: every request ends, nobody is told."""
        for request in self.open.values():
            if request.timer is not None:
                request.timer.cancel()
        self.open.clear()
        self.asks.clear()

    def listing(self) -> SeatRequests:
        return SeatRequests(requests=[r.info() for r in self.open.values()])

    def tell_host(self) -> None:
        """Send the open requests to every connection of the host's seat."""
        table = self.host.table
        text: str | None = None
        for conn in self.host.connections:
            if conn.seat is not None and conn.seat == table.host:
                text = text or self.listing().model_dump_json()
                conn.send_text(text)

    def greet(self, conn: Connection) -> None:
        """A connection said hello: the host's sees the open requests."""
        if self.open and conn.seat is not None and conn.seat == self.host.table.host:
            conn.send(self.listing())
