"""A client's pings and pongs count against a budget of their own.

websockets answers pings below the app, where the server's limit on a connection's
messages never sees them.  A real uvicorn server with ``maumau serve``'s protocols runs
in a thread, and raw WebSocket clients flood it with control frames: the flooding
connection is closed (1008, ``too_many_pings``) without its pings over the budget being
answered, and the server goes on answering everyone else.
"""

from __future__ import annotations

import socket
import time

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import CONNECTING
from websockets.sync.client import connect
from websockets.uri import parse_uri

from maumau.server.transport.framing import CONTROL_BURST, CONTROL_PER_SECOND, TOO_MANY_PINGS
from support.echoserver import server

__all__ = ["server"]  # (the fixture the tests take)

FLOOD = 1000


def echoes(port: int) -> bool:
    with connect(f"ws://127.0.0.1:{port}/", ping_interval=None) as ws:
        ws.send("hi")
        return ws.recv(timeout=5) == "hi"


class RawClient:
    """A WebSocket client on websockets' Sans-I/O protocol, whose frames go out in one
    write: the server reads them at once, so that when it closes the connection it has
    read everything the client sent (what is left unread when a socket is closed makes
    a reset, and the close frame before it could be lost)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.proto = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/"))
        self.proto.send_request(self.proto.connect())
        self.flush()
        while self.proto.state is CONNECTING:
            self.proto.receive_data(self.sock.recv(65536))
        self.frames: list[Frame] = [e for e in self.proto.events_received() if isinstance(e, Frame)]

    def flush(self) -> None:
        self.sock.sendall(b"".join(self.proto.data_to_send()))

    def until_closed(self) -> list[Frame]:
        """Every frame the server sends until it closes the connection."""
        while data := self.sock.recv(65536):
            self.proto.receive_data(data)
        self.proto.receive_eof()
        self.sock.close()
        return self.frames + [e for e in self.proto.events_received() if isinstance(e, Frame)]


def cut_off(client: RawClient) -> list[Frame]:
    """The frames the server sent ``client`` until it closed it; it closed it with
    1008 ``too_many_pings``."""
    frames = client.until_closed()
    closed = client.proto.close_rcvd
    assert closed is not None, "the server sent no close frame"
    assert (closed.code, closed.reason) == (1008, TOO_MANY_PINGS)
    return frames


@pytest.mark.parametrize("count", [int(CONTROL_BURST) + 1, FLOOD])
def test_pings_over_the_budget_close_the_connection_unanswered(server: int, count: int) -> None:
    start = time.monotonic()
    client = RawClient(server)
    for i in range(count):
        client.proto.send_ping(str(i).encode())
    client.flush()
    frames = cut_off(client)
    elapsed = time.monotonic() - start
    pongs = [frame.data.decode() for frame in frames if frame.opcode is Opcode.PONG]
    # the budget, and what it refilled while the client sent them
    assert CONTROL_BURST <= len(pongs) <= CONTROL_BURST + CONTROL_PER_SECOND * elapsed + 1
    assert pongs == [str(i) for i in range(len(pongs))]
    assert echoes(server)


def test_pongs_over_the_budget_close_the_connection(server: int) -> None:
    client = RawClient(server)
    for i in range(FLOOD):
        client.proto.send_pong(str(i).encode())
    client.flush()
    cut_off(client)
    assert echoes(server)


def test_pings_within_the_budget_are_answered(server: int) -> None:
    with connect(f"ws://127.0.0.1:{server}/", ping_interval=None) as ws:
        pongs = [ws.ping(str(i)) for i in range(int(CONTROL_BURST))]
        assert all(pong.wait(5) for pong in pongs)
        ws.send("still here")
        assert ws.recv(timeout=5) == "still here"
