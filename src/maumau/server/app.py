"""The ASGI application: ``create_app(config)`` gives a FastAPI app with its store,
its hub of live tables, the HTTP routes, the WebSocket endpoint and the web client.

Every HTTP reply carries the security headers of :mod:`maumau.server.http.headers`.  The
HTTP part is described as OpenAPI at ``/openapi.json``; FastAPI's ``/docs`` and
``/redoc`` pages are off, since they load their scripts from a third-party CDN, and no
third-party script may run on the origin whose storage holds the seat tokens."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from maumau import __version__
from maumau.server.config import ServerConfig
from maumau.server.http import routes, shell, sockets
from maumau.server.http.headers import secure
from maumau.server.http.invites import Invites
from maumau.server.live import notices
from maumau.server.live.hub import Hub
from maumau.server.live.metrics import Counts
from maumau.server.ops import probes
from maumau.server.ops.metrics_server import observing, registry_of
from maumau.server.transport.admission import Admission
from maumau.server.transport.clients import Proxies, public_url
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError, bounded
from maumau.store import Store
from maumau.store.files import private_directory

log = logging.getLogger("maumau.server")

#: request bodies larger than this are refused before they are read
MAX_BODY = 64 * 1024


class App(FastAPI):
    """The server's ASGI app: FastAPI for HTTP, and a table's WebSocket
    (``/ws/{game_id}``) straight to :func:`maumau.server.http.sockets.play`.

    Through FastAPI's middleware and router every connection kept about 20 more
    coroutines and 40 more other objects for its whole life (one frame of each layer it
    passed, and their closures), which the cycle collector scans while the socket is
    open; and each handshake cost more.  HTTP middleware has nothing to do for a
    socket, and ``play`` checks the origin itself.  Any other WebSocket path goes to
    FastAPI, which refuses it.

    Every HTTP reply gets the security headers here, outside FastAPI's middleware, so
    that they are also on the replies of its outermost layer (a 500)."""

    #: the trusted reverse proxies (none: every peer is the client)
    proxies = Proxies(())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.proxies and scope["type"] in ("http", "websocket"):
            self.proxies.resolve(scope)  # the client's address, not the proxy's
        if scope["type"] == "websocket":
            match = sockets.SOCKET_PATH.fullmatch(scope["path"])
            if match is not None:
                scope["app"] = self
                scope["path_params"] = match.groupdict()
                await sockets.play(WebSocket(scope, receive, send), match["game_id"], send)
                return
        elif scope["type"] == "http":
            send = secure(scope, send)
        await super().__call__(scope, receive, send)


def create_app(config: ServerConfig | None = None) -> App:
    config = config or ServerConfig()
    if config.public_url is not None:  # (ValueError: not a site's root)
        config = replace(config, public_url=public_url(config.public_url))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.database_url is None:
            private_directory(config.data_dir)
        store = await Store.open(config.url)
        hub = Hub(store, config, metrics=app.state.metrics)
        app.state.hub = hub
        app.state.invites = Invites(config.qr_codes_per_minute)  # (its codes, kept)
        resumed = await hub.resume()
        if resumed:
            log.info("resumed %d unfinished table(s)", resumed)
        hub.start()
        try:
            async with observing(app):  # the metrics port, when there is one
                yield
        finally:
            await hub.stop()
            await store.close()

    app = App(
        title="Mau Mau",
        version=__version__,
        summary="Tables by link, live play over WebSocket (see docs/protocol.md)",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.proxies = Proxies(config.trusted_proxies)  # (ValueError: not an address)
    app.state.config = config
    app.state.create_limiter = AddressLimiter(config.tables_per_minute)
    app.state.admission = Admission(
        config.connections_per_address, config.connections_per_table, config.connections_per_minute
    )
    app.state.metrics = metrics = Counts()
    app.state.registry = registry_of(app)
    app.state.readiness = probes.Readiness()
    app.state.shell = shell.Shell.of(config.web_dir)

    @app.exception_handler(ServerError)
    async def server_error(request: Request, exc: ServerError) -> JSONResponse:
        metrics.refused(exc.code)
        return JSONResponse({"error": exc.to_json()}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            metrics.refused("bad_json")
            return _error("bad_json", "the body is not valid JSON", 400)
        parts = []
        for error in errors[:3]:
            where = ".".join(str(p) for p in error["loc"] if p != "body") or "body"
            parts.append(f"{where}: {error['msg']}")
        metrics.refused("bad_message")
        return _error("bad_message", "; ".join(parts), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_json", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "bad_message"
        )
        metrics.refused(code)
        return _error(code, str(exc.detail), exc.status_code)

    app.add_middleware(BodyLimit, metrics=metrics)
    app.include_router(routes.router)
    app.include_router(notices.router)
    app.include_router(probes.router)
    app.include_router(shell.router)
    app.mount("/", shell.ShellFiles(app.state.shell, config.web_dir), name="web")
    return app


def _error(code: str, message: str, status: int) -> JSONResponse:
    body = {"error": {"code": code, "message": bounded(message)}}
    return JSONResponse(body, status_code=status)


class BodyLimit:
    """Refuse HTTP requests whose declared body is larger than ``limit`` bytes."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY, metrics: Counts | None = None) -> None:
        self.app = app
        self.limit = limit
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                if not value.isdigit() or int(value) > self.limit:
                    await self.refuse(scope, receive, send)
                    return
                await self.app(scope, receive, send)
                return
        # no declared length (chunked): read the body up to the limit, then pass it on
        chunks: list[Message] = []
        size = 0
        while True:
            message = await receive()
            chunks.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                await self.refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 413 (built only when needed: most requests pass)."""
        message = f"a request body may be at most {self.limit} bytes"
        if self.metrics is not None:
            self.metrics.refused("message_too_large")
        await _error("message_too_large", message, 413)(scope, receive, send)
