"""The command line of ``bench/engine.py``."""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lab.engine.output import TARGET_CONFIG, print_report
from lab.engine.peers import measure_peers
from lab.engine.runs import Budget, Report, public_api_run
from lab.engine.sections import measure_copy, measure_playout, measure_public_api

PRESETS = ("standard", "penalty-100")


def profile_public_api(budget: Budget, top: int) -> None:
    """cProfile the public-API loop, 4 players standard, and print the top entries."""
    preset, players = TARGET_CONFIG
    profiler = cProfile.Profile()
    profiler.enable()
    public_api_run(preset, players, budget.seed, budget)
    profiler.disable()
    print(f"cProfile of the public API loop ({preset}, {players} players), by own time:")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Benchmark the Mau Mau engine (and optionally peer engines).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ap.add_argument(
        "--seconds", type=float, default=None, help="time budget of one run (default 2, quick 0.1)"
    )
    ap.add_argument(
        "--games", type=int, default=None, help="games (playouts) per run, instead of --seconds"
    )
    ap.add_argument("--reps", type=int, default=None, help="runs per figure (default 3)")
    ap.add_argument("--states", type=int, default=None, help="mid-round states (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets")
    ap.add_argument("--players", default="2,4", help="comma-separated player counts")
    ap.add_argument(
        "--peers-python",
        metavar="PATH",
        help="a Python interpreter with open-spiel and rlcard: also run the peer engines",
    )
    ap.add_argument(
        "--eager",
        action="store_true",
        help="also time random_playout(..., eager=True) from fresh rounds",
    )
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    ap.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="instead, cProfile the public API loop (4p standard) and print the top N",
    )
    args = ap.parse_args(argv)
    budget = Budget(
        seconds=args.seconds if args.seconds is not None else (0.1 if args.quick else 2.0),
        games=args.games,
        reps=args.reps if args.reps is not None else (1 if args.quick else 3),
        states=args.states if args.states is not None else (200 if args.quick else 2000),
        seed=args.seed,
    )
    if args.profile:
        profile_public_api(budget, args.profile)
        return 0
    presets = [p for p in args.presets.split(",") if p]
    player_counts = [int(p) for p in args.players.split(",") if p]
    configs = [(p, n) for p in presets for n in player_counts]
    report = Report(
        meta={
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "machine": f"{platform.system()} {platform.machine()}",
            "cpus": os.cpu_count(),
            "seconds": budget.seconds,
            "games": budget.games,
            "reps": budget.reps,
            "states": budget.states,
            "seed": budget.seed,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
    )
    measure_public_api(configs, budget, report)
    inner = 5 if args.quick else 20
    samples = measure_copy(configs, budget, report, inner)
    measure_playout(configs, budget, report, samples, eager=args.eager)
    if args.peers_python:
        measure_peers(args.peers_python, budget, report, samples, inner)
    else:
        report.notes.append(
            "peers not run: pass --peers-python PATH (an interpreter with open-spiel and "
            "rlcard, see bench/README.md) to measure OpenSpiel and RLCard in the same run"
        )

    print_report(report, budget)
    if args.json:
        data = {
            "meta": report.meta,
            "public_api": report.public_api,
            "copy": report.copy,
            "playout": report.playout,
            "peers": report.peers,
            "ratios": report.ratios,
            "notes": report.notes,
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0
