"""The recipes of ``deploy/`` as they are shipped, with real nginx and Caddy in front of
real ``maumau serve`` processes (tests/support/proxies.py; skipped when nginx or Caddy is not
installed).

Games of two humans and two bots played to the end through nginx in front of two
processes on one PostgreSQL database (the humans on different processes), and through
Caddy in front of one; the table-creation limit per real client (clients on different
loopback addresses behind the proxy get their own buckets; a forged
``X-Forwarded-For`` counts for nothing); and the links at ``--public-url``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from maumau.server.live.replays import qr_svg
from support.live import Server, check_finished, set_up
from support.paths import ROOT
from support.proxies import Caddy, Front, Nginx, request_from

TRUST = ["--trusted-proxy", "127.0.0.1"]
CREATE = {"name": "Ana", "preset": "standard"}


@pytest.fixture
def servers(tmp_path: Path, pg_db_url: str) -> Iterator[list[Server]]:
    """Two game servers on one PostgreSQL database, trusting the proxy on 127.0.0.1."""
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server(tmp_path / name, database_url=pg_db_url)
            server.options = [*TRUST, "--messages-per-second", "1000"]
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


def connections(server: Server) -> int:
    count: int = server.request("GET", "/api/health")["connections"]
    return count


def test_a_game_through_nginx_in_front_of_two_processes_on_postgresql(
    tmp_path: Path, servers: list[Server]
) -> None:
    a, b = servers
    with Nginx(tmp_path / "nginx", [a.port, b.port], "maumau-two.conf") as nginx:
        game_id, humans = set_up(nginx)
        assert all(h.welcomes == 1 for h in humans)
        # one human on each process: each has one of the two sockets
        assert (connections(a), connections(b)) == (1, 1)
        record = check_finished(nginx, game_id, humans)
        for human in humans:
            assert not [e for e in human.errors if e["code"] != "conflict"], human.errors
        assert a.request("GET", f"/api/games/{game_id}/record") == record
        assert b.request("GET", f"/api/games/{game_id}/record") == record
        used = set(nginx.upstreams_used())
        assert {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"} <= used, used
        # one process gone: every request goes to the other (proxy_next_upstream)
        b.kill()
        for _ in range(6):
            assert nginx.request("GET", f"/api/games/{game_id}")["status"] == "finished"
            assert nginx.request("POST", "/api/games", {"name": "Ana"})["seat"] == 0


def test_a_game_through_caddy_in_front_of_one_process(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    server.options = TRUST
    server.start()
    try:
        with Caddy(tmp_path / "caddy", server.port) as caddy:
            game_id, humans = set_up(caddy)
            assert connections(server) == 2
            check_finished(caddy, game_id, humans)
            assert all(e["code"] != "internal_error" for h in humans for e in h.errors)
    finally:
        server.stop()


def _proxy(kind: str, workdir: Path, server: Server) -> Front:
    if kind == "nginx":
        return Nginx(workdir, [server.port])
    return Caddy(workdir, server.port)


@pytest.mark.parametrize("kind", ["nginx", "caddy"])
def test_tables_are_limited_per_real_client_behind_the_proxy(tmp_path: Path, kind: str) -> None:
    """Two clients (127.0.0.2, 127.0.0.3) behind the proxy have a bucket each; what a
    client writes into X-Forwarded-For itself changes nothing."""
    server = Server(tmp_path / "data")
    server.options = [*TRUST, "--tables-per-minute", "1"]
    server.start()
    try:
        with _proxy(kind, tmp_path / kind, server) as proxy:
            status, _ = request_from("127.0.0.2", proxy.url, "POST", "/api/games", CREATE)
            assert status == 201
            forged = {"X-Forwarded-For": "203.0.113.77"}
            for headers in ({}, forged):
                status, body = request_from(
                    "127.0.0.2", proxy.url, "POST", "/api/games", CREATE, headers
                )
                assert (status, body["error"]["code"]) == (429, "too_many_tables")
            status, _ = request_from("127.0.0.3", proxy.url, "POST", "/api/games", CREATE)
            assert status == 201
    finally:
        server.stop()


@pytest.mark.parametrize("options", [[], TRUST], ids=["no-trusted-proxy", "peer-not-trusted"])
def test_a_forged_forwarded_for_from_an_untrusted_peer_is_ignored(
    tmp_path: Path, options: list[str]
) -> None:
    """Straight to the server from 127.0.0.2 (no proxy it trusts), each request naming
    another client: they all share the sender's bucket."""
    server = Server(tmp_path / "data")
    server.options = [*options, "--tables-per-minute", "1"]
    server.start()
    try:
        replies = [
            request_from(
                "127.0.0.2", server.url, "POST", "/api/games", CREATE, {"X-Forwarded-For": client}
            )
            for client in ("203.0.113.1", "203.0.113.2", "127.0.0.3")
        ]
        assert [status for status, _ in replies] == [201, 429, 429]
        assert replies[1][1]["error"]["code"] == "too_many_tables"
    finally:
        server.stop()


def test_links_through_nginx_use_the_public_url(tmp_path: Path) -> None:
    """With --public-url the QR code's link points there, whatever Host came; without
    it, at the Host the client asked for (nginx passes it on with its port), and a page
    of either origin may open a WebSocket."""
    server = Server(tmp_path / "data")
    server.options = [*TRUST, "--public-url", "https://cards.example.org"]
    server.start()
    try:
        with Nginx(tmp_path / "nginx", [server.port]) as nginx:
            created = nginx.request("POST", "/api/games", CREATE)
            game_id = created["game_id"]
            link = f"https://cards.example.org/g/{game_id}"
            assert _qr(nginx, game_id) == qr_svg(link)
            for origin in ("https://cards.example.org", nginx.url):
                with connect(f"{nginx.ws_url}/ws/{game_id}", origin=origin, open_timeout=10) as ws:
                    ws.send(json.dumps({"type": "hello"}))
                    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        server.stop()
        server.options = TRUST
        server.start()
        with Nginx(tmp_path / "nginx2", [server.port]) as nginx:
            game_id = nginx.request("POST", "/api/games", CREATE)["game_id"]
            assert _qr(nginx, game_id) == qr_svg(f"{nginx.url}/g/{game_id}")
    finally:
        server.stop()


def _qr(front: Front, game_id: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(f"{front.url}/api/games/{game_id}/qr.svg", timeout=10) as reply:
        svg: bytes = reply.read()
    return svg


def test_nginx_limits_what_one_client_may_send(tmp_path: Path) -> None:
    """A body larger than the server takes is refused at the proxy (413), and so are
    headers of more than a few kilobytes."""
    server = Server(tmp_path / "data")
    server.options = TRUST
    server.start()
    try:
        with Nginx(tmp_path / "nginx", [server.port]) as nginx:
            big = {"name": "Ana", "preset": "standard", "pad": "x" * 100_000}
            status, _ = _raw(nginx, "POST", "/api/games", json.dumps(big).encode())
            assert status == 413
            status, _ = _raw(nginx, "GET", "/api/health", None, {"X-Pad": "y" * 20_000})
            assert status in (400, 431, 494)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # (and the proxy still serves)
                if _raw(nginx, "GET", "/api/health", None)[0] == 200:
                    break
            else:
                raise AssertionError("nginx no longer answers")
    finally:
        server.stop()


def _raw(
    front: Front, method: str, path: str, body: bytes | None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", front.port, timeout=10)
    try:
        conn.request(method, path, body, {"Content-Type": "application/json", **(headers or {})})
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


DEPLOY = ROOT / "deploy"


@pytest.mark.parametrize(
    ("recipe", "setting"),
    [
        ("nginx/maumau.conf", r"^\s*keepalive_timeout (\d+)s;"),
        ("nginx/maumau-two.conf", r"^\s*keepalive_timeout (\d+)s;"),
        ("caddy/Caddyfile", r"^\s*keepalive (\d+)s$"),
    ],
)
def test_the_proxy_gives_up_idle_connections_before_the_game_server_closes_them(
    recipe: str, setting: str
) -> None:
    """A proxy that reuses an idle connection the game server is closing at that moment
    gets an error: nginx and Caddy both answer a POST sent on it with 502 (neither sends
    a POST again to another process).  Each recipe's idle timeout towards the game
    server is shorter."""
    from maumau.cli.serve import uvicorn_config

    text = (DEPLOY / recipe).read_text()
    if recipe.startswith("nginx"):  # the one inside `upstream { }`, not the clients'
        start = text.index("upstream maumau {")
        text = text[start : text.index("}", start)]
    idle = [int(m) for m in re.findall(setting, text, re.MULTILINE)]
    assert idle, f"{recipe} sets no idle timeout towards the game server"
    assert idle[0] < uvicorn_config(object(), "127.0.0.1", 8000, "info").timeout_keep_alive
