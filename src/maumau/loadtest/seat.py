"""One load client: a seat's WebSocket, playing whenever the seat may act.

Each incoming frame is handled in the event loop's read callback and parsed at most
once, with ``json.loads``; ``lobby`` messages, and states in which the seat may do
nothing and awaits nothing, are recognised by their bytes and not parsed.  A move
carries the ``version`` of the state it answers and a fresh ``action_id``; its
latency runs from sending it to the first ``state`` of a newer version.  A dropped
connection is reopened with backoff, and a move that was sent but not acknowledged
is sent again, unchanged: the server acknowledges it in the seat's next ``state``, or
with an ``ack`` (``duplicate``) if it had been committed, or answers
``stale_version``.  A move refused because the database could not be reached
(``store_unavailable``), or because another server process changed the game first
(``conflict``), is sent again unchanged after a short backoff: the same
``action_id`` makes that safe, and a game does not stall waiting for a move nobody
retries.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from maumau.loadtest.choice import choose_action, think_time
from maumau.loadtest.context import ClientContext, PlayedGame
from maumau.loadtest.lobby import Grant
from maumau.loadtest.options import Endpoint
from maumau.loadtest.wire import WebSocketClient, connect

clock = time.monotonic
READY = '{"type":"ready"}'
LOBBY = b'{"type":"lobby"'
PRESENCE = b'{"type":"presence"'
IDLE = b'"legal":[]'
NO_COUNTDOWN = b'"next_round_at":null'
ENCODE = json.JSONEncoder(separators=(",", ":")).encode
#: reconnect backoff, doubling from RECONNECT_FIRST up to RECONNECT_MOST seconds; it
#: starts over only once a ``welcome`` shows that the new connection works (a server
#: that accepts the socket and closes it at once, e.g. ``closed`` with
#: ``store_unavailable`` while its database is down, is not retried in a tight loop)
RECONNECT_FIRST = 0.05
RECONNECT_MOST = 2.0
#: refusals after which the same move is sent again (nothing was applied, or the
#: server must first catch up with the database)
RETRY_CODES = frozenset({"store_unavailable", "conflict"})
#: backoff before such a resend: doubling from RETRY_FIRST up to RETRY_MOST seconds
RETRY_FIRST = 0.1
RETRY_MOST = 1.0


class SeatFailed(Exception):
    """A seat's WebSocket could not be opened and greeted."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class Move:
    action_id: str
    version: int
    text: str
    sent_at: float
    resent: bool = False
    retries: int = 0


class SeatClient:
    """Plays one seat of a load table over its own WebSocket."""

    def __init__(
        self, ctx: ClientContext, game: PlayedGame, grant: Grant, endpoint: Endpoint
    ) -> None:
        self.ctx = ctx
        self.game = game
        self.grant = grant
        self.endpoint = endpoint
        self.url = endpoint.ws_url(grant.game_id)
        self.ws: WebSocketClient | None = None
        self.welcomed: asyncio.Future[None] | None = None
        self.version = -1  # of the latest state
        self.legal: list[dict[str, Any]] = []
        self.acted = -1  # the version the last move was made at
        self.inflight: Move | None = None  # sent, neither acknowledged nor refused
        self.timed: tuple[int, float] | None = None  # (version, sent at): awaiting a state
        self.timer: asyncio.TimerHandle | None = None  # thinking
        self.retry: asyncio.TimerHandle | None = None  # a refused move waits to be resent
        self.ready_round = -1
        self.reconnecting = False
        self.backoff = RECONNECT_FIRST  # the wait before the next reconnect attempt
        self.closing = False

    # --- connecting -------------------------------------------------------------------

    async def _connect(self) -> WebSocketClient:
        ws = await connect(
            self.endpoint.host,
            self.endpoint.port,
            self.url,
            self.ctx.options.compression,
            self.on_message,
            self.on_lost,
            traffic=self.ctx.traffic,
        )
        self.ws = ws  # before hello: every answer finds it
        ws.send(json.dumps({"type": "hello", "token": self.grant.token}))
        return ws

    async def open(self, timeout: float = 15.0) -> None:
        """Connect, say hello and wait for ``welcome``."""
        self.welcomed = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(timeout):
                await self._connect()
                await self.welcomed
        except TimeoutError:
            raise SeatFailed("ws_timeout") from None
        except OSError:
            raise SeatFailed("ws_connect") from None

    def close(self) -> None:
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self._cancel_retry()
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def on_lost(self) -> None:
        self.ws = None
        if self.closing or self.game.over or self.ctx.stopping:
            return
        self.ctx.tally.error(clock(), "disconnect")
        if not self.reconnecting:
            self.reconnecting = True
            self.ctx.spawn(asyncio.get_running_loop().create_task(self._reconnect()))

    async def _reconnect(self) -> None:
        ctx = self.ctx
        give_up = clock() + ctx.options.reconnect_for
        delay = self.backoff
        if delay > RECONNECT_FIRST:  # the last connection was dropped before its welcome
            await asyncio.sleep(delay * (0.5 + ctx.rng.random()))
        while not (self.closing or self.game.over or ctx.stopping):
            try:
                ws = await self._connect()
            except (OSError, TimeoutError):
                if clock() > give_up:
                    self.reconnecting = False
                    self.game.abandon("reconnect_gave_up")
                    return
                await asyncio.sleep(delay * (0.5 + ctx.rng.random()))
                delay = min(delay * 2, RECONNECT_MOST)
                continue
            if self.closing or self.game.over or ctx.stopping:
                ws.close()
                self.ws = None
                return
            self.reconnecting = False
            self.backoff = min(delay * 2, RECONNECT_MOST)  # until welcomed
            ctx.tally.reconnects += 1
            move = self.inflight
            if move is not None:  # the same action_id, at the same version
                self._cancel_retry()
                move.resent = True
                move.sent_at = clock()
                self.timed = None
                ctx.tally.resent += 1
                ws.send(move.text)
            return
        self.reconnecting = False

    def check(self, now: float) -> None:
        """A move unanswered for too long: count a timeout and reconnect."""
        move = self.inflight
        ws = self.ws
        if (
            move is not None
            and ws is not None
            and now - move.sent_at > self.ctx.options.move_timeout
        ):
            move.sent_at = now
            self.ctx.tally.error(now, "timeout")
            ws.abort()

    # --- messages ---------------------------------------------------------------------

    def on_message(self, data: bytes) -> None:
        if data.startswith(LOBBY) or data.startswith(PRESENCE):
            return  # the table's public info, who is connected: nothing a player needs
        if self.timed is None and self.inflight is None and IDLE in data and NO_COUNTDOWN in data:
            # a state in which this seat may do nothing and awaits no answer (so it
            # acknowledges no move of its own): all that matters is that the game goes
            # on (most states are like this)
            self.legal = []
            self.game.progress = clock()
            return
        try:
            message = json.loads(data)
        except ValueError:
            self.ctx.tally.error(clock(), "bad_frame")
            raise  # the connection drops it and reconnects
        kind = message.get("type")
        if kind == "state":
            self._state(message)
        elif kind == "ack":  # a move sent again that had been applied already
            self._ack(message["action_id"], message["version"], bool(message.get("duplicate")))
            if self.legal and self.version > self.acted:
                self._plan()
        elif kind == "error":
            self._error(message)
        elif kind == "welcome":
            self.backoff = RECONNECT_FIRST
            if self.welcomed is not None and not self.welcomed.done():
                self.welcomed.set_result(None)
            if message.get("end") is not None:
                self.game.finish(clock())
        elif kind == "game_end":
            self.game.finish(clock())
        elif kind == "closed":
            self.ctx.tally.error(clock(), f"closed_{message.get('code')}")

    def _state(self, message: dict[str, Any]) -> None:
        now = clock()
        version: int = message["version"]
        self.version = version
        self.legal = legal = message["legal"]
        self.game.progress = now
        timed = self.timed
        if timed is not None and version > timed[0]:
            self.timed = None
            self.ctx.tally.latency(now, now - timed[1])
        acked = message.get("ack")
        if acked is not None:  # the state that follows this seat's move
            self._ack(acked, version, False)
        if legal:
            if self.inflight is None and version > self.acted:
                self._plan()
            return
        view = message["view"]
        if (
            view["step"] == "over"
            and not view["finished"]
            and message.get("next_round_at") is not None
            and view["round"] != self.ready_round
            and self.grant.seat not in message.get("ready", ())
        ):
            self.ready_round = view["round"]
            if self.ws is not None:
                self.ws.send(READY)

    def _ack(self, action_id: str, version: int, duplicate: bool) -> None:
        """The server acknowledged the move ``action_id``: it is in the game."""
        move = self.inflight
        if move is None or action_id != move.action_id:
            self.ctx.tally.error(clock(), "unexpected_ack")
            return
        self.inflight = None
        ctx = self.ctx
        ctx.tally.move(clock(), duplicate)
        ctx.ledger.acked(self.grant.game_id, self.grant.seat, move.action_id, version)

    def _error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        self.ctx.tally.error(clock(), code)
        move = self.inflight
        if move is not None and message.get("action_id") == move.action_id:
            if code in RETRY_CODES:
                self._retry_later(move)
                return
            self.inflight = None
            self.timed = None
            if self.legal and self.version > self.acted:
                self._plan()

    def _retry_later(self, move: Move) -> None:
        """Send a refused move again, unchanged, after a backoff (unless it is answered
        or resent by a reconnect meanwhile)."""
        self._cancel_retry()
        delay = min(RETRY_FIRST * 2**move.retries, RETRY_MOST) * (0.5 + self.ctx.rng.random())
        move.retries += 1
        move.sent_at = clock() + delay  # no timeout while it waits
        self.retry = asyncio.get_running_loop().call_later(delay, self._resend, move)

    def _resend(self, move: Move) -> None:
        self.retry = None
        ws = self.ws
        if self.inflight is not move or ws is None or self.closing or self.game.over:
            return  # answered meanwhile, or the reconnect sends it
        move.resent = True
        move.sent_at = clock()
        self.ctx.tally.resent += 1
        ws.send(move.text)

    def _cancel_retry(self) -> None:
        if self.retry is not None:
            self.retry.cancel()
            self.retry = None

    # --- moving -----------------------------------------------------------------------

    def _plan(self) -> None:
        think = self.ctx.think
        if think is None:
            self._move()
        elif self.timer is None:
            delay = think_time(self.ctx.rng, think)
            self.timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self.timer = None
        self._move()

    def _move(self) -> None:
        ws = self.ws
        version = self.version
        if ws is None or self.inflight is not None or not self.legal or version <= self.acted:
            return
        ctx = self.ctx
        action = choose_action(self.legal, ctx.rng)
        action_id = ctx.ids.next()
        text = ENCODE(
            {"type": "action", "version": version, "action_id": action_id, "action": action}
        )
        now = clock()
        self.inflight = Move(action_id, version, text, now)
        self.timed = (version, now)
        self.acted = version
        ws.send(text)
