"""A throwaway PostgreSQL cluster, for the campaigns and the tests.

initdb and pg_ctl of the newest installed server (``/usr/lib/postgresql/*/bin``), run
as the ``postgres`` user when we are root, on a free port of 127.0.0.1, with its socket
and its files in a temporary directory of its own (the ``postgres`` user must be able to
reach it).  Used by the server matrix (``bench/server.py``), the fault campaign
(``bench/faults.py``) and the tests' fixtures (``tests/support/pg.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.ports import free_port

NOT_INSTALLED = "PostgreSQL server not installed (apt-get install -y postgresql)"

#: server settings (``-c name=value``) over PostgreSQL's defaults.  None: its default
#: durability (fsync on, synchronous_commit on)
DURABLE: tuple[str, ...] = ()
#: faster, and still safe for stops of PostgreSQL itself (not of the machine): a commit
#: has reached the kernel when it returns.  synchronous_commit stays on: with it off a
#: stop -m immediate loses the last commits.
NO_FSYNC = ("fsync=off", "full_page_writes=off")
#: nothing has to survive even a stop of PostgreSQL (the tests)
NOTHING_DURABLE = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")


class ClusterError(Exception):
    """initdb or pg_ctl failed."""


class ClusterUnavailable(ClusterError):
    """No PostgreSQL cluster could be set up here (not installed, or it did not start)."""


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))


def pg_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` that has initdb."""
    bins = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()]
    return max(bins, key=_version) if bins else None


class Cluster:
    """A throwaway PostgreSQL cluster in a new temporary directory named ``prefix...``,
    with the server settings ``config`` (``DURABLE``, ``NO_FSYNC``, ``NOTHING_DURABLE``).

    ``init()`` then ``start()``; ``stop()`` and ``start()`` again as often as wanted;
    ``remove()`` at the end.  Raises :class:`ClusterUnavailable` when no PostgreSQL
    server is installed (before it makes its directory)."""

    def __init__(self, prefix: str, config: Sequence[str] = DURABLE) -> None:
        found = pg_bin()
        if found is None:
            raise ClusterUnavailable(NOT_INSTALLED)
        self.bin = found
        self.base = Path(tempfile.mkdtemp(prefix=prefix))
        self.data = self.base / "data"
        self.log = self.base / "log"
        self.port = free_port()
        self.config = tuple(config)
        self.running = False

    def _run(self, *cmd: str, timeout: float = 120.0) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        try:
            subprocess.run(
                [*prefix, *cmd],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=timeout,
            )
        except subprocess.CalledProcessError as exc:
            stderr = exc.stderr.decode(errors="replace").strip() if exc.stderr else ""
            raise ClusterError(f"{Path(cmd[0]).name} failed ({exc.returncode}): {stderr}") from None

    def init(self) -> None:
        """initdb (as the ``postgres`` user when we are root)."""
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
            os.chmod(self.base, 0o755)
        # --no-sync only skips initdb's own final flush of the new files; the server
        # itself runs with the settings of ``config``
        self._run(
            str(self.bin / "initdb"),
            *("-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"),
            *("-E", "UTF8", "--locale=C.UTF-8"),
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1"
        options += "".join(f" -c {setting}" for setting in self.config)
        self._run(
            str(self.bin / "pg_ctl"),
            *("-D", str(self.data), "-l", str(self.log), "-w", "-o", options, "start"),
        )
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
        self.running = False

    def postmaster(self) -> int | None:
        """The pid of the cluster's main process (its children are the backends)."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def sql(self, *statements: str) -> list[Any]:
        """Run ``statements`` (autocommit); the first column of each one's first row."""

        async def run() -> list[Any]:
            import asyncpg

            conn = await asyncpg.connect(self.url(), timeout=10)
            try:
                return [await conn.fetchval(statement) for statement in statements]
            finally:
                await conn.close()

        return asyncio.run(run())

    def settings(self) -> dict[str, str]:
        names = (
            "server_version",
            "fsync",
            "synchronous_commit",
            "full_page_writes",
            "wal_sync_method",
            "max_connections",
        )
        values = self.sql(*(f"SHOW {name}" for name in names))
        return dict(zip(names, (str(v) for v in values), strict=True))

    def create_database(self, name: str) -> str:
        """A new database in the cluster; its URL."""
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self, mode: str = "fast", keep: bool = False) -> None:
        """Stop the cluster (``pg_ctl stop -m mode``, a failure ignored); delete its
        files unless ``keep``."""
        if self.running:
            with contextlib.suppress(ClusterError, subprocess.TimeoutExpired):
                self.stop(mode)
            self.running = False
        if not keep:
            shutil.rmtree(self.base, ignore_errors=True)
