"""Benchmark: how long the hard bot thinks, and what one simulation costs.

Positions are taken from games between ``normal`` bots (penalty-100 by default), at
every decision of seat 0 that has more than one legal action: the typical mid-round
positions the hard bot meets.  For each, ``HardBot.choose`` is timed; the figures are
the mean and 95th percentile decision time and the cost per simulation (decision time
divided by the simulations it ran).  A script, not a test: run it on a quiet machine.

    uv run python bench/bots.py                       # 200 positions, default budget
    uv run python bench/bots.py --positions 50 --simulations 1000 --players 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from maumau.bots import HardBot, make_bot
from maumau.bots.hard import DEFAULT_SIMULATIONS
from maumau.engine import Action, Game, Rules, SeatView

TARGET_P95_MS = 300.0
TARGET_MS_PER_SIM = 0.1


def positions(
    rules: Rules, players: int, count: int, seed: int
) -> list[tuple[SeatView, tuple[Action, ...]]]:
    """Decision points of seat 0 in games between normal bots."""
    out: list[tuple[SeatView, tuple[Action, ...]]] = []
    bots = [make_bot("normal", seed + i) for i in range(players)]
    game_seed = seed
    while len(out) < count:
        game = Game(rules, [f"P{i}" for i in range(players)])
        while not game.finished and len(out) < count:
            game_seed += 1
            game.deal(game_seed)
            while not game.round_over:
                seat = game.to_move
                legal = game.legal_actions(seat)
                view = game.view(seat)
                if seat == 0 and len(legal) > 1:
                    out.append((view, legal))
                game.apply(bots[seat].choose(view, legal), seat)
    return out[:count]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--preset", default="penalty-100")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    rules = Rules.from_preset(args.preset)
    points = positions(rules, args.players, args.positions, args.seed)
    bot = HardBot(seed=args.seed, simulations=args.simulations)
    times: list[float] = []
    per_sim: list[float] = []
    for view, legal in points:
        start = time.perf_counter()
        bot.choose(view, legal)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        if bot.last_simulations:
            per_sim.append(elapsed / bot.last_simulations)
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    figures = {
        "preset": args.preset,
        "players": args.players,
        "positions": len(points),
        "simulations": args.simulations,
        "decision_ms_mean": round(1000 * statistics.fmean(times), 2),
        "decision_ms_p95": round(1000 * p95, 2),
        "decision_ms_max": round(1000 * times[-1], 2),
        "ms_per_simulation_median": round(1000 * statistics.median(per_sim), 4),
        "ms_per_simulation_mean": round(1000 * statistics.fmean(per_sim), 4),
    }
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    ok_p95 = figures["decision_ms_p95"] <= TARGET_P95_MS
    ok_sim = figures["ms_per_simulation_median"] <= TARGET_MS_PER_SIM
    print(f"target p95 <= {TARGET_P95_MS:.0f} ms: {'ok' if ok_p95 else 'MISSED'}")
    print(f"target <= {TARGET_MS_PER_SIM} ms per simulation: {'ok' if ok_sim else 'MISSED'}")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
