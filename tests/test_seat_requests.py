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


class FakeReferee:
    def __init__(self, *conns: FakeConnection) -> None:
        self.table = FakeTable()
        self.connections = cast(set[Connection], set(conns))
        self.clock = time.time
        self.store = FakeStore()


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
