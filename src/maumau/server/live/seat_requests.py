"""A table's open requests for a seat: late friends asking the host for a seat that a
computer plays (see :mod:`maumau.server.live.takeover` for the takeover itself).

A request lives in the memory of the process its asker is connected to, and only as
long as it is useful: it ends when the host answers it, when its asker withdraws it or
goes away, after :data:`REQUEST_SECONDS`, or as soon as its seat is no longer played
by a computer (its player came back, or another request got it).

With several processes on PostgreSQL, the others hear of each request opened or ended
(a notice on :data:`maumau.store.notify.REQUESTS`), so that the host sees it wherever
the host is connected.  The asker's process chose the seat's new token when it was
asked, and sends the others only its hash: a host at another process binds the seat
to that hash, and the asker's process, on learning of the new seats, hands the seat
to the asker (:meth:`OpenRequests.bind`).

Every cost a stranger can cause is bounded, and the table's requests are shared out
by person, counted by client address (:func:`maumau.server.transport.limits.address_key`), not by
socket (one stranger with four sockets held all four of a table's requests, asking
again as each expired):

- one request open per address (at this process, and those of other processes it has
  heard of), at most :data:`MAX_OPEN` per table, each for :data:`REQUEST_SECONDS` at
  most;
- asks per address and table: :data:`ASKS_PER_MINUTE` in a row, then as many a
  minute (``rate_limited``); a withdrawal needs an open request, so asking and
  withdrawing in a loop is bounded too;
- the host's list (``seat_requests``) is sent at most once every
  :data:`PROMPT_SECONDS`: a change in between is sent with the list as it is then
  (ask-and-withdraw loops sent a host hundreds of updates a second).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol, cast

from maumau.server.live.results import welcome
from maumau.server.live.table import Table
from maumau.server.live.tasks import quiet
from maumau.server.transport.connection import Connection
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError
from maumau.server.wire.table_talk import (
    SeatAsked,
    SeatGiven,
    SeatRequestEnded,
    SeatRequestInfo,
    SeatRequests,
)
from maumau.store import Store

log = logging.getLogger("maumau.server")

#: how long a request waits for the host's answer
REQUEST_SECONDS = 120.0
#: the most requests open at one table at once
MAX_OPEN = 4
#: asks from one address at one table: this many in a row, then this many a minute
ASKS_PER_MINUTE = 3.0
#: the most addresses whose asks a table remembers (the longest unused are forgotten)
ASKERS_KEPT = 256
#: the least time between two updates of the host's list of requests
PROMPT_SECONDS = 0.25
#: the most ends of other processes' requests kept while their opens may still arrive
#: (notices of two processes can arrive out of order)
REMEMBERED_ENDS = 64

#: why a request ended without a seat (the ``seat_request_ended`` reasons) or with one
Ending = Literal["declined", "expired", "withdrawn", "seat_taken", "name_taken", "granted", "gone"]
#: the reasons an asker is told
_TOLD: tuple[Ending, ...] = ("declined", "expired", "withdrawn", "seat_taken", "name_taken")


class ComputerSeats(Protocol):
    def computer_seats(self) -> list[int]: ...


class RequestsHost(Protocol):
    """What the requests need of their table's referee."""

    table: Table
    connections: set[Connection]
    clock: Callable[[], float]
    store: Store

    @property
    def stand_in(self) -> ComputerSeats:
        """Which seats a computer plays now (the referee's stand-in)."""


@dataclass(eq=False)
class SeatRequest:
    """One spectator's open request for ``seat`` under ``name``: its asker's connection
    here (``None``: the asker is at another process)."""

    id: int
    conn: Connection | None
    seat: int
    name: str
    #: unix time after which it has expired
    expires: float
    #: the hash of the token the seat gets if the host accepts
    key: str
    #: that token (only at the asker's process)
    token: str | None = field(default=None, repr=False)
    #: the asker's address (limits.address_key; ``None``: not known, from an older
    #: process)
    address: str | None = None
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
        #: the asks of each address (a bucket that refills in a minute)
        self.asks = AddressLimiter(ASKS_PER_MINUTE, size=ASKERS_KEPT)
        #: the pending update of the host's list, and when the last one was sent
        #: (the event loop's time)
        self._prompt: asyncio.TimerHandle | None = None
        self._prompted = float("-inf")
        #: other processes' requests that ended before their open arrived here: id ->
        #: until when an open for it is ignored (at most REMEMBERED_ENDS, oldest dropped)
        self.ended: dict[int, float] = {}

    def of(self, conn: Connection) -> SeatRequest | None:
        """The open request of ``conn``, if it has one."""
        return next((r for r in self.open.values() if r.conn is conn), None)

    def add(self, conn: Connection, seat: int, name: str, token: str, key: str) -> SeatRequest:
        """Open a request (the caller checked the seat and the name; ``token`` is the
        seat's token if it is given, ``key`` its hash): the asker is told ``seat_asked``,
        the host the new list, the other processes the request."""
        if self.of(conn) is not None:
            raise ServerError(
                "already_asked", "you have asked for a seat already; withdraw it first"
            )
        if any(r.address == conn.address for r in self.open.values()):
            raise ServerError(
                "already_asked",
                "a request for a seat from your address is open already (another tab?); "
                "withdraw it or wait for the host's answer",
            )
        if len(self.open) >= MAX_OPEN:
            raise ServerError(
                "too_many_requests", f"{MAX_OPEN} requests for seats are open at this table already"
            )
        if not self.asks.allow(conn.address):
            raise ServerError(
                "rate_limited",
                f"asking for a seat: at most {ASKS_PER_MINUTE:g} asks a minute from one "
                "address; try again in a moment",
            )
        number = secrets.randbelow(2**31 - 1) + 1  # (unique across the processes)
        expires = self.host.clock() + self.seconds
        request = SeatRequest(number, conn, seat, name, expires, key, token, address=conn.address)
        self.start(request)
        conn.send(SeatAsked(request=request.id, seat=seat, expires=request.expires))
        self.tell_others(
            {
                "op": "open",
                "id": number,
                "seat": seat,
                "name": name,
                "expires": expires,
                "key": key,
                "by": conn.address,
            }
        )
        return request

    def start(self, request: SeatRequest) -> None:
        """Keep ``request`` open until it expires, and show it to the host."""
        loop = asyncio.get_running_loop()
        seconds = max(0.0, request.expires - self.host.clock())
        request.timer = loop.call_later(seconds, self.end, request, "expired", False)
        self.open[request.id] = request
        self.tell_host()

    def end(self, request: SeatRequest, why: Ending, tell_others: bool = True) -> None:
        """End ``request``: its asker is told why (unless it got the seat or is gone),
        the host the new list, and (``tell_others``) the other processes.  (An expiry
        is not told: each process's copy expires by itself.)"""
        if self.open.pop(request.id, None) is None:
            return
        if request.timer is not None:
            request.timer.cancel()
        if request.conn is not None and why != "granted" and why != "gone":
            request.conn.send(SeatRequestEnded(request=request.id, reason=why))
        self.tell_host()
        if tell_others:
            self.tell_others({"op": "end", "id": request.id, "reason": why})

    # --- other processes (PostgreSQL) ------------------------------------------------

    def tell_others(self, data: dict[str, object]) -> None:
        store = self.host.store
        if store.shared:
            text = json.dumps(data, ensure_ascii=False)
            task = asyncio.get_running_loop().create_task(
                store.tell_request(self.host.table.id, text)
            )
            task.add_done_callback(quiet)

    def remote(self, text: str) -> None:
        """Another process's notice of a request opened or ended there."""
        try:
            data = json.loads(text)
            op, number = data["op"], int(data["id"])
            if op == "open":
                request = SeatRequest(
                    number,
                    None,
                    int(data["seat"]),
                    str(data["name"]),
                    float(data["expires"]),
                    str(data["key"]),
                    address=str(data["by"]) if "by" in data else None,
                )
        except (ValueError, KeyError, TypeError):
            log.warning("a request notice for table %s was unreadable", self.host.table.id)
            return
        if op == "open":
            # not if its end came first, nor for a seat no computer plays here now (its
            # player came back meanwhile: the request is for nothing)
            if (
                number not in self.open
                and self.ended.pop(number, 0.0) < self.host.clock()
                and request.seat in self.host.stand_in.computer_seats()
                and len(self.open) < MAX_OPEN
            ):
                self.start(request)
            return
        ended = self.open.get(number)
        reason = data.get("reason")
        if ended is None:
            self._remember_end(number)
            return
        if reason == "granted":  # (the asker's seat comes with the seats)
            return
        why: Ending = reason if reason in _TOLD else "gone"
        self.end(ended, why, tell_others=False)

    def _remember_end(self, number: int) -> None:
        """An end for a request not open here: its open may still be on the way."""
        now = self.host.clock()
        for old in [n for n, until in self.ended.items() if until < now]:
            del self.ended[old]
        while len(self.ended) >= REMEMBERED_ENDS:
            del self.ended[next(iter(self.ended))]
        self.ended[number] = now + self.seconds

    def bind(self) -> list[Connection]:
        """Hand each asker here whose request's token now holds a seat (a host at
        another process accepted it) that seat; returns their connections."""
        table = self.host.table
        seated = []
        for request in list(self.open.values()):
            seat = table.seat_of(request.key)
            if seat is None or request.conn is None or request.token is None:
                continue
            self.end(request, "granted", tell_others=False)
            self.give(request.conn, seat, request.key, request.token)
            seated.append(request.conn)
        return seated

    def give(self, conn: Connection, seat: int, key: str, token: str) -> None:
        """The connection holds ``seat`` now: its token, then its welcome (its first
        state, which the caller sends, brings the whole round)."""
        table = self.host.table
        conn.send(SeatGiven(game_id=table.id, seat=seat, token=token))
        conn.seat, conn.seat_key = seat, key
        conn.round, conn.logged = -1, 0
        conn.send(welcome(table, seat))

    def left(self, conn: Connection) -> None:
        """``conn`` went away: its request ends (its address's asks are kept)."""
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
        self.asks.buckets.clear()
        if self._prompt is not None:
            self._prompt.cancel()
            self._prompt = None

    def listing(self) -> SeatRequests:
        return SeatRequests(requests=[r.info() for r in self.open.values()])

    def tell_host(self) -> None:
        """Send the open requests to every connection of the host's seat: now, if the
        last update is :data:`PROMPT_SECONDS` old, else once it is (with the list as it
        is then; changes meanwhile go with it)."""
        if self._prompt is not None:
            return  # an update is due: it sends the list as it will be
        loop = asyncio.get_running_loop()
        wait = self._prompted + PROMPT_SECONDS - loop.time()
        if wait > 0:
            self._prompt = loop.call_later(wait, self._send_to_host)
        else:
            self._send_to_host()

    def _send_to_host(self) -> None:
        self._prompt = None
        self._prompted = asyncio.get_running_loop().time()
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
