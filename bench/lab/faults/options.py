"""What a campaign is told: the load, the faults, their timing."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    seed: int = 1
    kills: int = 10
    games: int = 30
    players: int = 4
    rate: float | None = None
    procs: int = 2
    probe_tables: int = 3
    up: tuple[float, float] = (2.0, 5.0)  # seconds a server runs before the next kill
    pause: tuple[float, float] = (0.3, 1.5)  # seconds dead before the restart
    start_timeout: float = 90.0
    pg_servers: int = 2
    pg_kills: int = 4
    pg_stops: int = 3
    pg_spread: str = "seat"
    stop_for: tuple[float, float] = (2.0, 5.0)  # seconds PostgreSQL stays down
    pg_durable: bool = True
    keep: bool = False  # keep the PostgreSQL cluster's files (with --workdir)
    tail: float = 8.0  # seconds of load after the last fault
    #: wait for the load tool's run to end (its figures); else stop it after the tail
    wait_for_load: bool = True
    #: (without wait_for_load) after the tail, keep the load on until its ledger holds
    #: this many acknowledged moves, for at most ``start_timeout`` seconds more: a count
    #: of moves, not of seconds, however busy the machine
    tail_moves: int = 0
    #: check what a hello during a pending commit shows (SQLite; holds its write lock)
    pending_check: bool = True
