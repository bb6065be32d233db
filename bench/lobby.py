#!/usr/bin/env python3
"""Lobby benchmark: the server's CPU to set one table up over HTTP.

Run from the repository root (see ``bench/README.md``)::

    uv run python bench/lobby.py                      # 5 runs of 400 tables
    uv run python bench/lobby.py --tables 50 --reps 1 # a smoke run

A table is set up the way the load tool (and a group of friends) does it: ``POST
/api/games``, one ``POST /api/games/{id}/seats`` per other player, ``POST
/api/games/{id}/start`` (which deals the first round).  Nobody connects, so no move is
played.  The script starts its own ``maumau serve`` on a free port with a fresh
SQLite data directory, sets the tables up with ``--concurrency`` at a time, and reads
the server's user and system CPU from ``/proc`` before and after each run (Linux).  In
the load test's offered 2,000 moves/s about 7 games finish, and 7 tables are set up,
every second, so each millisecond here is about 0.7% of a core there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from lab.ports import free_port
from lab.serve import serve_command, stop_server
from maumau.loadtest.lobby import HttpClient, LobbyError, open_table, start_table
from maumau.loadtest.options import Endpoint

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


async def set_up(url: str, tables: int, players: int, preset: str, concurrency: int) -> None:
    http = HttpClient(Endpoint.parse(url))
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            grants = await open_table(http, preset, players)
            await start_table(http, grants[0])

    await asyncio.gather(*(one() for _ in range(tables)))


def wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"maumau serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit("maumau serve did not answer within 30 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=400, help="tables set up per run")
    parser.add_argument("--reps", type=int, default=5, help="runs (the median is printed)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="penalty-100")
    parser.add_argument("--concurrency", type=int, default=8, help="tables set up at once")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    for name in ("tables", "reps", "concurrency"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be 1 or more, not {getattr(args, name)}")

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        quiet = subprocess.DEVNULL
        command = serve_command(port, "--data-dir", data)
        server = subprocess.Popen(command, stdout=quiet, stderr=quiet)
        try:
            wait_until_up(url, server)
            runs = []
            for rep in range(args.reps):
                user0, sys0 = cpu_seconds(server.pid)
                start = time.perf_counter()
                try:
                    asyncio.run(
                        set_up(url, args.tables, args.players, args.preset, args.concurrency)
                    )
                except LobbyError as exc:
                    sys.exit(
                        f"lobby.py: the server refused it: {exc} "
                        f"(--preset {args.preset}, --players {args.players})"
                    )
                wall = time.perf_counter() - start
                user1, sys1 = cpu_seconds(server.pid)
                per = 1000 / args.tables
                run = {
                    "cpu_ms": (user1 - user0 + sys1 - sys0) * per,
                    "user_ms": (user1 - user0) * per,
                    "sys_ms": (sys1 - sys0) * per,
                    "tables_per_s": args.tables / wall,
                }
                runs.append(run)
                print(
                    f"run {rep + 1}: {run['cpu_ms']:.2f} ms of server CPU per table "
                    f"(user {run['user_ms']:.2f}, system {run['sys_ms']:.2f}), "
                    f"{run['tables_per_s']:.0f} tables/s",
                    flush=True,
                )
        finally:
            stop_server(server)
    median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    requests = args.players + 1  # create, a seat for each other player, start
    print(
        f"median of {args.reps}: {median['cpu_ms']:.2f} ms of server CPU per table "
        f"({median['cpu_ms'] / requests:.2f} ms per request, {requests} requests), "
        f"{args.players} players, {args.preset}"
    )
    if args.json:
        figures = {"args": {k: str(v) for k, v in vars(args).items()}, "runs": runs}
        args.json.write_text(json.dumps({**figures, "median": median}, indent=2) + "\n")


if __name__ == "__main__":
    main()
