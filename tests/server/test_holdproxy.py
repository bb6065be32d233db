"""The packet-holding proxy (tests/support/holdproxy.py) and the server's WebSocket keepalive,
against the echo app served with ``maumau serve``'s protocols (tests/echoserver.py).

A cut holds both ways and closes nothing; a release delivers what was held, in order,
or drops it and resets the connection.  Behind a cut, the server's keepalive closes the
silent connection (uvicorn's ping gets no pong); a pong that is merely late, held for
less than the keepalive's timeout, keeps the connection.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from maumau.cli.serve import PING_SECONDS, PONG_SECONDS, uvicorn_config
from support.echoserver import server  # noqa: F401  (a fixture)
from support.holdproxy import HoldProxy


@pytest.fixture
def proxy(server: int) -> Iterator[HoldProxy]:  # noqa: F811
    proxy = HoldProxy(server).start()
    yield proxy
    proxy.stop()


def wait_for(check: object, what: str, seconds: float = 30) -> None:
    """Poll ``check()`` until it is true (a bound against a hang, not a timing)."""
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def test_a_cut_holds_both_ways_and_a_release_delivers_in_order(proxy: HoldProxy) -> None:
    with connect(proxy.ws_url, ping_interval=None) as ws:
        ws.send("before")
        assert ws.recv(10) == "before"
        proxy.cut()
        ws.send("one")
        ws.send("two")
        wait_for(lambda: proxy.held_bytes() > 0, "the messages are held")
        with pytest.raises(TimeoutError):
            ws.recv(0.3)  # nothing came back: the echo's own bytes were held too
        proxy.release()
        assert [ws.recv(10), ws.recv(10)] == ["one", "two"]
        assert proxy.held_bytes() == 0
        ws.send("after")
        assert ws.recv(10) == "after"


def test_a_release_that_drops_resets_the_connection(proxy: HoldProxy) -> None:
    with connect(proxy.ws_url, ping_interval=None) as ws:
        proxy.cut()
        ws.send("lost")
        wait_for(lambda: proxy.held_bytes() > 0, "the message is held")
        proxy.release(deliver=False)
        with pytest.raises(ConnectionClosed):
            ws.recv(10)
    with connect(proxy.ws_url, ping_interval=None) as ws:  # new connections pass again
        ws.send("again")
        assert ws.recv(10) == "again"


def test_the_keepalive_notices_a_silent_client_within_10_seconds() -> None:
    config = uvicorn_config(object(), "127.0.0.1", 0, "warning")
    # a ping at most every interval, then at most the timeout for its pong
    assert config.ws_ping_interval is not None and config.ws_ping_timeout is not None
    assert config.ws_ping_interval + config.ws_ping_timeout <= 10
    # and a slow phone's pong may take seconds
    assert config.ws_ping_timeout >= 5


def test_the_server_closes_a_silent_connection_by_its_keepalive(proxy: HoldProxy) -> None:
    # The client's own pings are off: only the server's keepalive can notice the cut.
    with connect(proxy.ws_url, ping_interval=None) as ws:
        ws.send("hi")
        assert ws.recv(10) == "hi"
        proxy.cut()
        # The server's ping is held, its pong never comes, and after the timeout the
        # server closes: its close frame is held too, and then the end of its stream.
        wait_for(lambda: proxy.held_ends() > 0, "the server closes the connection", 60)
        proxy.release()
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
        assert closed.value.rcvd.reason == "keepalive ping timeout"


def test_a_late_pong_keeps_the_connection(proxy: HoldProxy) -> None:
    with connect(proxy.ws_url, ping_interval=None) as ws:
        ws.send("hi")
        assert ws.recv(10) == "hi"
        proxy.cut()
        # A slow phone: everything comes, but late (less than the pong's timeout)
        wait_for(lambda: proxy.held_bytes() > 0, "the server's ping is held", PING_SECONDS + 20)
        time.sleep(PONG_SECONDS / 3)  # the fault's length, not a wait for something
        proxy.release()
        ws.send("still here")
        assert ws.recv(10) == "still here"
