"""The server's HTTP connections: uvicorn's httptools protocol, with a deadline for a
request's headers and a cap on the connections of one client address, and which lets
go of its parser once the connection has become a WebSocket.

uvicorn waits for a request's headers as long as the client likes: a client that opens
connections and sends nothing, or a header a byte at a time (slowloris), holds each
connection, with its file descriptor, for ever, and a few hundred of them used up a
process's 1,024 open files (then every connection failed, ``GET /`` with a 500).  Here
the headers must be complete within ``header_seconds`` of the connection's start (the
first request) or of the request's first byte (later requests on a kept-alive
connection; between requests uvicorn's keep-alive timeout closes an idle one), or the
connection is answered 408 and closed; and one address (:func:`address_key`) may hold
at most ``per_address`` connections at once: a connection beyond that is answered 429
(``too_many_connections``) and closed at once.  A connection that becomes a WebSocket
counts from then on against the WebSocket caps instead (:mod:`maumau.server.transport.admission`).
A request's body, too, must be complete within ``body_seconds`` of its headers (a
client that sent its headers, then a body a byte at a time, held the connection and the
request's handler for ever): else the connection is answered 408, unless an answer has
begun, and closed.

A trusted reverse proxy (``--trusted-proxy``) carries the connections of many clients,
so its connections are not capped here: the proxy caps each client's (nginx's
``limit_conn``, see ``deploy/``), and the caps per client address of the WebSockets,
tables and records count the client it names (:mod:`maumau.server.transport.clients`).  The
deadline for the headers holds for every connection.

The parser calls the protocol back through bound methods, so protocol and parser hold
each other.  uvicorn breaks that cycle when an HTTP connection is lost, but a connection
that was upgraded is handed to the WebSocket protocol and never hears of its loss: each
WebSocket left its HTTP protocol, parser and request headers behind as garbage for the
cycle collector.  Here the cycle is broken as the connection changes hands.
"""

from __future__ import annotations

import asyncio
import json
import logging

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from maumau.server.transport.clients import Proxies
from maumau.server.transport.limits import Quota, address_key

log = logging.getLogger("maumau.server")


#: the answer to a request whose headers took too long
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def _too_many(cap: int) -> bytes:
    """The answer to a connection over the cap of its address (an error body as the
    API's, ``too_many_connections``), after which it is closed."""
    message = f"this address has {cap} connections open, the most it may"
    body = json.dumps({"error": {"code": "too_many_connections", "message": message}})
    head = (
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return (head + body).encode()


class HttpProtocol(HttpToolsProtocol):
    """Give it to uvicorn as ``http``; :func:`http_protocol` makes one with limits."""

    #: seconds a request's headers may take (``None``: as long as they like)
    header_seconds: float | None = None
    #: seconds a request's body may take after its headers (``None``: as long as it likes)
    body_seconds: float | None = None
    #: the connections each address holds (``None``: no cap)
    peers: Quota | None = None
    #: peers that are not capped: the trusted reverse proxies
    proxies = Proxies(())

    _timer: asyncio.TimerHandle | None = None
    #: the address this connection is counted for
    _peer: str | None = None
    #: a request's first bytes have come, and not all of its headers yet
    _started = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if (
            self.peers is not None
            and self.client is not None
            and not (self.proxies and self.proxies.trusts_peer(self.client[0]))
        ):
            peer = address_key(self.client[0])
            if not self.peers.take(peer):
                transport.write(_too_many(self.peers.cap))
                transport.close()
                return
            self._peer = peer
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._started = True
        if self._timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._started = False
        self._disarm()
        super().on_headers_complete()
        if self.body_seconds is not None:  # (a request without a body completes at once)
            self._timer = self.loop.call_later(self.body_seconds, self._body_too_slow)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        self._release()
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # nothing more is read here

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._release()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self.header_seconds is not None:
            self._timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()  # (which drops its reference to this protocol)
            self._timer = None

    def _release(self) -> None:
        if self._peer is not None and self.peers is not None:
            self.peers.give_back(self._peer)
            self._peer = None

    def _too_slow(self) -> None:
        """The headers did not come in time: 408 if a request had begun, and close."""
        self._timer = None
        if self.transport.is_closing():
            return
        if self._started:
            log.debug("closing %s: its request's headers took too long", self.client)
            self.transport.write(TIMED_OUT)
        self.transport.close()

    def _body_too_slow(self) -> None:
        """The body did not come in time: 408 unless an answer has begun, and close."""
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)
        if cycle is None or not cycle.response_started:
            log.debug("closing %s: its request's body took too long", self.client)
            self.transport.write(TIMED_OUT)
        self.transport.close()


def http_protocol(
    header_seconds: float,
    per_address: int,
    trusted_proxies: tuple[str, ...] = (),
    body_seconds: float | None = None,
) -> type[HttpProtocol]:
    """:class:`HttpProtocol` with these limits, and its own count of connections per
    address (one for each server it is given to); the connections of
    ``trusted_proxies`` are not counted."""

    class Limited(HttpProtocol):
        pass

    Limited.header_seconds = header_seconds
    Limited.body_seconds = body_seconds
    Limited.peers = Quota(per_address)
    Limited.proxies = Proxies(trusted_proxies)
    return Limited
