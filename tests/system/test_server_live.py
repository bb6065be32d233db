"""The server as people run it: a real ``maumau serve`` process, real WebSocket clients.

A full game with two humans and two bots to the final result; and the same with the
server killed mid-game and started again on the same data, the humans reconnecting
with their tokens: no acknowledged move may be lost or applied twice.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect

from lab.ports import free_port
from support.live import Server, check_finished, set_up, stored_client_ids


@pytest.fixture
def server(tmp_path: Path) -> Any:
    server = Server(tmp_path / "data")
    server.start()
    yield server
    server.stop()


def test_full_game_two_humans_two_bots(server: Server) -> None:
    game_id, humans = set_up(server)
    check_finished(server, game_id, humans)
    stored = stored_client_ids(server.data_dir, game_id)
    for human in humans:
        assert all(stored[a] == 1 for a in human.acked)
        assert all(e["code"] != "internal_error" for e in human.errors)
        assert human.versions == sorted(human.versions)


def test_full_game_over_other_websocket_compressions(server: Server) -> None:
    """Browsers offer compression with context takeover, as the test above plays.  A
    client may also ask the server to compress each message on its own, with a small
    window, or offer no compression: every message still reads as sent."""
    fresh = ClientPerMessageDeflateFactory(
        server_no_context_takeover=True, server_max_window_bits=9
    )
    options = ({"compression": None, "extensions": [fresh]}, {"compression": None})
    game_id, humans = set_up(server, options)
    check_finished(server, game_id, humans)
    for human in humans:
        assert human.drops == []  # a message that fails to decode closes the socket
        assert all(e["code"] != "internal_error" for e in human.errors)


def test_killed_server_resumes_and_nothing_acknowledged_is_lost(server: Server) -> None:
    game_id, humans = set_up(server)
    deadline = time.monotonic() + 30
    while sum(len(h.acked) for h in humans) < 12 and time.monotonic() < deadline:
        time.sleep(0.01)
    before = [list(h.acked) for h in humans]
    assert sum(map(len, before)) >= 12, "the game did not get going"
    server.kill()  # mid-game, without warning
    time.sleep(0.3)
    server.start()  # same data directory, new process
    record = check_finished(server, game_id, humans)
    assert all(h.welcomes >= 2 for h in humans), "both humans reconnected with their tokens"
    stored = stored_client_ids(server.data_dir, game_id)
    for human, acked_before in zip(humans, before, strict=True):
        for action_id in human.acked:
            assert stored[action_id] == 1, (
                f"{action_id} acknowledged but stored {stored[action_id]}x"
            )
        assert set(acked_before) <= set(human.acked)
    assert all(n == 1 for n in stored.values()), "no move was applied twice"
    assert len(record["rounds"]) >= 1


def test_serve_prints_where_and_what_to_open(tmp_path: Path) -> None:
    port = free_port()
    data_dir = tmp_path / "fresh" / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "maumau", "serve", "--port", str(port), "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
    finally:
        proc.terminate()
        proc.wait(10)
    assert str(data_dir) in lines[0]
    assert f"http://127.0.0.1:{port}/" in lines[1]
    assert data_dir.is_dir()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopping_server_says_so_before_it_closes(server: Server, stop: signal.Signals) -> None:
    created = server.request("POST", "/api/games", {"name": "Ana", "preset": "standard"})
    url = f"ws://127.0.0.1:{server.port}/ws/{created['game_id']}"
    with connect(url, open_timeout=5) as ws:
        ws.send(json.dumps({"type": "hello", "token": created["token"]}))
        assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
        assert server.proc is not None
        server.proc.send_signal(stop)  # SIGTERM (as systemd stops it) or Ctrl+C
        seen = []
        with pytest.raises(ConnectionClosed):
            while True:
                seen.append(json.loads(ws.recv(timeout=10)))
    assert seen[-1]["type"] == "closed" and seen[-1]["code"] == "server_stopping", seen
    assert ws.close_code == 1012  # service restart: come back soon
    assert server.proc.wait(30) == 0  # a stop asked for: a normal exit
