"""The WebSocket part: live play at ``/ws/{game_id}``.

A connection starts with ``hello`` (a seat's token, or none to watch), then sends
moves.  Every refusal is an ``error`` message with a stable code; the connection stays
open, and nothing in the game changes.  See ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from typing import Any, assert_never
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError
from starlette.types import Message, Send

from maumau.server.config import ServerConfig
from maumau.server.live import seating, takeover
from maumau.server.live.hub import Hub
from maumau.server.live.referee import Referee
from maumau.server.ops.drain import GOODBYE, SERVICE_RESTART
from maumau.server.transport.admission import Admission, Place
from maumau.server.transport.clients import client_host, origin_of
from maumau.server.transport.connection import Connection
from maumau.server.transport.limits import TokenBucket, address_key
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import (
    CLIENT_TYPES,
    ActionMessage,
    ClientMessage,
    Closed,
    ErrorMessage,
    Hello,
    Ping,
    Pong,
    Ready,
)
from maumau.server.wire.table_talk import AnswerSeat, AskSeat, Chat, React, SetChat, WithdrawSeat

log = logging.getLogger("maumau.server")

#: a table's socket: ``/ws/{game_id}`` (the app hands these to :func:`play` itself)
SOCKET_PATH = re.compile(r"/ws/(?P<game_id>[^/]+)")

CLIENT = TypeAdapter(ClientMessage)
#: why a connection that goes on sending past its limit is closed: its refusals (each
#: answered, each a cost) outran their own budget (:attr:`Connection.refusals`)
FLOODED = "too many messages past the limit: the connection is closed"
#: ``hello`` messages with a token that holds no seat here (or refused for its
#: address's looks into the store) a connection may send; the next one closes it
#: (each may cost a look into the store)
BAD_HELLOS = 3
#: a socket refused because its address opened too many this minute is held this long
#: first (its place counted against the address's cap), so that a client that comes
#: straight back, again and again, is refused at most so many times a second
TOO_SOON_SECONDS = 1.0
#: the client messages' types (read from the message union, protocol.ClientMessage)
TYPES = CLIENT_TYPES


def origin_allowed(ws: WebSocket, config: ServerConfig) -> bool:
    """Browsers send Origin; a page from another site may not open a table's socket.
    A page of this server is one whose origin is the ``Host`` asked for, or the
    ``--public-url``'s (behind a proxy the Host may be another)."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    if urlsplit(origin).netloc.lower() == ws.headers.get("host", "").lower():
        return True  # a page of this server
    if config.public_url and origin_of(origin) == origin_of(config.public_url):
        return True
    allowed = config.allowed_origins or ()
    return "*" in allowed or origin.rstrip("/") in {a.rstrip("/") for a in allowed}


async def play(ws: WebSocket, game_id: str, send: Send) -> None:
    """One client's socket at the table ``game_id``, to its end; ``send`` is the
    server's own (the connection writes its frames through it).

    While it is open the socket holds a place against the caps per client address and
    per table (:mod:`maumau.server.transport.admission`); over a cap it is sent ``closed``
    (``too_many_connections``) at once.  It must say hello within ``hello_seconds`` of
    opening, or it is sent ``closed`` (``hello_timeout``) and closed."""
    hub: Hub = ws.app.state.hub
    config: ServerConfig = ws.app.state.config
    admission: Admission = ws.app.state.admission
    if not origin_allowed(ws, config):
        hub.metrics.refused("bad_origin")
        await ws.close(code=1008, reason="bad_origin")  # before accept: HTTP 403
        return
    await ws.accept()
    deadline = asyncio.get_running_loop().time() + config.hello_seconds
    place: Place | None = None
    try:
        try:
            place = admission.enter(client_host(ws))
            if place.too_soon is not None:
                await asyncio.sleep(TOO_SOON_SECONDS)
                raise place.too_soon
            if hub.draining:  # (a socket that came in as the listener closed)
                raise ServerError("server_stopping", GOODBYE)
            referee = await hub.referee(game_id)
            place.join(referee.table.id)
        except ServerError as exc:
            hub.metrics.refused(exc.code)
            await ws.send_text(Closed(code=exc.code, message=exc.message).model_dump_json())
            await ws.close(SERVICE_RESTART if exc.code == "server_stopping" else 1008)
            return
        limiter = TokenBucket(config.messages_per_second, config.message_burst)
        conn = Connection(ws, limiter, config.send_queue, send)
        conn.address = address_key(client_host(ws))
        writer = asyncio.get_running_loop().create_task(conn.writer())
        try:
            while not conn.closing:
                if conn.greeted:
                    message = await ws.receive()
                else:
                    message = await _before_hello(ws, conn, deadline, config, hub)
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:  # a binary frame is read as UTF-8 text
                    text = (message.get("bytes") or b"").decode("utf-8", "replace")
                await receive(conn, referee, hub, config, text)
                if conn.greeted and place.pending:
                    place.greet()
        except WebSocketDisconnect:
            pass
        finally:
            if conn.greeted:
                referee.leave(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)
    finally:
        if place is not None:
            place.leave()


async def _before_hello(
    ws: WebSocket, conn: Connection, deadline: float, config: ServerConfig, hub: Hub
) -> Message:
    """The next message of a socket that has not said hello yet, if it comes before
    ``deadline`` (the event loop's time); else the socket is told ``hello_timeout``
    and closed, and this gives its end (``websocket.disconnect``)."""
    try:
        async with asyncio.timeout_at(deadline):
            return await ws.receive()
    except TimeoutError:
        seconds = f"{config.hello_seconds:g}"
        hub.metrics.refused("hello_timeout")
        conn.close(Closed(code="hello_timeout", message=f"no hello came within {seconds} s"))
        return {"type": "websocket.disconnect", "code": 1000}


async def receive(
    conn: Connection, referee: Referee, hub: Hub, config: ServerConfig, text: str
) -> None:
    """Handle one text message from a client."""
    if not conn.limiter.allow():
        hub.metrics.refused("rate_limited")
        if not conn.refusals.allow():  # not slowing down: a flood
            conn.close(Closed(code="rate_limited", message=FLOODED), 1008)
            return
        dropped = _dropped_action_id(text, config)
        conn.send(_error("rate_limited", "too many messages; slow down", dropped))
        return
    if len(text) > config.max_message_bytes or len(text.encode()) > config.max_message_bytes:
        hub.metrics.refused("message_too_large")
        conn.send(_error("message_too_large", _too_large(config)))
        return
    action_id: str | None = None
    hello = False
    try:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise ServerError("bad_json", "the message is not valid JSON") from None
        action_id = _action_id(data)
        message = parse(data)
        if isinstance(message, Hello):
            hello = True
            if conn.greeted:
                raise ServerError("already_greeted", "this connection has said hello already")
            if referee.table.status == "closed":
                conn.close(Closed(code="table_closed", message="the table was closed"))
                return
            if referee.stopped or hub.draining:
                conn.close(Closed(code="server_stopping", message=GOODBYE), SERVICE_RESTART)
                return
            token = message.token
            if token is not None:
                await seating.look_for(referee, token, hub.token_lookups, conn.address)
            # the token's seat is found and joined under the lock that every change of
            # the seats holds, so the position is the token's own when it is used
            async with referee.table.lock:
                seat, key = (None, None) if token is None else seating.hello_seat(referee, token)
                referee.join(conn, seat, key)
            hub.notices.greet(conn)
            hub.metrics.greeted(referee, key)
            await referee.chat.greet(conn)
        elif isinstance(message, ActionMessage):
            if not conn.greeted:
                raise ServerError("hello_required", "send hello first")
            await referee.act(conn, message.version, message.action_id, message.action)
        elif isinstance(message, Ready):
            if not conn.greeted:
                raise ServerError("hello_required", "send hello first")
            await referee.ready(conn)
        elif isinstance(message, AskSeat | WithdrawSeat | AnswerSeat):
            await _seat_request(conn, referee, message)
        elif isinstance(message, Chat | React | SetChat):
            if not conn.greeted:
                raise ServerError("hello_required", "send hello first")
            await _chat(referee, conn, message)
        elif isinstance(message, Ping):
            conn.send(Pong())
        else:  # a new client message in protocol.ClientMessage: mypy asks for its branch
            assert_never(message)
    except ServerError as exc:
        hub.metrics.refused(exc.code)
        if hello and exc.code in ("bad_token", "seat_removed", "rate_limited"):
            conn.bad_hellos += 1
            if conn.bad_hellos > BAD_HELLOS:
                said = f"{BAD_HELLOS} hellos with a token that holds no seat here: closed"
                conn.close(Closed(code=exc.code, message=said), 1008)
                return
        conn.send(_error(exc.code, exc.message, action_id))
    except Exception:
        log.exception(
            "table %s: a message could not be handled",
            referee.table.id,
            extra={"table": referee.table.id},
        )
        hub.metrics.refused("internal_error")
        conn.send(_error("internal_error", "the server failed to handle this message", action_id))


async def _seat_request(
    conn: Connection, referee: Referee, message: AskSeat | WithdrawSeat | AnswerSeat
) -> None:
    """A late friend's request for a seat, or the host's answer (server/live/takeover.py)."""
    if not conn.greeted:
        raise ServerError("hello_required", "send hello first")
    if isinstance(message, AskSeat):
        await takeover.ask_seat(referee, conn, message.seat, message.name)
    elif isinstance(message, WithdrawSeat):
        takeover.withdraw_seat(referee, conn)
    else:
        await takeover.answer_seat(referee, conn, message.request, message.accept)


async def _chat(referee: Referee, conn: Connection, message: Chat | React | SetChat) -> None:
    """A chat line, a reaction or the host's chat settings (maumau.server.live.chat)."""
    if isinstance(message, Chat):
        await referee.chat.say(conn, message.text)
    elif isinstance(message, React):
        await referee.chat.react(conn, message.key)
    else:
        await referee.chat.choose(
            conn, message.chat, message.spectators, message.spectator_reactions
        )


def parse(data: Any) -> ClientMessage:
    if not isinstance(data, dict):
        raise ServerError("bad_message", "a message is a JSON object with a type")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ServerError("bad_message", f"a message needs a type: {', '.join(TYPES)}")
    if kind not in TYPES:
        raise ServerError(
            "unknown_type", f"unknown message type {kind!r}; the types are {', '.join(TYPES)}"
        )
    if kind == "action" and _plain_action(data):
        return ActionMessage.model_construct(**data)
    try:
        return CLIENT.validate_python(data)
    except ValidationError as exc:
        raise ServerError("bad_message", describe(exc)) from None


_ACTION_KEYS = frozenset({"type", "version", "action_id", "action"})


def _plain_action(data: dict[str, Any]) -> bool:
    """Whether ``data`` is an ``action`` message that :class:`ActionMessage` would
    take as it is: moves are most of the messages, and checking them here costs a
    fraction of a full validation.  Anything else is validated in full, which also
    words the error."""
    if data.keys() != _ACTION_KEYS:
        return False
    version, action_id, action = data["version"], data["action_id"], data["action"]
    return (
        type(version) is int
        and version >= 0
        and type(action_id) is str
        and 1 <= len(action_id) <= 64
        and action_id.isprintable()  # (no control character: the store keeps it as text)
        and _unicode(action_id)
        and type(action) is dict
        and all(_unicode(key) for key in action)
    )


def _unicode(text: str) -> bool:
    """Whether ``text`` is Unicode text: no lone surrogate (``"\\ud800"`` is valid JSON
    but no string the models take)."""
    return text.isascii() or _echoable(text) is not None


def describe(exc: ValidationError) -> str:
    """A short message naming the fields that are wrong."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"][1:]) or "message"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _action_id(data: Any) -> str | None:
    """The ``action_id`` a message carries (its first 64 characters), to name it in a
    reply; ``None`` if it has none, or one no reply could carry."""
    if isinstance(data, dict) and isinstance(data.get("action_id"), str):
        return _echoable(data["action_id"][:64])
    return None


def _dropped_action_id(text: str, config: ServerConfig) -> str | None:
    """The ``action_id`` of a message dropped by the rate limit, so that the client
    knows which move was not made.  Only a message that can hold one is read (it names
    ``"action_id"`` and is within the size limit), so a flood costs no more than the
    size limit allows."""
    if '"action_id"' not in text or len(text) > config.max_message_bytes:
        return None
    try:
        return _action_id(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _error(code: str, message: str, action_id: str | None = None) -> ErrorMessage:
    return ErrorMessage(code=code, message=message, action_id=action_id)


def _echoable(text: str) -> str | None:
    """``text`` if it can be sent back as JSON; ``None`` if it holds a lone surrogate
    (``"\\ud800"`` is valid JSON, but no UTF-8 text, so no reply could carry it)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return None
    return text


def _too_large(config: ServerConfig) -> str:
    return f"a message may be at most {config.max_message_bytes} bytes"
