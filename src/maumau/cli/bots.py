"""The bot commands of ``maumau``: ``tournament`` and ``simulate``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from maumau.bots import LEVELS
from maumau.bots.tournament import Standing, run_tournament, standings_json
from maumau.cli.options import rules_from_args
from maumau.cli.types import count
from maumau.engine import EngineError
from maumau.engine.options import PRESETS


def _play(args: argparse.Namespace, matches: int, records: Path | None) -> list[Standing] | None:
    levels = [s.strip() for s in args.seats.split(",") if s.strip()]
    err = Console(stderr=True)
    try:
        rules = rules_from_args(args.preset, args.set)
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        ) as progress:
            task = progress.add_task(" vs ".join(levels), total=matches)
            return run_tournament(
                levels,
                rules,
                matches,
                seed=args.seed,
                jobs=args.jobs,
                records=records,
                on_match=lambda _: progress.advance(task),
            )
    except (EngineError, ValueError) as exc:
        err.print(f"maumau: {exc}")
        return None
    except OSError as exc:
        err.print(f"maumau: cannot write the records: {exc.strerror or exc} ({exc.filename})")
        return None


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play whole matches between bots and print how each entry did."""
    standings = _play(args, args.matches, args.records)
    if standings is None:
        return 2
    table = Table(title=f"{args.matches} matches, {args.preset}, seed {args.seed}")
    for column in (
        "entry",
        "win rate",
        "95% CI",
        "avg total",
        "rounds won",
        "ms/decision",
        "p95 ms",
    ):
        table.add_column(column, justify="left" if column == "entry" else "right")
    for row in standings_json(standings):
        low, high = row["ci95"]
        table.add_row(
            row["entry"],
            f"{row['win_rate']:.1%}",
            f"{low:.1%}-{high:.1%}",
            f"{row['avg_total']:.1f}",
            f"{row['avg_rounds_won']:.2f}",
            f"{row['decision_ms_mean']:.2f}",
            f"{row['decision_ms_p95']:.2f}",
        )
    Console().print(table)
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(standings_json(standings), indent=2) + "\n", "utf-8")
        except OSError as exc:
            print(f"maumau: cannot write {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play bot games and write each as a game record."""
    standings = _play(args, args.games, args.out)
    if standings is None:
        return 2
    print(f"wrote {args.games} records to {args.out}", file=sys.stderr)
    return 0


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seats",
        required=True,
        help=f"comma-separated bot levels, one per seat ({', '.join(LEVELS)}; hard:N sets "
        "its simulations per decision)",
    )
    parser.add_argument("--preset", default="standard", choices=list(PRESETS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=count, default=1, help="worker processes")


def add_commands(commands: Any) -> None:
    """Register ``tournament`` and ``simulate`` on the ``maumau`` sub-command parser."""
    tournament = commands.add_parser(
        "tournament",
        help="play whole matches between bots and print their strength",
        description="Seats are rotated match by match so seat order gives no edge. A drawn "
        "match counts half. The same --seed gives the same results.",
    )
    _common(tournament)
    tournament.add_argument("--matches", type=count, default=100)
    tournament.add_argument("--records", type=Path, help="write every match as a game record")
    tournament.add_argument("--json", type=Path, help="also write the figures as JSON")
    tournament.set_defaults(handler=cmd_tournament)

    simulate = commands.add_parser("simulate", help="write game records of bot games")
    _common(simulate)
    simulate.add_argument("--games", type=count, default=10)
    simulate.add_argument("--out", type=Path, required=True, help="directory for the records")
    simulate.set_defaults(handler=cmd_simulate)
