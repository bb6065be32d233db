"""The command line of ``bench/faults.py``: both campaigns, their reports, the JSON."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

import lab.faults
from lab.faults.campaigns import pg_campaign, sqlite_campaign
from lab.faults.options import Options
from lab.faults.output import print_report
from lab.faults.report import Report
from lab.faults.servers import CampaignError
from lab.postgres import ClusterError


def _pair(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    a, b = float(low), float(high or low)
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(f"want MIN,MAX seconds, not {text!r}")
    return a, b


def parse(argv: list[str] | None) -> argparse.Namespace:
    doc = lab.faults.__doc__ or ""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--only", choices=["sqlite", "pg"], help="run one campaign only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kills", type=int, default=10, help="kill -9 on SQLite (default 10)")
    parser.add_argument("--games", type=int, default=30, help="load tables at once (default 30)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rate", type=float, help="offered moves/s (default: closed loop)")
    parser.add_argument("--procs", type=int, default=2, help="load tool processes")
    parser.add_argument("--probe-tables", type=int, default=3)
    parser.add_argument(
        "--up",
        type=_pair,
        default=(2.0, 5.0),
        metavar="MIN,MAX",
        help="seconds a server runs between faults (default 2,5)",
    )
    parser.add_argument(
        "--pause",
        type=_pair,
        default=(0.3, 1.5),
        metavar="MIN,MAX",
        help="seconds a killed server stays dead (default 0.3,1.5)",
    )
    parser.add_argument("--pg-servers", type=int, default=2)
    parser.add_argument("--pg-kills", type=int, default=4)
    parser.add_argument("--pg-stops", type=int, default=3)
    parser.add_argument(
        "--pg-spread",
        choices=["game", "seat"],
        default="seat",
        help="a table's seats on one process or over all (default seat)",
    )
    parser.add_argument(
        "--stop-for",
        type=_pair,
        default=(2.0, 5.0),
        metavar="MIN,MAX",
        help="seconds PostgreSQL stays stopped (default 2,5)",
    )
    parser.add_argument("--workdir", type=Path, help="keep logs, ledgers and data here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    return parser.parse_args(argv)


@contextlib.contextmanager
def _workdir(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    path = Path(tempfile.mkdtemp(prefix="faults-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    opts = Options(
        seed=args.seed,
        kills=args.kills,
        games=args.games,
        players=args.players,
        rate=args.rate,
        procs=args.procs,
        probe_tables=args.probe_tables,
        up=args.up,
        pause=args.pause,
        pg_servers=args.pg_servers,
        pg_kills=args.pg_kills,
        pg_stops=args.pg_stops,
        pg_spread=args.pg_spread,
        stop_for=args.stop_for,
        keep=args.workdir is not None,
    )
    console = Console()

    def say(text: str) -> None:
        console.log(text)

    reports: list[Report] = []
    errors: list[str] = []
    with _workdir(args.workdir) as workdir:
        say(f"fault campaign, seed {opts.seed}, work directory {workdir}")
        campaigns = [("sqlite", sqlite_campaign), ("pg", pg_campaign)]
        for name, campaign in campaigns:
            if args.only not in (None, name):
                continue
            try:
                report = campaign(opts, workdir / name, say)
            except (CampaignError, ClusterError) as exc:
                errors.append(f"{name}: {exc}")
                console.print(f"[red]{name} campaign failed: {exc}[/]")
                continue
            print_report(report, console)
            reports.append(report)
        document = {
            "seed": opts.seed,
            "command": "uv run python bench/faults.py " + " ".join(argv or sys.argv[1:]),
            "options": {k: v for k, v in vars(args).items() if k not in ("json", "workdir")},
            "campaigns": [r.to_json() for r in reports],
            "errors": errors,
            "ok": not errors and bool(reports) and all(r.ok for r in reports),
        }
        if args.json is not None:
            args.json.write_text(json.dumps(document, indent=2, default=str) + "\n")
    verdict = "[green]every check passed[/]" if document["ok"] else "[red]a check failed[/]"
    console.print(verdict)
    return 0 if document["ok"] else 1
