"""One hostile WebSocket message, where it goes, and what the protocol makes the server
do with it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lab.hostile.games import Context, GameCtx, seat_of
from lab.hostile.protocol import MESSAGE_LIMIT
from maumau.engine.actions import Action, Draw, Play
from maumau.server.http.sockets import parse
from maumau.server.live.table import read_action
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import ActionMessage, Hello, Ping, Ready


@dataclass(frozen=True)
class Probe:
    """One hostile message, where it goes, and what the answer must be."""

    category: str
    game: str  # a GameCtx key
    #: "seatN" / "spectator" (a connection that said hello so), "fresh" (no hello);
    #: "own-...": a connection of its own, which the server is expected to close
    who: str
    frame: str  # "text" | "binary" | "raw-text" (a text frame of raw, invalid UTF-8 bytes)
    data: str | bytes
    #: the only right answers: error codes, "ack-duplicate", "close:CODE"; () = any
    #: documented error code
    expect: tuple[str, ...] = ()
    #: the action_id an error must echo
    echo: str | None = None
    detail: str = ""

    def text(self) -> str:
        return self.data if isinstance(self.data, str) else self.data.decode("utf-8", "replace")

    def describe(self) -> dict[str, Any]:
        data = self.data if isinstance(self.data, str) else repr(self.data)
        return {
            "category": self.category,
            "detail": self.detail,
            "game": self.game,
            "who": self.who,
            "frame": self.frame,
            "data": data[:300] + ("..." if len(data) > 300 else ""),
            "size": len(self.data),
            "expect": list(self.expect),
        }


def is_legal(action: Action, seat: int, game: GameCtx) -> bool:
    """Whether the server would accept ``action`` now (a play with any call counts)."""
    for item in game.legal.get(seat, []):
        legal = read_action(seat, dict(item), game.rules)
        if isinstance(action, Play) and isinstance(legal, Play):
            if (action.card, action.suit) == (legal.card, legal.suit):
                return True
        elif isinstance(action, Draw) and isinstance(legal, Draw):
            if action.count is None or action.count == legal.count:
                return True
        elif action == legal:
            return True
    return False


def outcome(ctx: Context, probe: Probe) -> str:
    """What the protocol makes the server do with ``probe``: ``"refused"`` (an error),
    ``"duplicate"`` (ack, duplicate), ``"closed"``, or ``"accepted"`` (a message that is
    not hostile at all: a ping, a good hello, a legal move; such probes are dropped)."""
    if probe.who.startswith("own-") or probe.frame == "raw-text":
        return "closed" if probe.expect and probe.expect[0].startswith("close:") else "refused"
    text = probe.text()
    if len(text) > MESSAGE_LIMIT or len(text.encode()) > MESSAGE_LIMIT:
        return "refused"
    try:
        data = json.loads(text)
        message = parse(data)
    except (ValueError, RecursionError, ServerError):
        return "refused"
    game = ctx.games[probe.game]
    greeted = probe.who != "fresh"
    seat = seat_of(probe.who)
    if isinstance(message, Ping):
        return "accepted"
    if isinstance(message, Hello):
        if greeted:
            return "refused"
        if message.token is None or message.token in game.tokens.values():
            return "accepted"
        return "refused"
    if isinstance(message, Ready) or not greeted or seat is None:
        return "refused"  # never between rounds here; before hello; a spectator
    if not isinstance(message, ActionMessage):
        # a late friend's request for a seat; chat, reactions, chat settings: the
        # probes send none
        return "refused"
    try:
        action = read_action(seat, dict(message.action), game.rules)
    except ServerError:
        return "refused"
    except Exception:  # the server would fail too: let the judge see it
        return "refused"
    if game.status == "lobby":
        return "refused"
    if message.action_id in game.accepted_ids.get(seat, ()):
        return "duplicate"
    if message.version != game.version or game.status != "playing":
        return "refused"
    return "accepted" if is_legal(action, seat, game) else "refused"
