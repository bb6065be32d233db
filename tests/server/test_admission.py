"""Who may hold a table's WebSocket: the hello deadline, the caps per client address
and per table, and the sockets that have not said hello in ``/api/health``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from support.serverkit import create_table, hello, make_client

#: how long a test waits for a message that must come (it fails, not hangs, without it)
GUARD = 30.0


def recv(ws: WebSocketTestSession) -> dict[str, Any]:
    """The next message on ``ws``, as JSON (TimeoutError if none comes in time)."""

    async def get() -> Any:
        with anyio.fail_after(GUARD):
            return await ws._send_rx.receive()

    raw = ws.portal.call(get)
    if raw["type"] == "websocket.close":
        raise WebSocketDisconnect(raw.get("code", 1000))
    assert raw["type"] == "websocket.send", raw
    message: dict[str, Any] = json.loads(raw["text"])
    return message


def recv_type(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (or a ``closed`` or ``error``), skipping others
    (``lobby``, ``presence``...)."""
    for _ in range(100):
        message = recv(ws)
        if message["type"] in (kind, "closed", "error"):
            return message
    raise AssertionError(f"no {kind} message")


def closed_with(ws: WebSocketTestSession, code: str) -> str:
    """The socket is sent ``closed`` with ``code``, then closed; the message."""
    message = recv(ws)
    assert message["type"] == "closed", message
    assert message["code"] == code, message
    with pytest.raises(WebSocketDisconnect):
        recv(ws)
    text: str = message["message"]
    return text


def health(client: TestClient) -> dict[str, Any]:
    reply: dict[str, Any] = client.get("/api/health").json()
    return reply


def wait_for_health(client: TestClient, **expected: int) -> None:
    """Poll ``/api/health`` until its counts are ``expected`` (a closed socket is
    counted off once the server has handled its end)."""
    deadline = time.monotonic() + GUARD
    while {k: health(client)[k] for k in expected} != expected:
        assert time.monotonic() < deadline, f"health never showed {expected}: {health(client)}"
        time.sleep(0.02)


# --- the hello deadline -----------------------------------------------------------------


def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    with make_client(tmp_path, hello_seconds=0.3) as client:
        game_id, _ = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            assert "hello" in closed_with(ws, "hello_timeout")
        wait_for_health(client, pending=0, connections=0)


def test_pings_do_not_put_off_the_hello_deadline(tmp_path: Path) -> None:
    with make_client(tmp_path, hello_seconds=0.5) as client:
        game_id, _ = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            ws.send_json({"type": "ping"})
            assert recv(ws) == {"type": "pong"}
            for _ in range(1000):  # pings until the deadline, each answered
                ws.send_json({"type": "ping"})
                message = recv_type(ws, "pong")
                if message["type"] == "closed":
                    assert message["code"] == "hello_timeout"
                    break
                assert message == {"type": "pong"}
                time.sleep(0.01)
            else:
                raise AssertionError("pings kept the socket open without a hello")


def test_a_socket_that_said_hello_outlives_the_deadline(tmp_path: Path) -> None:
    with make_client(tmp_path, hello_seconds=0.2) as client:
        game_id, token = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            time.sleep(0.5)
            ws.send_json({"type": "ping"})
            assert recv_type(ws, "pong") == {"type": "pong"}


# --- the caps -----------------------------------------------------------------------------


def test_an_address_may_hold_so_many_sockets(tmp_path: Path) -> None:
    """Every TestClient socket comes from the address ``testclient``."""
    with make_client(tmp_path, connections_per_address=2) as client:
        first, _ = create_table(client)
        other, _ = create_table(client)
        with (
            client.websocket_connect(f"/ws/{first}") as a,
            client.websocket_connect(f"/ws/{other}") as b,
        ):
            hello(a, None)
            for table in (first, other, "no-such-table"):  # also before the table is known
                with client.websocket_connect(f"/ws/{table}") as refused:
                    message = closed_with(refused, "too_many_connections")
                    assert "address" in message and "2" in message
            assert health(client)["pending"] == 1  # b; a has said hello
            b.close()
            wait_for_health(client, pending=0, connections=1)
            with client.websocket_connect(f"/ws/{other}") as again:
                hello(again, None)  # b's place is free again
        wait_for_health(client, pending=0, connections=0)


def test_an_address_may_open_so_many_sockets_a_minute(tmp_path: Path) -> None:
    """A client closed for flooding cannot come straight back again and again: an
    address opens at most ``connections_per_minute`` sockets a minute (in bursts of as
    many), whether they are still open or not."""
    with make_client(tmp_path, connections_per_minute=3.0) as client:
        game_id, _ = create_table(client)
        for _ in range(3):
            with client.websocket_connect(f"/ws/{game_id}") as ws:
                hello(ws, None)
        with client.websocket_connect(f"/ws/{game_id}") as refused:
            message = closed_with(refused, "rate_limited")
            assert "3 connections in a minute" in message
        wait_for_health(client, pending=0, connections=0)


def test_a_table_may_have_so_many_sockets(tmp_path: Path) -> None:
    with make_client(tmp_path, connections_per_table=2) as client:
        full, token = create_table(client)
        other, _ = create_table(client)
        with (
            client.websocket_connect(f"/ws/{full}") as host,
            client.websocket_connect(f"/ws/{full}") as watcher,
        ):
            hello(host, token)
            hello(watcher, None)  # a spectator counts too
            with client.websocket_connect(f"/ws/{full}") as refused:
                message = closed_with(refused, "too_many_connections")
                assert "table" in message and "2" in message
            with client.websocket_connect(f"/ws/{other}") as elsewhere:
                hello(elsewhere, None)  # another table has its own cap
            with client.websocket_connect("/ws/no-such-table") as unknown:
                closed_with(unknown, "unknown_game")
            watcher.close()
            wait_for_health(client, connections=1)
            with client.websocket_connect(f"/ws/{full}") as again:
                hello(again, None)


def test_health_counts_the_sockets_that_have_not_said_hello(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client)
        assert health(client)["pending"] == 0
        with (
            client.websocket_connect(f"/ws/{game_id}") as a,
            client.websocket_connect(f"/ws/{game_id}") as b,
        ):
            wait_for_health(client, pending=2, connections=0)
            hello(a, token)
            wait_for_health(client, pending=1, connections=1)
            b.send_json({"type": "hello", "token": "not-a-token"})
            assert recv_type(b, "error")["code"] == "bad_token"  # refused: still pending
            assert health(client)["pending"] == 1
            hello(b, None)
            wait_for_health(client, pending=0, connections=2)
        wait_for_health(client, pending=0, connections=0)
