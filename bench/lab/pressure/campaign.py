"""One run: seed the database, start the server (or, on PostgreSQL, two: see
:mod:`lab.pressure.fleet`), start the observer, then each phase in turn (the attack in
its own process), with the servers' CPU, memory and open files sampled, and a settling
pause after each until ``/api/health`` is fast again."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from lab.paths import ROOT, portable
from lab.pressure import fleet as fleets
from lab.pressure import server as serving
from lab.pressure.fleet import Fleet
from lab.pressure.observer import OBSERVER, Observer, http_client
from lab.pressure.stats import ratio, summary, within

Say = Callable[[str], None]
clock = time.monotonic
#: every phase, in the default order (bots last: nothing stops a bot-only table)
PHASES = (
    "quiet", "replay", "sockets", "qr", "hello", "health", "chat", "ping", "info", "bots",
)  # fmt: skip
#: the seed of the long game: 8 random bots, 50 deals, 16,786 actions
GAME_SEED = 3


@dataclass
class Config:
    source: Path = ROOT
    #: sqlite, or postgresql: a throwaway cluster and two server processes
    database: str = "sqlite"
    phase_seconds: float = 25.0
    phases: tuple[str, ...] = PHASES
    replay_clients: int = 10
    bot_tables: int = 10
    bot_level: str = "hard"
    max_sockets: int = 2000
    qr_loops: int = 4
    host_length: int = 2300
    hello_sockets: int = 32
    #: None: 16 on SQLite, 64 on PostgreSQL
    health_loops: int | None = None
    chat_tables: int = 30
    info_loops: int = 16
    game_seed: int = GAME_SEED
    #: the long game's options and seats (None: 50 deals, the most seats)
    game_options: dict[str, Any] | None = None
    game_seats: int | None = None
    think: float = 0.05
    health_hz: float = 10.0
    warmup: float = 3.0
    settle_max: float = 60.0
    extra: dict[str, Any] = field(default_factory=dict)


def run(config: Config, work: Path, say: Say = print) -> dict[str, Any]:
    """The whole run; its results (see :mod:`lab.pressure.report`)."""
    data_dir = work / "data"
    say(f"seeding the long game with {portable(config.source)}'s store ({config.database}) ...")
    seed = {"game_seed": config.game_seed, "options": config.game_options}
    seed["seats"] = config.game_seats
    server, seeded = fleets.start(
        config.source, data_dir, work / "server.log", config.database, seed
    )
    say(f"  {seeded['actions']:,} actions, {seeded['rounds']} rounds, {seeded['seats']} seats")
    say(
        f"server on {', '.join(server.urls)}, started with an open-file limit of "
        f"{serving.nofile_given()}, runs with {server.nofile()}"
    )
    result: dict[str, Any] = {
        "when": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "source": portable(config.source),
        "database": config.database,
        "servers": len(server.servers),
        "revision": serving.tree_revision(config.source),
        "machine": f"{platform.machine()}, {len(_cpus())} cores, "
        f"Python {platform.python_version()}",
        "config": {k: v for k, v in asdict(config).items() if k != "source"},
        "seeded": seeded,
        "nofile_given": serving.nofile_given(),
        "nofile": server.nofile(),
    }
    try:
        result["phases"] = asyncio.run(phases(config, server, seeded["game_id"], say))
    finally:
        result["server_alive_at_end"] = server.alive()
        running = server.log_length()
        result["server_exit"] = server.stop()
        result["server_exits"] = server.exits
        result["server_log"] = server.log_problems(0, running)
        result["server_log_at_stop"] = server.log_problems(running)
    add_ratios(result["phases"])
    return result


def _cpus() -> list[int]:
    import os

    return sorted(os.sched_getaffinity(0))


async def phases(config: Config, server: Fleet, game_id: str, say: Say) -> list[Any]:
    observer = Observer(server.urls, server.wss, config.think, config.health_hz)
    watching = asyncio.create_task(observer.run())
    done: list[dict[str, Any]] = []
    try:
        async with http_client(OBSERVER, 30.0) as client:
            target = (await client.post(server.url + "/api/games", json={"name": "Target"})).json()
        await asyncio.sleep(config.warmup)
        for name in config.phases:
            if not server.alive():
                say(f"the server is gone; {name} not run")
                break
            say(f"phase {name}: {config.phase_seconds:g} s ...")
            phase = await one_phase(name, config, server, observer, game_id, target["game_id"])
            last = name == config.phases[-1]  # (nothing follows: no need to wait)
            phase["settle_s"] = None if last else await settle(server.url, config.settle_max)
            done.append(phase)
        ends = [phase["log_from"] for phase in done[1:]] + [server.log_length()]
        for phase, end in zip(done, ends, strict=True):  # the settling pause included
            phase["server_log"] = server.log_problems(phase.pop("log_from"), end)
    finally:
        observer.stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(watching, 120)
    for phase in done:  # the answers of the last requests are in now
        start, end = phase.pop("window")
        phase["health"] = summary(within(observer.health, start, end))
        phase["moves"] = summary(within(observer.moves, start, end))
        phase["observer_errors"] = dict(observer.errors_in(start, end))
    return done


async def one_phase(
    name: str, config: Config, server: Fleet, observer: Observer, game_id: str,
    target: str,
) -> dict[str, Any]:  # fmt: skip
    seconds = config.phase_seconds
    attack: dict[str, Any] | None = None
    cpu0 = server.cpu_seconds()
    log_from = server.log_length()
    monitor = Monitor(server)
    sampling = asyncio.create_task(monitor.run())
    if name == "quiet":
        start = clock()
        await asyncio.sleep(seconds)
        end = clock()
    else:
        victim = observer.game_id or target  # (the human table being played)
        args = attack_args(name, config, game_id, target, victim)
        start, end, attack = await run_attack(name, server, seconds, args)
        if attack is not None and name in VICTIM_PHASES:
            attack["victim_is_the_table"] = victim == observer.game_id
    sampling.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sampling
    cpu1 = server.cpu_seconds()
    busy = None  # the server's CPU in cores (none for an attack that did not run)
    if cpu0 is not None and cpu1 is not None and end - start > 0.5:
        busy = round((cpu1 - cpu0) / (end - start), 2)
    return {
        "name": name,
        "window": (start, end),
        "seconds": round(end - start, 1),
        "attack": attack,
        "server": {"cpu_cores": busy, "rss_max_mb": monitor.rss, "open_files_max": monitor.fds},
        "server_alive": server.alive(),
        "log_from": log_from,
        "tables_played": observer.tables,
    }


#: the attacks on the human table itself
VICTIM_PHASES = ("qr", "hello", "ping", "info")


def health_loops(config: Config) -> int:
    """The ``health`` attack's loops: as configured, else 16 on SQLite, 64 on PostgreSQL."""
    if config.health_loops is not None:
        return config.health_loops
    return 64 if config.database == "postgresql" else 16


def attack_args(name: str, config: Config, game_id: str, target: str, victim: str) -> list[str]:
    """The attack process's arguments after the servers and the seconds (``=``: a table
    id may begin with "-")."""
    return {
        "replay": [f"--game-id={game_id}", f"--clients={config.replay_clients}"],
        "bots": [f"--tables={config.bot_tables}", f"--level={config.bot_level}"],
        "sockets": [f"--game-id={target}", f"--sockets={config.max_sockets}"],
        "qr": [
            f"--game-id={victim}", f"--loops={config.qr_loops}",
            f"--host-length={config.host_length}",
        ],
        "hello": [f"--game-id={victim}", f"--sockets={config.hello_sockets}"],
        "health": [f"--loops={health_loops(config)}"],
        "chat": [f"--tables={config.chat_tables}"],
        "ping": [f"--game-id={victim}"],
        "info": [f"--game-id={victim}", f"--loops={config.info_loops}"],
    }[name]  # fmt: skip


async def run_attack(
    name: str, server: Fleet, seconds: float, args: list[str]
) -> tuple[float, float, dict[str, Any]]:
    """The attack process; (its window's start, its end, what it printed)."""
    servers = [part for s in server.servers for part in ("--url", s.url, "--ws", s.ws)]
    command = [
        sys.executable, "-m", "lab.pressure.attacks", name, *servers,
        "--seconds", str(seconds), *args,
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *command, cwd=ROOT / "bench", stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    start = clock()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.stdout.readline(), 60)  # {"started": true}
        start = clock()
    try:
        out = await asyncio.wait_for(process.stdout.read(), seconds + 120)
    except TimeoutError:
        process.kill()
        out = b""
    end = clock()
    await process.wait()
    try:
        attack: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        attack = {"failed": f"the attack process exited {process.returncode} with no result"}
    return start, end, attack


class Monitor:
    """The server's largest resident memory and open files during a phase."""

    def __init__(self, server: Fleet) -> None:
        self.server = server
        self.rss: float | None = None
        self.fds: int | None = None

    async def run(self) -> None:
        while True:
            rss, fds = self.server.rss_mb(), self.server.open_files()
            if rss is not None:
                self.rss = max(self.rss or 0.0, rss)
            if fds is not None:
                self.fds = max(self.fds or 0, fds)
            await asyncio.sleep(0.25)


async def settle(url: str, limit: float) -> float:
    """Seconds until ``/api/health`` answered under 100 ms three times in a row."""
    started = clock()
    fast = 0
    async with http_client(OBSERVER, 10.0, fresh=True) as client:
        while fast < 3 and clock() - started < limit:
            sent = clock()
            try:
                ok = (await client.get(url + "/api/health")).status_code == 200
            except httpx.HTTPError:
                ok = False
            fast = fast + 1 if ok and clock() - sent < 0.1 else 0
            await asyncio.sleep(0.1)
    return round(clock() - started, 1)


def add_ratios(phases: list[dict[str, Any]]) -> None:
    """Each phase's p99 over the quiet phase's."""
    quiet = next((p for p in phases if p["name"] == "quiet"), None)
    for phase in phases:
        for key in ("health", "moves"):
            base = None if quiet is None else quiet[key]["p99_ms"]
            phase[key]["p99_ratio"] = ratio(phase[key]["p99_ms"], base)
