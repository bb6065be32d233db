"""The open requests of one table (server/seat_requests.py): they expire, and each asker
is told how its request ended, once."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, cast

import pytest

from maumau.server.connection import Connection
from maumau.server.protocol import Model
from maumau.server.seat_requests import OpenRequests, RequestsHost


class FakeConnection:
    """What the requests use of a connection: its seat and what it is sent."""

    def __init__(self, seat: int | None = None) -> None:
        self.seat = seat
        self.sent: list[dict[str, Any]] = []

    def send(self, message: Model) -> None:
        self.send_text(message.model_dump_json())

    def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


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
    await asyncio.sleep(0.05)  # (later than the expiry: its timer runs first)
    assert requests.open == {}
    assert asker.sent[-1] == {
        "type": "seat_request_ended",
        "request": request.id,
        "reason": "expired",
    }
    assert host.sent[-1] == {"type": "seat_requests", "requests": []}
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
    assert [r["request"] for r in host.sent[-1]["requests"]] == [7]
    requests.remote(notice("end", 7, reason="withdrawn"))
    assert requests.open == {} and host.sent[-1]["requests"] == []


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
    from maumau.server.seat_requests import REMEMBERED_ENDS

    referee = FakeReferee()
    requests = OpenRequests(cast(RequestsHost, referee))
    for number in range(1, 3 * REMEMBERED_ENDS):
        requests.remote(notice("end", number, reason="withdrawn"))
    assert len(requests.ended) <= REMEMBERED_ENDS
