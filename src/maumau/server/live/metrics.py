"""What the server counts for ``/metrics``: plain numbers, kept on the event loop.

The move path is hot (thousands of moves a second), so counting a move is an integer
increment and a histogram observation a bisection and two additions: no lock, no
allocation.  Everything here is only touched from the event loop's thread, so no
lock is needed either.  The figures are turned into Prometheus metrics only when
they are scraped (:mod:`maumau.server.ops.exposition`), and what can be read off the live
tables then (tables by state, connections) is not counted here at all.

This module imports nothing but the standard library: the referee and the stand-in
import it.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from typing import Any

#: seconds from handing a move to the store until every connection was sent its state
MOVE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: seconds a computer player took to choose a move
DECISION_BUCKETS = (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: seconds from a change's commit in one process to its notice handled in another
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Tally:
    """A histogram's counts: one per bucket (a value falls in the first whose upper
    bound it does not exceed; the last is for values above every bound), and the sum."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.total += value

    def buckets(self) -> list[tuple[str, float]]:
        """Cumulative counts by upper bound, as Prometheus has them (``+Inf`` last)."""
        cumulative: list[tuple[str, float]] = []
        running = 0
        for bound, count in zip((*self.bounds, float("inf")), self.counts, strict=True):
            running += count
            cumulative.append(("+Inf" if bound == float("inf") else repr(bound), running))
        return cumulative


class Counts:
    """One server's counters and histograms (one per app: tests run several apps in
    one process)."""

    def __init__(self) -> None:
        #: moves committed by this process (players', computer players', stand-ins')
        self.moves = 0
        self.move_seconds = Tally(MOVE_BUCKETS)
        #: bot decision times by level
        self.decisions: dict[str, Tally] = {}
        #: refusals sent to clients, by error code (the codes are the server's own:
        #: a bounded set, whatever clients send)
        self.refusals: dict[str, int] = {}
        self.reconnects = 0
        self.takeovers = 0
        self.notify_lag = Tally(LAG_BUCKETS)
        #: the seat identities that have had a connection at each live table here
        self._seen: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()

    def moved(self, seconds: float) -> None:
        """A move was committed and its state sent to every connection, ``seconds``
        after it was handed to the store."""
        self.moves += 1
        tally = self.move_seconds  # (Tally.observe, inlined: every move comes here)
        tally.counts[bisect_left(tally.bounds, seconds)] += 1
        tally.total += seconds

    def decided(self, level: str, seconds: float) -> None:
        """A computer player of ``level`` chose a move in ``seconds``."""
        tally = self.decisions.get(level)
        if tally is None:
            tally = self.decisions[level] = Tally(DECISION_BUCKETS)
        tally.observe(seconds)

    def refused(self, code: str) -> None:
        """A client was refused with the error ``code``."""
        self.refusals[code] = self.refusals.get(code, 0) + 1

    def greeted(self, table: object, key: str | None) -> None:
        """A connection said hello to ``table`` (its referee) for the seat whose
        identity is ``key`` (``None``: a spectator).  A seat that had a connection at
        this table in this process before, since the table was loaded here, counts
        as a reconnect."""
        if key is None:
            return
        seen = self._seen.get(table)
        if seen is None:
            self._seen[table] = {key}
        elif key in seen:
            self.reconnects += 1
        else:
            seen.add(key)

    def took_over(self) -> None:
        """A stand-in took over the seat of a player who stayed away."""
        self.takeovers += 1


#: where the counts of a referee that belongs to no hub go (tests build such referees)
UNCOUNTED = Counts()
