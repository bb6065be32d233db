#!/usr/bin/env python3
"""The server's load figures through nginx, beside the same load straight to the
server, in one run: what the proxy of ``deploy/nginx/`` costs.

Run from the repository root::

    uv run python bench/proxied.py                       # 20 s windows: about 6 minutes
    uv run python bench/proxied.py --duration 5 --warmup 2 --only sqlite   # a quick look
    uv run python bench/proxied.py --json bench/results/proxied.json

The cells are those of ``bench/server.py`` (docs/performance.md, "Server under load"):
``maumau loadtest`` with 250 tables x 4 seats of ``penalty-100``, compression on, a
closed loop and an offered rate, (a) one ``maumau serve`` on SQLite, (b) two on one
PostgreSQL database (PostgreSQL's default durability).  Each cell runs twice in a row,
on fresh data: straight to the server(s), then through nginx running the shipped recipe
(``deploy/nginx/maumau.conf``, ``maumau-two.conf``) with Debian's ``worker_processes
auto``.  Straight to two processes the load tool puts a table's seats on one of them
(``--spread game``); through nginx it has one URL, and nginx puts each WebSocket on the
process with fewer open (``least_conn``), so a table's seats are spread over both, and
most moves go from one process to the other through PostgreSQL.  So the PostgreSQL
cells are run a third time straight to the processes with the seats spread the same
way (``--spread seat``): that cell against the proxied one is the cost of nginx alone;
and a fourth time through nginx with the recipe's commented alternative to
``least_conn``, ``hash $request_uri consistent`` (a table's sockets to one process).

The load tool opens every connection from 127.0.0.1, so through nginx every client has
the same forwarded address: the servers get the load tool's raised limits
(``lab.serve.SERVE_LIMITS``) and ``--trusted-proxy 127.0.0.1``, and the recipe's
``limit_conn maumau_per_client 64`` is raised to 50000 for this benchmark only (the
one change to the recipe besides its ports and log path).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from lab import nginx
from lab.matrix.cells import Settings, run_loadtest
from lab.matrix.machine import loadavg
from lab.matrix.rows import Row
from lab.matrix.services import BenchError, Service, maumau_server, services
from lab.ports import free_port
from lab.postgres import Cluster

#: the one change to the recipe for the benchmark: every client comes from 127.0.0.1
RAISED = {"limit_conn maumau_per_client 64;": "limit_conn maumau_per_client 50000;"}
#: the recipe's commented alternative for two processes: a table's requests and sockets
#: to one process (by their URI), which the "nginx-hash" cells measure
BY_TABLE = {"    least_conn;\n": "    hash $request_uri consistent;\n"}
TRUST = ["--trusted-proxy", "127.0.0.1"]


def start_nginx(
    s: Settings, key: str, recipe: str, upstreams: list[int], changes: dict[str, str] | None = None
) -> tuple[Service, str]:
    """nginx on the recipe in front of ``upstreams``, started and ready."""
    binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if binary is None:
        raise BenchError("nginx is not installed (apt-get install -y nginx)")
    work = s.work / f"nginx-{key}"
    port = free_port()
    text = nginx.site(recipe, port, upstreams, work / "access.log", RAISED | (changes or {}))
    nginx.configure(work, text, workers="auto")
    service = Service(f"nginx-{key}", nginx.command(binary, work), work / "output.log", work)
    url = f"http://127.0.0.1:{port}"
    service.start()
    service.wait_ready(url + "/api/health")
    return service, url


def _port(url: str) -> int:
    return int(url.rpartition(":")[2])


def sqlite_cell(s: Settings, row: Row, proxied: bool) -> None:
    data = s.work / f"data-{row.key}"
    shutil.rmtree(data, ignore_errors=True)
    server, url = maumau_server(row.key, s.work, ["--data-dir", str(data), *TRUST])
    with services(server):
        server.start()
        server.wait_ready(url + "/api/health")
        if not proxied:
            run_loadtest(s, row, [url], [server.pid])
        else:
            proxy, front = start_nginx(s, row.key, "maumau.conf", [_port(url)])
            with services(proxy):
                # (the meter's "database" is nginx here: its CPU in the window)
                run_loadtest(s, row, [front], [server.pid], database_pid=proxy.pid)
    shutil.rmtree(data, ignore_errors=True)


def pg_cell(s: Settings, row: Row, cluster: Cluster, number: int, path: str) -> None:
    name = f"proxied_{number}"
    cluster.sql(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"')
    db = ["--database-url", cluster.url(name), *TRUST]
    first, first_url = maumau_server(f"{row.key}-a", s.work, db)
    second, second_url = maumau_server(f"{row.key}-b", s.work, db)
    with services(first, second):
        first.start()  # one after the other: the first one creates the tables
        first.wait_ready(first_url + "/api/health")
        second.start()
        second.wait_ready(second_url + "/api/health")
        pids = [first.pid, second.pid]
        if not path.startswith("nginx"):
            spread = "seat" if path == "direct-seat" else "game"
            run_loadtest(s, row, [first_url, second_url], pids, spread, cluster.postmaster())
        else:
            ports = [_port(first_url), _port(second_url)]
            changes = BY_TABLE if path == "nginx-hash" else None
            proxy, front = start_nginx(s, row.key, "maumau-two.conf", ports, changes)
            with services(proxy):
                run_loadtest(s, row, [front], pids, database_pid=proxy.pid)
    with contextlib.suppress(Exception):
        cluster.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclasses.dataclass
class Cell:
    row: Row
    #: "direct", "direct-seat" (two processes, a table's seats on both), "nginx" or
    #: "nginx-hash" (two processes: a table to one by its URI)
    path: str

    @property
    def proxied(self) -> bool:
        return self.path.startswith("nginx")


def cells(args: argparse.Namespace) -> Iterator[Cell]:
    clients = args.games * args.players
    for part in args.only:
        rate = args.sqlite_rate if part == "sqlite" else args.pg_rate
        setup = "SQLite, 1 proc" if part == "sqlite" else "PostgreSQL, 2 procs"
        for mode in args.modes:
            offered = None if mode == "closed" else rate
            paths = ["direct", "nginx"]
            if part == "pg":
                paths = ["direct", "direct-seat", "nginx", "nginx-hash"]
            for path in paths:
                row = Row(part, f"{part}-{mode}-{path}", setup, mode, offered, True, clients)
                yield Cell(row, path)


def _ms(row: Row, q: str) -> str:
    value = row.latency_ms.get(q)
    return "-" if value is None else f"{value:.1f}"


def _cores(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def table(done: list[Cell]) -> str:
    lines = [
        "| setup | mode | path | moves/s | p50 / p99 ms | errors | server CPU | nginx CPU "
        "| machine busy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in done:
        r = cell.row
        if r.failed:
            lines.append(f"| {r.setup} | {r.mode_text} | {_path(cell)} | failed: {r.failed} |")
            continue
        nginx_cpu = _cores(r.database_cpu_cores) if cell.proxied else "-"
        lines.append(
            f"| {r.setup} | {r.mode_text} | {_path(cell)} | {r.moves_per_second or 0:,.0f} "
            f"| {_ms(r, 'p50')} / {_ms(r, 'p99')} | {r.errors} | {_cores(r.server_cpu_cores)} "
            f"| {nginx_cpu} | {_cores(r.machine_busy_cores)} |"
        )
    return "\n".join(lines)


def _path(cell: Cell) -> str:
    return {
        "direct": "direct",
        "direct-seat": "direct, a table's seats on both",
        "nginx": "through nginx",
        "nginx-hash": "through nginx, hash $request_uri",
    }[cell.path]


def cost(done: list[Cell]) -> str:
    """Each proxied cell against the direct ones before it (for PostgreSQL also the one
    whose tables have their seats on both processes, as nginx spreads them)."""
    lines = ["| setup | mode | against | moves/s through nginx / direct | p99 nginx - direct |"]
    lines.append("|---|---|---|---|---|")
    by_key = {c.row.key: c for c in done if not c.row.failed}
    for cell in done:
        r = cell.row
        if not cell.proxied or r.failed:
            continue
        for path in ("direct", "direct-seat"):
            other = by_key.get(r.key.replace(f"-{cell.path}", f"-{path}"))
            if other is None:
                continue
            direct = other.row
            ratio = (r.moves_per_second or 0) / (direct.moves_per_second or 1)
            p99, p99_direct = r.latency_ms.get("p99"), direct.latency_ms.get("p99")
            delta = "-" if p99 is None or p99_direct is None else f"{p99 - p99_direct:+.1f} ms"
            lines.append(f"| {r.setup} | {r.mode_text} | {_path(other)} | {ratio:.2f} | {delta} |")
    return "\n".join(lines)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=250)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="penalty-100")
    parser.add_argument("--duration", type=float, default=20.0, help="measuring window, s")
    parser.add_argument("--warmup", type=float, default=5.0, help="warm-up, s")
    parser.add_argument("--sqlite-rate", type=float, default=2000.0)
    parser.add_argument("--pg-rate", type=float, default=1500.0)
    parser.add_argument("--modes", type=lambda t: t.split(","), default=["closed", "offered"])
    parser.add_argument("--only", type=lambda t: t.split(","), default=["sqlite", "pg"])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path, help="write every figure as JSON")
    args = parser.parse_args(argv)
    if not set(args.modes) <= {"closed", "offered"} or not set(args.only) <= {"sqlite", "pg"}:
        parser.error("--modes takes closed,offered and --only sqlite,pg")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    work = Path(tempfile.mkdtemp(prefix="maumau-proxied-"))
    out = work / "results"
    out.mkdir()
    s = Settings(
        games=args.games,
        players=args.players,
        duration=args.duration,
        warmup=args.warmup,
        pg_warmup=args.warmup,
        preset=args.preset,
        seed=args.seed,
        procs=None,
        spread="game",
        out=out,
        work=work,
        console=console,
    )
    done: list[Cell] = []
    cluster: Cluster | None = None
    try:
        for number, cell in enumerate(cells(args)):
            row = cell.row
            console.print(f"[bold]{row.setup}, {row.mode_text}, {_path(cell)}[/bold]")
            row.loadavg_before = loadavg()
            began = time.monotonic()
            try:
                if row.part == "sqlite":
                    sqlite_cell(s, row, cell.proxied)
                else:
                    if cluster is None:
                        cluster = Cluster("maumau-bench-proxied-")
                        cluster.init()
                        cluster.start()
                    pg_cell(s, row, cluster, number, cell.path)
            except BenchError as exc:
                row.failed = str(exc).splitlines()[0]
                console.print(f"[red]failed: {exc}[/red]")
            row.seconds = round(time.monotonic() - began, 1)
            row.loadavg_after = loadavg()
            done.append(cell)
    finally:
        if cluster is not None:
            cluster.remove()
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(table(done))
    print()
    print(cost(done))
    if args.json is not None:
        rows = [c.row.to_json() | {"path": c.path} for c in done]
        for row_json in rows:
            row_json.pop("raw", None)
        args.json.write_text(json.dumps({"command": sys.argv, "rows": rows}, indent=1) + "\n")
    return 1 if any(c.row.failed for c in done) else 0


if __name__ == "__main__":
    sys.exit(main())
