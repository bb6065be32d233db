"""``/healthz`` and ``/readyz``: alive, and ready to serve games.

``/readyz`` follows the database: a real ``maumau serve`` on a PostgreSQL cluster of
this test's own turns unready when the cluster is stopped and ready again when it is
back (listener and all); on SQLite, a database whose schema is not at this version's
revision is unready.  A flood of probes makes one query, and no probe names the
database.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from lab.postgres import NOTHING_DURABLE, Cluster, ClusterError, ClusterUnavailable
from maumau.server.live.hub import Hub
from maumau.server.ops.probes import Readiness
from maumau.store import StoreUnavailable
from maumau.store.migrate import head_revision
from support.live import Server
from support.serverkit import make_client

#: seconds to wait for a probe to change its answer (a loaded machine; the listener
#: connects again with a backoff of up to 5 s)
DEADLINE = 120.0


def probe(server: Server, path: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=10) as reply:
            return int(reply.status), json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def until(server: Server, status: int) -> dict[str, Any]:
    """Poll ``/readyz`` until it answers ``status``; its body."""
    deadline = time.monotonic() + DEADLINE
    while True:
        code, body = probe(server, "/readyz")
        if code == status:
            return body
        assert time.monotonic() < deadline, f"/readyz still answers {code}: {body}"
        time.sleep(0.2)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster of this test's own (it is stopped and started again)."""
    try:
        cluster = Cluster("pgready-", NOTHING_DURABLE)
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    try:
        cluster.init()
        cluster.start()
    except (ClusterError, OSError, subprocess.TimeoutExpired) as exc:
        cluster.remove("immediate")
        pytest.skip(f"PostgreSQL cluster did not start: {exc}")
    try:
        yield cluster
    finally:
        cluster.remove("immediate")


def test_readyz_follows_the_database(tmp_path: Path, cluster: Cluster) -> None:
    server = Server(tmp_path / "data", database_url=cluster.url())
    server.start()
    try:
        body = until(server, 200)
        assert body == {
            "status": "ready",
            "checks": {"database": "ok", "migrations": "ok", "listener": "ok"},
            "failed": [],
        }
        cluster.stop()
        body = until(server, 503)
        assert body["status"] == "unready" and "database" in body["failed"]
        text = json.dumps(body)
        assert str(cluster.port) not in text and "postgres" not in text
        assert "127.0.0.1" not in text
        assert probe(server, "/healthz") == (200, {"status": "alive"})  # alive all along
        cluster.start()
        body = until(server, 200)
        assert body["checks"]["listener"] == "ok"
    finally:
        server.stop()


def test_readyz_on_sqlite_with_migrations_not_current(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    server.start()
    database = tmp_path / "data" / "maumau.sqlite3"
    try:
        assert until(server, 200)["checks"] == {"database": "ok", "migrations": "ok"}
        with sqlite3.connect(database) as db:  # as if stamped at an older revision
            db.execute("UPDATE alembic_version SET version_num = '0003'")
        body = until(server, 503)
        assert body == {
            "status": "unready",
            "checks": {"database": "ok", "migrations": "not_current"},
            "failed": ["migrations"],
        }
        with sqlite3.connect(database) as db:
            db.execute("UPDATE alembic_version SET version_num = ?", (head_revision(),))
        until(server, 200)
    finally:
        server.stop()


def test_healthz_and_readyz_in_process(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        reply = client.get("/healthz")
        assert reply.status_code == 200 and reply.json() == {"status": "alive"}
        assert reply.headers["cache-control"] == "no-store"
        reply = client.get("/readyz")
        assert reply.status_code == 200, reply.text
        assert client.head("/healthz").status_code == client.head("/readyz").status_code == 200
        client.app.state.readiness.stopping = True  # type: ignore[attr-defined]
        reply = client.get("/readyz")
        assert reply.status_code == 503
        assert reply.json()["failed"] == ["server"]
        assert client.get("/api/health").status_code == 200  # as it was


class _Store:
    """A store whose revision query waits until it is let go, and counts its calls."""

    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail
        self.go = asyncio.Event()
        #: set once the query is under way
        self.asked = asyncio.Event()

    async def revision(self) -> str:
        self.calls += 1
        self.asked.set()
        await self.go.wait()
        if self.fail:
            raise StoreUnavailable("database postgresql://secret@db.example/x unavailable")
        return head_revision()


class _Hub:
    def __init__(self, store: _Store) -> None:
        self.store = store
        self.listener = None


def test_a_flood_of_probes_makes_one_query() -> None:
    async def flood(fail: bool) -> tuple[int, list[dict[str, str]]]:
        store = _Store(fail)
        hub = cast(Hub, _Hub(store))
        readiness = Readiness()
        probes = [asyncio.ensure_future(readiness.checks(hub)) for _ in range(200)]
        await asyncio.sleep(0.01)
        store.go.set()
        outcomes = await asyncio.gather(*probes)
        return store.calls, outcomes

    calls, outcomes = asyncio.run(flood(fail=False))
    assert calls == 1
    assert all(o == {"database": "ok", "migrations": "ok"} for o in outcomes)
    calls, outcomes = asyncio.run(flood(fail=True))
    assert calls == 1
    assert all(o == {"database": "unavailable", "migrations": "unknown"} for o in outcomes)


def test_health_and_readiness_share_one_query_per_period(tmp_path: Path) -> None:
    """/api/health and /readyz, asked however often, ask the database once a second."""
    now = [0.0]
    with make_client(tmp_path) as client:
        state = client.app.state  # type: ignore[attr-defined]
        state.readiness = Readiness(clock=lambda: now[0])
        store = state.hub.store
        queries: list[str] = []
        for name in ("check", "revision"):
            method = getattr(store, name)

            async def counted(method: Any = method, name: str = name) -> Any:
                queries.append(name)
                return await method()

            setattr(store, name, counted)
        replies = [client.get(p) for _ in range(20) for p in ("/api/health", "/readyz")]
        assert len(queries) == 1
        now[0] += 0.99
        client.get("/api/health")
        assert len(queries) == 1
        now[0] += 0.02  # the period is over: the next request asks again
        replies += [client.get("/api/health") for _ in range(5)]
        assert len(queries) == 2
    assert {r.status_code for r in replies} == {200}
    assert all(r.json()["database"] == "ok" for r in replies if "tables" in r.json())


def test_health_requests_at_once_wait_for_one_check() -> None:
    async def flood() -> tuple[int, list[dict[str, str]]]:
        store = _Store(fail=True)
        hub = cast(Hub, _Hub(store))
        readiness = Readiness(clock=lambda: 0.0)
        asks = [asyncio.ensure_future(readiness.current(hub)) for _ in range(100)]
        await store.asked.wait()  # (the query's task starts after every ask's first step)
        store.go.set()
        outcomes = await asyncio.gather(*asks)
        # kept: later ones in the period ask nothing, stopping or not
        readiness.stopping = True
        outcomes.append(await readiness.current(hub))
        return store.calls, outcomes

    calls, outcomes = asyncio.run(flood())
    assert calls == 1
    assert all(o["database"] == "unavailable" for o in outcomes)
