"""The servers under test, as one: ``maumau serve`` on its SQLite file, or (``database
postgresql``) a throwaway PostgreSQL cluster and two ``maumau serve`` processes of the
tree on one database of it, as a site with several processes runs.

Every figure the campaign samples is the sum over the processes (CPU, memory, open
files); they write to one log file, so that a phase's log lines are those of both.
The first process is "A": the human table is created there, its host and second
player connect there, its other two players to "B".
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.postgres import NO_FSYNC, Cluster, ClusterError
from lab.pressure import server as serving

DATABASES = ("sqlite", "postgresql")
#: the database in the throwaway cluster
DATABASE_NAME = "maumau"


@dataclass
class Fleet:
    servers: list[serving.Server]
    cluster: Cluster | None = None
    database: str = "sqlite"
    exits: list[int | None] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.servers[0].url

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.servers]

    @property
    def wss(self) -> list[str]:
        return [server.ws for server in self.servers]

    def alive(self) -> bool:
        return all(server.alive() for server in self.servers)

    def nofile(self) -> tuple[int, int] | None:
        return self.servers[0].nofile()

    def _total(self, figures: list[Any]) -> Any:
        return None if any(f is None for f in figures) else round(sum(figures), 2)

    def cpu_seconds(self) -> float | None:
        total: float | None = self._total([s.cpu_seconds() for s in self.servers])
        return total

    def rss_mb(self) -> float | None:
        total: float | None = self._total([s.rss_mb() for s in self.servers])
        return total

    def open_files(self) -> int | None:
        total: int | None = self._total([s.open_files() for s in self.servers])
        return total

    def log_length(self) -> int:
        return self.servers[0].log_length()  # (one log for all)

    def log_problems(self, start: int = 0, end: int | None = None) -> dict[str, Any]:
        return self.servers[0].log_problems(start, end)

    def stop(self) -> int | None:
        """Stop every process, then the cluster; the first non-zero exit code (all of
        them in :attr:`exits`)."""
        self.exits = [server.stop() for server in self.servers]
        if self.cluster is not None:
            self.cluster.remove()
        return next((code for code in self.exits if code), self.exits[0])


def start(
    source: Path, data_dir: Path, log: Path, database: str, seed: dict[str, Any]
) -> tuple[Fleet, dict[str, Any]]:
    """Seed the database with the long game (``seed``: :func:`serving.seed`'s
    arguments after ``data_dir``), start the servers; the fleet and what seeding said."""
    if database == "sqlite":
        seeded = serving.seed(source, data_dir, **seed)
        return Fleet([serving.start(source, data_dir, log)]), seeded
    if database != "postgresql":
        raise ValueError(f"database is one of {', '.join(DATABASES)}, not {database!r}")
    try:
        cluster = Cluster("maumau-pressure-pg-", NO_FSYNC)
    except ClusterError as exc:
        raise serving.ServerError(str(exc)) from None
    servers: list[serving.Server] = []
    try:
        cluster.init()
        cluster.start()
        url = cluster.create_database(DATABASE_NAME)
        seeded = serving.seed(source, data_dir, **seed, database_url=url)
        for name in ("a", "b"):
            servers.append(
                serving.start(source, data_dir / name, log, database_url=url)
            )  # (each its own data directory: nothing of it is shared but the database)
    except (ClusterError, OSError, serving.ServerError) as exc:
        for server in servers:
            server.stop()
        with contextlib.suppress(Exception):
            cluster.remove("immediate")
        if isinstance(exc, serving.ServerError):
            raise
        raise serving.ServerError(f"PostgreSQL: {exc}") from None
    return Fleet(servers, cluster, database), seeded
