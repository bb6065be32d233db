"""Worker processes: the CPU-heavy work of the server, off its event loop.

The ``hard`` bot's search and the building of a finished game's replay are pure
Python.  In a thread they would still hold the GIL against the event loop (a thread
takes nothing off it), so they run in a small pool of worker processes.  The pool is
started on first use with the ``forkserver`` method (``spawn`` where there is none):
never ``fork``, because the server runs threads (SQLite's writer thread, the executor
of ``asyncio.to_thread``) whose locks a forked child would inherit half-held.  As with
every such pool, a worker imports the program's main script again (``maumau serve``,
``python -m maumau`` and pytest are safe): a script that serves the app itself must
keep its serving under ``if __name__ == "__main__":``.

A worker does not outlive the server, however the server ends (``kill -9`` included,
which runs no clean-up).  Left alone it would: it waits for work on a queue whose
writing end it holds itself, and the forkserver, its parent, waits for its own
"alive" pipe, whose writing end every worker holds.  So each pool has a *lifeline*, a
pipe whose writing end only the server holds (the file descriptors of the forkserver
and its children are passed explicitly, never inherited); a thread in each worker
waits on the reading end, and when the server is gone, whatever ended it, the pipe
reads end-of-file and the worker exits at once.  Then the forkserver, whose "alive"
pipe nobody holds any more, ends too.  (Linux's ``PR_SET_PDEATHSIG`` would not do: it
watches the worker's parent, which is the forkserver, not the server.)

A worker is handed only what the work needs: for a bot decision the seat's view, its
legal actions, the bot's level and a fresh seed (never the game), so a bot in a worker
sees exactly what it would see in the server.  The workers are handed out in turns
(:class:`maumau.server.live.pool_share.Turns`): round-robin among the keys (for a bot
decision, its table's creator) that have work waiting, at most half of them to one key.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from maumau.bots import make_bot
from maumau.engine import Action, SeatView, action_from_json
from maumau.server.live.pool_share import Turns

log = logging.getLogger("maumau.server")

T = TypeVar("T")

#: what a worker imports before its first task (the forkserver keeps them imported)
PRELOAD = ["maumau.server.live.workers", "maumau.server.live.replays"]


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


class Workers:
    """A lazily started pool of ``size`` worker processes."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one process, not {size}")
        self.size = size
        self.pool: ProcessPoolExecutor | None = None
        #: the lifeline's two ends, reading and writing (made with the first pool)
        self.lifeline: tuple[Connection, Connection] | None = None
        #: the process ids of the workers that have answered (a worker never is this
        #: process: tests check that the work really left it)
        self.pids: set[int] = set()
        #: who runs next: a pool's own queue would serve work first come first
        self.turns = Turns(size, max(1, size // 2))

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            context = _context()
            if self.lifeline is None:
                self.lifeline = context.Pipe(duplex=False)
            self.pool = ProcessPoolExecutor(
                max_workers=self.size,
                mp_context=context,
                initializer=hold_on,
                initargs=(self.lifeline[0],),
            )
        return self.pool

    async def run(self, work: Callable[..., tuple[T, int]], *args: Any, key: str = "") -> T:
        """Run ``work(*args)`` in a worker, in ``key``'s turn; ``work`` returns its
        result and its pid.  A pool whose worker died is replaced for the next call
        (this one raises)."""
        async with self.turns.turn(key):
            pool = self.executor()
            try:
                # submitted from a thread: a submit may start a worker process (the
                # first starts the forkserver too), which takes a third of a second
                future = await asyncio.to_thread(pool.submit, work, *args)
                result, pid = await asyncio.wrap_future(future)
            except BrokenProcessPool:
                if self.pool is pool:
                    self.pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                raise
        self.pids.add(pid)
        return result

    async def decide(
        self, level: str, view: SeatView, legal: Sequence[Action], key: str = ""
    ) -> tuple[Action, float]:
        """A bot's decision in a worker, in ``key``'s turn: the action it takes when
        the game waits for its seat (``legal`` is not empty), and the seconds the
        worker spent on it."""
        seat = view.seat
        if seat is None:
            raise ValueError("a bot decides for a seat, not for a spectator")
        seed = int.from_bytes(os.urandom(4), "big")
        legal_json = [a.to_json(seat) for a in legal]
        chosen, seconds = await self.run(decide, level, seed, view, legal_json, key=key)
        return action_from_json(chosen, "the worker's decision")[1], seconds

    async def close(self) -> None:
        """Stop the workers (a task running in one is finished first)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
        lifeline, self.lifeline = self.lifeline, None
        if lifeline is not None:
            for end in lifeline:
                end.close()


def hold_on(lifeline: Connection) -> None:
    """In a worker, before its first task: exit as soon as the server is gone (the
    reading end of its ``lifeline`` reads end-of-file)."""
    threading.Thread(target=_exit_at_eof, args=(lifeline,), name="lifeline", daemon=True).start()


def _exit_at_eof(lifeline: Connection) -> None:
    try:
        while True:
            lifeline.recv_bytes()  # nothing is ever sent
    except (EOFError, OSError):
        os._exit(0)


def decide(
    level: str, seed: int, view: SeatView, legal: list[dict[str, Any]]
) -> tuple[tuple[dict[str, Any], float], int]:
    """In a worker: the action (as a record action) that a bot of ``level`` seeded with
    ``seed`` takes at ``view`` among ``legal`` (record actions) and the seconds it took
    here; and this worker's pid."""
    started = time.perf_counter()
    seat = view.seat
    assert seat is not None
    actions = [action_from_json(data, "legal")[1] for data in legal]
    chosen = make_bot(level, seed).choose(view, actions).to_json(seat)
    return (chosen, time.perf_counter() - started), os.getpid()
