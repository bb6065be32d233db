"""The open requests of one table (server/live/seat_requests.py): they expire, and each asker
is told how its request ended, once."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any, cast

import pytest

from maumau.server.live.seat_requests import ASKS_PER_MINUTE, MAX_OPEN, OpenRequests, RequestsHost
from maumau.server.transport.connection import Connection
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import Model

ADDRESSES = itertools.count(1)


class FakeConnection:
    """What the requests use of a connection: its seat, its address (each its own
    unless given) and what it is sent."""

    def __init__(self, seat: int | None = None, address: str | None = None) -> None:
        self.seat = seat
        self.address = address or f"198.51.100.{next(ADDRESSES)}"
        self.sent: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    def send(self, message: Model) -> None:
        self.send_text(message.model_dump_json())

    def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))
        self.arrived.set()

    async def until(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The last message sent, once it is one that is ``done`` (within 5 s)."""
        async with asyncio.timeout(5):
            while not (self.sent and done(self.sent[-1])):
                self.arrived.clear()
                await self.arrived.wait()
        return self.sent[-1]


def listing(*numbers: int) -> Callable[[dict[str, Any]], bool]:
    """Whether a message is the host's list of exactly the requests ``numbers``."""
    return lambda m: (
        m["type"] == "seat_requests" and [r["request"] for r in m["requests"]] == list(numbers)
    )


class FakeTable:
    host = 0
    id = "table"


class FakeStore:
    shared = False  # (one process: nobody else to tell)


class FakeStandIn:
    def __init__(self, seats: list[int]) -> None:
        self.seats = seats

    def computer_seats(self) -> list[int]:
        return self.seats


class FakeReferee:
    def __init__(self, *conns: FakeConnection) -> None:
        self.table = FakeTable()
        self.connections = cast(set[Connection], set(conns))
        self.clock = time.time
        self.store = FakeStore()
        self.stand_in = FakeStandIn([1, 2])


@pytest.mark.anyio
async def test_an_unanswered_request_expires_and_the_asker_is_told() -> None:
    host, asker = FakeConnection(0), FakeConnection()
    referee = FakeReferee(host, asker)
    requests = OpenRequests(cast(RequestsHost, referee), seconds=0.01)
    request = requests.add(cast(Connection, asker), 1, "Mia", "token", "key")
    assert asker.sent[0]["type"] == "seat_asked"
    assert host.sent[-1]["requests"][0]["name"] == "Mia"
    ended = await asker.until(lambda m: m["type"] == "seat_request_ended")
    assert requests.open == {}
    assert ended == {"type": "seat_request_ended", "request": request.id, "reason": "expired"}
    await host.until(listing())
    requests.end(request, "declined")  # ended already: nobody is told again
    assert [m["type"] for m in asker.sent] == ["seat_asked", "seat_request_ended"]


def notice(op: str, number: int, seat: int = 1, **extra: object) -> str:
    data: dict[str, object] = {"op": op, "id": number}
    if op == "open":
        data |= {"seat": seat, "name": "Mia", "expires": time.time() + 60, "key": "k"}
    return json.dumps(data | extra)


@pytest.mark.anyio
async def test_another_processes_request_shows_until_it_ends_there() -> None:
    host = FakeConnection(0)
    referee = FakeReferee(host)  # (held: the requests hold their referee weakly)
    requests = OpenRequests(cast(RequestsHost, referee))
    requests.remote(notice("open", 7))
    await host.until(listing(7))
    requests.remote(notice("end", 7, reason="withdrawn"))
    assert requests.open == {}
    await host.until(listing())


@pytest.mark.anyio
async def test_an_end_heard_before_its_open_leaves_no_ghost() -> None:
    """Notices of two processes may arrive out of order: an end that came first is
    remembered, and the open that follows it is not shown to the host."""
    host = FakeConnection(0)
    referee = FakeReferee(host)  # (held: the requests hold their referee weakly)
    requests = OpenRequests(cast(RequestsHost, referee))
    requests.remote(notice("end", 9, reason="withdrawn"))
    requests.remote(notice("open", 9))
    assert requests.open == {}
    assert all(m["requests"] == [] for m in host.sent)


@pytest.mark.anyio
async def test_a_request_for_a_seat_no_computer_plays_here_is_not_shown() -> None:
    """The asker's process checked the seat when it was asked; by the time its notice
    arrives the seat's player may be back: the request would be for nothing."""
    host = FakeConnection(0)
    referee = FakeReferee(host)
    referee.stand_in.seats = [2]
    requests = OpenRequests(cast(RequestsHost, referee))
    requests.remote(notice("open", 5, seat=1))
    assert requests.open == {} and host.sent == []
    requests.remote(notice("open", 6, seat=2))
    assert list(requests.open) == [6]


@pytest.mark.anyio
async def test_the_ends_remembered_are_bounded() -> None:
    """A stream of ends for requests never seen here is kept to a bounded memory."""
    from maumau.server.live.seat_requests import REMEMBERED_ENDS

    referee = FakeReferee()
    requests = OpenRequests(cast(RequestsHost, referee))
    for number in range(1, 3 * REMEMBERED_ENDS):
        requests.remote(notice("end", number, reason="withdrawn"))
    assert len(requests.ended) <= REMEMBERED_ENDS


# --- shared out by person, and bounded ----------------------------------------------------


def refused(requests: OpenRequests, conn: FakeConnection, code: str, seat: int = 1) -> str:
    """``conn`` asks, and is refused with ``code``; the refusal's message."""
    with pytest.raises(ServerError) as caught:
        requests.add(cast(Connection, conn), seat, "Mia", "token", "key")
    assert caught.value.code == code, caught.value
    return caught.value.message


@pytest.mark.anyio
async def test_one_request_open_per_address_whatever_its_sockets() -> None:
    host = FakeConnection(0)
    first, second = FakeConnection(address="203.0.113.5"), FakeConnection(address="203.0.113.5")
    other = FakeConnection(address="203.0.113.6")
    referee = FakeReferee(host, first, second, other)
    requests = OpenRequests(cast(RequestsHost, referee))
    request = requests.add(cast(Connection, first), 1, "Mia", "token", "key")
    assert "your address" in refused(requests, second, "already_asked", seat=2)
    requests.add(cast(Connection, other), 2, "Ole", "token", "key")
    requests.end(request, "withdrawn")
    requests.add(cast(Connection, second), 1, "Mia", "token", "key")  # (its turn now)


@pytest.mark.anyio
async def test_the_tables_requests_need_as_many_addresses() -> None:
    askers = [FakeConnection() for _ in range(MAX_OPEN + 1)]
    referee = FakeReferee(FakeConnection(0), *askers)
    requests = OpenRequests(cast(RequestsHost, referee))
    for asker in askers[:MAX_OPEN]:
        requests.add(cast(Connection, asker), 1, "Mia", "token", "key")
    assert f"{MAX_OPEN} requests" in refused(requests, askers[-1], "too_many_requests")


@pytest.mark.anyio
async def test_an_open_request_from_another_process_counts_for_its_address() -> None:
    asker = FakeConnection(address="203.0.113.7")
    referee = FakeReferee(FakeConnection(0), asker)
    requests = OpenRequests(cast(RequestsHost, referee))
    requests.remote(notice("open", 3, by="203.0.113.7"))
    refused(requests, asker, "already_asked")
    requests.remote(notice("end", 3, reason="withdrawn"))
    requests.add(cast(Connection, asker), 1, "Mia", "token", "key")


@pytest.mark.anyio
async def test_asking_and_withdrawing_is_rate_limited_per_address() -> None:
    """A loop of asks and withdrawals runs out of asks, also from new sockets of the
    address (its asks outlast them); another address still may ask."""
    asks = int(ASKS_PER_MINUTE)
    socket = FakeConnection(address="203.0.113.8")
    referee = FakeReferee(FakeConnection(0), socket)
    requests = OpenRequests(cast(RequestsHost, referee))
    for _ in range(asks):
        request = requests.add(cast(Connection, socket), 1, "Mia", "token", "key")
        requests.end(request, "withdrawn")
    assert "asks a minute" in refused(requests, socket, "rate_limited")
    requests.left(cast(Connection, socket))
    again = FakeConnection(address="203.0.113.8")
    refused(requests, again, "rate_limited")
    requests.add(cast(Connection, FakeConnection()), 1, "Ole", "token", "key")


@pytest.mark.anyio
async def test_the_hosts_list_is_coalesced_whatever_the_churn() -> None:
    """The first change is sent at once; the many after it within
    ``PROMPT_SECONDS`` go as one update, with the list as it is then."""
    host = FakeConnection(0)
    askers = [FakeConnection() for _ in range(50)]
    referee = FakeReferee(host, *askers)
    requests = OpenRequests(cast(RequestsHost, referee))
    for asker in askers:  # 50 asks and 49 withdrawals, 99 changes
        request = requests.add(cast(Connection, asker), 1, "Mia", "token", "key")
        if asker is not askers[-1]:
            requests.end(request, "withdrawn")
    assert len(host.sent) == 1  # the first ask, at once
    await host.until(listing(request.id))
    assert len(host.sent) == 2
