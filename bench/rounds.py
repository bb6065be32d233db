"""Benchmark: a bot's penalty points per round against ``normal``, paired deal by deal.

Each deal (a fresh first round of ``--preset``, four players by default) is played by
four ``normal`` bots, and then once more for each seat with the bot under test in that
seat and ``normal`` in the others, on the same cards.  The figure is the mean of the
test seat's points minus what ``normal`` took in that seat of that deal, with its
standard error, and how often the bot went out.  Pairing takes the deal's luck out, so
300 rounds tell apart about half a point a round, where a 400-match tournament tells
apart only about ±4 points of win rate: the quick way to compare search variants before
a tournament.  The 4-seat penalty-100 bar of ``hard`` needs about 4 to 5 points fewer a
round than ``normal`` takes (``docs/performance.md``, "Bots").  A script, not a test.

    uv run python bench/rounds.py --bot hard --deals 75 --jobs 2
    uv run python bench/rounds.py --bot ismcts --deals 75 --jobs 2       # tree over every seat
    uv run python bench/rounds.py --bot ismcts-own --deals 75 --jobs 2   # tree over its own moves
    uv run python bench/rounds.py --bot ismcts --json b.json --compare a.json  # paired with a run

A bot is ``hard``, ``ismcts`` or ``ismcts-own`` (the research player of
``bench/lab/ismcts.py``), each with an optional ``:N`` simulations per decision.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from lab.ismcts import EXPLORATION, IsmctsBot, Opponents
from maumau.bots import Bot, HardBot, make_bot
from maumau.bots.hard import DEFAULT_SIMULATIONS
from maumau.bots.match import play_round
from maumau.engine import Game, Rules
from maumau.engine.errors import EngineError

BOTS = ("hard", "ismcts", "ismcts-own")


def make_tested(spec: str, seed: int, exploration: float = EXPLORATION) -> Bot:
    """The bot under test from ``name[:N]`` (``exploration``: UCB1's constant, ISMCTS only)."""
    name, _, budget = spec.partition(":")
    if name not in BOTS or (budget and not (budget.isdigit() and int(budget) > 0)):
        raise ValueError(f"bot {spec!r}: one of {', '.join(BOTS)}, optionally with :N (N >= 1)")
    sims = int(budget) if budget else DEFAULT_SIMULATIONS
    if name == "hard":
        return HardBot(seed, simulations=sims)
    opponents: Opponents = "tree" if name == "ismcts" else "playout"
    return IsmctsBot(seed, simulations=sims, opponents=opponents, exploration=exploration)


def deal_seed(deal: int) -> int:
    return random.Random(f"deal-{deal}").getrandbits(63)


def points(rules: Rules, players: int, bots: list[Bot], seed: int) -> tuple[list[int], int]:
    """Each seat's penalty points at the end of the round dealt with ``seed``, and the
    seat that went out."""
    game = Game(rules, [f"P{i}" for i in range(players)])
    game.deal(seed)
    play_round(game, bots)
    result = game.results[-1]
    return list(result.hand_values), result.out


def one_deal(job: tuple[str, str, int, int, float]) -> list[dict[str, Any]]:
    """The rows of one deal: the tested bot in each seat in turn."""
    spec, preset, players, deal, exploration = job
    rules = Rules.from_preset(preset)
    seed = deal_seed(deal)

    def normals() -> list[Bot]:
        return [make_bot("normal", seed=100 + i) for i in range(players)]

    base, _ = points(rules, players, normals(), seed)
    rows = []
    for seat in range(players):
        bots = normals()
        bots[seat] = make_tested(spec, 7 + deal, exploration)
        got, out = points(rules, players, bots, seed)
        rows.append(
            {"deal": deal, "seat": seat, "bot": got[seat], "normal": base[seat], "out": out == seat}
        )
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    gains = [r["bot"] - r["normal"] for r in rows]
    error = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("nan")
    return {
        "rounds": len(rows),
        "bot_points": statistics.fmean(r["bot"] for r in rows),
        "normal_points": statistics.fmean(r["normal"] for r in rows),
        "difference": statistics.fmean(gains),
        "standard_error": error,
        "out_share": sum(r["out"] for r in rows) / len(rows),
    }


def paired(rows: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> tuple[int, float, float]:
    """This run's bot against an earlier run's on the rounds both played (the same deal
    and seat): how many, the mean difference in points and its standard error."""
    theirs = {(r["deal"], r["seat"]): r["bot"] for r in earlier}
    gains = [
        r["bot"] - theirs[r["deal"], r["seat"]] for r in rows if (r["deal"], r["seat"]) in theirs
    ]
    if len(gains) < 2:
        return len(gains), float("nan"), float("nan")
    return len(gains), statistics.fmean(gains), statistics.stdev(gains) / len(gains) ** 0.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bot", default="hard", help="the bot under test (default hard)")
    parser.add_argument("--deals", type=int, default=75, help="deals, each played per seat")
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="penalty-100")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--exploration", type=float, default=EXPLORATION, help="UCB1's constant (ISMCTS)"
    )
    parser.add_argument("--json", type=Path, help="write the summary and every row here")
    parser.add_argument(
        "--compare", type=Path, metavar="FILE", help="pair with the rows of an earlier --json"
    )
    args = parser.parse_args(argv)
    earlier = None
    if args.compare:
        try:
            earlier = json.loads(args.compare.read_text())
            if not isinstance(earlier.get("rows"), list):
                raise ValueError("it has no rows")
        except (OSError, ValueError, AttributeError) as exc:
            parser.error(f"--compare {args.compare}: not a --json file of this script ({exc})")
    try:
        make_tested(args.bot, 0)
        Rules.from_preset(args.preset).check_players(args.players)
    except (ValueError, EngineError) as exc:
        parser.error(str(exc))
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    jobs = [
        (args.bot, args.preset, args.players, d, args.exploration)
        for d in range(args.first_deal, args.first_deal + args.deals)
    ]
    rows: list[dict[str, Any]] = []
    if args.jobs == 1:
        for job in jobs:
            rows.extend(one_deal(job))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(one_deal, jobs):
                rows.extend(part)
    figures = summary(rows)
    print(
        f"{args.bot} against normal, {args.preset}, {args.players} seats, "
        f"{figures['rounds']} rounds: {figures['bot_points']:.1f} points a round where "
        f"normal takes {figures['normal_points']:.1f}; difference "
        f"{figures['difference']:+.2f} ± {figures['standard_error']:.2f} (standard error); "
        f"went out in {figures['out_share']:.1%} of rounds"
    )
    if earlier is not None:
        count, mean, error = paired(rows, earlier["rows"])
        print(
            f"minus {earlier.get('args', {}).get('bot', 'its bot')} of {args.compare.name} "
            f"on the same {count} "
            f"rounds: {mean:+.2f} ± {error:.2f}"
        )
    if args.json:
        settings = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        args.json.write_text(
            json.dumps(
                {"args": settings, "summary": figures, "rows": rows},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
