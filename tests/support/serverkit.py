"""Helpers for server tests: an app on a fresh SQLite file, tables, sockets."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from maumau.server.app import create_app
from maumau.server.config import ServerConfig

#: action ids unique across every call in a test run (a resent id is a duplicate)
ACTION_IDS = itertools.count(1)

#: limits raised so tests are not throttled unless they mean to be
TEST_LIMITS: dict[str, Any] = {
    "messages_per_second": 10_000.0,
    "message_burst": 10_000.0,
    "tables_per_minute": 10_000.0,
    # every TestClient socket comes from the address "testclient"; some tests open many
    "connections_per_address": 10_000,
    "connections_per_table": 10_000,
    "connections_per_minute": 1e9,
    # a test may open a socket and do other things before its hello (a loaded machine)
    "hello_seconds": 600.0,
    # tests create dozens of tables from "testclient" and play bot tables with no socket
    # at bot_delay_ms 0 (tests/server/test_bot_budget.py sets these limits itself)
    "live_tables_per_address": 10_000,
    "unattended_tables_per_address": 10_000,
    "unattended_bot_delay_ms": 0,
    "unattended_seconds": 1e9,
    "replays_per_minute": 10_000.0,
    # one worker for the hard bot is enough for a test
    "bot_workers": 1,
    # hard bots at bot_delay_ms 0 play at full speed (tests/server/test_pool_share.py meters them)
    "worker_share_per_table": 10_000.0,
    "worker_share_per_address": 10_000.0,
}


def make_client(data_dir: Path, **config: Any) -> TestClient:
    """A TestClient (use it as a context manager) for an app on ``data_dir``."""
    settings = {**TEST_LIMITS, **config}
    return TestClient(create_app(ServerConfig(data_dir=data_dir, **settings)))


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_table(
    client: TestClient,
    name: str = "Ana",
    preset: str | None = "penalty-100",
    options: dict[str, Any] | None = None,
    **settings: Any,
) -> tuple[str, str]:
    """Create a table (bot delay and time between rounds 0 unless given); returns
    (game id, host token)."""
    body: dict[str, Any] = {
        "name": name,
        "settings": {"bot_delay_ms": 0, "next_round_seconds": 0, **settings},
    }
    if preset is not None:
        body["preset"] = preset
    if options:
        body["options"] = options
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 201, reply.text
    data = reply.json()
    return data["game_id"], data["token"]


def join(client: TestClient, game_id: str, name: str) -> tuple[int, str]:
    reply = client.post(f"/api/games/{game_id}/seats", json={"name": name})
    assert reply.status_code == 200, reply.text
    data = reply.json()
    return data["seat"], data["token"]


def add_bot(client: TestClient, game_id: str, token: str, level: str = "normal") -> int:
    reply = client.post(f"/api/games/{game_id}/bots", json={"level": level}, headers=auth(token))
    assert reply.status_code == 200, reply.text
    seat: int = reply.json()["seat"]
    return seat


def start(client: TestClient, game_id: str, token: str) -> None:
    reply = client.post(f"/api/games/{game_id}/start", headers=auth(token))
    assert reply.status_code == 204, reply.text


def hello(ws: WebSocketTestSession, token: str | None) -> dict[str, Any]:
    """Say hello; returns the welcome message."""
    ws.send_json({"type": "hello", "token": token})
    welcome: dict[str, Any] = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return welcome


def receive_until(
    ws: WebSocketTestSession, done: Callable[[dict[str, Any]], bool], limit: int = 10_000
) -> list[dict[str, Any]]:
    """Receive messages until ``done(message)``; returns them all (the last one last)."""
    seen = []
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        seen.append(message)
        if done(message):
            return seen
    raise AssertionError(f"no matching message in {limit}")


def play_first_legal(
    ws: WebSocketTestSession, seat: int, until: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """Play the first legal action whenever it is ``seat``'s turn, until ``until``."""
    seen = []
    for _ in range(100_000):
        message: dict[str, Any] = ws.receive_json()
        seen.append(message)
        if until(message):
            return seen
        if message["type"] == "state" and message["legal"] and not message["view"]["finished"]:
            ws.send_json(
                {
                    "type": "action",
                    "version": message["version"],
                    "action_id": f"s{seat}-{next(ACTION_IDS)}",
                    "action": message["legal"][0],
                }
            )
    raise AssertionError("the game did not get there")


def wait_for_status(client: TestClient, game_id: str, status: str, timeout: float = 60) -> None:
    """Poll the table's info until its status is ``status``."""
    deadline = time.monotonic() + timeout
    while client.get(f"/api/games/{game_id}").json()["status"] != status:
        assert time.monotonic() < deadline, f"table {game_id} never became {status}"
        time.sleep(0.05)
