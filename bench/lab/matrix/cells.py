"""Running the cells: ``maumau loadtest`` against our servers on SQLite and PostgreSQL,
the ceiling under its own load tool, and the boardgame.io peer."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from lab.matrix.machine import WindowMeter
from lab.matrix.rows import Row, fill_from_bgio, fill_from_ceiling, fill_from_loadtest
from lab.matrix.services import BenchError, Service, maumau_server, services, tail
from lab.paths import ROOT, portable
from lab.ports import free_port
from lab.postgres import Cluster


@dataclass
class Settings:
    games: int
    players: int
    duration: float
    warmup: float
    pg_warmup: float
    preset: str
    seed: int
    procs: int | None
    spread: str
    out: Path
    work: Path
    console: Console


READY = re.compile(r"tables ready in [0-9.]+ s; warm-up")


def run_loadtest(
    s: Settings,
    row: Row,
    urls: list[str],
    pids: list[int],
    spread: str = "game",
    database_pid: int | None = None,
) -> None:
    """``maumau loadtest`` against ``urls``; its ``--json`` goes into ``s.out`` and
    ``row``.  The machine's busy cores are sampled inside the measuring window: it
    starts 0.1 s + the warm-up after the tool says the tables are ready."""
    raw = s.out / f"{row.key}.json"
    raw.unlink(missing_ok=True)
    command = [sys.executable, "-m", "maumau", "loadtest"]
    for url in urls:
        command += ["--url", url]
    command += ["--games", str(s.games), "--players", str(s.players), "--preset", s.preset]
    command += ["--duration", f"{s.duration:g}", "--warmup", f"{s.warmup:g}"]
    command += ["--closed"] if row.rate is None else ["--rate", f"{row.rate:g}"]
    command += ["--compression" if row.compression else "--no-compression"]
    # (it runs in the repository: a path inside it is given relative, so that the
    # document, which repeats its parameters, names no machine's directories)
    where = raw.relative_to(ROOT) if raw.is_relative_to(ROOT) else raw
    command += ["--seed", str(s.seed), "--spread", spread, "--json", str(where)]
    if s.procs is not None:
        command += ["--procs", str(s.procs)]
    for pid in pids:
        command += ["--server-pid", str(pid)]
    row.warmup_seconds, row.window_seconds = s.warmup, s.duration
    log = s.work / f"{row.key}-loadtest.log"
    meter = WindowMeter(() if database_pid is None else (database_pid,))
    limit = 300.0 + s.warmup + s.duration
    env = {**os.environ, "COLUMNS": "200"}  # one progress line = one line
    with open(log, "w") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env
        )
        watchdog = threading.Timer(limit, proc.send_signal, (signal.SIGINT,))
        watchdog.daemon = True
        watchdog.start()
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                out.write(line)
                if READY.search(line):
                    meter.arm(0.1 + s.warmup, 0.1 + s.warmup + s.duration)
                s.console.print(f"  [dim]{escape(line.rstrip())}[/dim]", highlight=False)
            code = proc.wait()
            if code == 0:
                meter.finish(5.0)
        finally:
            watchdog.cancel()
            meter.cancel()
            if proc.poll() is None:  # interrupted: let it stop its client processes
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    if code != 0:
        raise BenchError(f"maumau loadtest exited {code}:\n{tail(log)}")
    document = json.loads(raw.read_text())
    row.raw = document
    row.raw_file = portable(raw)
    row.machine_busy_cores = meter.cores()
    row.database_cpu_cores = meter.pid_cores()
    fill_from_loadtest(row, document)


def sqlite_cell(s: Settings, row: Row) -> None:
    data = s.work / f"data-{row.key}"
    if data.exists():
        shutil.rmtree(data)
    server, url = maumau_server(row.key, s.work, ["--data-dir", str(data)])
    with services(server):
        server.start()
        server.wait_ready(url + "/api/health")
        run_loadtest(s, row, [url], [server.pid])
    shutil.rmtree(data, ignore_errors=True)


def pg_cell(s: Settings, row: Row, cluster: Cluster, number: int) -> None:
    name = f"bench_{number}"
    cluster.sql(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"')
    db = ["--database-url", cluster.url(name)]
    first, first_url = maumau_server(f"{row.key}-a", s.work, db)
    second, second_url = maumau_server(f"{row.key}-b", s.work, db)
    with services(first, second):
        # one after the other: the first one creates the tables (migrations)
        first.start()
        first.wait_ready(first_url + "/api/health")
        second.start()
        second.wait_ready(second_url + "/api/health")
        urls, pids = [first_url, second_url], [first.pid, second.pid]
        pg = dataclasses.replace(s, warmup=s.pg_warmup)
        run_loadtest(pg, row, urls, pids, s.spread, cluster.postmaster())
    with contextlib.suppress(Exception):
        cluster.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def python_versions(python: str) -> dict[str, str]:
    """Versions of the ceiling's stack in ``python``."""
    code = (
        "import json, platform, importlib.metadata as m\n"
        "out = {'python': platform.python_version()}\n"
        "for name in ('uvicorn', 'starlette', 'websockets', 'uvloop', 'httptools'):\n"
        "    try:\n"
        "        out[name] = m.version(name)\n"
        "    except m.PackageNotFoundError:\n"
        "        out[name] = 'missing'\n"
        "print(json.dumps(out))\n"
    )
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
        return dict(json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"error": str(exc)}


def ceiling_cell(s: Settings, row: Row, ceiling: Path, python: str) -> None:
    """The ceiling's durable FULL + group commit server under its ``load.py``."""
    port = free_port()
    db = s.work / f"{row.key}.db"
    command = [python, str(ceiling / "server.py"), "--mode", "durable", "--sync", "FULL"]
    command += ["--commit", "group", "--port", str(port), "--db", str(db)]
    server = Service(row.key, command, s.work / f"{row.key}.log", s.work)
    raw = s.out / f"{row.key}.jsonl"
    raw.unlink(missing_ok=True)
    load = [python, str(ceiling / "load.py"), "--conns", str(row.clients), "--port", str(port)]
    load += ["--warmup", f"{s.warmup:g}", "--duration", f"{s.duration:g}"]
    load += ["--label", f"bench/server.py {row.key}", "--out", str(raw)]
    if row.rate is not None:
        load += ["--think-ms", f"{1000.0 * row.clients / row.rate:g}"]
    if row.compression:
        load += ["--deflate"]
    with services(server):
        server.start()
        server.wait_ready(f"http://127.0.0.1:{port}/stats")
        load += ["--server-pid", str(server.pid)]
        try:
            done = subprocess.run(
                load,
                capture_output=True,
                text=True,
                cwd=s.work,
                timeout=300 + s.warmup + s.duration,
            )
        except subprocess.TimeoutExpired:
            raise BenchError("the ceiling's load.py did not finish") from None
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    found = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not found:
        err = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise BenchError(f"the ceiling's load.py exited {done.returncode}:\n{err}")
    line = json.loads(found[-1])
    row.raw = line
    row.raw_file = portable(raw)
    fill_from_ceiling(row, line)


def bgio_prepare(s: Settings, source: Path) -> Path:
    """A copy of the peer in the work directory with its packages installed."""
    target = s.work / "bgio-peer"
    ignore = shutil.ignore_patterns("node_modules", "results", "flatfile-db")
    shutil.copytree(source, target, ignore=ignore)
    for path in target.rglob("*"):  # the shared copy may be read-only
        path.chmod(path.stat().st_mode | 0o200)
    target.chmod(target.stat().st_mode | 0o200)
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise BenchError("node and npm are needed for --bgio")
    log = s.work / "bgio-npm-ci.log"
    with open(log, "w") as out:
        code = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=target,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=900,
        ).returncode
    if code != 0:
        raise BenchError(f"npm ci exited {code}:\n{tail(log)}")
    return target


def bgio_cell(s: Settings, row: Row, peer: Path, storage: str) -> None:
    result = peer / "results" / f"{storage}-{s.games}.json"
    result.unlink(missing_ok=True)
    command = ["bash", "./bench.sh", storage, str(s.games), f"{s.warmup:g}", f"{s.duration:g}"]
    env = {**os.environ, "PORT": str(free_port())}
    log = s.work / f"{row.key}.log"
    with open(log, "w") as out:
        try:
            code = subprocess.run(
                command,
                cwd=peer,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=300 + s.warmup + s.duration,
            ).returncode
        except subprocess.TimeoutExpired:
            raise BenchError(f"bench.sh {storage} did not finish") from None
    if code != 0 or not result.exists():
        raise BenchError(f"bench.sh {storage} exited {code}:\n{tail(log)}")
    raw = s.out / f"{row.key}.json"
    shutil.copyfile(result, raw)
    document = json.loads(result.read_text())
    row.raw = document
    row.raw_file = portable(raw)
    fill_from_bgio(row, document)
