"""A lost signal for the tests: a TCP proxy on the loopback that can hold every packet.

A phone in a tunnel or a lift keeps its sockets open, but nothing gets through, either
way, and nothing is closed: the server hears nothing and the page hears nothing until
the signal returns or one side gives up.  Chromium's offline mode cannot stand for it
(it leaves an open WebSocket untouched), so the tests put this proxy between a client
(a browser page or a raw protocol client) and a real server:

- :meth:`HoldProxy.cut`: from now on nothing passes, in either direction, on every
  connection through the proxy, old or new (a new connection is accepted and connected
  to the server, but no byte of it passes); nothing is closed either: a side that
  closes its end has its close held as well.
- :meth:`HoldProxy.release`: the signal returns.  ``deliver=True`` sends what was held,
  in order, each way (the network caught up: a slow link); ``deliver=False`` drops it,
  and resets every connection that had something held (a stream that lost bytes in the
  middle cannot go on: the mobile network forgot the connection), while the
  connections that held nothing go on.

The proxy runs its own event loop in a thread, so that synchronous tests (Playwright's
sync API, ``websockets.sync``) drive it as they drive the server.  ``held_bytes()``
says how much is held: a test waits for it instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from lab.ports import free_port

T = TypeVar("T")


class _Way:
    """One direction of one connection: bytes read from ``reader`` go to ``writer``,
    unless the proxy holds them."""

    def __init__(
        self, proxy: HoldProxy, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.proxy = proxy
        self.reader = reader
        self.writer = writer
        #: what is held: chunks of bytes, and ``None`` for the end of the stream
        self.held: list[bytes | None] = []

    async def pump(self) -> None:
        try:
            while True:
                data = await self.reader.read(65536)
                chunk = data or None
                if self.proxy.holding:
                    self.held.append(chunk)
                else:
                    await self.forward(chunk)
                if chunk is None:
                    return
        except (ConnectionError, OSError):
            self.reset()

    async def forward(self, chunk: bytes | None) -> None:
        if chunk is None:
            if self.writer.can_write_eof():
                with contextlib.suppress(OSError):
                    self.writer.write_eof()
            return
        self.writer.write(chunk)
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.drain()

    async def flush(self, deliver: bool) -> bool:
        """Send (or drop) what is held; whether anything was."""
        held, self.held = self.held, []
        if deliver:
            for chunk in held:
                await self.forward(chunk)
        return bool(held)

    def reset(self) -> None:
        transport = self.writer.transport
        with contextlib.suppress(OSError):
            transport.abort()


class _Link:
    """One client connection and its connection to the server: two ways."""

    def __init__(self, up: _Way, down: _Way) -> None:
        self.up = up
        self.down = down

    async def flush(self, deliver: bool) -> None:
        held = await self.up.flush(deliver)
        held = await self.down.flush(deliver) or held
        if held and not deliver:
            self.up.reset()
            self.down.reset()


class HoldProxy:
    """A proxy from a free port of 127.0.0.1 to ``127.0.0.1:target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        #: nothing passes (:meth:`cut`)
        self.holding = False
        self._links: list[_Link] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)

    def start(self) -> HoldProxy:
        self._thread.start()

        async def listen() -> None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

        self._run(listen())
        return self

    async def _accept(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        try:
            s_reader, s_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            c_writer.transport.abort()
            return
        link = _Link(_Way(self, c_reader, s_writer), _Way(self, s_reader, c_writer))
        self._links.append(link)
        await asyncio.gather(link.up.pump(), link.down.pump())
        for writer in (c_writer, s_writer):
            writer.close()
        with contextlib.suppress(ValueError):
            self._links.remove(link)

    def cut(self) -> None:
        """Hold every packet, both ways, from now on."""

        async def hold() -> None:
            self.holding = True

        self._run(hold())

    def release(self, deliver: bool = True) -> None:
        """Let packets pass again; what was held is sent (``deliver``) or dropped,
        with its connections reset."""

        async def go() -> None:
            # (what arrives while the held bytes are written is held too, and sent
            # after them: the check and the switch below have no await between them)
            while any(way.held for link in self._links for way in (link.up, link.down)):
                for link in list(self._links):
                    await link.flush(deliver)
            self.holding = False

        self._run(go())

    def held_bytes(self) -> int:
        """How many bytes are held now (both ways, every connection)."""

        async def count() -> int:
            ways = [way for link in self._links for way in (link.up, link.down)]
            return sum(len(chunk) for way in ways for chunk in way.held if chunk)

        return self._run(count())

    def held_ends(self) -> int:
        """How many ends of streams are held (a side closed its end behind the cut)."""

        async def count() -> int:
            ways = [way for link in self._links for way in (link.up, link.down)]
            return sum(1 for way in ways for chunk in way.held if chunk is None)

        return self._run(count())

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            for link in self._links:
                link.up.reset()
                link.down.reset()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
