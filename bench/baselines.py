"""Baselines: every pair of agent kinds heads-up, and every set of four at a 4-seat
table, with duplicate deals and rotated seats; the figures with 95% intervals and
Plackett-Luce strengths go into the ``## Baselines`` section of ``docs/benchmark.md``.

    nice -n 10 uv run python bench/baselines.py --deals-2 200 --deals-4 300
    nice -n 10 uv run python bench/baselines.py --deals-2 200 --deals-4 300 --resume
    uv run python bench/baselines.py --from bench/results/baselines.jsonl   # report only
    uv run python bench/baselines.py --kinds random,hard,ismcts:1000 --deals-2 50
    uv run python bench/baselines.py --table hard:500/ismcts:500 --deals-2 200 \
        --deals-4 0 --section "Strength: heads-up" --out bench/results/strength-2.jsonl

Agent kinds (``bench/lab/baselines/agents.py``): random, easy, normal, hard (``hard:N``
for another budget), lab-ismcts:N (bench/lab/ismcts.py), ismcts:N (OpenSpiel's ISMCTS
through ``maumau.env.spiel_bot``, with the heuristic rollouts of ``hard``;
``ismcts-random:N`` with uniformly random rollouts; skipped with a message when it
cannot be imported); any other ``module:function`` is a policy of ``maumau.eval`` (a
callable of maumau_v0's observation and mask, or a maumau.bots.Bot), e.g.
``--table mypackage.agent:act/hard``.  The duplicate deals, seatings and statistics are
``maumau.eval``'s (``maumau eval`` plays one entrant through a fixed suite).
``--table A/B`` (or ``A/B/C/D``, repeated) plays only the tables given instead of every
pair and every set of four kinds; ``--section`` names the section of
docs/benchmark.md the figures go to.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from lab.baselines.agents import AgentUnavailable, available
from lab.baselines.campaign import Outcome, run_campaign, tables_of
from lab.baselines.report import write_section
from lab.baselines.store import header, read, whole_blocks, write_line, write_outcomes
from lab.paths import ROOT
from maumau.cli.types import count, whole
from maumau.engine import EngineError, Rules

DEFAULT_KINDS = "random,easy,normal,hard"


def table_of(text: str) -> tuple[str, ...]:
    """``A/B`` or ``A/B/C/D``: the kinds of one table."""
    kinds = tuple(k.strip() for k in text.split("/"))
    if len(kinds) not in (2, 4) or not all(kinds) or len(set(kinds)) != len(kinds):
        raise argparse.ArgumentTypeError(
            f"a table is 2 or 4 different kinds joined by '/', not {text!r}"
        )
    return kinds


def _play(args: argparse.Namespace, kinds: list[str]) -> tuple[dict[str, object], list[Outcome]]:
    rules = Rules.from_preset(args.preset)
    command = "uv run python bench/baselines.py " + shlex.join(sys.argv[1:])
    settings = {
        "kinds": kinds,
        "tables": ["/".join(t) for t in args.table] or None,
        "preset": args.preset,
        "deals_2": args.deals_2,
        "deals_4": args.deals_4,
        "seed": args.seed,
    }
    head = header(command, settings)
    head["jobs"] = args.jobs
    outcomes: list[Outcome] = []
    if args.resume and args.out.exists():
        old, outcomes = read(args.out)
        # a block cut off by the stop is played again; blocks beyond this plan are left out
        planned = {2: args.deals_2, 4: args.deals_4}
        outcomes = [o for o in whole_blocks(outcomes) if o.block < planned.get(len(o.kinds), 0)]
        if any(old.get(key) != value for key, value in settings.items() if "deals" not in key):
            raise ValueError(f"--resume: {args.out} was played with other settings")
        print(f"resuming: {len(outcomes)} matches already in {args.out}", flush=True)
    done = {(o.table, o.block) for o in outcomes}
    started = time.process_time()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        write_line(handle, head)
        write_outcomes(handle, outcomes)
        # the 4-seat tables first: if the run is stopped, Plackett-Luce has its data
        for first, seats, blocks in ((1000, 4, args.deals_4), (0, 2, args.deals_2)):
            if args.table:
                tables = [t for t in args.table if len(t) == seats]
            else:
                tables = tables_of(kinds, seats) if len(kinds) >= seats else []
            if not tables or not blocks:
                continue
            total = len(tables) * blocks
            played = sum(1 for table, _ in done if first <= table < first + len(tables))

            def progress(block: list[Outcome], seats: int = seats, total: int = total) -> None:
                nonlocal played
                played += 1
                write_outcomes(handle, block)
                outcomes.extend(block)
                if played % 20 == 0 or played == total:
                    cpu = time.process_time() - started
                    print(
                        f"{seats}-seat: {played}/{total} deal blocks, {cpu:.0f} s CPU", flush=True
                    )

            run_campaign(tables, blocks, rules, args.seed, args.jobs, first, progress, done)
        head["cpu_seconds"] = round(time.process_time() - started)
        write_line(handle, {"header": True, "cpu_seconds": head["cpu_seconds"]})
    return head, outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kinds", default=DEFAULT_KINDS, help="comma-separated agent kinds")
    parser.add_argument(
        "--table",
        type=table_of,
        action="append",
        default=[],
        help="play only this table, e.g. hard:500/ismcts:500 or mypackage.agent:act/hard "
        "(2 or 4 kinds or module:function policies; repeatable)",
    )
    parser.add_argument("--section", default="Baselines", help="the docs/benchmark.md section")
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--deals-2", type=whole, default=200, help="deal blocks per pair")
    parser.add_argument("--deals-4", type=whole, default=300, help="deal blocks per 4-seat table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=count, default=1, help="worker processes")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench/results/baselines.jsonl", help="raw outcomes"
    )
    parser.add_argument(
        "--resume", action="store_true", help="keep the blocks --out already has, play the rest"
    )
    parser.add_argument("--from", dest="source", type=Path, help="report on this file only")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs/benchmark.md")
    parser.add_argument("--resamples", type=count, default=1000, help="bootstrap resamples")
    args = parser.parse_args(argv)
    try:
        if args.source is not None:
            head, outcomes = read(args.source)
            outcomes = whole_blocks(outcomes)  # a run being written may end inside a block
        else:
            named = [k for t in args.table for k in t] or args.kinds.split(",")
            kinds = []
            for kind in dict.fromkeys(k.strip() for k in named if k.strip()):
                missing = available(kind)
                if missing is None:
                    kinds.append(kind)
                else:
                    print(f"skipping {kind}: {missing}", file=sys.stderr)
            lost = [t for t in args.table if not set(t) <= set(kinds)]
            if lost:
                print(f"baselines: cannot play {'/'.join(lost[0])} here", file=sys.stderr)
                return 2
            if len(kinds) < 2:
                print("baselines: fewer than two agent kinds to play", file=sys.stderr)
                return 2
            head, outcomes = _play(args, kinds)
    except (ValueError, EngineError, AgentUnavailable, OSError) as exc:
        print(f"baselines: {exc}", file=sys.stderr)
        return 2
    raw = args.source if args.source is not None else args.out
    write_section(args.doc, head, outcomes, args.resamples, args.section, raw)
    print(f"wrote the {args.section} section of {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
