"""The probes of load balancers and orchestrators, on the public port (docs/metrics.md).

``GET /healthz``: the process is alive and its event loop answers (200, no database
access).  ``GET /readyz``: this process can serve games now: the database answers,
its schema is at the revision this version ships, and (PostgreSQL) the change-notice
listener is connected.  Otherwise 503, naming the check that failed, never the
database's address, user or error.

A probe costs at most one small query: the outcome is kept for :data:`CACHE_SECONDS`,
and probes that come while a check runs wait for that check instead of starting
their own; the database has :data:`DATABASE_SECONDS` to answer.  ``GET /api/health``
(:mod:`maumau.server.http.routes`) reads its ``database`` from the same check
(:meth:`Readiness.current`): at most one query per period, whatever asks how often.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from maumau.server.live.hub import Hub
from maumau.store import StoreError
from maumau.store.migrate import HEAD_REVISION

log = logging.getLogger("maumau.server")

#: seconds a readiness outcome is kept (a flood of probes is not a flood of queries)
CACHE_SECONDS = 1.0
#: seconds the database has to answer a readiness check
DATABASE_SECONDS = 2.0

router = APIRouter()

_NO_STORE = {"Cache-Control": "no-store"}


@router.api_route("/healthz", methods=["GET", "HEAD"], include_in_schema=False)
async def healthz() -> JSONResponse:
    return JSONResponse({"status": "alive"}, headers=_NO_STORE)


@router.api_route("/readyz", methods=["GET", "HEAD"], include_in_schema=False)
async def readyz(request: Request) -> JSONResponse:
    readiness: Readiness = request.app.state.readiness
    hub: Hub | None = getattr(request.app.state, "hub", None)
    checks = await readiness.checks(hub)
    failed = [name for name, outcome in checks.items() if outcome != "ok"]
    body = {"status": "unready" if failed else "ready", "checks": checks, "failed": failed}
    return JSONResponse(body, status_code=503 if failed else 200, headers=_NO_STORE)


class Readiness:
    """The outcome of the last readiness check, and the check under way."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._outcome: dict[str, str] | None = None
        self._at = 0.0
        self._running: asyncio.Task[dict[str, str]] | None = None
        #: set while the server stops: it is unready whatever the checks say
        self.stopping = False

    async def checks(self, hub: Hub | None) -> dict[str, str]:
        """Each check's outcome: ``"ok"`` or what is wrong."""
        if hub is None:
            return {"server": "starting"}
        if self.stopping:
            return {"server": "stopping"}
        return await self.current(hub)

    async def current(self, hub: Hub) -> dict[str, str]:
        """The checks of the database (and listener), kept for :data:`CACHE_SECONDS`,
        whether or not the server is stopping (``/api/health`` reads them too)."""
        now = self.clock()
        if self._outcome is not None and now - self._at < CACHE_SECONDS:
            return dict(self._outcome)
        if self._running is None:
            self._running = asyncio.get_running_loop().create_task(self._check(hub))
            self._running.add_done_callback(self._done)
        # (shielded: a prober that hangs up does not cancel the others' check)
        return dict(await asyncio.shield(self._running))

    def _done(self, task: asyncio.Task[dict[str, str]]) -> None:
        self._running = None
        if not task.cancelled() and task.exception() is None:
            self._outcome, self._at = task.result(), self.clock()

    async def _check(self, hub: Hub) -> dict[str, str]:
        checks: dict[str, str] = {}
        try:
            async with asyncio.timeout(DATABASE_SECONDS):
                revision = await hub.store.revision()
        except (StoreError, TimeoutError):
            checks["database"] = "unavailable"
            checks["migrations"] = "unknown"
        except Exception:  # not a failure of the database's: a bug, logged
            log.exception("the readiness check failed")
            checks["database"] = "unavailable"
            checks["migrations"] = "unknown"
        else:
            checks["database"] = "ok"
            checks["migrations"] = "ok" if revision == HEAD_REVISION else "not_current"
        if hub.listener is not None:
            checks["listener"] = "ok" if hub.listener.connected else "disconnected"
        return checks
