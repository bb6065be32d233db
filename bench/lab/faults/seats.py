"""A seat's WebSocket at a probe table (sync), and what the server answers it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from lab.faults.servers import Server, clock

#: what a probe's connection may fail with
LOST = (OSError, TimeoutError, ConnectionError, ValueError, WebSocketException)


class Seat:
    """One seat's WebSocket (sync), with the latest state it was sent."""

    def __init__(self, server: Server, game_id: str, token: str | None) -> None:
        self.server = server.name
        self.ws: ClientConnection = connect(
            f"{server.ws}/ws/{game_id}",
            open_timeout=10,
            close_timeout=2,
            compression=None,
            legacy=True,  # used directly, closed by close()
        )
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.version = -1
        self.legal: list[dict[str, Any]] = []
        self.finished = False
        self.messages: list[dict[str, Any]] = []

    def pump(self, done: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """Read messages until one makes ``done`` true; raise TimeoutError otherwise."""
        deadline = clock() + timeout
        while True:
            left = deadline - clock()
            if left <= 0:
                raise TimeoutError
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=left))
            kind = message.get("type")
            if kind == "state":
                self.version = int(message["version"])
                self.legal = message["legal"]
                self.finished = bool(message["view"]["finished"])
            elif kind == "closed":
                raise ConnectionError(f"closed: {message.get('code')}")
            self.messages.append(message)
            if done(message):
                return message

    def summary(self) -> str:
        """The server, the latest version and the last messages, for a report."""
        last = []
        for message in self.messages[-4:]:
            kind = str(message.get("type"))
            extra = message.get("version", message.get("code", ""))
            last.append(f"{kind}{'' if extra == '' else ' ' + str(extra)}")
        return f"{self.server}: version {self.version}, legal {len(self.legal)}; {', '.join(last)}"

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def is_state(message: dict[str, Any]) -> bool:
    return message.get("type") == "state"


def answer_to(action_id: str) -> Callable[[dict[str, Any]], bool]:
    """The server's answer to the move ``action_id``: the mover's ``state`` that
    acknowledges it, an ``ack`` (a duplicate), or an ``error``."""

    def done(message: dict[str, Any]) -> bool:
        if message.get("type") == "state":
            return message.get("ack") == action_id
        return message.get("type") in ("ack", "error") and message.get("action_id") == action_id

    return done


def as_ack(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer of :func:`answer_to` with a ``state`` that acknowledges the move
    written as the ``ack`` it stands for."""
    if answer.get("type") != "state":
        return answer
    return {
        "type": "ack",
        "action_id": answer["ack"],
        "version": answer["version"],
        "duplicate": False,
    }
