"""``/metrics``: Prometheus's text format, on the metrics port only, moving with play.

A real ``maumau serve --metrics-port`` plays a game of two humans and two bots to the
end; its metrics, read with ``prometheus_client``'s own parser, count every move of
the record, the bots' decisions, the refusals of deliberately bad messages and a
reconnect.  In-process: a stand-in's takeover, and what the scrape reads off the live
tables (tables by state, connections).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from websockets.sync.client import connect

from lab.ports import free_port
from maumau.server.live.metrics import Tally
from support.live import Human, Server, check_finished, set_up
from support.prometheus import Families, parse, value
from support.serverkit import create_table, hello, join, make_client, receive_until, start


def scrape(port: int) -> Families:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        assert reply.status == 200
        assert reply.headers["Content-Type"].startswith("text/plain")
        return parse(reply.read().decode())


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def server(tmp_path: Path) -> object:
    server = Server(tmp_path / "data")
    server.metrics_port = free_port()  # type: ignore[attr-defined]
    server.options = ["--metrics-port", str(server.metrics_port)]  # type: ignore[attr-defined]
    server.start()
    yield server
    server.stop()


def test_metrics_move_with_a_game(server: Server) -> None:
    port: int = server.metrics_port  # type: ignore[attr-defined]
    before = scrape(port)
    assert value(before, "maumau_build_info", version=_version()) == 1
    assert value(before, "maumau_moves_committed_total") == 0
    assert "process_cpu_seconds" in before and "process_open_fds" in before

    game_id, humans = set_up(server)
    # deliberately bad messages, from a spectator: not valid JSON, and a move
    with connect(f"ws://127.0.0.1:{server.port}/ws/{game_id}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello"}))
        ws.send("{not json")
        ws.send(json.dumps({"type": "action", "version": 0, "action_id": "x", "action": {}}))
        codes = []
        while len(codes) < 2:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "error":
                codes.append(message["code"])
        assert codes == ["bad_json", "not_seated"]
        during = scrape(port)
        assert value(during, "maumau_connections", kind="spectating") == 1
    record = check_finished(server, game_id, humans)
    # a human's seat said hello again: a reconnect
    with connect(f"ws://127.0.0.1:{server.port}/ws/{game_id}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": humans[0].token}))
        assert json.loads(ws.recv(timeout=30))["type"] == "welcome"
        after = scrape(port)

    moves = sum(len(r["actions"]) for r in record["rounds"])
    assert value(after, "maumau_moves_committed_total") == moves > 0
    assert value(after, "maumau_move_commit_broadcast_seconds_count") == moves
    assert value(after, "maumau_move_commit_broadcast_seconds_sum") > 0
    for level in ("normal", "easy"):
        assert value(after, "maumau_bot_decision_seconds_count", level=level) > 0
    assert value(after, "maumau_refusals_total", code="bad_json") == 1
    assert value(after, "maumau_refusals_total", code="not_seated") == 1
    assert value(after, "maumau_reconnects_total") >= 1
    assert value(after, "maumau_connections", kind="seated") >= 1
    assert value(after, "maumau_store_errors_total") == 0
    assert value(after, "maumau_tables", state="finished") == 1
    assert value(after, "maumau_tables", state="playing") == 0


def test_metrics_are_not_on_the_public_port(server: Server) -> None:
    port: int = server.metrics_port  # type: ignore[attr-defined]
    assert status_of(f"{server.url}/metrics") == 404
    assert status_of(f"http://127.0.0.1:{port}/api/health") == 404
    assert status_of(f"http://127.0.0.1:{port}/metrics") == 200
    # a 404 on the public port is a refusal like any other
    assert value(scrape(port), "maumau_refusals_total", code="not_found") == 1


def test_no_metrics_port_unless_asked(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    server.start()
    try:
        assert status_of(f"{server.url}/metrics") == 404
        assert status_of(f"{server.url}/healthz") == 200
    finally:
        server.stop()


def test_two_processes_on_postgresql_count_the_notify_lag(tmp_path: Path, pg_db_url: str) -> None:
    """Players on two processes: each hears of the other's commits through change
    notices, and counts how long they took; together the processes count every move
    of the record once."""
    servers = []
    try:
        for name in ("a", "b"):
            server = Server(tmp_path / name, database_url=pg_db_url)
            server.metrics_port = free_port()  # type: ignore[attr-defined]
            server.options = ["--metrics-port", str(server.metrics_port)]  # type: ignore[attr-defined]
            server.options += ["--messages-per-second", "1000"]
            server.start()
            servers.append(server)
        a, b = servers
        created = a.request(
            "POST",
            "/api/games",
            {"name": "Ana", "preset": "standard", "settings": {"bot_delay_ms": 0}},
        )
        game_id, host = created["game_id"], created["token"]
        other = b.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
        a.request("POST", f"/api/games/{game_id}/bots", {"level": "easy"}, host)
        humans = [Human(a, game_id, host), Human(b, game_id, other)]
        for human in humans:
            human.start()
        deadline = time.monotonic() + 30
        while any(h.welcomes == 0 for h in humans) and time.monotonic() < deadline:
            time.sleep(0.05)
        a.request("POST", f"/api/games/{game_id}/start", None, host)
        record = check_finished(a, game_id, humans)
        scraped = [scrape(s.metrics_port) for s in servers]  # type: ignore[attr-defined]
    finally:
        for server in servers:
            server.stop()
    moves = sum(len(r["actions"]) for r in record["rounds"])
    assert sum(value(m, "maumau_moves_committed_total") for m in scraped) == moves
    for metrics in scraped:
        assert value(metrics, "maumau_listener_connected") == 1
        assert value(metrics, "maumau_notify_lag_seconds_count") > 0
        assert value(metrics, "maumau_notify_lag_seconds_sum") >= 0


def test_a_stand_in_takeover_and_the_live_tables(tmp_path: Path) -> None:
    """In-process: the app's own registry, as the metrics port serves it."""
    with make_client(tmp_path) as client:
        registry = client.app.state.registry  # type: ignore[attr-defined]
        game_id, host = create_table(client, grace_seconds=0)
        _, other = join(client, game_id, "Ben")
        create_table(client)  # a second table, left in the lobby
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, host)
            with client.websocket_connect(f"/ws/{game_id}") as ben:
                hello(ben, other)
                start(client, game_id, host)
                receive_until(ws, lambda m: m["type"] == "state")
                live = parse(generate_latest(registry).decode())
                assert value(live, "maumau_connections", kind="seated") == 2
                assert value(live, "maumau_tables", state="playing") == 1
                assert value(live, "maumau_tables", state="lobby") == 1
            # Ben is gone: with no grace period, a stand-in takes his seat
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                families = parse(generate_latest(registry).decode())
                if value(families, "maumau_stand_in_takeovers_total") >= 1:
                    break
                time.sleep(0.05)
            assert value(families, "maumau_stand_in_takeovers_total") == 1
            assert value(families, "maumau_connections", kind="seated") == 1


def test_histogram_buckets_are_cumulative() -> None:
    tally = Tally((0.1, 1.0))
    for seconds in (0.05, 0.1, 0.5, 3.0):
        tally.observe(seconds)
    assert tally.buckets() == [("0.1", 2), ("1.0", 3), ("+Inf", 4)]
    assert tally.total == pytest.approx(3.65)


def _version() -> str:
    from maumau import __version__

    return __version__


def test_a_metrics_port_that_cannot_be_served_is_a_one_line_error(tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        for options, expected in (
            (["--metrics-port", str(busy)], f"127.0.0.1:{busy} cannot be bound"),
            (["--metrics-port", str(port)], "must not be the public port"),
            (["--metrics-port", "70000"], "a port is 0 to 65535"),
        ):
            serve = [sys.executable, "-m", "maumau", "serve", "--port", str(port)]
            done = subprocess.run(
                [*serve, "--data-dir", str(tmp_path / "data"), *options],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 2, done.stderr
            assert expected in done.stderr and "Traceback" not in done.stderr
