"""The metrics port: ``/metrics`` on a small HTTP server of its own.

The figures are an operator's, not the players': they are not served on the public
port, but on ``--metrics-host`` (default 127.0.0.1) and ``--metrics-port``, by a second
uvicorn server in the same event loop as the game server.  In the same loop, the
collector reads the live tables between two moves, never during one.  The metrics
server leaves the signals to the game server: it stops when the app does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Iterator

import uvicorn
from fastapi import FastAPI
from prometheus_client import CollectorRegistry, make_asgi_app
from starlette.types import ASGIApp, Receive, Scope, Send

from maumau.server.ops.exposition import registry_for

log = logging.getLogger("maumau.server")

#: connections the metrics server serves at once (a scraper needs one)
CONCURRENCY = 16


def registry_of(app: FastAPI) -> CollectorRegistry:
    """The metrics registry of ``app`` (made by :func:`maumau.server.app.create_app`):
    its counts, its hub's live tables, its sockets waiting for hello."""
    state = app.state
    return registry_for(
        state.metrics, lambda: getattr(state, "hub", None), lambda: state.admission.pending
    )


@contextlib.asynccontextmanager
async def observing(app: FastAPI) -> AsyncIterator[None]:
    """While the app runs: its metrics on the metrics port, if its config names one."""
    config = app.state.config
    if config.metrics_port is None:
        yield
        return
    server = MetricsServer(app.state.registry, config.metrics_host, config.metrics_port)
    await server.start()
    app.state.metrics_server = server
    try:
        yield
    finally:
        await server.stop()


def metrics_app(registry: CollectorRegistry) -> ASGIApp:
    """``GET /metrics``: the registry's metrics; anything else: 404."""
    exposition = make_asgi_app(registry)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/metrics" and scope["method"] in ("GET", "HEAD"):
            await exposition(scope, receive, send)
            return
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        await send({"type": "http.response.start", "status": 404, "headers": headers})
        await send({"type": "http.response.body", "body": b"not found: metrics are at /metrics\n"})

    return app


class _Quiet(uvicorn.Server):
    """A uvicorn server that leaves the process's signals alone (the game server,
    which runs in the same loop, handles them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class MetricsServer:
    """Serves ``registry`` at ``http://host:port/metrics`` while started."""

    def __init__(self, registry: CollectorRegistry, host: str, port: int) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self._server: _Quiet | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Bind and serve (``OSError`` naming the address if it cannot be bound)."""
        sock = bound(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            metrics_app(self.registry),
            lifespan="off",
            access_log=False,
            # (the game server's logging stays as it was set up)
            log_config=None,
            log_level=None,
            limit_concurrency=CONCURRENCY,
            timeout_keep_alive=30,
        )
        self._server = server = _Quiet(config)
        self._task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
        while not server.started and not self._task.done():
            await asyncio.sleep(0.01)
        if self._task.done():
            self._task.result()  # (its failure)
        log.info("metrics at http://%s:%d/metrics", _bracketed(self.host), self.port)

    async def stop(self) -> None:
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, 10)
        self._server = self._task = None


def bound(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port``; ``OSError`` naming them if it cannot be."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        raise OSError(f"{host}:{port} cannot be bound: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"{_bracketed(host)}:{port} cannot be bound: {exc.strerror or exc}") from None
    return sock


def metrics_port_problem(host: str, port: int, public_port: int) -> str | None:
    """Why ``maumau serve`` could not serve its metrics at ``host``:``port`` (checked
    before it starts, for a one-line error), or ``None``."""
    if port == public_port and port != 0:
        return f"must not be the public port ({port}): the metrics are not for the public"
    try:
        bound(host, port).close()
    except OSError as exc:
        return str(exc)
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
