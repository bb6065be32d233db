"""``/metrics``: the server's figures in the Prometheus text format (docs/metrics.md).

Every app has a registry of its own (:func:`registry_for`), never the library's
global one: tests run several apps in one process.  Its collector reads the counts
(:mod:`maumau.server.live.metrics`) and the live tables when it is scraped; the process's
own figures (CPU, memory, open files) come from ``prometheus_client``'s
``ProcessCollector``.  The registry is served on a port of its own
(:mod:`maumau.server.ops.metrics_server`), not on the public one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from maumau import __version__
from maumau.server.live.metrics import Counts, Tally

if TYPE_CHECKING:
    from maumau.server.live.hub import Hub

#: the table states counted (a closed table leaves memory at once)
STATES = ("lobby", "playing", "finished")


def registry_for(
    counts: Counts, hub: Callable[[], Hub | None], pending: Callable[[], int]
) -> CollectorRegistry:
    """A new registry of the server's metrics: ``counts``, the live tables of
    ``hub()`` (``None`` before the app started), and ``pending()`` sockets that have
    not said hello."""
    registry = CollectorRegistry(auto_describe=True)
    registry.register(ServerCollector(counts, hub, pending))
    ProcessCollector(registry=registry)
    return registry


class ServerCollector(Collector):
    """The ``maumau_*`` metrics, made when scraped."""

    def __init__(
        self, counts: Counts, hub: Callable[[], Hub | None], pending: Callable[[], int]
    ) -> None:
        self.counts = counts
        self.hub = hub
        self.pending = pending

    def collect(self) -> Iterator[Metric]:
        counts = self.counts
        build = GaugeMetricFamily(
            "maumau_build_info", "The server's version (the value is always 1)", labels=["version"]
        )
        build.add_metric([__version__], 1)
        yield build
        yield from self.live()
        yield _counter("maumau_moves_committed", "Moves committed by this process", counts.moves)
        yield _histogram(
            "maumau_move_commit_broadcast_seconds",
            "Seconds from handing a move to the store until every connection of its "
            "table was sent the new state",
            {(): counts.move_seconds},
        )
        yield _histogram(
            "maumau_bot_decision_seconds",
            "Seconds a computer player took to choose a move, by level",
            {(level,): tally for level, tally in sorted(counts.decisions.items())},
            ["level"],
        )
        refusals = CounterMetricFamily(
            "maumau_refusals",
            "Refusals sent to clients (HTTP and WebSocket), by code",
            labels=["code"],
        )
        for code, count in sorted(counts.refusals.items()):
            refusals.add_metric([code], count)
        yield refusals
        yield _counter(
            "maumau_reconnects",
            "Hellos for a seat that had a connection at its table in this process before",
            counts.reconnects,
        )
        yield _counter(
            "maumau_stand_in_takeovers",
            "Seats a stand-in took over after their player stayed away for the grace period",
            counts.takeovers,
        )
        yield _histogram(
            "maumau_notify_lag_seconds",
            "Seconds from a change's commit in another process to its notice handled here "
            "(PostgreSQL)",
            {(): counts.notify_lag},
        )

    def live(self) -> Iterator[Metric]:
        """What the live tables show now: tables by state, connections, store errors,
        the bot workers' use."""
        hub = self.hub()
        states = dict.fromkeys(STATES, 0)
        seated = spectating = 0
        errors = 0
        listening: float | None = None
        worker_seconds = overdrawn = waiting = 0.0
        if hub is not None:
            for referee in list(hub.referees.values()):
                status = referee.table.status
                states[status] = states.get(status, 0) + 1
                for conn in referee.connections:
                    if conn.seat is None:
                        spectating += 1
                    else:
                        seated += 1
            errors = hub.store.errors
            if hub.listener is not None:
                listening = 1.0 if hub.listener.connected else 0.0
            budget = hub.budget
            worker_seconds, overdrawn = budget.worker_seconds, budget.overdrawn
            waiting = budget.workers.turns.queued()
        tables = GaugeMetricFamily(
            "maumau_tables", "Tables in this process's memory, by state", labels=["state"]
        )
        for state, count in states.items():
            tables.add_metric([state], count)
        yield tables
        connections = GaugeMetricFamily(
            "maumau_connections",
            "Open WebSockets: seated players, spectators, and sockets that have not said hello yet",
            labels=["kind"],
        )
        connections.add_metric(["seated"], seated)
        connections.add_metric(["spectating"], spectating)
        connections.add_metric(["pending"], self.pending())
        yield connections
        yield _counter(
            "maumau_store_errors",
            "Database operations that failed (the database was unavailable)",
            errors,
        )
        yield _counter(
            "maumau_bot_worker_seconds",
            "Worker seconds the hard bots' decisions used (metered per table and address)",
            worker_seconds,
        )
        yield _counter(
            "maumau_bot_worker_overdrawn",
            "Hard decisions after which their table or its creator owed worker time "
            "(the table's next computer move waited)",
            overdrawn,
        )
        yield GaugeMetricFamily(
            "maumau_bot_decisions_waiting",
            "Hard decisions waiting for their turn at a worker",
            value=waiting,
        )
        if listening is not None:
            yield GaugeMetricFamily(
                "maumau_listener_connected",
                "Whether the PostgreSQL change-notice listener is connected (1) or not (0)",
                value=listening,
            )


def _counter(name: str, documentation: str, value: float) -> CounterMetricFamily:
    # (the library adds the _total of a counter's sample itself)
    return CounterMetricFamily(name, documentation, value=value)


def _histogram(
    name: str,
    documentation: str,
    tallies: dict[tuple[str, ...], Tally],
    labels: list[str] | None = None,
) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, documentation, labels=labels or [])
    for values, tally in tallies.items():
        family.add_metric(list(values), tally.buckets(), tally.total)
    return family
