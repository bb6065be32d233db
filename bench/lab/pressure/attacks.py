"""The attacks, each from one address (127.0.0.1; the chat's tables from a few more) and
bounded in time, run in a process of their own (``python -m lab.pressure.attacks PHASE
...`` from ``bench/``) so that their client work does not delay the measuring process.
Each prints its result as one JSON line.  ``--url`` and ``--ws`` name a server process
each (repeated for several: then the attack's clients, sockets or tables go to each in
turn, half each of two).

- ``replay``: ``--clients`` clients loop on ``GET /api/games/{id}/replay`` of the long
  finished game, reading every byte and throwing it away.
- ``bots``: create a table (8 seats: the host's, which nobody connects to, and 7
  ``hard`` computer players; ``bot_delay_ms`` 0, ``grace_seconds`` 0 so the host's
  seat is played by its stand-in at once, 50 deals), start it, and again, until the
  server refuses or ``--tables`` run; then hold.
- ``sockets``: open idle WebSockets to one table (no ``hello`` on any) until one is
  refused (a ``closed`` message, a refused or timed-out handshake, a connection
  error) or ``--sockets`` are open; then hold them and probe ``GET /`` and
  ``/api/health`` once a second on new connections from the other address.
- ``qr``, ``health``, ``info``: loops on one HTTP request (:mod:`lab.pressure.http_floods`).
- ``hello``, ``chat``, ``ping``: WebSocket floods (:mod:`lab.pressure.socket_floods`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from collections.abc import Coroutine, Sequence
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from lab.pressure import http_floods, socket_floods
from lab.pressure.observer import ATTACKER, OBSERVER, http_client, ws_connect

clock = time.monotonic
BOT_OPTIONS: dict[str, Any] = {"scoring": "deals", "deals": 50}
BOT_SETTINGS: dict[str, Any] = {"bot_delay_ms": 0, "grace_seconds": 0}


def code_of(reply: httpx.Response) -> str:
    """An error reply's code (or its HTTP status)."""
    try:
        return str(reply.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {reply.status_code}"


# --- (a) replays --------------------------------------------------------------------


async def replay(urls: list[str], game_id: str, seconds: float, clients: int) -> dict[str, Any]:
    deadline = clock() + seconds
    statuses: Counter[str] = Counter()
    durations: list[float] = []
    received = [0]

    async def loop(client: httpx.AsyncClient, url: str) -> None:
        asked = False
        while not asked or clock() < deadline:  # (one request at least, however late)
            asked = True
            started = clock()
            try:
                async with client.stream("GET", f"{url}/api/games/{game_id}/replay") as reply:
                    async for chunk in reply.aiter_raw():
                        received[0] += len(chunk)
                    statuses[str(reply.status_code)] += 1
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] += 1
                await asyncio.sleep(0.1)
                continue
            if reply.status_code == 200:
                durations.append(clock() - started)
            else:
                await asyncio.sleep(0.1)  # a refusal: do not spin

    async with http_client(ATTACKER, 120.0) as client:
        tasks = [asyncio.create_task(loop(client, urls[i % len(urls)])) for i in range(clients)]
        await asyncio.sleep(max(0.0, deadline - clock()))
        # (a phase shorter than one replay on a busy machine: its first answer is awaited,
        # for at most a minute, so that the figures say the attack ran)
        while not statuses and clock() < deadline + 60.0 and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "clients": clients,
        "completed": len(durations),  # whole replays (200)
        "statuses": dict(statuses),
        "mb_received": round(received[0] / 1e6, 1),
        "mean_s": round(sum(durations) / len(durations), 2) if durations else None,
        "max_s": round(max(durations), 2) if durations else None,
    }


# --- (b) bot-only tables ------------------------------------------------------------


async def bots(urls: list[str], seconds: float, tables: int, level: str) -> dict[str, Any]:
    deadline = clock() + seconds
    running: list[tuple[str, str]] = []  # (server, table)
    refused: str | None = None
    notes: Counter[str] = Counter()
    async with http_client(ATTACKER, 60.0) as client:
        # (one table at least, however late: on a busy machine the client's start alone
        # can take a short phase)
        while len(running) < tables and (not running or clock() < deadline) and refused is None:
            try:
                url = urls[len(running) % len(urls)]
                refused = await one_bot_table(client, url, level, running, notes)
            except (httpx.HTTPError, ValueError, KeyError) as exc:
                refused = f"error: {type(exc).__name__}"
        set_up = clock()
        await asyncio.sleep(max(0.0, deadline - clock()))
        status: Counter[str] = Counter()
        for url, game_id in running:
            try:
                reply = await client.get(f"{url}/api/games/{game_id}")
            except httpx.HTTPError as exc:
                status[type(exc).__name__] += 1
                continue
            status[reply.json()["status"] if reply.status_code == 200 else code_of(reply)] += 1
    return {
        "tables_started": len(running),
        "cap": tables,
        "refused": refused,
        "notes": dict(notes),
        "status_at_end": dict(status),
        "setup_s": round(set_up - (deadline - seconds), 2),
        "level": level,
    }


async def one_bot_table(
    client: httpx.AsyncClient,
    url: str,
    level: str,
    running: list[tuple[str, str]],
    notes: Counter[str],
) -> str | None:
    """Create, fill and start one bot-only table; the refusal, if any."""
    body = {"name": "Mallory", "options": BOT_OPTIONS, "settings": BOT_SETTINGS}
    created = await client.post(url + "/api/games", json=body)
    if created.status_code != 201:
        return f"create: {code_of(created)}"
    game = created.json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    base = f"{url}/api/games/{game['game_id']}"
    info = (await client.get(base)).json()
    for _ in range(int(info["max_seats"]) - 1):
        added = await client.post(base + "/bots", json={"level": level}, headers=auth)
        if added.status_code != 200:
            notes[f"bots: {code_of(added)}"] += 1
            break
    started = await client.post(base + "/start", headers=auth)
    if started.status_code != 204:
        return f"start: {code_of(started)}"
    running.append((url, game["game_id"]))
    return None


# --- (c) idle sockets ---------------------------------------------------------------


async def sockets(
    urls: list[str], wss: list[str], game_id: str, seconds: float, limit: int
) -> dict[str, Any]:
    deadline = clock() + seconds
    conns: list[ClientConnection] = []
    closed: Counter[str] = Counter()  # how the server closed accepted sockets
    messages: Counter[str] = Counter()
    refused: str | None = None

    async def watch(conn: ClientConnection) -> None:
        try:
            async for raw in conn:
                message = json.loads(raw)
                if message.get("type") == "closed":
                    closed[f"closed {message.get('code')}"] += 1
                    return
                messages[str(message.get("type"))] += 1
        except websockets.ConnectionClosed as exc:
            closed[f"close {exc.rcvd.code if exc.rcvd else 'without a frame'}"] += 1
            return
        closed[f"close {conn.close_code}"] += 1

    watchers = []
    started = clock()
    while len(conns) < limit and clock() < deadline:
        try:
            ws = wss[len(conns) % len(wss)]
            conn = await ws_connect(
                f"{ws}/ws/{game_id}", ATTACKER, open_timeout=5, close_timeout=2, compression=None
            )
        except websockets.InvalidStatus as exc:
            refused = f"handshake HTTP {exc.response.status_code}"
        except TimeoutError:
            refused = "handshake timeout (5 s)"
        except (OSError, websockets.WebSocketException) as exc:
            refused = f"connection: {type(exc).__name__}"
        if refused is not None:
            break
        conns.append(conn)
        watchers.append(asyncio.create_task(watch(conn)))
        await asyncio.sleep(0)
        if closed:
            refused = ", ".join(sorted(closed))
            break
    opening_s = clock() - started
    await asyncio.sleep(min(1.0, max(0.0, deadline - clock())))
    open_after = sum(1 for conn in conns if conn.close_code is None)
    probes: dict[str, Counter[str]] = {"/": Counter(), "/api/health": Counter()}
    async with http_client(OBSERVER, 5.0, fresh=True) as client:
        while clock() < deadline:
            tick = clock()
            for path, seen in probes.items():
                try:
                    seen[str((await client.get(urls[0] + path)).status_code)] += 1
                except httpx.HTTPError as exc:
                    seen[type(exc).__name__] += 1
            await asyncio.sleep(max(0.0, tick + 1.0 - clock()))
    open_at_end = sum(1 for conn in conns if conn.close_code is None)
    stopped = f"none: {limit} open" if len(conns) >= limit else "none: the phase ended"
    by_server = dict(closed)
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    await asyncio.gather(*(conn.close() for conn in conns), return_exceptions=True)
    return {
        "handshakes_ok": len(conns),
        "refused": refused or stopped,
        "opening_s": round(opening_s, 2),
        "open_1s_after": open_after,
        "open_at_end": open_at_end,
        "closed_by_server": by_server,
        "messages": dict(messages),
        "probes": {path: dict(seen) for path, seen in probes.items()},
    }


PHASES = ("replay", "bots", "sockets", "qr", "hello", "health", "chat", "ping", "info")


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("phase", choices=PHASES)
    parser.add_argument("--url", action="append", required=True, help="a server (repeatable)")
    parser.add_argument("--ws", action="append", required=True, help="its WebSocket base")
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument(
        "--game-id", help="replay: the long game; sockets: the table; qr, hello, ping, "
        "info: the victim table",
    )  # fmt: skip
    parser.add_argument("--clients", type=int, default=10, help="replay")
    parser.add_argument("--tables", type=int, default=10, help="bots, chat")
    parser.add_argument("--level", default="hard", help="bots")
    parser.add_argument("--sockets", type=int, default=2000, help="sockets, hello")
    parser.add_argument("--loops", type=int, default=4, help="qr, health, info")
    parser.add_argument("--host-length", type=int, default=http_floods.HOST_LENGTH, help="qr")
    args = parser.parse_args(argv)
    if len(args.url) != len(args.ws):
        parser.error(f"one --ws for each --url: {len(args.url)} --url, {len(args.ws)} --ws")
    needs_id = ("replay", "sockets", "qr", "hello", "ping", "info")
    if args.phase in needs_id and not args.game_id:
        parser.error(f"{args.phase} needs --game-id")
    for name in ("clients", "tables", "sockets", "loops", "host_length"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be 1 or more")
    return args


def attack(args: argparse.Namespace) -> Coroutine[Any, Any, dict[str, Any]]:
    """The attack ``args`` name, to be run."""
    urls, wss, seconds, game_id = args.url, args.ws, args.seconds, args.game_id
    match args.phase:
        case "replay":
            return replay(urls, game_id, seconds, args.clients)
        case "bots":
            return bots(urls, seconds, args.tables, args.level)
        case "sockets":
            return sockets(urls, wss, game_id, seconds, args.sockets)
        case "qr":
            return http_floods.qr(urls, game_id, seconds, args.loops, args.host_length)
        case "health":
            return http_floods.health(urls, seconds, args.loops)
        case "info":
            return http_floods.info(urls, game_id, seconds, args.loops)
        case "hello":
            return socket_floods.hello(wss, game_id, seconds, args.sockets)
        case "chat":
            return socket_floods.chat(urls, wss, seconds, args.tables)
        case _:
            return socket_floods.ping(wss, game_id, seconds)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    print(json.dumps({"started": True}), flush=True)  # the phase's window opens
    result = asyncio.run(attack(args))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
