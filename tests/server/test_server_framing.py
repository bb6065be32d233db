"""The server's own frame writer and compressor (``maumau.server.transport.framing``) against
websockets' reference implementation: the same frames byte for byte, and compressed
messages that websockets' client decompresses to what was sent, for every window and
context-takeover setting a client may negotiate.  (A whole game over each kind of
compression, through a real server, is in ``test_server_live.py``; the load tool's
tests check that every message of a compressed connection arrives compressed.)"""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace

import orjson
import pytest
from uvicorn.protocols.utils import ClientDisconnected
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.protocol import CLOSING, OPEN
from websockets.server import ServerProtocol

from maumau.engine import Game
from maumau.engine.view import public_json
from maumau.server.transport.framing import (
    BINARY,
    DEFLATED,
    TEXT,
    Deflater,
    WebSocketProtocol,
    frame,
)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("rsv1", [False, True])
def test_a_frame_is_what_websockets_writes(size: int, rsv1: bool) -> None:
    payload = random.Random(size).randbytes(size)
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    if rsv1:  # websockets sets it only through an extension's encoder
        expected = bytes((expected[0] | 0x40,)) + expected[1:]
    assert frame(TEXT | (DEFLATED if rsv1 else 0), payload) == expected


def messages(count: int) -> list[bytes]:
    """What a table sends: the public view after each move of a game between random
    players, as JSON, one after another (so that later ones repeat earlier ones)."""
    rng = random.Random(7)
    game = Game.new("penalty-100", ["Ana", "Ben", "Cleo", "Dan"], seed=3)
    out = []
    while len(out) < count and not game.finished:
        if game.round_over:
            game.deal(rng.randrange(1 << 30))
        out.append(orjson.dumps({"type": "state", "view": public_json(game)}))
        seat = game.to_move
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    return out


def read(data: bytes) -> tuple[int, bytes]:
    """A server frame's first byte and payload."""
    size, start = data[1], 2
    if size == 126:
        size, start = int.from_bytes(data[2:4], "big"), 4
    elif size == 127:
        size, start = int.from_bytes(data[2:10], "big"), 10
    assert len(data) == start + size
    return data[0], data[start:]


@pytest.mark.parametrize("bits", [9, 10, 12, 15])
@pytest.mark.parametrize("fresh", [False, True])
def test_compressed_messages_decode_as_sent(bits: int, fresh: bool) -> None:
    """The server's side (``local``) of what the handshake agreed, and the client's
    side of the same agreement decoding every message.  Enough messages that the
    distances reach back past the smallest windows."""
    server = PerMessageDeflate(False, fresh, 15, bits)
    client = PerMessageDeflate(fresh, False, bits, 15)
    deflate = Deflater(server)
    sent = messages(300)
    assert sum(map(len, sent)) > 20 * 2**bits or bits == 15
    compressed = 0
    for data in sent:
        first, payload = read(deflate(data))
        assert first & ~DEFLATED == TEXT
        if first & DEFLATED:
            compressed += 1
            assert len(payload) < len(data)
            payload = client.decode(Frame(Opcode.TEXT, payload, rsv1=True)).data
        assert payload == data
    if not fresh:
        assert compressed == len(sent)


def test_context_takeover_makes_messages_smaller() -> None:
    """With the context kept, a message is mostly references to the ones before; a
    fresh context for each message gains little or nothing (and sends a message that
    would grow as it is)."""
    sent = messages(100)
    kept = Deflater(PerMessageDeflate(False, False, 15, 12))
    fresh = Deflater(PerMessageDeflate(False, True, 15, 12))
    kept_size = sum(len(kept(m)) for m in sent)
    fresh_size = sum(len(fresh(m)) for m in sent)
    assert kept_size * 2 < fresh_size <= sum(len(frame(TEXT, m)) for m in sent)


def test_a_binary_message_is_framed_and_compressed_as_binary() -> None:
    server = PerMessageDeflate(False, False, 15, 12)
    client = PerMessageDeflate(False, False, 12, 15)
    data = bytes(range(256)) * 4
    first, payload = read(Deflater(server)(data, BINARY))
    assert first == BINARY | DEFLATED
    assert client.decode(Frame(Opcode.BINARY, payload, rsv1=True)).data == data


def test_websockets_compressor_is_dropped_once_ours_takes_over() -> None:
    """websockets makes a compressor at the handshake; no message goes through it, so
    the server lets it go (a second context per connection) and uses its own."""
    extension = PerMessageDeflate(False, False, 15, 12)
    assert extension.encoder is not None
    protocol = WebSocketProtocol.__new__(WebSocketProtocol)  # no transport needed
    protocol.conn = SimpleNamespace(extensions=[extension])  # type: ignore[assignment]
    protocol._negotiate()
    assert extension.encoder is None
    assert isinstance(protocol._deflater, Deflater)
    plain = WebSocketProtocol.__new__(WebSocketProtocol)
    plain.conn = SimpleNamespace(extensions=[])  # type: ignore[assignment]
    plain._negotiate()
    assert plain._deflater is None


def open_protocol(extensions: list[PerMessageDeflate]) -> tuple[WebSocketProtocol, list[bytes]]:
    """A protocol past its handshake, writing into a list (no event loop, no socket)."""
    protocol = WebSocketProtocol.__new__(WebSocketProtocol)
    written: list[bytes] = []
    protocol.transport = SimpleNamespace(write=written.append)  # type: ignore[assignment]
    protocol.writable = asyncio.Event()
    protocol.writable.set()
    protocol.disconnected = protocol.close_sent = False
    protocol.handshake_complete = True
    protocol.initial_response = None
    protocol.conn = ServerProtocol()
    protocol.conn.state = OPEN
    protocol.conn.extensions = list(extensions)
    return protocol, written


def test_send_writes_text_binary_and_nothing_as_uvicorn_does() -> None:
    protocol, written = open_protocol([])
    for message in [
        {"type": "websocket.send", "text": "héllo"},
        {"type": "websocket.send", "bytes": b"\x00\x01"},
        {"type": "websocket.send", "bytes": b"raw", "text": "ignored"},  # bytes first
        {"type": "websocket.send"},  # neither: nothing
    ]:
        asyncio.run(protocol.send(message))  # type: ignore[arg-type]
    assert written == [
        frame(TEXT, "héllo".encode()),
        frame(BINARY, b"\x00\x01"),
        frame(BINARY, b"raw"),
    ]


def test_send_compresses_when_the_client_agreed() -> None:
    protocol, written = open_protocol([PerMessageDeflate(False, False, 15, 12)])
    client = PerMessageDeflate(False, False, 12, 15)
    for text in ["one", "two", "one two"]:
        asyncio.run(protocol.send({"type": "websocket.send", "text": text}))
    for text, data in zip(["one", "two", "one two"], written, strict=True):
        first, payload = read(data)
        assert first == TEXT | DEFLATED
        assert client.decode(Frame(Opcode.TEXT, payload, rsv1=True)).data == text.encode()


def test_send_on_a_closing_socket_fails_as_uvicorn_does() -> None:
    """Once the client's close arrived the socket takes no message: uvicorn's own
    ``send`` answers, with the error the server expects of a gone client."""
    protocol, written = open_protocol([])
    protocol.conn.state = CLOSING
    with pytest.raises(ClientDisconnected):
        asyncio.run(protocol.send({"type": "websocket.send", "text": "late"}))
    assert written == []
