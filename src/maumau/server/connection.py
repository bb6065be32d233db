"""One client's WebSocket: who it is, what it has been sent, and its outgoing queue."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket

from maumau.server.limits import TokenBucket
from maumau.server.protocol import Closed, Model


class Connection:
    """A connected client.  Messages are queued and written by :meth:`writer`, so that
    one slow client never holds up a table; a client that falls too far behind is
    closed."""

    def __init__(self, ws: WebSocket, limiter: TokenBucket, queue_size: int) -> None:
        self.ws = ws
        self.limiter = limiter
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.greeted = False
        self.seat: int | None = None
        #: which round's log, and how much of it, this client has been sent
        self.round = -1
        self.logged = 0
        self.closing = False

    def send(self, message: Model) -> None:
        self.send_text(message.model_dump_json())

    def send_text(self, text: str) -> None:
        if self.closing:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(Closed(code="rate_limited", message="the client is not reading"))

    def close(self, last: Closed | None = None) -> None:
        """Send ``last`` (if given) after what is queued, then close."""
        if self.closing:
            return
        if last is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(last.model_dump_json())
        self.closing = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if self.queue.full():  # no room for the end marker: drop the backlog
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        """Write queued messages until :meth:`close`; then close the socket."""
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await self.ws.send_text(text)
            await self.ws.close(1000)
        except Exception:  # the client went away; the reader notices and cleans up
            self.closing = True
