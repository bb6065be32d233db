"""The statistics of an evaluation: 95% intervals and Plackett-Luce strengths
(:mod:`maumau.eval` and the baselines campaign of ``bench/baselines.py``).

* Win rates: the Wilson score interval (``maumau.bots.tournament.wilson``, the one
  ``maumau tournament`` prints), a drawn match counting one half.
* Mean points and Plackett-Luce strengths: a percentile bootstrap that resamples whole
  *deal blocks* (one deal seed with all its seat rotations), because the matches of one
  block share their cards and are not independent.
* Plackett-Luce: each finishing order of a table is read as "the first place was chosen
  among all entries with probability proportional to their strengths, then the second
  among the rest, ...".  The strengths are fitted by Hunter's MM algorithm (Hunter 2004,
  "MM algorithms for generalized Bradley-Terry models", section 5) and scaled to sum 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from maumau.bots.tournament import wilson

__all__ = ["bootstrap", "percentile_interval", "plackett_luce", "wilson"]

T = TypeVar("T")


def bootstrap(
    blocks: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    resamples: int = 1000,
    seed: int = 1,
    level: float = 0.95,
) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic`` over ``blocks`` resampled
    with replacement (``resamples`` times, seeded: the same call gives the same
    interval)."""
    if not blocks:
        raise ValueError("bootstrap: no blocks to resample")
    rng = random.Random(seed)
    n = len(blocks)
    values = [statistic([blocks[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples)]
    return percentile_interval(values, level)


def percentile_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` range of ``values`` (the bootstrap's percentile interval)."""
    ordered = sorted(values)
    tail = (1 - level) / 2
    last = len(ordered) - 1
    return ordered[int(tail * last)], ordered[round((1 - tail) * last)]


def plackett_luce(
    rankings: Sequence[Sequence[int]], items: int, iterations: int = 1000, tol: float = 1e-10
) -> list[float]:
    """Plackett-Luce strengths of ``items`` items (0..items-1) from ``rankings``, each a
    finishing order best first (any subset of the items).  Returns strengths summing to
    1.  An item that never beat anybody has strength 0 (the maximum likelihood estimate
    does not exist then; it is the limit).  Raises ``ValueError`` for an item that is in
    no ranking."""
    wins = [0] * items
    seen = [False] * items
    for ranking in rankings:
        for place, item in enumerate(ranking):
            if not 0 <= item < items:
                raise ValueError(f"plackett_luce: item {item} is not one of 0..{items - 1}")
            seen[item] = True
            if place < len(ranking) - 1:
                wins[item] += 1  # chosen at a stage (the last place is no choice)
    if not all(seen):
        missing = [i for i in range(items) if not seen[i]]
        raise ValueError(f"plackett_luce: items {missing} are in no ranking")
    gamma = [1.0 / items] * items
    for _ in range(iterations):
        denom = [0.0] * items
        for ranking in rankings:
            # the stages j < m-1: the remaining set is ranking[j:]; every item in it gets
            # 1 / (sum of the remaining strengths)
            tail = 0.0
            sums = [0.0] * len(ranking)
            for j in range(len(ranking) - 1, -1, -1):
                tail += gamma[ranking[j]]
                sums[j] = tail
            acc = 0.0
            for j in range(len(ranking) - 1):
                acc += 1.0 / sums[j] if sums[j] > 0 else 0.0
                denom[ranking[j]] += acc
            denom[ranking[-1]] += acc
        new = [wins[i] / denom[i] if denom[i] > 0 else 0.0 for i in range(items)]
        total = sum(new)
        new = [g / total for g in new]
        change = max(abs(a - b) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tol:
            break
    return gamma
