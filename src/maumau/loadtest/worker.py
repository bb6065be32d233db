"""A client process: its share of the game slots on its own event loop (uvloop when
it is installed), talking to the parent through a pipe.

The parent's pipe messages: the worker sends ``("ready", tables_set_up)`` once its
first tables are set up, waits for ``("go", t0)`` (or ``("stop",)``), plays until the
window ``[t0 + warmup, t0 + warmup + duration)`` has passed, and sends
``("result", figures)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from maumau.loadtest.choice import ActionIds, think_mean
from maumau.loadtest.context import ClientContext
from maumau.loadtest.ledger import Ledger
from maumau.loadtest.options import LoadOptions
from maumau.loadtest.slot import GameSlot

clock = time.monotonic
#: how long a process may take to set its first tables up
SETUP_TIMEOUT = 120.0
#: how long a process keeps trying when no table at all can be set up
NO_SERVER_TIMEOUT = 15.0
#: tables one process sets up at the same time
SETUP_CONCURRENCY = 32
TICK = 0.2


def raise_open_files() -> int:
    """Lift the soft limit on open files to the hard one (a socket per client)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def worker_main(
    options: LoadOptions, index: int, slots: Sequence[int], nonce: str, pipe: Connection
) -> None:
    """The entry point of a client process."""
    raise_open_files()
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    try:
        with runner:
            runner.run(_play(options, index, slots, nonce, pipe))
    except KeyboardInterrupt:
        pass


def make_context(options: LoadOptions, index: int, nonce: str) -> ClientContext:
    seed = None if options.seed is None else options.seed * 1009 + index
    return ClientContext(
        options=options,
        rng=random.Random(seed),
        ids=ActionIds(nonce, index),
        ledger=Ledger(options.ledger),
        think=None if options.rate is None else think_mean(options.games, options.rate),
    )


async def _play(
    options: LoadOptions, index: int, slots: Sequence[int], nonce: str, pipe: Connection
) -> None:
    loop = asyncio.get_running_loop()
    ctx = make_context(options, index, nonce)
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    go = asyncio.Event()
    games = [GameSlot(ctx, n, gate) for n in slots]
    jobs = [loop.create_task(slot.run(go)) for slot in games]
    ticker = loop.create_task(_tick(ctx))
    await _until_set_up(games)
    pipe.send(("ready", sum(slot.ready.is_set() for slot in games)))
    order = await loop.run_in_executor(None, pipe.recv)
    figures: dict[str, Any] = {}
    if order[0] == "go":
        t0: float = order[1]
        ctx.tally.start = t0 + options.warmup
        ctx.tally.end = ctx.tally.start + options.duration
        go.set()
        await asyncio.sleep(max(0.0, ctx.tally.start - clock()))
        cpu = time.process_time()
        ctx.traffic.counting = True
        await asyncio.sleep(max(0.0, ctx.tally.end - clock()))
        ctx.traffic.counting = False
        figures = ctx.tally.to_json()
        figures["wire"] = ctx.traffic.to_json()
        figures["cpu_seconds"] = time.process_time() - cpu
        figures["live_games"] = sum(1 for g in ctx.games if g.started and not g.over)
    ctx.stopping = True
    for job in jobs:
        job.cancel()
    for game in list(ctx.games):
        game.close()
    for task in list(ctx.tasks):
        task.cancel()
    ticker.cancel()
    ctx.ledger.close()
    pipe.send(("result", figures))
    await asyncio.gather(*jobs, ticker, *ctx.tasks, return_exceptions=True)
    for http in ctx.http.values():
        http.close()
    await asyncio.sleep(0.3)  # let the close frames go out


async def _until_set_up(games: Sequence[GameSlot]) -> None:
    """Wait until every slot has its first table, for at most ``SETUP_TIMEOUT``
    seconds, or ``NO_SERVER_TIMEOUT`` seconds while not a single one has."""
    began = clock()
    while not all(slot.ready.is_set() for slot in games):
        waited = clock() - began
        if waited > SETUP_TIMEOUT:
            return
        if waited > NO_SERVER_TIMEOUT and not any(slot.ready.is_set() for slot in games):
            return
        await asyncio.sleep(0.1)


async def _tick(ctx: ClientContext) -> None:
    """Look after unanswered moves and stalled games; write the ledger out."""
    while True:
        await asyncio.sleep(TICK)
        now = clock()
        for game in list(ctx.games):
            game.check(now)
        ctx.ledger.flush()
