"""A real uvicorn server with ``maumau serve``'s protocols, in a thread, serving an app
that answers HTTP with ``ok`` and echoes WebSocket text: for the tests of the
connection layer (control frames, what connections leave in memory)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn

from lab.ports import free_port
from maumau.cli.serve import uvicorn_config


async def echo(
    scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
) -> None:
    """Answers HTTP with ``ok`` and echoes WebSocket text until the client leaves."""
    if scope["type"] == "lifespan":
        await receive()  # lifespan.startup
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})
    elif scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
    elif scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message["text"]})


@pytest.fixture
def server() -> Iterator[int]:
    """The echo app served as ``maumau serve`` serves, on a free port: its port."""
    port = free_port()
    server = uvicorn.Server(uvicorn_config(echo, "127.0.0.1", port, "warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)
