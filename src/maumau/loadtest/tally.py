"""What a client process counts, and how the parent adds the processes up.

Only what happens inside the measuring window (after the warm-up) counts toward the
figures; errors outside it are kept apart so that none goes unseen.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

INF = math.inf


class Tally:
    """The counters of one client process."""

    def __init__(self) -> None:
        self.start = INF  # the window, in time.monotonic() seconds
        self.end = INF
        self.moves = 0  # moves acknowledged inside the window
        self.duplicates = 0  # of which acknowledged as duplicates (after a resend)
        self.latencies = array("d")  # ms, move sent -> newer state, inside the window
        self.errors: Counter[str] = Counter()
        self.errors_outside: Counter[str] = Counter()  # setup, warm-up, wind-down
        self.games_started = 0
        self.games_finished = 0
        self.reconnects = 0
        self.resent = 0
        self.setup_ms = array("d")  # a table's setup: create, seats, sockets, start
        self.acked_total = 0  # every acknowledged move, also outside the window

    def inside(self, t: float) -> bool:
        return self.start <= t < self.end

    def move(self, t: float, duplicate: bool) -> None:
        self.acked_total += 1
        if self.start <= t < self.end:
            self.moves += 1
            if duplicate:
                self.duplicates += 1

    def latency(self, t: float, seconds: float) -> None:
        if self.start <= t < self.end:
            self.latencies.append(seconds * 1000.0)

    def error(self, t: float, code: str) -> None:
        if self.start <= t < self.end:
            self.errors[code] += 1
        else:
            self.errors_outside[code] += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "duplicates": self.duplicates,
            "latencies": list(self.latencies),
            "errors": dict(self.errors),
            "errors_outside": dict(self.errors_outside),
            "games_started": self.games_started,
            "games_finished": self.games_finished,
            "reconnects": self.reconnects,
            "resent": self.resent,
            "setup_ms": list(self.setup_ms),
            "acked_total": self.acked_total,
        }


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0 to 100) of sorted values, by the nearest rank;
    ``None`` for no values."""
    if not ordered:
        return None
    rank = math.ceil(q / 100.0 * len(ordered))
    return ordered[min(max(rank, 1), len(ordered)) - 1]


def summarize(values: Iterable[float]) -> dict[str, float | int | None]:
    """Count, mean and the percentiles that matter for latency, in the values' unit."""
    ordered = sorted(values)
    n = len(ordered)
    return {
        "count": n,
        "mean": sum(ordered) / n if n else None,
        "p50": percentile(ordered, 50),
        "p95": percentile(ordered, 95),
        "p99": percentile(ordered, 99),
        "max": ordered[-1] if n else None,
    }


def merge(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The client processes' tallies (``Tally.to_json``) added up."""
    total: dict[str, Any] = {}
    for key in ("moves", "duplicates", "games_started", "games_finished", "reconnects"):
        total[key] = sum(int(p[key]) for p in parts)
    total["resent"] = sum(int(p["resent"]) for p in parts)
    total["acked_total"] = sum(int(p["acked_total"]) for p in parts)
    errors: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    for p in parts:
        errors.update(p["errors"])
        outside.update(p["errors_outside"])
    total["errors"] = dict(sorted(errors.items()))
    total["errors_outside"] = dict(sorted(outside.items()))
    total["latency_ms"] = summarize(v for p in parts for v in p["latencies"])
    total["setup_ms"] = summarize(v for p in parts for v in p["setup_ms"])
    wire = ("bytes", "messages", "deflated")
    total["wire"] = {key: sum(int(p["wire"][key]) for p in parts) for key in wire}
    return total
