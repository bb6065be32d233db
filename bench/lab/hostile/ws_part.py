"""The WebSocket part of the live campaign: every probe sent, in batches over persistent
connections (or on a connection of its own where the server is to close it), and
judged."""

from __future__ import annotations

import asyncio
import functools
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from lab.hostile.games import Context, GameCtx
from lab.hostile.peer import Closed, Peer, exchange, greet
from lab.hostile.probes import Probe
from lab.hostile.server import Server
from lab.hostile.verdicts import Tally, judge, judge_close

BATCH = 16


async def run_persistent(
    server: Server,
    ctx: Context,
    game: GameCtx,
    who: str,
    probes: list[Probe],
    tally: Tally,
    compression: str | None,
) -> None:
    url = f"{server.ws_base}/ws/{game.id}"
    peer: Peer | None = None

    async def connect() -> Peer:
        fresh = await Peer.open(url, compression)
        await greet(fresh, game, who)
        return fresh

    def record(probe: Probe, verdict: str, answer: str) -> None:
        tally.add(probe.category, verdict, answer, probe.describe())

    try:
        for start in range(0, len(probes), BATCH):
            batch = probes[start : start + BATCH]
            peer = peer or await connect()
            replies, end = await exchange(peer, batch)
            if end == "pong" and len(replies) == len(batch):
                for probe, reply in zip(batch, replies, strict=True):
                    verdict, answer = judge(ctx, probe, reply)
                    record(probe, verdict, answer)
                continue
            # something went wrong in this batch: send its probes one at a time to see
            # which one it was
            if end != "pong":
                await peer.close()
                peer = None
            for probe in batch:
                peer = peer or await connect()
                replies, end = await exchange(peer, [probe])
                if end != "pong":
                    record(probe, "dropped" if end.startswith("closed") else "stalled", end)
                    await peer.close()
                    peer = None
                elif not replies:
                    record(probe, "unanswered", "nothing")
                elif len(replies) > 1:
                    record(probe, "extra-replies", "+".join(r.get("type", "?") for r in replies))
                else:
                    verdict, answer = judge(ctx, probe, replies[0])
                    record(probe, verdict, answer)
    finally:
        if peer is not None:
            await peer.close()


async def run_own(server: Server, ctx: Context, probe: Probe, tally: Tally) -> None:
    """A probe the server should answer by closing the connection."""
    game = ctx.games[probe.game]
    who = probe.who.removeprefix("own-")
    peer = await Peer.open(f"{server.ws_base}/ws/{game.id}")
    replies: list[dict[str, Any]] = []
    code: int | None = None
    try:
        await greet(peer, game, who)
        await peer.send(probe)
        while True:
            message = await peer.recv(10)
            if message["type"] not in ("lobby", "presence"):
                replies.append(message)
    except Closed as exc:
        code = exc.code
    except TimeoutError:
        code = None
    finally:
        await peer.close()
    verdict, answer = judge_close(probe, code, replies)
    tally.add(probe.category, verdict, answer, probe.describe())


async def run_ws(server: Server, ctx: Context, probes: list[Probe], workers: int = 6) -> Tally:
    tally = Tally()
    groups: dict[tuple[str, str], list[Probe]] = defaultdict(list)
    own: list[Probe] = []
    for probe in probes:
        if probe.who.startswith("own-"):
            own.append(probe)
        else:
            groups[(probe.game, probe.who)].append(probe)
    jobs: list[Callable[[], Any]] = []
    chunk = 300
    for (key, who), items in groups.items():
        for i in range(0, len(items), chunk):
            part = items[i : i + chunk]
            compression = "deflate" if (i // chunk) % 2 else None
            game = ctx.games[key]
            jobs.append(
                functools.partial(run_persistent, server, ctx, game, who, part, tally, compression)
            )
    jobs.extend(functools.partial(run_own, server, ctx, probe, tally) for probe in own)
    queue: asyncio.Queue[Callable[[], Any]] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while not queue.empty():
            job = queue.get_nowait()
            await job()

    await asyncio.gather(*(worker() for _ in range(workers)))
    return tally
