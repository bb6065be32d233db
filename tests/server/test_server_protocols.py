"""The connections of ``maumau serve`` leave nothing behind for the cycle collector.

A real uvicorn server with ``maumau serve``'s protocols runs in a thread; with the cycle
collector off, WebSocket and HTTP connections are opened and closed, and afterwards no
protocol object of theirs may be left in memory: what is left could only be freed by a
collection, and a server that makes garbage cycles at every connection pays for them in
long pauses of its full collections (``docs/history/performance-history.md``, "The seventh
round").
"""

from __future__ import annotations

import gc
import http.client
import socket
import time
from collections.abc import Callable, Iterator

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.server import ServerProtocol
from websockets.sync.client import connect

from support.echoserver import server

__all__ = ["server"]  # (the fixture the tests take)

CONNECTIONS = 12


def alive(kind: type) -> int:
    return sum(1 for o in gc.get_objects() if issubclass(type(o), kind))


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def settle(counts: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    """``counts()`` once the server has seen every connection close (or after 5 s)."""
    deadline = time.monotonic() + 5
    while (now := counts()) != (0, 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    return now


def test_closed_connections_leave_no_protocol_behind(server: int, no_collector: None) -> None:
    before = (alive(ServerProtocol), alive(HttpToolsProtocol))
    assert before == (0, 0)
    for n in range(CONNECTIONS):
        compression = "deflate" if n % 2 else None
        with connect(f"ws://127.0.0.1:{server}/ws", compression=compression) as ws:
            ws.send(f"hello {n}")
            assert ws.recv(timeout=5) == f"hello {n}"
        client = http.client.HTTPConnection("127.0.0.1", server, timeout=5)
        client.request("GET", "/")
        assert client.getresponse().read() == b"ok"
        client.close()
    left = settle(lambda: (alive(ServerProtocol), alive(HttpToolsProtocol)))
    assert left == (0, 0), f"left after {CONNECTIONS} closed connections: {left}"


def test_a_connection_the_client_drops_leaves_nothing_either(
    server: int, no_collector: None
) -> None:
    """Closed without a closing handshake: the TCP connection simply goes away."""
    for n in range(CONNECTIONS):
        with connect(f"ws://127.0.0.1:{server}/ws", compression="deflate") as ws:
            ws.send(f"hello {n}")
            assert ws.recv(timeout=5) == f"hello {n}"
            ws.socket.shutdown(socket.SHUT_RDWR)  # gone, without a closing handshake
    left = settle(lambda: (alive(ServerProtocol), alive(HttpToolsProtocol)))
    assert left == (0, 0), f"left after {CONNECTIONS} dropped connections: {left}"
