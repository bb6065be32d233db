"""Tournaments: many whole matches between bot levels, with seats rotated and figures
that say how strong each level is (win rate with a Wilson 95% interval)."""

from __future__ import annotations

import math
import multiprocessing
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maumau.bots import make_bot
from maumau.bots.match import play_match
from maumau.engine import Rules
from maumau.engine.replay import record_of


@dataclass(slots=True)
class Standing:
    """One entry's figures over a tournament (an entry is one place in ``--seats``)."""

    label: str
    level: str
    matches: int = 0
    score: float = 0.0  # a match won counts 1, a drawn match 1/2
    totals: int = 0
    rounds_won: int = 0
    rounds: int = 0
    times: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.score / self.matches if self.matches else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The Wilson score interval of the win rate (95% by default)."""
        return wilson(self.score, self.matches, z)

    def time_stats(self) -> tuple[float, float]:
        """Mean and 95th percentile of the decision time, in seconds."""
        if not self.times:
            return 0.0, 0.0
        ordered = sorted(self.times)
        p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
        return sum(ordered) / len(ordered), p95


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def labels_for(levels: Sequence[str]) -> list[str]:
    """``hard, normal, normal`` → ``hard, normal#1, normal#2``."""
    out = []
    for i, level in enumerate(levels):
        same = [j for j, other in enumerate(levels) if other == level]
        out.append(level if len(same) == 1 else f"{level}#{same.index(i) + 1}")
    return out


@dataclass(frozen=True, slots=True)
class MatchJob:
    index: int
    levels: tuple[str, ...]
    rules: Rules
    seed: int
    records: str | None


@dataclass(slots=True)
class MatchSummary:
    index: int
    #: per entry (not per seat): score, total, rounds won, decision times
    score: list[float]
    totals: list[int]
    rounds_won: list[int]
    rounds: int
    times: list[list[float]]


def play_job(job: MatchJob) -> MatchSummary:
    """Play match ``job.index``: seats are rotated by the index, so over ``n`` matches
    every entry sits in every seat once, with the same deals."""
    n = len(job.levels)
    shift = job.index % n
    entry_of_seat = [(seat + shift) % n for seat in range(n)]
    rng = random.Random(f"maumau-tournament-{job.seed}-{job.index}")
    bots = [make_bot(job.levels[e], rng.getrandbits(63)) for e in entry_of_seat]
    names = [labels_for(job.levels)[e] for e in entry_of_seat]
    # duplicate deals: the n matches of a rotation get the same round seeds, so every
    # entry is dealt every seat's cards once and luck evens out
    deals = random.Random(f"maumau-tournament-deals-{job.seed}-{job.index // n}")
    result, game = play_match(bots, job.rules, deals.getrandbits(63), names)
    summary = MatchSummary(
        job.index, [0.0] * n, [0] * n, [0] * n, result.rounds, [[] for _ in range(n)]
    )
    for seat, entry in enumerate(entry_of_seat):
        if seat in result.winners:
            summary.score[entry] = 0.5 if result.draw else 1.0
        summary.totals[entry] = result.totals[seat]
        summary.rounds_won[entry] = result.rounds_won[seat]
        summary.times[entry] = result.times[seat]
    if job.records is not None:
        path = Path(job.records) / f"match-{job.index:05d}.json"
        path.write_text(record_of(game).dumps(), encoding="utf-8")
    return summary


def run_tournament(
    levels: Sequence[str],
    rules: Rules,
    matches: int,
    seed: int = 1,
    jobs: int = 1,
    records: Path | None = None,
    on_match: Callable[[MatchSummary], None] | None = None,
) -> list[Standing]:
    """Play ``matches`` whole matches and return one :class:`Standing` per entry.  The
    same arguments give the same results, whatever ``jobs`` is."""
    for level in levels:
        make_bot(level)  # refuse unknown levels before starting anything
    rules.check_players(len(levels))
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    work = [
        MatchJob(i, tuple(levels), rules, seed, None if records is None else str(records))
        for i in range(matches)
    ]
    standings = [
        Standing(label, level) for label, level in zip(labels_for(levels), levels, strict=True)
    ]
    for summary in _run(work, jobs):
        for entry, standing in enumerate(standings):
            standing.matches += 1
            standing.score += summary.score[entry]
            standing.totals += summary.totals[entry]
            standing.rounds_won += summary.rounds_won[entry]
            standing.rounds += summary.rounds
            standing.times.extend(summary.times[entry])
        if on_match is not None:
            on_match(summary)
    return standings


def _run(work: list[MatchJob], jobs: int) -> Iterator[MatchSummary]:
    if jobs <= 1:
        yield from map(play_job, work)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap_unordered(play_job, work, chunksize=1)


def standings_json(standings: Sequence[Standing]) -> list[dict[str, Any]]:
    """The figures of a tournament as JSON-ready rows."""
    rows = []
    for s in standings:
        low, high = s.interval()
        mean, p95 = s.time_stats()
        rows.append(
            {
                "entry": s.label,
                "level": s.level,
                "matches": s.matches,
                "win_rate": round(s.win_rate, 4),
                "ci95": [round(low, 4), round(high, 4)],
                "avg_total": round(s.totals / s.matches, 2) if s.matches else 0.0,
                "avg_rounds_won": round(s.rounds_won / s.matches, 3) if s.matches else 0.0,
                "decision_ms_mean": round(mean * 1000, 3),
                "decision_ms_p95": round(p95 * 1000, 3),
            }
        )
    return rows
