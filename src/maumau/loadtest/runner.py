"""The parent process of a load run: spread the game slots over client processes,
start them together, sample the server, and add the figures up."""

from __future__ import annotations

import multiprocessing
import secrets
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from maumau.loadtest import ledger, probe
from maumau.loadtest.options import LoadOptions
from maumau.loadtest.tally import merge
from maumau.loadtest.worker import SETUP_TIMEOUT, raise_open_files, worker_main

clock = time.monotonic
Say = Callable[[str], None]


class LoadFailed(Exception):
    """The run could not be made (no server answered, a client process died)."""


def _quiet(_: str) -> None:
    pass


def _receive(pipe: Connection, process: BaseProcess, timeout: float) -> Any:
    deadline = clock() + timeout
    while not pipe.poll(0.2):
        if not process.is_alive():
            raise LoadFailed(f"client process {process.name} stopped (exit {process.exitcode})")
        if clock() > deadline:
            raise LoadFailed(f"client process {process.name} did not answer in {timeout:g} s")
    return pipe.recv()


def run_load(options: LoadOptions, say: Say = _quiet) -> dict[str, Any]:
    """Make the run and return every figure (see ``docs/performance.md``)."""
    raise_open_files()
    if options.ledger is not None:
        ledger.create(options.ledger)
    nonce = secrets.token_hex(3)
    pids = options.server_pids
    before = probe.sample(pids)
    spawn = multiprocessing.get_context("spawn")
    workers = options.workers
    processes: list[BaseProcess] = []
    pipes: list[Connection] = []
    try:
        for index in range(workers):
            slots = list(range(index, options.games, workers))
            mine, theirs = spawn.Pipe()
            process: BaseProcess = spawn.Process(
                target=worker_main,
                args=(options, index, slots, nonce, theirs),
                name=f"loadtest-{index}",
                daemon=True,
            )
            process.start()
            theirs.close()
            processes.append(process)
            pipes.append(mine)
        say(f"setting up {options.games} tables, {options.clients} clients, {workers} processes")
        began = clock()
        tables = 0
        for pipe, process in zip(pipes, processes, strict=True):
            tables += int(_receive(pipe, process, SETUP_TIMEOUT + 60)[1])
        setup_seconds = clock() - began
        connected = probe.sample(pids)
        if tables == 0:
            for pipe in pipes:
                pipe.send(("stop",))
            raise LoadFailed("no table could be set up: is the server running at the --url?")
        t0 = clock() + 0.1
        for pipe in pipes:
            pipe.send(("go", t0))
        say(
            f"{tables} tables ready in {setup_seconds:.1f} s; warm-up {options.warmup:g} s, "
            f"then measuring for {options.duration:g} s"
        )
        start = t0 + options.warmup
        end = start + options.duration
        time.sleep(max(0.0, start - clock()))
        first = probe.sample(pids)
        first_at = clock()
        peak = 0
        while clock() < end - 1.0:
            time.sleep(min(1.0, end - clock() - 1.0))
            now = probe.sample(pids)
            if now is not None:
                peak = max(peak, now.rss)
        time.sleep(max(0.0, end - clock()))
        last = probe.sample(pids)
        last_at = clock()
        parts = []
        for pipe, process in zip(pipes, processes, strict=True):
            parts.append(_receive(pipe, process, options.duration + 60)[1])
    finally:
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(5)
    figures = _figures(options, parts)
    figures["tables_set_up"] = tables
    figures["setup_seconds"] = round(setup_seconds, 3)
    figures["server"] = _server(pids, before, connected, first, last, last_at - first_at, peak)
    if figures["server"] is not None and figures["live_games"]:
        grown = figures["server"]["rss_end_bytes"] - figures["server"]["rss_before_bytes"]
        figures["server"]["memory_per_game_bytes"] = round(grown / figures["live_games"])
    return {"params": options.to_json(), "results": figures}


def _figures(options: LoadOptions, parts: list[dict[str, Any]]) -> dict[str, Any]:
    total = merge(parts)
    seconds = options.duration
    total["window_seconds"] = seconds
    total["moves_per_second"] = round(total["moves"] / seconds, 1)
    total["games_per_second"] = round(total["games_finished"] / seconds, 2)
    total["error_count"] = sum(total["errors"].values())
    total["live_games"] = sum(int(p.get("live_games", 0)) for p in parts)
    cpu = sum(float(p.get("cpu_seconds", 0.0)) for p in parts)
    total["client_cpu_cores"] = round(cpu / seconds, 3)
    if options.rate is not None:
        total["offered_moves_per_second"] = options.rate
    return total


def _server(
    pids: tuple[int, ...],
    before: probe.Sample | None,
    connected: probe.Sample | None,
    first: probe.Sample | None,
    last: probe.Sample | None,
    seconds: float,
    peak: int,
) -> dict[str, Any] | None:
    if before is None or last is None:
        return None
    cores = None
    if first is not None and seconds > 0:
        cores = round((last.cpu - first.cpu) / seconds, 3)
    return {
        "pids": list(pids),
        "processes": last.processes,
        "cpu_cores": cores,
        "rss_before_bytes": before.rss,
        "rss_connected_bytes": None if connected is None else connected.rss,
        "rss_end_bytes": last.rss,
        "rss_peak_bytes": max(peak, last.rss),
        "memory_per_game_bytes": None,
    }
