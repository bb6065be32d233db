"""The command line of ``bench/pressure.py``."""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import lab.pressure
from lab.paths import ROOT
from lab.pressure.campaign import PHASES, Config, run
from lab.pressure.compare import CompareError, compare, load
from lab.pressure.fleet import DATABASES
from lab.pressure.report import markdown, print_report
from lab.pressure.server import ServerError
from maumau.cli.types import count


def phase_list(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [name for name in names if name not in PHASES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"phases are {', '.join(PHASES)}; not {unknown}")
    return names


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=lab.pressure.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source", type=Path, default=ROOT,
        help="the tree whose `maumau serve` to run, with its own Python (default: this one)",
    )  # fmt: skip
    parser.add_argument(
        "--database", choices=DATABASES, default="sqlite",
        help="sqlite (one server) or postgresql (a throwaway cluster and two servers)",
    )  # fmt: skip
    parser.add_argument("--phase-seconds", type=float, default=25.0, metavar="N")
    parser.add_argument(
        "--phases", type=phase_list, default=PHASES,
        help=f"which phases, in this order (default {','.join(PHASES)}; bot tables cannot "
        "be stopped, so bots comes last)",
    )  # fmt: skip
    n = count
    parser.add_argument("--replay-clients", type=n, default=10)
    parser.add_argument("--bot-tables", type=n, default=10, help="at most this many")
    parser.add_argument("--sockets", type=n, default=2000, help="at most this many")
    parser.add_argument("--qr-loops", type=n, default=4)
    parser.add_argument("--host-length", type=n, default=2300, help="qr: its Host header")
    parser.add_argument("--hello-sockets", type=n, default=32)
    parser.add_argument(
        "--health-loops", type=n, help="default 16 on SQLite, 64 on PostgreSQL"
    )  # fmt: skip
    parser.add_argument("--chat-tables", type=n, default=30)
    parser.add_argument("--info-loops", type=n, default=16)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the table here")
    parser.add_argument("--keep", action="store_true", help="keep the data and the server log")
    parser.add_argument(
        "--compare", nargs=2, type=Path, metavar=("BEFORE.json", "AFTER.json"),
        help="run nothing: print (and with --markdown write) two runs' figures side by side",
    )  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.compare:
        try:
            text = compare(load(args.compare[0]), load(args.compare[1]))
        except CompareError as exc:
            print(f"pressure: --compare: {exc}", file=sys.stderr)
            return 2
        print(text, end="")
        if args.markdown:
            args.markdown.write_text(text)
        return 0
    source = args.source.resolve()
    config = Config(
        source=source,
        database=args.database,
        phase_seconds=args.phase_seconds,
        phases=args.phases,
        replay_clients=args.replay_clients,
        bot_tables=args.bot_tables,
        max_sockets=args.sockets,
        qr_loops=args.qr_loops,
        host_length=args.host_length,
        hello_sockets=args.hello_sockets,
        health_loops=args.health_loops,
        chat_tables=args.chat_tables,
        info_loops=args.info_loops,
    )
    work = Path(tempfile.mkdtemp(prefix="maumau-pressure-"))
    try:
        result = run(config, work)
    except ServerError as exc:
        print(f"pressure: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print_report(result)
    command = "uv run python bench/pressure.py " + shlex.join(list(argv or sys.argv[1:]))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")
    if args.markdown:
        args.markdown.write_text(markdown(result, command.strip()))
    return 0
