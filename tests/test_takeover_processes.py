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

from test_server_live import Server

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
