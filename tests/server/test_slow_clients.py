"""Clients that hold connections without using them: requests whose headers never end
(slowloris), connections that send nothing, many connections from one address, and
sockets that never say hello.

First ``maumau serve``'s HTTP protocol in a uvicorn server in this process (a small app
behind it); then a real ``maumau serve`` process with a small file limit, which one
address used to lock everyone out of (``GET /`` failed with "Too many open files").
"""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect

from lab.ports import free_port
from maumau.cli.serve import uvicorn_config
from maumau.server.config import ServerConfig
from support.live import START_SECONDS

#: how long a test waits for what must come (it fails, not hangs, without it)
GUARD = 30.0
#: a request whose headers never end
HALF = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "


async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    """Answers HTTP with ``ok`` and echoes WebSocket text until the client leaves."""
    if scope["type"] == "lifespan":
        await receive()
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})
    elif scope["type"] == "http":
        while (await receive()).get("more_body"):  # the whole body first
            pass
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
        )
        await send({"type": "http.response.body", "body": b"ok"})
    elif scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message["text"]})


@pytest.fixture
def serve() -> Iterator[Callable[..., int]]:
    """Start ``maumau serve``'s uvicorn setup with the limits given; its port."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(**limits: Any) -> int:
        port = free_port()
        config = uvicorn_config(app, "127.0.0.1", port, "warning", ServerConfig(**limits))
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        return port

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


def dial(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection to the server from the address ``source``."""
    sock = socket.socket()
    sock.settimeout(GUARD)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    sock.close()
    return data


def get(port: int) -> int:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=GUARD)
    try:
        client.request("GET", "/")
        reply = client.getresponse()
        reply.read()
        return reply.status
    finally:
        client.close()


# --- in this process ------------------------------------------------------------------


def test_headers_that_never_end_are_answered_408(serve: Callable[..., int]) -> None:
    port = serve(header_seconds=0.3)
    sock = dial(port)
    sock.sendall(HALF)
    assert read_to_end(sock).startswith(b"HTTP/1.1 408 ")
    assert get(port) == 200


def test_a_trickle_of_bytes_does_not_put_off_the_deadline(serve: Callable[..., int]) -> None:
    """slowloris: a header a byte at a time, each before any idle timeout runs out."""
    port = serve(header_seconds=0.5)
    sock = dial(port)
    sock.sendall(HALF)
    deadline = time.monotonic() + GUARD
    try:
        while time.monotonic() < deadline:
            sock.sendall(b"x")
            time.sleep(0.05)
            sock.setblocking(False)
            try:
                if sock.recv(65536) is not None:
                    break  # the answer, or the end
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
        else:
            raise AssertionError("the server kept a request whose headers never end")
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed while we were still sending
    sock.close()


def test_a_body_that_never_ends_is_answered_408(serve: Callable[..., int]) -> None:
    """Headers in time, then a body a byte at a time: the body has its own deadline."""
    port = serve(header_seconds=0.5, body_seconds=0.5)
    sock = dial(port)
    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nab")
    deadline = time.monotonic() + GUARD
    answer = b""
    sock.setblocking(False)
    try:
        while not answer and time.monotonic() < deadline:
            sock.sendall(b"x")  # more of it, each well before any deadline
            time.sleep(0.05)
            with contextlib.suppress(BlockingIOError):
                answer = sock.recv(65536) or b"(closed)"
    except (BrokenPipeError, ConnectionResetError):
        answer = b"(closed)"
    sock.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    # a body sent in time is answered
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=GUARD)
    client.request("POST", "/", body=b"x" * 1000)
    reply = client.getresponse()
    assert (reply.status, reply.read()) == (200, b"ok")
    client.close()


def test_a_connection_that_sends_nothing_is_closed(serve: Callable[..., int]) -> None:
    port = serve(header_seconds=0.3)
    assert read_to_end(dial(port)) == b""  # nothing was asked, so nothing is answered


def test_each_request_on_a_kept_alive_connection_has_the_deadline(
    serve: Callable[..., int],
) -> None:
    port = serve(header_seconds=0.5)
    sock = dial(port)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    first = b""
    while not first.endswith(b"ok"):
        first += sock.recv(65536)
    assert first.startswith(b"HTTP/1.1 200 ")
    sock.sendall(HALF)  # the next request, before the keep-alive timeout (5 s)
    assert read_to_end(sock).startswith(b"HTTP/1.1 408 ")


def test_an_address_may_hold_so_many_http_connections(serve: Callable[..., int]) -> None:
    port = serve(http_connections_per_address=3)
    held = [dial(port, "127.0.0.2") for _ in range(3)]
    for sock in held:
        sock.sendall(HALF)
    refused = read_to_end(dial(port, "127.0.0.2"))
    head, _, body = refused.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 429 ")
    assert json.loads(body)["error"]["code"] == "too_many_connections"
    assert get(port) == 200  # 127.0.0.1 is another address
    held.pop().close()
    deadline = time.monotonic() + GUARD
    while True:  # once the server has seen it close, its place is free
        sock = dial(port, "127.0.0.2")
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        if read_to_end(sock).startswith(b"HTTP/1.1 200 "):
            break
        assert time.monotonic() < deadline, "the closed connection's place never came free"
        time.sleep(0.05)
    for sock in held:
        sock.close()


def test_a_websocket_counts_no_more_as_an_http_connection(serve: Callable[..., int]) -> None:
    """Once upgraded, a connection counts against the WebSocket caps (the app's)."""
    port = serve(http_connections_per_address=2)
    with contextlib.ExitStack() as stack:
        for n in range(5):
            ws = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws", open_timeout=GUARD))
            ws.send(f"hello {n}")
            assert ws.recv(timeout=GUARD) == f"hello {n}"
        assert get(port) == 200


# --- a real maumau serve with a small file limit ------------------------------------


#: the server's open files: soft limit at its start, and the hard limit it is raised to
SOFT, HARD = 200, 256


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """``maumau serve`` (the default caps) started with at most 256 open files."""
    port = free_port()
    data = tmp_path_factory.mktemp("small-server")
    command = [sys.executable, "-m", "maumau", "serve", "--port", str(port)]
    command += ["--data-dir", str(data), "--log-level", "warning"]
    command += ["--header-seconds", "5", "--hello-seconds", "5"]

    def small_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))

    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, preexec_fn=small_limit)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=1) as reply:
                if reply.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the server did not start (exit code {proc.poll()})")
        time.sleep(0.1)
    try:
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def open_files_limit(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-files line")


def request(url: str, method: str = "GET", body: Any = None) -> tuple[int, Any, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data, {"Content-Type": "application/json"}, method=method)
    with urllib.request.urlopen(req, timeout=10) as reply:
        text = reply.read()
        return reply.status, reply.headers, json.loads(text) if text else None


@pytest.mark.system
def test_serve_raises_its_soft_file_limit(small_server: tuple[str, int]) -> None:
    assert open_files_limit(small_server[1]) == (HARD, HARD)


@pytest.mark.system
def test_serve_sends_the_security_headers(small_server: tuple[str, int]) -> None:
    url, _ = small_server
    status, headers, _ = request(url + "/api/health")
    assert status == 200 and headers["Cache-Control"] == "no-store"
    with urllib.request.urlopen(url + "/", timeout=10) as page:
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert page.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.system
def test_one_address_cannot_use_up_the_open_files(small_server: tuple[str, int]) -> None:
    """300 half-sent requests from 127.0.0.2, more than the server may open files: it
    holds 128 (the cap per address) until their headers are late, refuses the rest at
    once, and serves everyone else meanwhile."""
    url, _ = small_server
    port = int(url.rsplit(":", 1)[1])
    attack = [dial(port, "127.0.0.2") for _ in range(300)]
    for sock in attack:
        sock.sendall(HALF)
    status, _, _ = request(url + "/api/health")
    assert status == 200
    with urllib.request.urlopen(url + "/", timeout=10) as page:
        assert page.status == 200
    answers = [read_to_end(sock)[:13] for sock in attack]  # the 408s come after 5 s
    assert answers.count(b"HTTP/1.1 429 ") == 300 - 128
    assert answers.count(b"HTTP/1.1 408 ") == 128


@pytest.mark.system
def test_one_address_cannot_hold_every_websocket(small_server: tuple[str, int]) -> None:
    """70 sockets from 127.0.0.2 that never say hello: 64 are let in (the cap per
    address) and closed when their hello is late; meanwhile another address plays."""
    url, _ = small_server
    port = int(url.rsplit(":", 1)[1])
    _, _, created = request(url + "/api/games", "POST", {"name": "Ana"})
    game = f"ws://127.0.0.1:{port}/ws/{created['game_id']}"

    codes = []
    with contextlib.ExitStack() as stack:
        sockets: list[ClientConnection] = [
            stack.enter_context(connect(game, sock=dial(port, "127.0.0.2"), open_timeout=GUARD))
            for _ in range(70)
        ]
        with connect(game, open_timeout=GUARD) as player:
            player.send(json.dumps({"type": "hello", "token": created["token"]}))
            assert json.loads(player.recv(timeout=GUARD))["type"] == "welcome"
            _, _, health = request(url + "/api/health")
            assert (health["pending"], health["connections"]) == (64, 1)
        for ws in sockets:
            message = json.loads(ws.recv(timeout=GUARD))
            assert message["type"] == "closed"
            codes.append(message["code"])
    assert codes.count("too_many_connections") == 6
    assert codes.count("hello_timeout") == 64
