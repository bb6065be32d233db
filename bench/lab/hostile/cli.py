"""The command line of ``bench/hostile.py``."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import lab.hostile
from lab.hostile.attacks import Plan
from lab.hostile.campaign import campaign
from lab.hostile.report import report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=lab.hostile.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=10_000, help="WebSocket messages")
    parser.add_argument(
        "--requests", type=int, default=3_000, help="schemathesis HTTP requests (raw: a third)"
    )
    parser.add_argument("--seed", type=int, default=1)
    attacks = parser.add_argument_group("the attacks (after the WebSocket and HTTP parts)")
    attacks.add_argument(
        "--no-attacks", action="store_true", help="leave the attacks of the security issue out"
    )
    attacks.add_argument(
        "--hijack-rounds", type=int, default=Plan.hijack_rounds, metavar="N",
        help="seat hijack rounds (remove a seat and hello at once) (default %(default)s)",
    )  # fmt: skip
    attacks.add_argument(
        "--replay-clients", type=int, default=Plan.replay_clients, metavar="N",
        help="clients of the replay flood, each from its own address (default %(default)s)",
    )  # fmt: skip
    attacks.add_argument(
        "--replay-seconds", type=float, default=Plan.replay_seconds, metavar="S",
        help="how long the replay flood lasts (default %(default)s)",
    )  # fmt: skip
    attacks.add_argument(
        "--socket-attempts", type=int, default=Plan.socket_attempts, metavar="N",
        help="the most idle sockets opened before a refusal must come (default %(default)s)",
    )  # fmt: skip
    attacks.add_argument(
        "--presence-connects", type=int, default=Plan.presence_connects, metavar="N",
        help="a stranger's connects and disconnects while a player listens (default %(default)s)",
    )  # fmt: skip
    attacks.add_argument(
        "--bot-tables", type=int, default=Plan.bot_tables, metavar="N",
        help="the most tables of 7 hard bots tried before a refusal must come "
        "(default %(default)s)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the server's data directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="maumau-hostile-"))
    try:
        plan = None
        if not args.no_attacks:
            plan = Plan(
                hijack_rounds=args.hijack_rounds,
                replay_clients=args.replay_clients,
                replay_seconds=args.replay_seconds,
                socket_attempts=args.socket_attempts,
                presence_connects=args.presence_connects,
                bot_tables=args.bot_tables,
            )
        result = campaign(args.messages, args.requests, args.seed, work, plan)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")
    return 0 if result["passed"] else 1
