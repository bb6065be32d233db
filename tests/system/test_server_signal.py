"""Lost signal at a real server: a player's packets stop (tests/support/holdproxy.py holds them
both ways, closing nothing), and the table is told.

The server's keepalive (a ping every ``PING_SECONDS``, ``PONG_SECONDS`` for its pong)
drops the silent connection within 10 s, and the next ``presence`` says at once that
the seat is away, since when, and when a computer player takes it over
(``stand_in_at``).  The times asserted are the server's own, from its messages, against
the protocol's promises: the notice comes before the takeover it announces, the
takeover comes no earlier than announced, and the drop is noticed within the
keepalive's bound of the cut (plus slack for a loaded machine's late timers; uvicorn's
default keepalive took 20 to 40 s, which the bound refuses).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from maumau.cli.serve import PING_SECONDS, PONG_SECONDS
from support.holdproxy import HoldProxy
from support.live import Server

Message = dict[str, Any]

#: what a loaded test machine may add to the keepalive's bound (late timers)
SLACK_SECONDS = 4.0
#: the table's grace period in these tests
GRACE = 6.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def proxy(server: Server) -> Iterator[HoldProxy]:
    proxy = HoldProxy(server.port).start()
    yield proxy
    proxy.stop()


def until(ws: ClientConnection, found: Callable[[Message], bool], seen: list[Message]) -> Message:
    """Read ``ws`` until a message ``found`` it (each one read is added to ``seen``)."""
    deadline = time.monotonic() + 90  # against a hang only
    while True:
        message = json.loads(ws.recv(max(0.1, deadline - time.monotonic())))
        seen.append(message)
        if found(message):
            return message


def hello(url: str, game_id: str, token: str) -> ClientConnection:
    ws = connect(f"{url}/ws/{game_id}", ping_interval=None)  # only the server's keepalive
    ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


def is_connected(message: Message, seat: int) -> bool:
    """Whether ``message`` (a ``presence`` or a ``lobby``) says ``seat`` is connected."""
    if message["type"] == "lobby":
        return bool(message["game"]["seats"][seat]["connected"])
    return message["type"] == "presence" and seat in message["connected"]


def away_of(message: Message, seat: int) -> Message | None:
    if message["type"] != "presence":
        return None
    return next((a for a in message["away"] if a["seat"] == seat), None)


def test_the_table_is_told_of_a_lost_signal_with_the_takeover_time(
    server: Server, proxy: HoldProxy
) -> None:
    created = server.request(
        "POST", "/api/games", {"name": "Ana", "settings": {"grace_seconds": GRACE}}
    )
    game_id, ana_token = created["game_id"], created["token"]
    ben_token = server.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    ana_seen: list[Message] = []
    ben_seen: list[Message] = []
    with (
        hello(server.ws_url, game_id, ana_token) as ana,
        hello(proxy.ws_url, game_id, ben_token) as ben,
    ):
        until(ben, lambda m: m["type"] == "welcome", ben_seen)
        server.request("POST", f"/api/games/{game_id}/start", None, ana_token)
        until(ben, lambda m: m["type"] == "state", ben_seen)
        until(ana, lambda m: is_connected(m, 1), ana_seen)

        cut_at = time.time()  # (the server's clock too: one machine) at most the cut
        proxy.cut()
        notice = until(ana, lambda m: away_of(m, 1) is not None, ana_seen)
        away = away_of(notice, 1)
        assert away is not None
        assert 1 not in notice["connected"] and notice["stand_in"] == []
        # noticed within the keepalive's bound of the cut, by the server's clock
        assert cut_at <= away["since"] <= cut_at + PING_SECONDS + PONG_SECONDS + SLACK_SECONDS
        # told at once, with the takeover still ahead: the countdown is the grace period
        assert away["since"] <= notice["server_time"] < away["stand_in_at"]
        assert away["stand_in_at"] == pytest.approx(away["since"] + GRACE)
        # nothing about the seat before the notice said it was away
        assert not any(m["type"] == "lobby" and m["game"]["seats"][1]["stand_in"] for m in ana_seen)

        # the computer takes over no earlier than announced, and says so
        taken = until(
            ana,
            lambda m: (
                (m["type"] == "presence" and 1 in m["stand_in"])
                or (m["type"] == "lobby" and m["game"]["seats"][1]["stand_in"])
            ),
            ana_seen,
        )
        state = until(ana, lambda m: m["type"] == "state", ana_seen)
        assert state["server_time"] >= away["stand_in_at"]
        assert taken["type"] == "lobby"
        after = until(ana, lambda m: m["type"] == "presence", ana_seen)
        assert after["away"] == [{"seat": 1, "since": away["since"], "stand_in_at": None}]

        proxy.release(deliver=False)  # the signal is back; the old connection is gone
    with (
        hello(proxy.ws_url, game_id, ben_token) as ben,
        hello(server.ws_url, game_id, ana_token) as ana,
    ):
        until(ben, lambda m: m["type"] == "welcome", ben_seen)
        until(ana, lambda m: is_connected(m, 1), ana_seen)
        assert not any(m["type"] == "presence" and m["away"] for m in ana_seen[-2:])


def test_a_newcomer_is_told_who_is_away(server: Server) -> None:
    created = server.request("POST", "/api/games", {"name": "Ana"})
    game_id, ana_token = created["game_id"], created["token"]
    server.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})
    server.request("POST", f"/api/games/{game_id}/start", None, ana_token)
    seen: list[Message] = []
    with hello(server.ws_url, game_id, ana_token) as ana:
        lobby = until(ana, lambda m: m["type"] == "lobby", seen)
        presence = until(ana, lambda m: m["type"] == "presence", seen)
    assert seen.index(lobby) < seen.index(presence)
    (away,) = presence["away"]
    assert away["seat"] == 1 and away["stand_in_at"] == pytest.approx(away["since"] + 30)
