"""Late friends with two ``maumau serve`` processes on one PostgreSQL database: a seat
taken over at one process is the newcomer's at the other too (its name, and its new
token), as any change of seats (a change notice, then a reload)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from support.live import Server

Message = dict[str, Any]

#: seconds one expected message may take on a loaded machine
TIMEOUT = 30.0


@pytest.fixture
def servers(tmp_path: Path, pg_db_url: str) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server(tmp_path / name, database_url=pg_db_url)
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


def until(ws: ClientConnection, done: Callable[[Message], bool]) -> Message:
    while True:
        message: Message = json.loads(ws.recv(timeout=TIMEOUT))
        if done(message):
            return message


def test_a_seat_taken_at_one_process_is_the_newcomers_at_the_other(
    servers: list[Server],
) -> None:
    a, b = servers
    body = {"name": "Ana", "preset": "penalty-100", "settings": {"bot_delay_ms": 10_000}}
    created = a.request("POST", "/api/games", body)
    game_id, host = created["game_id"], created["token"]
    a.request("POST", f"/api/games/{game_id}/bots", {"level": "easy"}, host)
    a.request("POST", f"/api/games/{game_id}/start", None, host)
    with (
        connect(f"ws://127.0.0.1:{a.port}/ws/{game_id}") as ana,
        connect(f"ws://127.0.0.1:{a.port}/ws/{game_id}") as mia,
        connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as watcher,
    ):
        ana.send(json.dumps({"type": "hello", "token": host}))
        until(ana, lambda m: m["type"] == "state")
        watcher.send(json.dumps({"type": "hello", "token": None}))
        until(watcher, lambda m: m["type"] == "state")
        mia.send(json.dumps({"type": "hello", "token": None}))
        until(mia, lambda m: m["type"] == "state")
        mia.send(json.dumps({"type": "ask_seat", "seat": 1, "name": "Mia"}))
        request = until(ana, lambda m: m["type"] == "seat_requests" and bool(m["requests"]))
        number = request["requests"][0]["request"]
        ana.send(json.dumps({"type": "answer_seat", "request": number, "accept": True}))
        token = until(mia, lambda m: m["type"] == "seat_given")["token"]
        hand = until(mia, lambda m: m["type"] == "state")["view"]["hand"]
        # the other process tells its connections the seat's new name
        seen = until(watcher, lambda m: m["type"] == "state" and "Mia" in m["view"]["players"])
        assert seen["view"]["players"] == ["Ana", "Mia"] and seen["view"]["hand"] == []
        info = b.request("GET", f"/api/games/{game_id}")
        assert (info["seats"][1]["name"], info["seats"][1]["kind"]) == ("Mia", "human")
    # the new token holds the seat at the other process
    with connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as again:
        again.send(json.dumps({"type": "hello", "token": token}))
        welcome = until(again, lambda m: m["type"] in ("welcome", "error"))
        assert welcome["type"] == "welcome" and welcome["seat"] == 1, welcome
        assert until(again, lambda m: m["type"] == "state")["view"]["hand"] == hand


def test_a_friend_at_one_process_asks_a_host_at_the_other(servers: list[Server]) -> None:
    """The request reaches the host's process; a decline reaches the asker's; an
    accepted request hands the seat to the asker where it is connected."""
    a, b = servers
    body = {"name": "Ana", "preset": "penalty-100", "settings": {"bot_delay_ms": 10_000}}
    created = b.request("POST", "/api/games", body)
    game_id, host = created["game_id"], created["token"]
    b.request("POST", f"/api/games/{game_id}/bots", {"level": "easy"}, host)
    b.request("POST", f"/api/games/{game_id}/start", None, host)
    with (
        connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as ana,
        connect(f"ws://127.0.0.1:{a.port}/ws/{game_id}") as mia,
    ):
        ana.send(json.dumps({"type": "hello", "token": host}))
        until(ana, lambda m: m["type"] == "state")
        mia.send(json.dumps({"type": "hello", "token": None}))
        until(mia, lambda m: m["type"] == "state")
        # declined at b: told at a
        mia.send(json.dumps({"type": "ask_seat", "seat": 1, "name": "Mia"}))
        asked = until(mia, lambda m: m["type"] in ("seat_asked", "error"))
        assert asked["type"] == "seat_asked", asked
        listing = until(ana, lambda m: m["type"] == "seat_requests" and bool(m["requests"]))
        assert listing["requests"] == [
            {"request": asked["request"], "seat": 1, "name": "Mia", "expires": asked["expires"]}
        ]
        ana.send(json.dumps({"type": "answer_seat", "request": asked["request"], "accept": False}))
        ended = until(mia, lambda m: m["type"] == "seat_request_ended")
        assert ended["reason"] == "declined"
        until(ana, lambda m: m["type"] == "seat_requests" and not m["requests"])
        # accepted at b: the seat is handed over at a
        mia.send(json.dumps({"type": "ask_seat", "seat": 1, "name": "Mia"}))
        again = until(mia, lambda m: m["type"] == "seat_asked")
        until(ana, lambda m: m["type"] == "seat_requests" and bool(m["requests"]))
        ana.send(json.dumps({"type": "answer_seat", "request": again["request"], "accept": True}))
        given = until(mia, lambda m: m["type"] == "seat_given")
        assert (given["game_id"], given["seat"]) == (game_id, 1)
        welcome = until(mia, lambda m: m["type"] == "welcome")
        assert (welcome["seat"], welcome["role"]) == (1, "player")
        state = until(mia, lambda m: m["type"] == "state" and m["view"]["seat"] == 1)
        assert state["view"]["players"] == ["Ana", "Mia"] and len(state["view"]["hand"]) == 5
        # the host's state names the seat for Mia; Mia's seat counts as connected
        until(ana, lambda m: m["type"] == "state" and m["view"]["players"][1] == "Mia")
        until(ana, lambda m: m["type"] in ("presence", "lobby") and 1 in connected_of(m))
    with connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as back:
        back.send(json.dumps({"type": "hello", "token": given["token"]}))
        assert until(back, lambda m: m["type"] in ("welcome", "error"))["seat"] == 1


def connected_of(message: Message) -> list[int]:
    if message["type"] == "presence":
        return list(message["connected"])
    return [s["position"] for s in message["game"]["seats"] if s["connected"]]
