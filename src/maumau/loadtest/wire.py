"""A lean WebSocket client connection on an :class:`asyncio.Protocol`.

The opening handshake (the request, checking the answer, negotiating
permessage-deflate) is done by the ``websockets`` Sans-I/O client.  After it, frames
are read and written here directly: a load client receives several messages per
move, and the generic frame parser would cost it more CPU than everything else it
does (the load tool shares the machine with the server it measures).  Every message
is handed to a callback as bytes, from the event loop's read callback: no task, no
queue and no future per frame.
"""

from __future__ import annotations

import asyncio
import random
import zlib
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    PerMessageDeflate,
)
from websockets.protocol import OPEN
from websockets.uri import parse_uri

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without its C helpers
    from websockets.utils import apply_mask

OnMessage = Callable[[bytes], None]
OnLost = Callable[[], None]

#: the largest message or handshake answer a load client accepts
MAX_SIZE = 4 * 1024 * 1024
TAIL = b"\x00\x00\xff\xff"  # what permessage-deflate strips from each message
CLOSE_NORMAL = b"\x03\xe8"  # close code 1000


class HandshakeFailed(ConnectionError):
    """The server did not accept the WebSocket."""


def deflate_offer() -> ClientPerMessageDeflateFactory:
    """permessage-deflate offered as browsers offer it (``client_max_window_bits``)."""
    return ClientPerMessageDeflateFactory(
        client_max_window_bits=True, compress_settings={"memLevel": 5}
    )


def frame(first: int, payload: bytes) -> bytes:
    """A masked client frame: ``first`` is the FIN/RSV/opcode byte."""
    size = len(payload)
    if size < 126:
        head = bytes((first, 0x80 | size))
    elif size < 65536:
        head = bytes((first, 0xFE)) + size.to_bytes(2, "big")
    else:
        head = bytes((first, 0xFF)) + size.to_bytes(8, "big")
    mask = random.randbytes(4)
    return head + mask + apply_mask(payload, mask)


class Deflate:
    """permessage-deflate as negotiated: one compressor and one decompressor per
    connection (context takeover), or a fresh one per message."""

    def __init__(self, agreed: PerMessageDeflate) -> None:
        self.in_bits = -agreed.remote_max_window_bits
        self.out_bits = -agreed.local_max_window_bits
        self.in_fresh = agreed.remote_no_context_takeover
        self.out_fresh = agreed.local_no_context_takeover
        self.decoder = zlib.decompressobj(wbits=self.in_bits)
        self.encoder = zlib.compressobj(wbits=self.out_bits, memLevel=5)

    def inflate(self, data: bytes) -> bytes:
        if self.in_fresh:
            self.decoder = zlib.decompressobj(wbits=self.in_bits)
        return self.decoder.decompress(data + TAIL)

    def deflate(self, data: bytes) -> bytes:
        if self.out_fresh:
            self.encoder = zlib.compressobj(wbits=self.out_bits, memLevel=5)
        out = self.encoder.compress(data) + self.encoder.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4] if out.endswith(TAIL) else out


class Traffic:
    """What the server sent a process's clients while ``counting``: bytes on the wire
    after the handshake (frame headers included), whole messages, and how many of
    them came compressed."""

    __slots__ = ("bytes", "counting", "deflated", "messages")

    def __init__(self) -> None:
        self.counting = False
        self.bytes = 0
        self.messages = 0
        self.deflated = 0

    def to_json(self) -> dict[str, int]:
        return {"bytes": self.bytes, "messages": self.messages, "deflated": self.deflated}


class WebSocketClient(asyncio.Protocol):
    """One client WebSocket.  Open it with :func:`connect`."""

    def __init__(
        self,
        url: str,
        compression: bool,
        on_message: OnMessage,
        on_lost: OnLost,
        traffic: Traffic | None = None,
    ):
        extensions = [deflate_offer()] if compression else None
        self.handshake: ClientProtocol | None = ClientProtocol(
            parse_uri(url), extensions=extensions
        )
        self.on_message = on_message
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending = b""  # bytes of an incomplete frame (or of the handshake answer)
        self.deflate: Deflate | None = None
        self.fragments: list[bytes] | None = None
        self.fragments_deflated = False
        self.closing = False
        self.lost = False
        self.traffic = traffic or Traffic()

    # --- asyncio.Protocol -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        assert self.handshake is not None
        self.handshake.send_request(self.handshake.connect())
        for data in self.handshake.data_to_send():
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return  # nothing more is delivered once the close began
        if self.handshake is None:
            if self.traffic.counting:
                self.traffic.bytes += len(data)
            self._frames(data)
        else:
            self._answer(data)

    def eof_received(self) -> bool | None:
        return None  # let the transport close

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if not self.opened.done():  # connect() sees the failure; not a lost connection
            self.lost = True
            self.opened.set_exception(exc or ConnectionResetError("connection closed"))
            self.opened.exception()  # retrieved: no "never retrieved" warning
        if not self.lost:
            self.lost = True
            self.on_lost()

    # --- the handshake ----------------------------------------------------------------

    def _answer(self, data: bytes) -> None:
        """Collect the server's answer to the handshake and check it."""
        handshake = self.handshake
        assert handshake is not None
        if self.opened.done():  # connect() stopped waiting (its timeout, or the run ended)
            self.lost = True
            self.abort()
            return
        buffered = self.pending + data
        end = buffered.find(b"\r\n\r\n")
        if end < 0:
            self.pending = buffered
            if len(buffered) > 65536:
                self._fail("the handshake answer is too long")
            return
        self.pending = b""
        handshake.receive_data(buffered[: end + 4])
        handshake.events_received()
        if handshake.state is not OPEN:
            self._fail(str(handshake.handshake_exc or "handshake failed"))
            return
        for extension in handshake.extensions:
            if isinstance(extension, PerMessageDeflate):
                self.deflate = Deflate(extension)
        self.handshake = None
        self.opened.set_result(None)
        rest = buffered[end + 4 :]
        if rest:
            self._frames(rest)

    def _fail(self, why: str) -> None:
        if not self.opened.done():
            self.lost = True
            self.opened.set_exception(HandshakeFailed(why))
            self.opened.exception()
        self.abort()

    # --- frames -----------------------------------------------------------------------

    def _frames(self, data: bytes) -> None:
        """Split the stream into frames (a server's frames are not masked)."""
        if self.pending:
            data = self.pending + data
        pos = 0
        size_all = len(data)
        while size_all - pos >= 2:
            first = data[pos]
            second = data[pos + 1]
            size = second & 0x7F
            start = pos + 2
            if size == 126:
                if size_all - pos < 4:
                    break
                size = (data[pos + 2] << 8) | data[pos + 3]
                start = pos + 4
            elif size == 127:
                if size_all - pos < 10:
                    break
                size = int.from_bytes(data[pos + 2 : pos + 10], "big")
                start = pos + 10
            if second & 0x80 or size > MAX_SIZE:
                self.abort()  # a masked or huge frame from a server: not a server
                return
            end = start + size
            if end > size_all:
                break
            pos = end
            try:
                self._frame(first, data[start:end])
            except ValueError:  # not a message the client understands
                self.pending = b""
                self.closing = True
                self.abort()
                return
            if self.closing:  # closed (by the server, or by this message's handler)
                self.pending = b""
                return
        self.pending = data[pos:] if pos < size_all else b""

    def _frame(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode == 1 or opcode == 2:  # text, binary
            if first & 0x80:
                if self.traffic.counting:
                    self.traffic.messages += 1
                    self.traffic.deflated += first >> 6 & 1
                if first & 0x40 and self.deflate is not None:
                    payload = self.deflate.inflate(payload)
                self.on_message(payload)
            else:
                self.fragments = [payload]
                self.fragments_deflated = bool(first & 0x40)
        elif opcode == 0 and self.fragments is not None:  # continuation
            self.fragments.append(payload)
            if first & 0x80:
                payload = b"".join(self.fragments)
                self.fragments = None
                if self.traffic.counting:
                    self.traffic.messages += 1
                    self.traffic.deflated += self.fragments_deflated
                if self.fragments_deflated and self.deflate is not None:
                    payload = self.deflate.inflate(payload)
                self.on_message(payload)
        elif opcode == 9:  # ping
            self._write(0x8A, payload)
        elif opcode == 8:  # close: answer it; the server then closes the TCP connection
            self._write(0x88, payload[:2])
            self.closing = True
            asyncio.get_running_loop().call_later(2.0, self.abort)

    def _write(self, first: int, payload: bytes) -> None:
        if self.transport is not None:
            self.transport.write(frame(first, payload))

    # --- sending and closing ----------------------------------------------------------

    def send(self, text: str) -> None:
        """Send one text message (dropped silently once the connection is closing)."""
        if self.transport is None or self.closing or self.handshake is not None:
            return
        payload = text.encode()
        if self.deflate is not None:
            self.transport.write(frame(0xC1, self.deflate.deflate(payload)))
        else:
            self.transport.write(frame(0x81, payload))

    def close(self, grace: float = 1.0) -> None:
        """Close politely: a close frame, then the TCP connection after ``grace``
        seconds unless the server closed it first.  ``on_lost`` is not called for a
        connection closed this way."""
        self.lost = True
        if self.transport is None:
            return
        if not self.closing and self.handshake is None:
            self._write(0x88, CLOSE_NORMAL)
        self.closing = True
        asyncio.get_running_loop().call_later(grace, self.abort)

    def abort(self) -> None:
        """Drop the TCP connection at once (``on_lost`` follows unless closed)."""
        if self.transport is not None:
            self.transport.abort()


async def connect(
    host: str,
    port: int,
    url: str,
    compression: bool,
    on_message: OnMessage,
    on_lost: OnLost,
    timeout: float = 10.0,
    traffic: Traffic | None = None,
) -> WebSocketClient:
    """Open a WebSocket to ``url`` through ``host:port``; raises ``OSError`` (also
    :class:`HandshakeFailed`) or :class:`TimeoutError` when it cannot."""
    loop = asyncio.get_running_loop()
    client = WebSocketClient(url, compression, on_message, on_lost, traffic)
    async with asyncio.timeout(timeout):
        await loop.create_connection(lambda: client, host, port)
        try:
            await client.opened
        except BaseException:
            client.lost = True
            client.abort()
            raise
    return client
