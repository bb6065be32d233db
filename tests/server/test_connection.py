"""A connection writes each message at once when the socket takes it without waiting,
and queues it behind a write that waits, in order."""

from __future__ import annotations

import asyncio
from typing import Any

from maumau.server.transport.connection import Connection
from maumau.server.transport.limits import TokenBucket
from maumau.server.wire.protocol import Closed


class Socket:
    """A WebSocket whose sends wait for ``gate`` when one is set; ``turns`` loop turns
    (``sleep(0)``) first, as anyio's streams do."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.gate: asyncio.Future[None] | None = None
        self.turns = 0
        self.closed: int | None = None

    async def send(self, message: dict[str, Any]) -> None:
        for _ in range(self.turns):
            await asyncio.sleep(0)
        if self.gate is not None:
            await self.gate
        self.sent.append(message["text"])

    async def send_text(self, text: str) -> None:
        await self.send({"type": "websocket.send", "text": text})

    async def close(self, code: int = 1000) -> None:
        self.closed = code


def connection(socket: Socket, queue_size: int = 8) -> Connection:
    return Connection(socket, TokenBucket(10, 20), queue_size, socket.send)  # type: ignore[arg-type]


async def settle(condition: Any, turns: int = 50) -> None:
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the writer did not get there")


def test_a_write_that_need_not_wait_happens_before_send_text_returns() -> None:
    async def main() -> None:
        socket = Socket()
        conn = connection(socket)
        conn.send_text("one")
        conn.send_text("two")
        assert socket.sent == ["one", "two"]  # no turn of the loop in between
        assert not conn.backlog and conn.queue.empty()

    asyncio.run(main())


def test_messages_after_a_waiting_write_follow_it_in_order() -> None:
    async def main() -> None:
        socket = Socket()
        conn = connection(socket)
        writer = asyncio.create_task(conn.writer())
        socket.gate = asyncio.get_running_loop().create_future()
        conn.send_text("a")
        conn.send_text("b")
        conn.send_text("c")
        await asyncio.sleep(0.01)
        assert socket.sent == [] and conn.backlog
        gate, socket.gate = socket.gate, None
        gate.set_result(None)
        await settle(lambda: socket.sent == ["a", "b", "c"] and not conn.backlog)
        conn.send_text("d")  # the backlog is gone: written at once again
        assert socket.sent == ["a", "b", "c", "d"]
        conn.close(Closed(code="table_closed", message="bye"))
        await writer
        assert socket.closed == 1000 and '"table_closed"' in socket.sent[-1]

    asyncio.run(main())


def test_a_send_that_gives_up_a_turn_is_finished_by_the_writer() -> None:
    async def main() -> None:
        socket = Socket()
        socket.turns = 2
        conn = connection(socket)
        writer = asyncio.create_task(conn.writer())
        for text in ("x", "y", "z"):
            conn.send_text(text)
        await settle(lambda: socket.sent == ["x", "y", "z"])
        conn.close()
        await writer
        assert socket.closed == 1000

    asyncio.run(main())


def test_a_client_that_stops_reading_is_closed_when_its_queue_is_full() -> None:
    async def main() -> None:
        socket = Socket()
        conn = connection(socket, queue_size=3)
        writer = asyncio.create_task(conn.writer())
        socket.gate = asyncio.get_running_loop().create_future()
        for n in range(10):
            conn.send_text(f"m{n}")
        assert conn.closing
        socket.gate.set_result(None)
        socket.gate = None
        await asyncio.wait_for(writer, 1)
        # no room even for the goodbye: the backlog, waiting write too, is dropped
        assert socket.sent == [] and socket.closed == 1000

    asyncio.run(main())


def test_a_socket_that_fails_marks_the_connection_closing() -> None:
    class Broken(Socket):
        async def send(self, message: dict[str, Any]) -> None:
            raise RuntimeError("the client went away")

    async def main() -> None:
        conn = connection(Broken())
        writer = asyncio.create_task(conn.writer())
        conn.send_text("lost")
        assert conn.closing
        conn.send_text("ignored")
        conn.close()
        await asyncio.wait_for(writer, 1)  # the writer ends at once, not at a timeout
        assert conn.queue.empty()

    asyncio.run(main())


def test_frames_go_through_the_servers_own_send_when_it_is_given() -> None:
    """The app hands each socket the server's ``send``; the connection then writes
    through it, not through Starlette's WebSocket."""
    direct: list[str] = []

    async def raw(message: dict[str, Any]) -> None:
        direct.append(message["text"])

    async def main() -> None:
        socket = Socket()
        conn = Connection(socket, TokenBucket(10, 20), 8, raw)  # type: ignore[arg-type]
        conn.send_text("straight")
        assert direct == ["straight"] and socket.sent == []

    asyncio.run(main())
