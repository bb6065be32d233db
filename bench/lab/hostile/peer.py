"""A WebSocket client of the live campaign: hello, and a batch of probes up to a pong."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from lab.hostile.games import GameCtx, seat_of
from lab.hostile.probes import Probe


class Peer:
    """A WebSocket client connection (the websockets library)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, url: str, compression: str | None = None) -> Peer:
        from websockets.asyncio.client import connect

        ws = await connect(
            url,
            proxy=None,
            max_size=None,
            compression=compression,
            ping_interval=None,
            open_timeout=20,
            close_timeout=5,
        )
        return cls(ws)

    async def send(self, probe: Probe) -> None:
        if probe.frame == "raw-text":
            await self.ws.send(probe.data, text=True)
        elif probe.frame == "binary":
            data = probe.data if isinstance(probe.data, bytes) else probe.data.encode()
            await self.ws.send(data)
        else:
            await self.ws.send(probe.data)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 20) -> dict[str, Any]:
        """The next message; raises :class:`Closed` when the socket closed."""
        from websockets.exceptions import ConnectionClosed

        try:
            text = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed as exc:
            raise Closed(exc.rcvd.code if exc.rcvd else None) from None
        message: dict[str, Any] = json.loads(text)
        return message

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed ({code})")
        self.code = code


async def greet(peer: Peer, game: GameCtx, who: str) -> dict[str, Any] | None:
    """hello as ``who`` (nothing for "fresh"); returns the first state, if any."""
    if who == "fresh":
        return None
    token = None if who == "spectator" else game.tokens[seat_of(who) or 0]
    await peer.send_json({"type": "hello", "token": token})
    welcome = await peer.recv()
    assert welcome["type"] == "welcome", welcome
    while True:
        message = await peer.recv()
        if message["type"] == "state":
            return message
        if message["type"] == "lobby" and message["game"]["status"] == "lobby":
            return None


async def exchange(peer: Peer, probes: Sequence[Probe]) -> tuple[list[dict[str, Any]], str]:
    """Send ``probes`` then a ping; the replies before the pong (lobby updates left
    out), and how it ended: "pong", "closed:CODE" or "timeout"."""
    for probe in probes:
        await peer.send(probe)
    await peer.send_json({"type": "ping"})
    replies: list[dict[str, Any]] = []
    try:
        while True:
            message = await peer.recv()
            if message["type"] == "pong":
                return replies, "pong"
            if message["type"] not in ("lobby", "presence"):
                replies.append(message)
    except Closed as exc:
        return replies, f"closed:{exc.code}"
    except TimeoutError:
        return replies, "timeout"
