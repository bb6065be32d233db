"""The command line of ``bench/server.py``: the plan of the cells, the run, the tables
and the JSON document."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from lab.matrix.cells import (
    Settings,
    bgio_cell,
    bgio_prepare,
    ceiling_cell,
    pg_cell,
    python_versions,
    sqlite_cell,
)
from lab.matrix.machine import clock, loadavg
from lab.matrix.rows import Row, on_off, rows_from_json, set_ratios, target_lines
from lab.matrix.services import BenchError
from lab.matrix.tables import machine_table, markdown_table, results_table, summary
from lab.paths import ROOT, portable
from lab.postgres import Cluster, ClusterError

DEFAULT_OUT = ROOT / "bench" / "results" / "server"
PARTS = ("sqlite", "pg", "ceiling", "bgio")
CEILING_SETUP = "ceiling (bare uvicorn)"


def _start_row(row: Row) -> float:
    row.loadavg_before = loadavg()
    return clock()


def _end_row(row: Row, began: float) -> None:
    row.loadavg_after = loadavg()
    row.seconds = round(clock() - began, 1)


def plan(args: argparse.Namespace, parts: Sequence[str]) -> list[Row]:
    """Every cell of the run, in the order they are measured."""
    clients = args.games * args.players
    offered = "offered" in args.cells
    closed = "closed" in args.cells
    compressions = {"on": [True], "off": [False], "both": [True, False]}[args.compression]
    rows: list[Row] = []

    def add(part: str, setup: str, rate: float | None, comp: bool | None, key: str) -> None:
        mode = "closed" if rate is None else "offered"
        rows.append(Row(part, key, setup, mode, rate, comp, clients))

    def modes(rate: float) -> list[float | None]:
        return ([None] if closed else []) + ([rate] if offered else [])

    def ours(part: str, setup: str, rate: float, comps: list[bool]) -> None:
        for mode_rate in modes(rate):
            for comp in comps:
                name = "closed" if mode_rate is None else f"rate{mode_rate:g}"
                add(part, setup, mode_rate, comp, f"{part}-{name}-{on_off(comp)}")

    if "ceiling" in parts:
        rates: list[float | None] = [None] if closed else []
        if offered:
            if "sqlite" in parts or "pg" not in parts:
                rates.append(args.sqlite_rate)
            if "pg" in parts and args.pg_rate not in rates:
                rates.append(args.pg_rate)
        deflates = [False, True] if args.ceiling_deflate else [False]
        for rate in rates:
            for deflate in deflates:
                name = "closed" if rate is None else f"rate{rate:g}"
                key = f"ceiling-{name}" + ("-deflate" if deflate else "")
                add("ceiling", CEILING_SETUP, rate, deflate, key)
    if "sqlite" in parts:
        ours("sqlite", "SQLite, 1 proc", args.sqlite_rate, compressions)
    if "pg" in parts:
        pg_compressions = [True, False] if args.compression_off_too else [True]
        ours("pg", "PostgreSQL, 2 procs", args.pg_rate, pg_compressions)
    if "bgio" in parts:
        for storage in ("memory", "flatfile"):
            add("bgio", f"boardgame.io {storage}", None, False, f"bgio-{storage}-{args.games}")
    return rows


def _cells(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in ("closed", "offered"):
            raise argparse.ArgumentTypeError(f"unknown cell kind {name!r} (closed, offered)")
    return names


def _parts(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in PARTS:
            raise argparse.ArgumentTypeError(f"unknown part {name!r} ({', '.join(PARTS)})")
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Measure the server matrix (SQLite, PostgreSQL, the ceiling, the "
        "boardgame.io peer) in one run and print one table.",
    )
    parser.add_argument(
        "--only",
        type=_parts,
        help="parts to run, comma-separated: sqlite,pg,ceiling,bgio (default: sqlite and "
        "pg, plus ceiling and bgio when their directory is given)",
    )
    parser.add_argument(
        "--cells",
        type=_cells,
        default=["closed", "offered"],
        help="closed, offered or both (default: closed,offered)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 s warm-up, 5 s")
    parser.add_argument("--duration", type=float, help="seconds measured (default 20, quick 5)")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up (default 5, quick 2)")
    parser.add_argument(
        "--pg-warmup",
        type=float,
        help="warm-up of the PostgreSQL cells (default: --warmup); their tables start "
        "after the load tool's go, so a busy machine may need more",
    )
    parser.add_argument("--games", type=int, default=250, help="tables at once (default 250)")
    parser.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--preset", default="penalty-100", help="rule preset of the tables")
    parser.add_argument("--sqlite-rate", type=float, default=2000.0, help="offered moves/s")
    parser.add_argument("--pg-rate", type=float, default=1500.0, help="offered moves/s")
    parser.add_argument(
        "--compression",
        choices=["on", "off", "both"],
        default="both",
        help="permessage-deflate in the SQLite cells (default both)",
    )
    parser.add_argument(
        "--compression-off-too",
        action="store_true",
        help="also run the PostgreSQL cells with compression off",
    )
    parser.add_argument(
        "--spread",
        choices=["game", "seat"],
        default="game",
        help="PostgreSQL: a table's seats on one process (game) or round-robin (seat)",
    )
    parser.add_argument("--procs", type=int, help="the load tool's client processes")
    parser.add_argument("--seed", type=int, default=1, help="the load tool's seed")
    parser.add_argument("--ceiling", type=Path, metavar="DIR", help="the ceiling benchmark")
    parser.add_argument(
        "--ceiling-python",
        default=sys.executable,
        metavar="PY",
        help="interpreter with uvicorn, starlette, websockets, uvloop (default: this one)",
    )
    parser.add_argument(
        "--ceiling-deflate",
        action="store_true",
        help="also measure the ceiling with deflate; compression-on cells are compared to it",
    )
    parser.add_argument("--bgio", type=Path, metavar="DIR", help="the boardgame.io peer")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="directory for each cell's raw JSON"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the table as Markdown too"
    )
    parser.add_argument(
        "--show",
        type=Path,
        metavar="JSON",
        help="only print the tables of an earlier run's --json file (nothing is run)",
    )
    parser.add_argument("--keep-work", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 5.0 if args.quick else 20.0
    if args.warmup is None:
        args.warmup = 2.0 if args.quick else 5.0
    if args.games < 1 or not 2 <= args.players <= 8 or args.duration <= 0 or args.warmup < 0:
        parser.error("--games >= 1, --players 2..8, --duration > 0, --warmup >= 0")
    if not args.cells:
        parser.error("--cells needs closed, offered or both")
    if args.only is None:
        args.only = ["sqlite", "pg"]
        args.only += ["ceiling"] if args.ceiling else []
        args.only += ["bgio"] if args.bgio else []
    if "ceiling" in args.only and args.ceiling is None:
        parser.error("the ceiling part needs --ceiling DIR")
    if "bgio" in args.only and args.bgio is None:
        parser.error("the bgio part needs --bgio DIR")
    for name, path in (("--ceiling", args.ceiling), ("--bgio", args.bgio)):
        if path is not None and not path.is_dir():
            parser.error(f"{name} {path}: not a directory")
    return args


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def run(args: argparse.Namespace, console: Console) -> tuple[list[Row], dict[str, Any]]:
    parts = [part for part in PARTS if part in args.only]
    rows = plan(args, parts)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="maumau-bench-server-"))
    s = Settings(
        games=args.games,
        players=args.players,
        duration=args.duration,
        warmup=args.warmup,
        pg_warmup=args.warmup if args.pg_warmup is None else args.pg_warmup,
        preset=args.preset,
        seed=args.seed,
        procs=args.procs,
        spread=args.spread,
        out=args.out.resolve(),  # the ceiling's load tool runs in another folder
        work=work,
        console=console,
    )
    info: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "sqlite": "WAL, synchronous=FULL (maumau's store)",
    }
    cluster: Cluster | None = None
    peer: Path | None = None
    pg_number = 0
    try:
        for row in rows:
            what = f"{row.setup}, {row.mode_text}, compression {on_off(row.compression)}"
            console.rule(f"{row.key}: {what}")
            began = _start_row(row)
            try:
                if row.part == "sqlite":
                    sqlite_cell(s, row)
                elif row.part == "pg":
                    if cluster is None:
                        # PostgreSQL's default durability (fsync on, synchronous_commit on)
                        cluster = Cluster("maumau-bench-pg-")
                        cluster.init()
                        cluster.start()
                        info["postgresql"] = cluster.settings()
                        console.print(f"  PostgreSQL settings: {info['postgresql']}")
                    elif not cluster.running:
                        raise BenchError("the PostgreSQL cluster did not start (see above)")
                    pg_number += 1
                    pg_cell(s, row, cluster, pg_number)
                elif row.part == "ceiling":
                    if "ceiling" not in info:
                        info["ceiling"] = python_versions(args.ceiling_python)
                        console.print(f"  ceiling stack: {info['ceiling']}")
                    ceiling_cell(s, row, args.ceiling, args.ceiling_python)
                else:
                    if peer is None:
                        console.print("  copying the peer and running npm ci")
                        peer = bgio_prepare(s, args.bgio)
                    bgio_cell(s, row, peer, row.key.split("-")[1])
            except (
                BenchError,
                ClusterError,
                OSError,
                ValueError,
                KeyError,
                subprocess.SubprocessError,
            ) as exc:
                named = not isinstance(exc, BenchError | ClusterError)
                row.failed = f"{type(exc).__name__}: {exc}" if named else str(exc)
            _end_row(row, began)
            console.print(summary(row), highlight=False)
    finally:
        if cluster is not None:
            cluster.remove()
        if args.keep_work:
            console.print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    set_ratios(rows)
    return rows, info


def document(args: argparse.Namespace, rows: Sequence[Row], info: dict[str, Any]) -> dict[str, Any]:
    params = {
        key: (portable(value) if isinstance(value, Path) else value)
        for key, value in vars(args).items()
    }
    params["ceiling_python"] = portable(args.ceiling_python)
    command = [portable(arg) if arg.startswith("/") else arg for arg in sys.argv[1:]]
    return {
        "command": ["bench/server.py", *command],
        "params": params,
        "machine": info,
        "cells": [row.to_json() for row in rows],
        "targets": target_lines(rows, args.games),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    if args.show is not None:
        earlier = json.loads(args.show.read_text())
        rows = rows_from_json(earlier)
        console.print(results_table(rows, f"server under load ({args.show.name})"))
        console.print(machine_table(rows))
        if args.markdown:
            args.markdown.write_text(markdown_table(rows))
        return 0
    signal.signal(signal.SIGTERM, _terminate)
    rows, info = run(args, console)
    title = (
        f"server under load: {args.games} tables x {args.players} seats, preset "
        f"{args.preset}, {args.warmup:g} s warm-up + {args.duration:g} s"
        + (" (quick: a smoke run)" if args.quick else "")
    )
    console.print(results_table(rows, title))
    console.print(machine_table(rows))
    for line in target_lines(rows, args.games):
        console.print(line, highlight=False)
    if args.json:
        out = document(args, rows, info)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        console.print(f"every figure: {args.json}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown_table(rows))
    return 1 if any(row.failed for row in rows) else 0
