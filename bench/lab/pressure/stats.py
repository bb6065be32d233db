"""Latency samples and their percentiles.

A sample is the moment a request (or a move) was sent and how long its answer took;
one that got no answer (none in time, or its connection refused or dropped) counts as
infinitely slow, so that a percentile says "no answer" instead of leaving the worst
requests out.  Samples belong to the phase
in which they were sent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

INF = math.inf
NO_ANSWER = "no answer"


@dataclass(frozen=True, slots=True)
class Sample:
    sent: float  # monotonic seconds
    seconds: float  # INF: no answer in time


def percentile(values: Sequence[float], p: float) -> float | None:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``values``; ``None`` for
    none.  ``INF`` (no answer) sorts last."""
    if not values:
        return None
    if not 0 < p <= 100:
        raise ValueError(f"percentile {p} is not in (0, 100]")
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def within(samples: Iterable[Sample], start: float, end: float) -> list[float]:
    """The latencies of the samples sent in ``[start, end)``."""
    return [s.seconds for s in samples if start <= s.sent < end]


def summary(values: Sequence[float]) -> dict[str, Any]:
    """Count, unanswered, p50, p99 and max in milliseconds (``None`` where there is
    nothing to say, ``NO_ANSWER`` where the percentile fell on a request unanswered)."""

    def ms(value: float | None) -> float | str | None:
        if value is None:
            return None
        return NO_ANSWER if value == INF else round(value * 1000, 1)

    return {
        "n": len(values),
        "unanswered": sum(1 for v in values if v == INF),
        "p50_ms": ms(percentile(values, 50)),
        "p99_ms": ms(percentile(values, 99)),
        "max_ms": ms(max(values) if values else None),
    }


def ratio(value: float | str | None, quiet: float | str | None) -> float | str | None:
    """``value`` / ``quiet`` (two summary figures in ms), or ``None`` / ``NO_ANSWER``."""
    if value == NO_ANSWER:
        return NO_ANSWER
    if not isinstance(value, (int, float)) or not isinstance(quiet, (int, float)) or quiet <= 0:
        return None
    return round(value / quiet, 1)


def show_ms(value: float | str | None) -> str:
    """A summary figure as a table shows it."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def show_ratio(value: float | str | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:,.0f}x" if value >= 100 else f"{value:.1f}x"
