"""The attacks over WebSockets, bounded in count and time; each socket waits for the
server's answer before it sends again, so each goes as fast as the server lets it.

- ``hello``: ``--sockets`` sockets (32) to the victim table from one address
  (127.0.0.1), each saying ``hello`` with a made-up token of a real one's form, again
  on each ``bad_token``; a socket the server closes is opened again.  With several
  server processes, socket ``i`` goes to process ``i mod n``.
- ``chat``: ``--tables`` tables (30) created by the attacker, each with its host's
  socket connected (``hello`` with its token), each sending chat lines in a loop.  The
  server lets one address create 10 tables a minute, so the tables come from
  127.0.0.11, .12, ... (10 from each), as an attacker with a few addresses would;
  table ``i`` at process ``i mod n``.  After a refusal a socket waits 0.25 s.
- ``ping``: one socket to the victim table (at the last process), a spectator
  (``hello`` without a token, so that the hello deadline does not close it), flooding
  WebSocket ping frames, at most ``PINGS_IN_FLIGHT`` unanswered at once (then it waits
  up to 5 s for the oldest one's pong); it reads every message it is sent.  A socket
  the server closes is opened again.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from lab.pressure.observer import ATTACKER, http_client, ws_connect

clock = time.monotonic
#: the chat attack's tables per source address (the server's ``tables_per_minute``)
TABLES_PER_ADDRESS = 10
PINGS_IN_FLIGHT = 256
ANSWER_TIMEOUT = 5.0


def chat_address(index: int) -> str:
    """The source address of the chat attack's table ``index``."""
    return f"127.0.0.{11 + index // TABLES_PER_ADDRESS}"


class Tally:
    """What a socket attack saw, counted."""

    def __init__(self) -> None:
        self.connections = 0
        self.refused: Counter[str] = Counter()  # a socket not opened
        self.closed: Counter[str] = Counter()  # how the server closed an open one
        self.replies: Counter[str] = Counter()
        self.open: set[ClientConnection] = set()

    async def connect(self, url: str, address: str = ATTACKER) -> ClientConnection | None:
        try:
            conn = await ws_connect(
                url, address, open_timeout=ANSWER_TIMEOUT, close_timeout=1, compression=None
            )
        except websockets.InvalidStatus as exc:
            self.refused[f"handshake HTTP {exc.response.status_code}"] += 1
        except TimeoutError:
            self.refused["handshake timeout"] += 1
        except (OSError, websockets.WebSocketException) as exc:
            self.refused[f"connection: {type(exc).__name__}"] += 1
        else:
            self.connections += 1
            self.open.add(conn)
            return conn
        await asyncio.sleep(0.1)
        return None

    def lost(self, conn: ClientConnection, closed: str) -> None:
        self.closed[closed] += 1
        self.open.discard(conn)

    def counts(self) -> dict[str, Any]:
        return {
            "connections": self.connections,
            "refused": dict(self.refused),
            "closed_by_server": dict(self.closed),
            "replies": dict(self.replies),
        }


async def answer(
    conn: ClientConnection, wanted: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The next message ``wanted`` takes, an ``error`` or a ``closed`` (others skipped)."""
    while True:
        message: dict[str, Any] = json.loads(await conn.recv())
        if message.get("type") in ("error", "closed") or wanted(message):
            return message


def close_code(exc: websockets.ConnectionClosed) -> str:
    return f"close {exc.rcvd.code if exc.rcvd else 'without a frame'}"


async def for_seconds(seconds: float, jobs: Sequence[Awaitable[None]], tally: Tally) -> None:
    """Run ``jobs`` (which stop by themselves after ``seconds``; those that do not, in
    ``ANSWER_TIMEOUT`` more, are cancelled), then close every socket left open.

    (Each job stops by its deadline rather than by being cancelled: on Python 3.11,
    ``asyncio.wait_for`` may lose a cancellation that comes as its answer does.)"""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    await asyncio.wait(tasks, timeout=seconds + ANSWER_TIMEOUT + 1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(conn.close() for conn in tally.open), return_exceptions=True)


# --- hello with made-up tokens --------------------------------------------------------


async def hello(wss: list[str], game_id: str, seconds: float, sockets: int) -> dict[str, Any]:
    deadline = clock() + seconds
    tally = Tally()
    sent = [0]

    async def one(ws: str) -> None:
        while clock() < deadline:
            conn = await tally.connect(f"{ws}/ws/{game_id}")
            if conn is None:
                continue
            try:
                while clock() < deadline:
                    token = secrets.token_urlsafe(32)  # (43 characters, as the server's)
                    await conn.send(json.dumps({"type": "hello", "token": token}))
                    sent[0] += 1
                    async with asyncio.timeout(ANSWER_TIMEOUT):
                        reply = await answer(conn, _welcome)
                    said = f"{reply['type']} {reply.get('code', '')}".strip()
                    tally.replies[said] += 1
                    if reply["type"] == "closed":
                        tally.lost(conn, f"closed {reply.get('code')}")
                        break
            except websockets.ConnectionClosed as exc:
                tally.lost(conn, close_code(exc))
            except TimeoutError:
                tally.replies[f"no answer in {ANSWER_TIMEOUT:g} s"] += 1
            await conn.close()
            tally.open.discard(conn)

    await for_seconds(seconds, [one(wss[i % len(wss)]) for i in range(sockets)], tally)
    return {"sockets": sockets, "servers": len(wss), "hellos_sent": sent[0], **tally.counts()}


def _welcome(message: dict[str, Any]) -> bool:
    return message.get("type") == "welcome"


# --- chat lines at many tables --------------------------------------------------------


async def chat(urls: list[str], wss: list[str], seconds: float, tables: int) -> dict[str, Any]:
    started = clock()
    deadline = started + seconds
    tally = Tally()
    created: list[tuple[int, str, str]] = []  # (index, game id, token)
    create_refused: Counter[str] = Counter()
    for first in range(0, tables, TABLES_PER_ADDRESS):
        address = chat_address(first)
        async with http_client(address, 30.0) as client:
            for i in range(first, min(tables, first + TABLES_PER_ADDRESS)):
                body = {"name": "Mallory"}
                try:
                    reply = await client.post(urls[i % len(urls)] + "/api/games", json=body)
                    if reply.status_code != 201:
                        create_refused[f"HTTP {reply.status_code}"] += 1
                        continue
                    game = reply.json()
                    created.append((i, str(game["game_id"]), str(game["token"])))
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    create_refused[type(exc).__name__] += 1
    lines = [0]
    accepted = [0]

    async def one(index: int, game_id: str, token: str) -> None:
        ws = wss[index % len(wss)]
        while clock() < deadline:
            conn = await tally.connect(f"{ws}/ws/{game_id}", chat_address(index))
            if conn is None:
                continue
            try:
                await conn.send(json.dumps({"type": "hello", "token": token}))
                async with asyncio.timeout(ANSWER_TIMEOUT):
                    greeted = await answer(conn, _welcome)
                tally.replies[f"hello: {greeted['type']} {greeted.get('code', '')}".strip()] += 1
                while greeted["type"] == "welcome" and clock() < deadline:
                    text = f"line {lines[0]} from table {index}"
                    await conn.send(json.dumps({"type": "chat", "text": text}))
                    lines[0] += 1
                    async with asyncio.timeout(ANSWER_TIMEOUT):
                        reply = await answer(conn, _line(text))
                    if reply["type"] == "chat_line":
                        accepted[0] += 1
                        continue
                    tally.replies[f"{reply['type']} {reply.get('code', '')}".strip()] += 1
                    if reply["type"] == "closed":
                        tally.lost(conn, f"closed {reply.get('code')}")
                        break
                    await asyncio.sleep(0.25)  # refused: not at once again
            except websockets.ConnectionClosed as exc:
                tally.lost(conn, close_code(exc))
            except TimeoutError:
                tally.replies[f"no answer in {ANSWER_TIMEOUT:g} s"] += 1
            await conn.close()
            tally.open.discard(conn)
            await asyncio.sleep(0.1)

    setup_s = clock() - started
    jobs = [one(index, game_id, token) for index, game_id, token in created]
    await for_seconds(max(0.0, deadline - clock()), jobs, tally)
    return {
        "tables_wanted": tables,
        "tables": len(created),
        "servers": len(urls),
        "create_refused": dict(create_refused),
        "setup_s": round(setup_s, 2),
        "lines_sent": lines[0],
        "lines_accepted": accepted[0],
        **tally.counts(),
    }


def _line(text: str) -> Callable[[dict[str, Any]], bool]:
    def mine(message: dict[str, Any]) -> bool:
        return message.get("type") == "chat_line" and message["line"].get("text") == text

    return mine


# --- a flood of ping frames -----------------------------------------------------------


async def ping(wss: list[str], game_id: str, seconds: float) -> dict[str, Any]:
    deadline = clock() + seconds
    tally = Tally()
    sent = [0]
    answered = [0]
    overdue = [0]

    def pong(waiter: asyncio.Future[float]) -> None:
        if not waiter.cancelled() and waiter.exception() is None:
            answered[0] += 1

    async def read(conn: ClientConnection) -> None:
        async for raw in conn:
            tally.replies[str(json.loads(raw).get("type"))] += 1

    async def flood() -> None:
        while clock() < deadline:
            conn = await tally.connect(f"{wss[-1]}/ws/{game_id}")
            if conn is None:
                continue
            reader = asyncio.create_task(read(conn))
            in_flight: list[asyncio.Future[float]] = []
            try:
                await conn.send(json.dumps({"type": "hello", "token": None}))
                while clock() < deadline:
                    waiter = await conn.ping()
                    sent[0] += 1
                    assert isinstance(waiter, asyncio.Future)
                    waiter.add_done_callback(pong)
                    in_flight.append(waiter)
                    if len(in_flight) >= PINGS_IN_FLIGHT:
                        oldest = in_flight.pop(0)
                        try:
                            async with asyncio.timeout(ANSWER_TIMEOUT):
                                await asyncio.shield(oldest)
                        except TimeoutError:
                            overdue[0] += 1
                        in_flight = [w for w in in_flight if not w.done()]
                    else:
                        await asyncio.sleep(0)
            except websockets.ConnectionClosed as exc:
                tally.lost(conn, close_code(exc))
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            await conn.close()
            tally.open.discard(conn)

    await for_seconds(seconds, [flood()], tally)
    return {
        "pings_sent": sent[0],
        "pongs": answered[0],
        "overdue": overdue[0],  # waited for 5 s in vain
        "messages": dict(tally.replies),
        **{k: v for k, v in tally.counts().items() if k != "replies"},
    }
