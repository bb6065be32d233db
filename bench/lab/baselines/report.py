"""A section of ``docs/benchmark.md`` (``## Baselines`` unless named otherwise), from a
campaign's outcomes."""

from __future__ import annotations

import re
import shlex
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.baselines.agents import KINDS
from lab.baselines.campaign import Outcome
from lab.paths import ROOT, portable
from maumau.eval.ratings import bootstrap, percentile_interval, plackett_luce, wilson

Block = list[Outcome]
#: bootstrap resamples of the Plackett-Luce fit (each one is a whole MM fit)
PL_RESAMPLES = 200
#: the campaign's outcomes file unless told otherwise
DEFAULT_RAW = ROOT / "bench/results/baselines.jsonl"


def blocks_of(outcomes: Sequence[Outcome]) -> list[Block]:
    """The outcomes grouped into deal blocks (one table, one deal seed)."""
    groups: dict[tuple[int, int], Block] = defaultdict(list)
    for o in outcomes:
        groups[(o.table, o.block)].append(o)
    return [groups[key] for key in sorted(groups)]


def _mean_points(kind: str) -> Any:
    def statistic(blocks: Sequence[Block]) -> float:
        values = [o.points[o.kinds.index(kind)] for b in blocks for o in b if kind in o.kinds]
        return sum(values) / len(values)

    return statistic


def _pl(blocks: Sequence[Block], items: list[str]) -> list[float]:
    index = {kind: i for i, kind in enumerate(items)}
    rankings = [[index[o.kinds[e]] for e in o.order] for b in blocks for o in b]
    return plackett_luce(rankings, len(items), tol=1e-9)


def _pl_intervals(
    blocks: Sequence[Block], kinds: list[str], resamples: int
) -> list[tuple[float, float]]:
    """Each kind's 95% percentile bootstrap interval of its strength, from the same
    ``resamples`` refits (one fit per resample serves every kind)."""
    fits: list[list[float]] = []

    def statistic(sample: Sequence[Block]) -> float:
        fits.append(_pl(sample, kinds))
        return 0.0

    bootstrap(blocks, statistic, resamples, seed=7)
    return [percentile_interval([fit[i] for fit in fits]) for i in range(len(kinds))]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def heads_up_rows(outcomes: Sequence[Outcome], resamples: int) -> list[str]:
    rows = [
        "| pair (A vs B) | matches | A's win rate | 95% (Wilson) | A's mean points [95% bootstrap] "
        "| B's mean points | mean rounds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    by_table: dict[int, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_table[o.table].append(o)
    for table in sorted(by_table):
        games = by_table[table]
        a, b = games[0].kinds
        blocks = blocks_of(games)
        wins = sum(o.score[0] for o in games)
        low, high = wilson(wins, len(games))
        cells = []
        for kind in (a, b):
            mean = _mean_points(kind)(blocks)
            lo, hi = bootstrap(blocks, _mean_points(kind), resamples, seed=table)
            cells.append(f"{mean:.1f} [{lo:.1f}, {hi:.1f}]")
        rounds = sum(o.rounds for o in games) / len(games)
        rows.append(
            f"| {a} vs {b} | {len(games)} | {_pct(wins / len(games))} "
            f"| [{_pct(low)}, {_pct(high)}] | {cells[0]} | {cells[1]} | {rounds:.2f} |"
        )
    return rows


def four_seat_rows(outcomes: Sequence[Outcome], resamples: int) -> list[str]:
    kinds = list(dict.fromkeys(k for o in outcomes for k in o.kinds))  # as first seen
    blocks = blocks_of(outcomes)
    strength = _pl(blocks, kinds)
    spread = _pl_intervals(blocks, kinds, min(resamples, PL_RESAMPLES))
    rows = [
        "| kind | matches | win rate | 95% (Wilson) | mean points [95% bootstrap] "
        "| mean place | Plackett-Luce strength [95% bootstrap] |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, kind in enumerate(kinds):
        games = [o for o in outcomes if kind in o.kinds]
        wins = sum(o.score[o.kinds.index(kind)] for o in games)
        low, high = wilson(wins, len(games))
        mean = _mean_points(kind)(blocks)
        lo, hi = bootstrap(blocks, _mean_points(kind), resamples, seed=100 + i)
        place = sum(o.order.index(o.kinds.index(kind)) + 1 for o in games) / len(games)
        s_lo, s_hi = spread[i]
        rows.append(
            f"| {kind} | {len(games)} | {_pct(wins / len(games))} | [{_pct(low)}, {_pct(high)}] "
            f"| {mean:.1f} [{lo:.1f}, {hi:.1f}] | {place:.2f} "
            f"| {strength[i]:.3f} [{s_lo:.3f}, {s_hi:.3f}] |"
        )
    return rows


def time_rows(outcomes: Sequence[Outcome]) -> list[str]:
    """Each kind's thinking time per decision (every decision it was asked for, the
    forced ones included), by table size; none for results kept without times."""
    made_of: dict[tuple[str, int], int] = defaultdict(int)
    spent: dict[tuple[str, int], float] = defaultdict(float)
    for o in outcomes:
        for kind, made, seconds in zip(o.kinds, o.decisions, o.seconds, strict=False):
            made_of[(kind, len(o.kinds))] += made
            spent[(kind, len(o.kinds))] += seconds
    if not spent:
        return []
    rows = [
        "| kind | seats | decisions | ms per decision |",
        "|---|---:|---:|---:|",
    ]
    for kind, seats in sorted(spent, key=lambda key: (key[1], key[0])):
        made = made_of[(kind, seats)]
        per = 1000 * spent[(kind, seats)] / made if made else 0.0
        rows.append(f"| {kind} | {seats} | {made:,} | {per:.1f} |")
    return rows


def about_of(kind: str) -> str:
    """What ``kind`` is, with its budget when it has one (``hard:500``, ``ismcts:200``)."""
    prefix, _, arg = kind.partition(":")
    about = KINDS[prefix].about
    if not arg.isdigit():
        return about
    if prefix == "hard":
        about = about.split(", ")[0]  # (its default budget is not this one's)
    return f"{about}, {int(arg):,} simulations per decision"


def section(
    head: dict[str, Any],
    outcomes: Sequence[Outcome],
    resamples: int,
    title: str = "Baselines",
    raw: Path = DEFAULT_RAW,
) -> str:
    """The markdown of the section ``## {title}``; ``raw`` is the outcomes file."""
    two = [o for o in outcomes if len(o.kinds) == 2]
    four = [o for o in outcomes if len(o.kinds) == 4]
    kinds = head.get("kinds", [])
    about = ", ".join(
        f"`{k}` ({about_of(k) if k.partition(':')[0] in KINDS else 'a policy, maumau.eval'})"
        for k in kinds
    )
    main = title == "Baselines"  # the other sections refer to its explanations
    lines = [
        f"## {title}",
        "",
        f"Agent kinds: {about}. Rules: preset `{head.get('preset')}`; every match is a whole "
        "match by the preset's scoring. Each deal seed is played once per seat rotation "
        "(heads-up: 2 matches, 4-seat: 4), so every agent sits in every seat and is dealt "
        "every hand of that deal (duplicate deals); "
        + (
            "the tables played: " + ", ".join(f"`{t}`" for t in head["tables"]) + "."
            if head.get("tables")
            else "heads-up plays every pair of kinds, 4-seat every set of four kinds."
        ),
        "",
    ]
    if not main:
        lines += ["The figures are made as in [Baselines](#baselines).", ""]
    else:
        lines += [
            "How the figures are made (`src/maumau/eval/ratings.py`):",
            "",
            "- **win rate**: a match won counts 1, a shared win 1/k; the 95% interval is "
            "Wilson's score interval over the matches;",
            "- **mean points**: the points left in hand at the end of each round, summed over "
            "the match (the penalty total; lower is better), with a 95% percentile bootstrap "
            f"interval ({resamples} resamples) that resamples whole deal blocks, since the "
            "matches of one deal share their cards;",
            "- **Plackett-Luce strength**: from the 4-seat finishing orders (match score, then "
            "fewer points, then more rounds won; a tie left is broken by a seeded coin), fitted "
            "with Hunter's MM algorithm and scaled to sum 1 (the chance of finishing first "
            "at a table of all kinds); the interval is a percentile bootstrap over deal blocks "
            f"({min(resamples, PL_RESAMPLES)} refits).",
            "",
        ]
    if two:
        lines += ["### Heads-up", "", *heads_up_rows(two, resamples), ""]
    if four:
        lines += ["### 4 seats", "", *four_seat_rows(four, resamples), ""]
    timed = time_rows(outcomes)
    if timed:
        lines += [
            "### Time per decision",
            "",
            "Thinking time as the match runner measured it (`perf_counter` around each "
            "`choose`), on the machine below, while the campaign ran:",
            "",
            *timed,
            "",
        ]
    if main:
        lines += [
            "Other kinds join with `--kinds`: `hard:N` (another budget), `lab-ismcts:N` (the "
            "research ISMCTS of `bench/lab/ismcts.py`), `ismcts:N`, OpenSpiel's own ISMCTS "
            "bot playing through the `python_maumau` registration (`maumau.env.spiel_bot`, "
            "with the heuristic rollouts of `hard`) and `ismcts-random:N` (the same with "
            "uniformly random rollouts); a kind that cannot be made here is skipped with the "
            "reason.",
            "",
        ]
    cpu = head.get("cpu_seconds")
    spent = "" if cpu is None else f", {cpu} s of CPU"
    if cpu is not None and "--resume" in str(head.get("command")):
        spent += (
            " in its last part (it was played in parts with --resume; each part keeps the "
            "blocks played before it)"
        )
    if cpu is None:  # the closing line is written only when every block was played
        lines += [
            "The run was stopped before its end: the tables show the matches it played.",
            "",
        ]
    lines += [
        "Run:",
        "",
        "```bash",
        f"nice -n 10 {head.get('command')}",
        "```",
        "",
        f"maumau {head.get('maumau')} (commit `{head.get('commit')}`), Python "
        f"{head.get('python')}, {head.get('machine')}, {head.get('cpus')} CPUs "
        f"({head.get('jobs', 1)} used), "
        f"started {head.get('started')}"
        + spent
        + f"; seed {head.get('seed')}. Raw outcomes: `{portable(raw)}` (one line per "
        f"match); `uv run python bench/baselines.py --from {portable(raw)}"
        + ("" if title == "Baselines" else f" --section {shlex.quote(title)}")
        + "` writes this section again from them.",
        "",
    ]
    return "\n".join(lines)


def write_section(
    path: Path,
    head: dict[str, Any],
    outcomes: Sequence[Outcome],
    resamples: int,
    title: str = "Baselines",
    raw: Path = DEFAULT_RAW,
) -> None:
    """Put the section into ``path``: replace an existing ``## {title}`` section (up
    to the next ``## `` heading), or append it (creating the file if need be)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark\n\n"
    new = section(head, outcomes, resamples, title, raw)
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: new + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + new
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
