"""What every load client of one process shares: the counters, the ledger, the
random generator, the action ids and the run's timing choices."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Protocol

from maumau.loadtest.choice import ActionIds
from maumau.loadtest.ledger import Ledger
from maumau.loadtest.lobby import HttpClient
from maumau.loadtest.options import Endpoint, LoadOptions
from maumau.loadtest.tally import Tally
from maumau.loadtest.wire import Traffic


class PlayedGame(Protocol):
    """A load table being played (:class:`maumau.loadtest.slot.LiveGame`), as its seats'
    clients and the process's ticker see it."""

    started: bool
    over: bool
    #: when the game last moved on (monotonic seconds)
    progress: float

    def finish(self, now: float) -> None: ...

    def abandon(self, code: str) -> None: ...

    def check(self, now: float) -> None: ...

    def close(self) -> None: ...


@dataclass
class ClientContext:
    """The shared state of one client process (one event loop)."""

    options: LoadOptions
    rng: random.Random
    ids: ActionIds
    ledger: Ledger
    #: mean think time in seconds; ``None``: closed loop, no think time
    think: float | None
    tally: Tally = field(default_factory=Tally)
    traffic: Traffic = field(default_factory=Traffic)
    games: set[PlayedGame] = field(default_factory=set)
    #: background tasks (reconnects) kept referenced until they end
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    http: dict[Endpoint, HttpClient] = field(default_factory=dict)
    stopping: bool = False

    def http_for(self, endpoint: Endpoint) -> HttpClient:
        client = self.http.get(endpoint)
        if client is None:
            client = self.http[endpoint] = HttpClient(endpoint)
        return client

    def spawn(self, job: asyncio.Task[None]) -> None:
        self.tasks.add(job)
        job.add_done_callback(self.tasks.discard)
