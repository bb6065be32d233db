"""The server's HTTP connections: uvicorn's httptools protocol, which lets go of its
parser once the connection has become a WebSocket.

The parser calls the protocol back through bound methods, so protocol and parser hold
each other.  uvicorn breaks that cycle when an HTTP connection is lost, but a connection
that was upgraded is handed to the WebSocket protocol and never hears of its loss: each
WebSocket left its HTTP protocol, parser and request headers behind as garbage for the
cycle collector.  Here the cycle is broken as the connection changes hands.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HttpProtocol(HttpToolsProtocol):
    """Give it to uvicorn as ``http``."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # nothing more is read here
