"""A throwaway PostgreSQL cluster for the tests, and a fresh database per test.

``pg_url`` (session): the cluster's ``postgres`` database, started once with initdb and
pg_ctl from the newest ``/usr/lib/postgresql/*/bin`` and removed afterwards.  Tests that
need it are skipped, with the reason, when no PostgreSQL server is installed
(``apt-get install -y postgresql``) or the cluster does not start.

``pg_db_url`` (function): a new, empty database in that cluster, dropped after the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))


def _pg_bin() -> Path | None:
    bins = [path for path in Path("/usr/lib/postgresql").glob("*/bin") if path.is_dir()]
    bins = [path for path in bins if (path / "initdb").exists()]
    return max(bins, key=_version) if bins else None


PG_BIN = _pg_bin()


def _as_postgres(*cmd: str) -> None:
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*prefix, *cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _failure(exc: BaseException) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        stderr = exc.stderr.decode(errors="replace").strip() if exc.stderr else ""
        return f"{' '.join(map(str, exc.cmd))} failed ({exc.returncode}): {stderr}"
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
    if PG_BIN is None or shutil.which("initdb", path=str(PG_BIN)) is None:
        pytest.skip("PostgreSQL server not installed (apt-get install -y postgresql)")
    base = Path(tempfile.mkdtemp(prefix="pgtest-"))
    data = base / "data"
    started = False
    try:
        if os.geteuid() == 0:
            shutil.chown(base, "postgres", "postgres")
            os.chmod(base, 0o755)
        port = _free_port()
        _as_postgres(
            str(PG_BIN / "initdb"),
            *("-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"),
            *("-E", "UTF8", "--locale=C.UTF-8"),
        )
        options = (
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        _as_postgres(
            str(PG_BIN / "pg_ctl"),
            *("-D", str(data), "-l", str(base / "log"), "-w", "-o", options, "start"),
        )
        started = True
    except (subprocess.CalledProcessError, OSError, LookupError) as exc:
        reason = f"PostgreSQL test cluster did not start: {_failure(exc)}{_log_tail(base)}"
        _stop(data, base, started)
        pytest.skip(reason)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _stop(data, base, started)


def _log_tail(base: Path) -> str:
    try:
        lines = (base / "log").read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | server log: " + " / ".join(lines[-5:]) if lines else ""


def _stop(data: Path, base: Path, started: bool) -> None:
    if started:
        with contextlib.suppress(subprocess.CalledProcessError):
            _as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_db_url(pg_url: str) -> Iterator[str]:
    """URL of a new, empty database in the test cluster (dropped after the test)."""
    name = f"t_{uuid.uuid4().hex}"
    run_sync(pg_admin(pg_url, f'CREATE DATABASE "{name}"'))
    try:
        yield pg_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        run_sync(pg_admin(pg_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
