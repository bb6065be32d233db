"""A throwaway PostgreSQL cluster for the tests, and a fresh database per test.

``pg_url`` (session): the cluster's ``postgres`` database, started once with initdb and
pg_ctl from the newest ``/usr/lib/postgresql/*/bin`` and removed afterwards (the
cluster is ``bench/lab/postgres.py``'s, which the campaigns use too).  Tests that need
it are skipped, with the reason, when no PostgreSQL server is installed (``apt-get
install -y postgresql``) or the cluster does not start.

``pg_db_url`` (function): a new, empty database in that cluster, dropped after the test.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
import uuid
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from lab.postgres import NOTHING_DURABLE, Cluster, ClusterError, ClusterUnavailable


def _failure(exc: BaseException) -> str:
    if isinstance(exc, ClusterError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def run_sync(coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro`` to the end on its own event loop in its own thread.

    Works from sync fixtures whatever loop the test framework has going.
    """
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coro)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


async def pg_admin(url: str, *statements: str) -> None:
    """Run ``statements`` on the PostgreSQL database at ``url`` (autocommit)."""
    conn = await asyncpg.connect(url, timeout=10)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of the ``postgres`` database of a throwaway cluster (superuser, no password)."""
    try:
        cluster = Cluster("pgtest-", NOTHING_DURABLE)
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    try:
        cluster.init()
        cluster.start()
    except (ClusterError, OSError, LookupError, subprocess.TimeoutExpired) as exc:
        reason = f"PostgreSQL test cluster did not start: {_failure(exc)}{_log_tail(cluster.log)}"
        cluster.remove("immediate")
        pytest.skip(reason)
    try:
        yield cluster.url()
    finally:
        cluster.remove("immediate")


def _log_tail(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | server log: " + " / ".join(lines[-5:]) if lines else ""


@pytest.fixture
def pg_db_url(pg_url: str) -> Iterator[str]:
    """URL of a new, empty database in the test cluster (dropped after the test)."""
    name = f"t_{uuid.uuid4().hex}"
    run_sync(pg_admin(pg_url, f'CREATE DATABASE "{name}"'))
    try:
        yield pg_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        run_sync(pg_admin(pg_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
