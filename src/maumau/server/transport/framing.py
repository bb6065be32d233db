"""The server's WebSocket connections: uvicorn's protocol on websockets' Sans-I/O
implementation, except that the messages the server sends are framed and compressed
here.

Every move sends a ``state`` to every connection at the table, so writing messages is
most of what a busy server does.  With permessage-deflate (browsers always ask for it)
websockets compresses each message with the standard library's zlib at level 6, which
builds Huffman tables for every message: for our short JSON messages about 30 µs each on
a loaded server, a fifth of the server's time per move.  ISA-L's fastest level
(:mod:`isal`) uses fixed codes, and compresses a ``state`` in about a quarter of that
time to about 190 bytes on the wire instead of 50 (it is 650 uncompressed), with a
smaller context per connection.  And a frame is written in one step instead of through
websockets' frame objects.  The figures: ``docs/history/performance-history.md``, "The sixth
round".

Everything else — the handshake and its negotiation, reading and decompressing what
clients send, pings, closing — stays uvicorn's and websockets'.  Only data frames are
written here, so websockets' own compressor is never used and cannot fall out of step.

websockets answers a client's ping itself, below the app, so the server's limit on a
connection's messages never saw pings: one socket had 58,219 answered in 5 seconds.
Here the control frames a client sends (pings and pongs) have a budget of their own,
:data:`CONTROL_BURST` at once and :data:`CONTROL_PER_SECOND` after that: a client that
sends more is disconnected (close code 1008, reason :data:`TOO_MANY_PINGS`), and the
ping over the budget is not answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from isal import isal_zlib
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import ProtocolError
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.server import ServerProtocol

from maumau.server.transport.limits import TokenBucket

if TYPE_CHECKING:
    from uvicorn._types import ASGISendEvent

#: ISA-L's fastest level: fixed Huffman codes, so no tables to build for each message
LEVEL = 0
#: what a sync flush ends with, and permessage-deflate leaves off (RFC 7692, 7.2.1)
TAIL = b"\x00\x00\xff\xff"
TEXT = 0x81  # FIN and the text opcode
BINARY = 0x82  # FIN and the binary opcode
DEFLATED = 0x40  # RSV1: the message is compressed

#: control frames (pings, pongs) a client may send at once, and per second after that
CONTROL_BURST = 20.0
CONTROL_PER_SECOND = 2.0
#: the close reason of a connection that sent more (with code 1008, policy violation)
TOO_MANY_PINGS = "too_many_pings"
#: the close code for it
POLICY_VIOLATION = 1008


class Deflater:
    """One connection's compression, as the handshake agreed it: one compressor for
    the whole connection (context takeover), or a fresh one for each message."""

    __slots__ = ("_compressor", "_fresh", "_wbits")

    def __init__(self, agreed: PerMessageDeflate) -> None:
        self._wbits = -agreed.local_max_window_bits
        self._fresh = agreed.local_no_context_takeover
        self._compressor = self._new()

    def _new(self) -> isal_zlib.Compress:
        return isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, self._wbits)

    def __call__(self, data: bytes, first: int = TEXT) -> bytes:
        """The frame of one message ``data``, compressed (``first``: :data:`TEXT` or
        :data:`BINARY`).  Without context takeover a short message may come out
        longer; it is then sent as it is (a message's RSV1 bit says whether it is
        compressed)."""
        if self._fresh:
            self._compressor = self._new()
        compressor = self._compressor
        out = compressor.compress(data) + compressor.flush(isal_zlib.Z_SYNC_FLUSH)
        out = out[:-4] if out.endswith(TAIL) else out
        if self._fresh and len(out) >= len(data):
            return frame(first, data)
        return frame(first | DEFLATED, out)


def frame(first: int, payload: bytes) -> bytes:
    """A server frame (not masked): ``first`` is the FIN, RSV and opcode byte."""
    size = len(payload)
    if size < 126:
        return bytes((first, size)) + payload
    if size < 65536:
        return bytes((first, 126)) + size.to_bytes(2, "big") + payload
    return bytes((first, 127)) + size.to_bytes(8, "big") + payload


class ControlBudget(ServerProtocol):
    """websockets' server protocol, with a budget for the control frames the client
    sends.  A frame over it is not handled (a ping not answered): the connection is
    failed with 1008 :data:`TOO_MANY_PINGS`, and the parser stops, as at any protocol
    error (which uvicorn hands on to the app as the socket's end)."""

    control: TokenBucket

    def recv_frame(self, frame: Frame) -> None:
        if (
            frame.opcode in (Opcode.PING, Opcode.PONG)
            and self.state is OPEN
            and not self.control.allow()
        ):
            self.fail(POLICY_VIOLATION, TOO_MANY_PINGS)  # (the close frame, then the end)
            raise ProtocolError(TOO_MANY_PINGS)  # the parser stops here
        super().recv_frame(frame)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, with the messages it sends framed here and
    compressed by :class:`Deflater`, and a budget for the control frames the client
    sends (:class:`ControlBudget`).  Give it to uvicorn as ``ws``."""

    _deflater: Deflater | None = None
    _negotiated = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """uvicorn's; its websockets protocol then becomes a :class:`ControlBudget`
        (a subclass that adds no state to the instance but its bucket, so it is made
        as uvicorn makes it, with whatever uvicorn gives it)."""
        super().__init__(*args, **kwargs)
        self.conn.__class__ = ControlBudget
        cast(ControlBudget, self.conn).control = TokenBucket(CONTROL_PER_SECOND, CONTROL_BURST)

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] != "websocket.send":
            await super().send(message)
            return
        await self.writable.wait()
        if (
            self.disconnected
            or not self.handshake_complete
            or self.close_sent
            or self.conn.state is not OPEN
        ):
            await super().send(message)  # its errors, as uvicorn gives them
            return
        raw, text = message.get("bytes"), message.get("text")  # bytes first, as uvicorn
        if isinstance(raw, bytes):
            first, data = BINARY, raw
        elif isinstance(text, str):
            first, data = TEXT, text.encode()
        else:
            return  # neither: uvicorn sends nothing either
        if not self._negotiated:
            self._negotiate()
        if self._deflater is None:
            self.transport.write(frame(first, data))
        else:
            self.transport.write(self._deflater(data, first))

    def connection_lost(self, exc: Exception | None) -> None:
        """uvicorn's, then websockets' parser is closed.  The parser is a generator that
        holds the connection that holds it: left suspended, every closed connection
        stayed in memory, with its buffers and its decompressor, until one of the cycle
        collector's rare full collections (each of which then took longer)."""
        super().connection_lost(exc)
        self.conn.parser.close()

    def _negotiate(self) -> None:
        """Take over the sending half of permessage-deflate, if it was agreed.
        websockets made its own compressor at the handshake; it is dropped, since no
        message goes through it (its memory is most of a connection's)."""
        self._negotiated = True
        for extension in self.conn.extensions:
            if isinstance(extension, PerMessageDeflate):
                self._deflater = Deflater(extension)
                extension.encoder = None  # type: ignore[assignment]
