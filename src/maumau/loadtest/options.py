"""What a load run is asked to do: the command line's choices, picklable for the
client processes."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: table settings for load tables: no computer player, no countdown, no stand-in
TABLE_SETTINGS: dict[str, Any] = {
    "bot_delay_ms": 0,
    "next_round_seconds": 0,
    "grace_seconds": None,
}


@dataclass(frozen=True)
class Endpoint:
    """One server process: where its HTTP API and its WebSockets are."""

    host: str
    port: int
    base: str  # "http://host:port", without a trailing slash

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme != "http":
            raise ValueError(f"{url}: only http:// servers are supported (no TLS)")
        if not parts.hostname:
            raise ValueError(f"{url}: no host")
        port = parts.port or 80
        host = parts.hostname
        shown = f"[{host}]" if ":" in host else host
        return cls(host=host, port=port, base=f"http://{shown}:{port}")

    def ws_url(self, game_id: str) -> str:
        return f"ws{self.base[4:]}/ws/{game_id}"


@dataclass(frozen=True)
class LoadOptions:
    """Every choice of one load run (see ``maumau loadtest --help``)."""

    urls: tuple[str, ...]
    games: int = 10
    players: int = 4
    duration: float = 20.0
    warmup: float = 3.0
    preset: str = "standard"
    #: offered moves per second over the whole run; ``None``: closed loop
    rate: float | None = None
    compression: bool = True
    procs: int = field(default_factory=lambda: os.cpu_count() or 1)
    #: ``"game"``: all seats of a game on one server; ``"seat"``: seats round-robin
    spread: str = "game"
    server_pids: tuple[int, ...] = ()
    ledger: str | None = None
    json_path: str | None = None
    seed: int | None = None
    #: a seat's move not answered for this long counts as a timeout (reconnect)
    move_timeout: float = 15.0
    #: a game with no new state for this long (nobody reconnecting) is given up
    stall_timeout: float = 30.0
    #: how long a client keeps trying to reconnect after its connection dropped
    reconnect_for: float = 60.0

    def __post_init__(self) -> None:
        if not self.urls:
            raise ValueError("give at least one --url")
        for url in self.urls:
            Endpoint.parse(url)
        if self.games < 1:
            raise ValueError("--games must be at least 1")
        if not 2 <= self.players <= 8:
            raise ValueError("--players must be between 2 and 8")
        if self.duration <= 0 or self.warmup < 0:
            raise ValueError("--duration must be positive and --warmup not negative")
        if self.rate is not None and not self.rate > 0:
            raise ValueError("--rate must be positive")
        if self.procs < 1:
            raise ValueError("--procs must be at least 1")
        if self.spread not in ("game", "seat"):
            raise ValueError("--spread is game or seat")

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(Endpoint.parse(url) for url in self.urls)

    @property
    def mode(self) -> str:
        return "closed" if self.rate is None else "rate"

    @property
    def clients(self) -> int:
        return self.games * self.players

    @property
    def workers(self) -> int:
        """Client processes actually used: no more than there are games."""
        return min(self.procs, self.games)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["urls"] = list(self.urls)
        out["server_pids"] = list(self.server_pids)
        out["mode"] = self.mode
        out["clients"] = self.clients
        return out
