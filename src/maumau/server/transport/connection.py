"""One client's WebSocket: who it is, what it has been sent, and its outgoing queue."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, cast

from starlette.types import Send
from starlette.websockets import WebSocket

from maumau.server.transport.limits import TokenBucket
from maumau.server.wire.model import Model
from maumau.server.wire.protocol import Closed

#: an ASGI ``send`` as the servers (and Starlette) write it: an ``async def``
SendCoroutine = Callable[[dict[str, Any]], Coroutine[Any, Any, None]]


class Connection:
    """A connected client.

    A message is written at once when the socket takes it without waiting, which is
    nearly always: every move sends one to each seat, and handing each to a task
    would cost more than writing it.  When the socket makes a write wait (the client
    reads slowly), that write and every message after it go through a queue that
    :meth:`writer` works off, so that one slow client never holds up a table; a client
    that falls too far behind is closed."""

    def __init__(self, ws: WebSocket, limiter: TokenBucket, queue_size: int, send: Send) -> None:
        """``send``: the server's own ASGI ``send`` for the socket, which skips
        Starlette's checks and wrappers for every frame (about 3% of the server's time
        per move; a closed socket shows up as the send's error all the same)."""
        self.ws = ws
        # (_write_now drives the coroutine it returns by hand)
        self._send = cast(SendCoroutine, send)
        self.limiter = limiter
        #: the refusals of ``limiter`` have a budget of their own, as large and refilled
        #: as fast: a client refused faster than that (sending at more than twice its
        #: limit, for a while) is flooding, and is closed
        self.refusals = TokenBucket(limiter.rate, limiter.burst)
        #: ``hello`` messages refused for a token that holds no seat here
        self.bad_hellos = 0
        self.queue: asyncio.Queue[str | _Waiting | None] = asyncio.Queue(queue_size)
        self.greeted = False
        #: the seat's position at its table, and the seat's identity: the hash of the
        #: token the connection presented.  A position can change (a seat before it is
        #: removed); the identity never does, and the position is found from it again
        #: whenever the seats change (:meth:`Referee.seats_changed`).
        self.seat: int | None = None
        self.seat_key: str | None = None
        #: the client's address as per-address limits count it (``address_key``; a
        #: spectator's chat budget is its address's)
        self.address = ""
        #: which round's log, and how much of it, this client has been sent
        self.round = -1
        self.logged = 0
        #: the seat's own part of the last state sent, and what it was made from
        self.own_key: tuple[int, int, int] | None = None
        self.own_text = ""
        self.closing = False
        #: the WebSocket close code the writer ends with (1012: the server restarts)
        self.close_code = 1000
        #: a write is waiting, or messages are queued: new ones queue behind them
        self.backlog = False

    def send(self, message: Model) -> None:
        self.send_text(message.model_dump_json())

    def send_text(self, text: str) -> None:
        if self.closing:
            return
        if not self.backlog:
            self._write_now(text)
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(Closed(code="rate_limited", message="the client is not reading"))

    def _write_now(self, text: str) -> None:
        """Run the socket's send until it finishes or has to wait; a send that waits
        is finished by :meth:`writer`, before anything sent after it."""
        send = self._send({"type": "websocket.send", "text": text})
        try:
            waits_for = send.send(None)
        except StopIteration:
            return
        except Exception:  # the client went away; the reader notices and cleans up
            self.closing = self.backlog = True
            self.queue.put_nowait(None)  # the writer ends (the queue was empty)
            return
        self.backlog = True
        self.queue.put_nowait(_Waiting(send, waits_for))  # the queue was empty

    def close(self, last: Closed | None = None, code: int = 1000) -> None:
        """Send ``last`` (if given) after what is queued, then close with ``code``."""
        if self.closing:
            return
        self.close_code = code
        self.backlog = True  # the writer sends what is left, then closes
        if last is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(last.model_dump_json())
        self.closing = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if self.queue.full():  # no room for the end marker: drop the backlog
            while not self.queue.empty():
                item = self.queue.get_nowait()
                if isinstance(item, _Waiting):
                    item.send.close()
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        """Write queued messages until :meth:`close`; then close the socket."""
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    break
                if isinstance(item, _Waiting):
                    await item.finish()
                else:
                    await self._send({"type": "websocket.send", "text": item})
                if self.queue.empty() and not self.closing:
                    self.backlog = False
            await self.ws.close(self.close_code)
        except Exception:  # the client went away; the reader notices and cleans up
            self.closing = True
        finally:
            while not self.queue.empty():
                item = self.queue.get_nowait()
                if isinstance(item, _Waiting):
                    item.send.close()


class _Waiting:
    """A socket send that had to wait.  ``waits_for`` is what it gave up control
    for, as a task would see it: a future to wait for, or ``None`` (``sleep(0)``: a
    turn of the loop)."""

    def __init__(self, send: Coroutine[Any, Any, None], waits_for: Any) -> None:
        self.send = send
        self.waits_for = waits_for

    async def finish(self) -> None:
        """Wait as the send asked, then go on with it, until it is done."""
        try:
            while True:
                if self.waits_for is None:
                    await asyncio.sleep(0)
                else:  # as a task takes a future it is handed: not blocking yet
                    self.waits_for._asyncio_future_blocking = False
                    await self.waits_for
                self.waits_for = self.send.send(None)
        except StopIteration:
            return
        finally:
            self.send.close()  # no-op once finished; ends it if this task was cancelled
