"""``maumau loadtest``: play many games against a running server and measure it."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rich.console import Console

from maumau.cli.types import count


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text}")
    return value


def add_commands(commands: Any) -> None:
    """Register ``loadtest`` on the ``maumau`` sub-command parser."""
    load = commands.add_parser(
        "loadtest",
        help="play many games against a running server and measure it",
        description="Set tables up on a running server (maumau serve --tables-per-minute "
        "100000 --messages-per-second 1000 --connections-per-address 100000 "
        "--connections-per-minute 1000000 --http-connections-per-address 100000 "
        "--live-tables-per-address 100000: every "
        "client comes from one address), play every seat over its own WebSocket, and "
        "print moves/s, move latency, errors and the server's CPU and memory.",
    )
    load.add_argument(
        "--url",
        action="append",
        required=True,
        metavar="URL",
        help="a server, http://HOST:PORT; repeatable: tables go round-robin over them",
    )
    load.add_argument("--games", type=count, default=10, help="tables played at once")
    load.add_argument("--players", type=count, default=4, help="seats per table (2 to 8)")
    load.add_argument("--duration", type=_seconds, default=20.0, help="seconds measured")
    load.add_argument("--warmup", type=_seconds, default=3.0, help="seconds before measuring")
    load.add_argument("--preset", default="standard", help="the tables' rule preset")
    mode = load.add_mutually_exclusive_group()
    mode.add_argument(
        "--rate",
        type=float,
        metavar="MOVES_PER_S",
        help="offer this many moves/s in all: each client thinks U(0.5, 1.5) x games/rate "
        "seconds before each move",
    )
    mode.add_argument(
        "--closed", action="store_true", help="closed loop, no think time (the default)"
    )
    load.add_argument(
        "--compression",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="offer permessage-deflate as browsers do (default: on)",
    )
    load.add_argument(
        "--procs",
        type=count,
        default=os.cpu_count() or 1,
        help="client processes (default: the number of CPUs)",
    )
    load.add_argument(
        "--spread",
        choices=["game", "seat"],
        default="game",
        help="with several --url: a table's seats on its server (game) or round-robin (seat)",
    )
    load.add_argument(
        "--server-pid",
        type=int,
        action="append",
        default=[],
        metavar="PID",
        help="sample this process and its children for CPU and memory; repeatable",
    )
    load.add_argument("--ledger", metavar="FILE", help="write every acknowledged move (JSONL)")
    load.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    load.add_argument("--seed", type=int, help="seed for the moves and think times")
    load.set_defaults(handler=cmd_loadtest)


def cmd_loadtest(args: argparse.Namespace) -> int:
    from maumau.loadtest import LoadFailed, LoadOptions, run_load
    from maumau.loadtest.report import print_report, write_json

    err = Console(stderr=True)
    try:
        options = LoadOptions(
            urls=tuple(args.url),
            games=args.games,
            players=args.players,
            duration=args.duration,
            warmup=args.warmup,
            preset=args.preset,
            rate=args.rate,
            compression=args.compression,
            procs=args.procs,
            spread=args.spread,
            server_pids=tuple(args.server_pid),
            ledger=args.ledger,
            json_path=args.json,
            seed=args.seed,
        )
    except ValueError as exc:
        err.print(f"maumau loadtest: {exc}")
        return 2
    try:
        document = run_load(options, say=lambda text: err.print(f"[dim]{text}[/dim]"))
    except LoadFailed as exc:
        err.print(f"maumau loadtest: {exc}")
        return 1
    except KeyboardInterrupt:
        err.print("maumau loadtest: interrupted")
        return 130
    print_report(document, Console())
    if args.json:
        try:
            write_json(document, args.json)
        except OSError as exc:
            err.print(f"maumau loadtest: cannot write {args.json}: {exc.strerror or exc}")
            return 2
    return 0
