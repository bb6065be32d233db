"""A stop asked for (SIGTERM) drains: nothing acknowledged is lost, and every client is
told to reconnect (``closed`` ``server_stopping``, then WebSocket close code 1012).

One process stopped and started again under a live game; two processes on one
PostgreSQL database, one of them stopped, its players going on at the other; a rolling
restart of both behind nginx (``deploy/nginx/maumau-two.conf``, tests/support/proxies.py)
during a game; a client that never answers the close; a commit that never finishes,
cut at the bound.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import socket
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from test_server_processes import servers, wait_for
from test_server_processes import stored_client_ids as pg_client_ids
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from maumau.server.ops.drain import drain
from maumau.server.wire.errors import ServerError
from support.live import DEADLINE, Human, Server, check_finished, set_up, stored_client_ids
from support.proxies import Nginx
from support.serverkit import create_table, hello, join, make_client, receive_until, start

__all__ = ["servers"]  # (the two-process fixture, used here too)

#: what a client may be told while a server drains, besides its moves' usual refusals
DRAIN_CODES = {"server_stopping", "conflict", "stale_version", "not_your_turn"}


def moves_made(humans: list[Human], at_least: int) -> list[list[str]]:
    assert wait_for(lambda: sum(len(h.acked) for h in humans) >= at_least, 60), [
        (h.seat, h.errors[-3:], h.last) for h in humans
    ]
    return [list(h.acked) for h in humans]


def told_to_reconnect(human: Human) -> bool:
    """Whether ``human`` was told ``server_stopping``, then closed with 1012."""
    return "server_stopping" in human.closed and 1012 in human.close_codes


def terminate(server: Server) -> int:
    """SIGTERM, and the exit status (the drain is bounded: generous for a loaded machine)."""
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    return server.proc.wait(60)


@pytest.fixture
def drained(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data")
    # (four quick players, one of whom may resend after a reconnect: not a flood)
    server.options = ["--drain-seconds", "5", "--messages-per-second", "1000"]
    server.start()
    yield server
    server.stop()


def test_a_stopped_server_tells_everyone_and_loses_nothing(drained: Server) -> None:
    server = drained
    game_id, humans = set_up(server)
    for human in humans:  # (the bots move at once: the humans keep the game going)
        human.pace = 0.15
    before = moves_made(humans, 12)
    # (a player whose game is over reads no more, and is never told to reconnect)
    assert all(h.game_end is None for h in humans), "the game ended before the stop"
    assert terminate(server) == 0, "a stop asked for is a normal exit"
    for human in humans:
        assert wait_for(lambda h=human: told_to_reconnect(h), 30), (human.closed, human.drops)
    # every move acknowledged before the stop is stored, once
    stored = stored_client_ids(server.data_dir, game_id)
    for acked in before:
        assert all(stored[a] == 1 for a in acked), (acked, stored)
    server.start()  # the same data, the same port: the players come back and go on
    for human in humans:
        human.pace = 0.0
    check_finished(server, game_id, humans)
    stored = stored_client_ids(server.data_dir, game_id)
    assert all(n == 1 for n in stored.values()), "no move was applied twice"
    for human, acked in zip(humans, before, strict=True):
        assert set(acked) <= set(human.acked)
        assert all(stored[a] == 1 for a in human.acked)
        assert human.welcomes >= 2
        assert {e["code"] for e in human.errors} <= DRAIN_CODES, human.errors


def test_a_client_that_does_not_answer_the_close_does_not_hold_the_stop(
    tmp_path: Path,
) -> None:
    """A client that reads nothing and never answers the close is sent its goodbye
    and the close frame (1012) all the same, and the process exits normally."""
    server = Server(tmp_path / "data")
    server.options = ["--drain-seconds", "30", "--log-level", "info"]
    server.log = tmp_path / "serve.log"
    server.start()
    try:
        created = server.request("POST", "/api/games", {"name": "Ana", "preset": "standard"})
        stuck = _stuck_client(server.port, created["game_id"], created["token"])
        try:
            assert terminate(server) == 0
            received = b""
            while chunk := stuck.recv(65536):
                received += chunk
        finally:
            stuck.close()
        assert b'"server_stopping"' in received
        close = received.rindex(b"\x88")  # the close frame: its length, then its code
        assert received[close + 2 : close + 4] == (1012).to_bytes(2, "big"), received
        assert "draining: no new connections" in server.log.read_text()
    finally:
        server.stop()


def _stuck_client(port: int, game_id: str, token: str) -> socket.socket:
    """A WebSocket opened by hand that says hello, is welcomed, then reads nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/{game_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 101"), reply
    payload = json.dumps({"type": "hello", "token": token}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes((0x81, 0x80 | len(payload))) + mask + masked)
    seen = b""
    while b"welcome" not in seen:
        seen += sock.recv(65536)
    return sock


def test_players_of_a_stopped_process_go_on_at_the_other(
    servers: list[Server], pg_db_url: str
) -> None:
    a, b = servers
    body: dict[str, Any] = {
        "name": "Ana",
        "preset": "penalty-100",
        "options": {"limit": 300},  # a few rounds: long enough to stop a process in
        "settings": {"bot_delay_ms": 0, "next_round_seconds": 0},
    }
    created = a.request("POST", "/api/games", body)
    game_id, host = created["game_id"], created["token"]
    other = b.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    for level in ("normal", "easy"):
        a.request("POST", f"/api/games/{game_id}/bots", {"level": level}, host)
    humans = [Human(a, game_id, host), Human(b, game_id, other)]  # one on each
    for human in humans:
        human.start()
    assert wait_for(lambda: all(h.welcomes for h in humans))
    b.request("POST", f"/api/games/{game_id}/start", None, host)
    before = moves_made(humans, 12)
    humans[0].server = b  # where Ana reconnects: as a proxy would fail over
    assert terminate(a) == 0
    assert wait_for(lambda: told_to_reconnect(humans[0]), 30), (humans[0].closed, humans[0].drops)
    assert humans[1].closed == [], "the other process's player is not disturbed"
    record = check_finished(b, game_id, humans)
    stored = pg_client_ids(pg_db_url, game_id)
    assert all(n == 1 for n in stored.values()), "no move was applied twice"
    for human, acked in zip(humans, before, strict=True):
        assert set(acked) <= set(human.acked)
        assert all(stored[x] == 1 for x in human.acked)
        assert {e["code"] for e in human.errors} <= DRAIN_CODES, human.errors
    assert humans[0].welcomes >= 2 and humans[1].welcomes == 1
    after = sum(1 for r in record["rounds"] for x in r["actions"])
    assert after > sum(map(len, before)), "the game went on at the other process"


def test_a_socket_opened_during_the_drain_is_told_to_reconnect(drained: Server) -> None:
    """A connection that says hello once the drain began is not seated: it is told
    ``server_stopping`` (if it is still open to hear it) and closed with 1012 (the
    client reconnects elsewhere)."""
    server = drained
    created = server.request("POST", "/api/games", {"name": "Ana", "preset": "standard"})
    url = f"ws://127.0.0.1:{server.port}/ws/{created['game_id']}"
    with connect(url, open_timeout=5) as late, connect(url, open_timeout=5) as seated:
        seated.send(json.dumps({"type": "hello", "token": created["token"]}))
        assert json.loads(seated.recv(timeout=10))["type"] == "welcome"
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        while json.loads(seated.recv(timeout=10))["type"] != "closed":
            pass
        with contextlib.suppress(ConnectionClosed):  # (it may be cut already)
            late.send(json.dumps({"type": "hello", "token": None}))
        seen = []
        with pytest.raises(ConnectionClosed):
            while True:
                seen.append(json.loads(late.recv(timeout=10)))
        assert all(m["type"] == "closed" and m["code"] == "server_stopping" for m in seen), seen
        assert late.close_code == 1012
    assert server.proc.wait(60) == 0


def test_a_commit_that_does_not_finish_holds_the_drain_no_longer_than_its_bound(
    tmp_path: Path,
) -> None:
    """In-process: a table whose lock is never let go (a commit stuck on the database)
    is told ``server_stopping`` all the same once the bound passes; after that the
    table takes no move."""
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, preset="standard")
        join(client, game_id, "Ben")
        start(client, game_id, token)
        hub = client.app.state.hub
        referee = hub.referees[game_id]
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            client.portal.call(referee.table.lock.acquire)  # never let go by the drain

            async def stop() -> None:
                loop = asyncio.get_running_loop()
                await drain(hub, client.app.state.admission, loop.time() + 1)

            client.portal.call(stop)  # (it returns: the bound)
            seen = receive_until(ws, lambda m: m["type"] == "closed")
            assert seen[-1]["code"] == "server_stopping"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1012
        assert referee.stopped and referee.stand_in.halted
        client.portal.call(referee.table.lock.release)
        steps = referee.table.step_count
        seated = SimpleNamespace(seat=0)
        with pytest.raises(ServerError) as refused:
            version = referee.table.version
            client.portal.call(referee.act, seated, version, "late-1", {"draw": None})
        assert refused.value.code == "server_stopping"
        assert referee.table.step_count == steps


@pytest.fixture
def behind_nginx(tmp_path: Path, pg_db_url: str) -> Iterator[tuple[Server, Server, Nginx]]:
    """Two game servers on one PostgreSQL database, behind nginx as deploy/ ships it."""
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server(tmp_path / name, database_url=pg_db_url)
            server.options = ["--trusted-proxy", "127.0.0.1", "--messages-per-second", "1000"]
            server.options += ["--log-level", "info"]
            server.log = tmp_path / f"{name}.log"
            server.start()
            started.append(server)
        a, b = started
        with Nginx(tmp_path / "nginx", [a.port, b.port], "maumau-two.conf") as nginx:
            yield a, b, nginx
    finally:
        for server in started:
            server.stop()


def test_a_rolling_restart_behind_nginx_loses_nothing_and_everyone_continues(
    behind_nginx: tuple[Server, Server, Nginx], pg_db_url: str
) -> None:
    """Two humans (one on each process) and two bots play through nginx; process A is
    stopped and started again, then B, while the game goes on.  The game ends; every
    acknowledged move is in the record once; every human was told to reconnect and
    went on (through nginx, at whichever process was up)."""
    a, b, nginx = behind_nginx
    body: dict[str, Any] = {
        "name": "Ana",
        "preset": "penalty-100",
        "options": {"limit": 500},  # long enough for two restarts
        "settings": {"bot_delay_ms": 0, "next_round_seconds": 0},
    }
    created = nginx.request("POST", "/api/games", body)
    game_id, host = created["game_id"], created["token"]
    other = nginx.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    for level in ("normal", "easy"):
        nginx.request("POST", f"/api/games/{game_id}/bots", {"level": level}, host)
    humans = [Human(nginx, game_id, host), Human(nginx, game_id, other)]
    for human in humans:
        human.pace = 0.15  # (the bots move at once: the humans set the game's pace)
        human.start()
    assert wait_for(lambda: all(h.welcomes for h in humans))
    assert (_connections(a), _connections(b)) == (1, 1)  # nginx: the fewest connections
    nginx.request("POST", f"/api/games/{game_id}/start", None, host)
    acked: list[list[str]] = []
    for server in (a, b):
        acked = moves_made(humans, sum(len(h.acked) for h in humans) + 10)
        assert all(h.game_end is None for h in humans), "the game ended before the restart"
        assert terminate(server) == 0
        server.start()  # the same port
        # as docs/deploy.md says an operator's rolling restart does: the next process is
        # stopped once this one answers its /readyz (nginx never leaves a process out,
        # so it sends the next connection there at once; with max_fails=1 it waited for
        # a finished request, and players found no process up: the 502s checked below)
        assert wait_for(lambda s=server: _ready(s), 30), "the process never became ready"
    for human in humans:
        human.pace = 0.0  # both restarted: the game may end now
    for human in humans:
        human.join(DEADLINE)
    # (a player hears game_end before the process that made the last move has stored
    # the status; the other process, asked just then, still reads "playing")
    info = f"/api/games/{game_id}"
    assert wait_for(lambda: nginx.request("GET", info)["status"] == "finished", 30)
    record = check_finished(nginx, game_id, humans)
    stored = pg_client_ids(pg_db_url, game_id)
    assert all(n == 1 for n in stored.values()), "no move was applied twice"
    for human, before in zip(humans, acked, strict=True):
        assert set(before) <= set(human.acked)
        assert all(stored[x] == 1 for x in human.acked), "an acknowledged move was lost"
        assert told_to_reconnect(human) and human.welcomes >= 2, (
            human.closed,
            human.welcomes,
            human.close_codes,
            human.drops,
        )
        assert {e["code"] for e in human.errors} <= DRAIN_CODES, human.errors
    moves = sum(1 for r in record["rounds"] for x in r["actions"])
    assert moves > sum(map(len, acked))
    used = set(nginx.upstreams_used())
    assert {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"} <= used, used
    refused = [line for line in nginx.access_log.read_text().splitlines() if '" 502 ' in line]
    assert refused == [], "a client found no process up: " + "\n".join(refused[:3])


def _ready(server: Server) -> bool:
    """Whether ``server`` answers its readiness probe (an error answer: not yet)."""
    try:
        return bool(server.request("GET", "/readyz")["status"] == "ready")
    except (OSError, urllib.error.HTTPError):
        return False


def _connections(server: Server) -> int:
    count: int = server.request("GET", "/api/health")["connections"]
    return count
