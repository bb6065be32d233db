"""``maumau eval``: a policy or a bot through a named suite of :mod:`maumau.eval`.

    maumau eval --suite standard-2p-v0 --policy mypackage.agent:act --out results.json
    maumau eval --suite penalty100-4p-v0 --policy normal          # a bot level
    maumau eval --list                                             # the suites

The results file is :mod:`maumau.eval.results`' (JSON, schema ``maumau-eval/1``); the
summary is printed.  Exit status 0 done, 2 a wrong policy, suite or file (the message
says which); a policy that chooses an illegal action stops the run with status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from maumau.cli.types import count, whole
from maumau.eval.suites import SUITES


def add_commands(commands: Any) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="evaluate a policy or a bot on a fixed suite",
        description="Play a policy (module:function: a callable of maumau_v0's observation "
        "and action mask returning an action id, or a maumau.bots.Bot) or a bot level "
        "through a named suite (fixed deals, every deal from every seat, against random, "
        "easy, normal, hard, and OpenSpiel's ISMCTS where installed), and write the win "
        "rates with Wilson intervals and the Plackett-Luce strengths to a JSON file.",
    )
    evaluate.add_argument("--suite", choices=list(SUITES), default="standard-2p-v0")
    evaluate.add_argument("--policy", metavar="MODULE:FUNCTION", help="what to evaluate")
    evaluate.add_argument("--name", help="its name in the results (default: the --policy)")
    evaluate.add_argument(
        "--out", type=Path, metavar="FILE", help="the results file (default: eval-SUITE.json)"
    )
    evaluate.add_argument(
        "--deals", type=count, metavar="N", help="fewer deal blocks per table (a trial run)"
    )
    evaluate.add_argument("--resamples", type=whole, default=200, help="Plackett-Luce refits")
    evaluate.add_argument("--list", action="store_true", help="list the suites and stop")
    evaluate.set_defaults(handler=cmd_eval)


def cmd_eval(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from maumau.engine import EngineError
    from maumau.eval import IllegalPolicyAction, PolicyError, evaluate, load_policy

    if args.list:
        for suite in SUITES.values():
            print(f"{suite.name}: {suite.about}")
        return 0
    if not args.policy:
        print("maumau eval: give --policy MODULE:FUNCTION (or a bot level)", file=sys.stderr)
        return 2
    suite = SUITES[args.suite]
    if args.deals is not None and args.deals < suite.deals:
        trial = f"{suite.name}-trial{args.deals}"  # the suite's first deals, fewer of them
        suite = replace(suite, name=trial, deals=args.deals, deals_from=suite.name)
    out = args.out or Path(f"eval-{suite.name}.json")
    played = [0]
    clock = time.process_time()

    def progress(block: list[Any]) -> None:
        played[0] += 1
        if played[0] % 25 == 0:
            cpu = time.process_time() - clock
            print(f"{suite.name}: {played[0]} deal blocks, {cpu:.0f} s CPU", file=sys.stderr)

    try:
        entrant = load_policy(args.policy)
        name = args.name or args.policy.strip()
        results = evaluate(entrant, suite, name=name, resamples=args.resamples, on_block=progress)
    except IllegalPolicyAction as exc:
        print(f"maumau eval: {exc}", file=sys.stderr)
        return 1
    except (PolicyError, EngineError, ValueError, ImportError) as exc:
        print(f"maumau eval: {exc}", file=sys.stderr)
        return 2
    try:
        results.write(out)
    except OSError as exc:
        print(f"maumau eval: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    _print_summary(results.to_json())
    print(f"results written to {out}")
    return 0


def _print_summary(document: dict[str, Any]) -> None:
    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    print(f"{document['entrant']} on {document['suite']['name']}:")
    for row in document["tables"]:
        low, high = row["wilson95"]
        print(
            f"  vs {' + '.join(row['opponents'])}: {pct(row['win_rate'])} of {row['matches']} "
            f"[{pct(low)}, {pct(high)}], mean points {row['mean_points']:.1f}"
        )
    overall = document["overall"]
    low, high = overall["wilson95"]
    print(
        f"  overall: {pct(overall['win_rate'])} of {overall['matches']} [{pct(low)}, {pct(high)}]"
    )
    strengths = document["plackett_luce"]["strengths"]
    print("  Plackett-Luce: " + ", ".join(f"{k} {v:.3f}" for k, v in strengths.items()))
    for kind, why in document["skipped"].items():
        print(f"  skipped {kind}: {why}")
