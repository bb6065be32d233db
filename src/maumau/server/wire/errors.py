"""Every error the server answers with: a stable code, an HTTP status and a meaning.

The engine's own codes (``not_your_turn``, ``card_not_playable``...; see
``docs/record.md``) reach clients unchanged; the codes below are the server's.

A message names what was wrong, often by quoting it (``unknown preset 'x'``); what it
quotes came from the client, and may be as long as a body (64 KiB).  So every message
a client is answered with passes :func:`bounded`: a quoted value (or any run of
characters without a space) longer than :data:`QUOTED_CHARS` is cut to its start and
``…``, and the message to :data:`MESSAGE_CHARS`.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("maumau.server")

#: a value quoted in an error message is shown up to this many characters
QUOTED_CHARS = 40
#: an error message is at most this many characters long
MESSAGE_CHARS = 400
#: a quoted value (as ``repr`` quotes it), or a run of characters without a space
_PARTS = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\S+""")

#: code -> (HTTP status, what it means)
ERROR_CODES: dict[str, tuple[int, str]] = {
    # requests and messages
    "bad_json": (400, "the message is not valid JSON"),
    "bad_message": (400, "the message or body does not have the documented shape"),
    "unknown_type": (400, "the message's type is not one the server knows"),
    "message_too_large": (413, "the message is longer than the server accepts"),
    "rate_limited": (429, "too many messages or requests; slow down"),
    "too_many_tables": (429, "this address has created too many tables lately"),
    "too_many_live_tables": (429, "this address has as many tables open as it may at once"),
    "too_many_connections": (429, "this address or table has as many connections as allowed"),
    "hello_timeout": (408, "no hello came in time after the connection opened"),
    "bad_origin": (403, "a WebSocket from another site's page is refused"),
    "bad_host": (400, "the Host header is no host name or address with an optional port"),
    # who you are
    "bad_token": (403, "the token is not one of this table's seat tokens"),
    "seat_removed": (410, "the seat this token held was removed from the table"),
    "no_token": (401, "this needs a seat token (Authorization: Bearer ...)"),
    "hello_required": (400, "the first message on a connection must be hello"),
    "already_greeted": (400, "hello was sent already on this connection"),
    "not_seated": (403, "spectators cannot act"),
    "not_your_seat": (403, "an action may only be taken for the connection's own seat"),
    "not_host": (403, "only the host may do this"),
    # tables
    "unknown_game": (404, "there is no table with this id"),
    "not_found": (404, "there is no such address"),
    "method_not_allowed": (405, "this address does not take that method"),
    "unknown_seat": (404, "there is no such seat at this table"),
    "table_full": (409, "every seat is taken"),
    "game_started": (409, "the game has started: seats cannot change now"),
    "game_not_started": (409, "the game has not started yet"),
    "game_not_finished": (409, "only a finished game has a rematch or a full record"),
    "too_few_players": (409, "a game needs at least two seats"),
    "table_closed": (410, "the table was closed; its record is kept"),
    "bad_option": (422, "an unknown option key or a bad value (the message names it)"),
    "bad_name": (422, "not a display name (the message names the rule it breaks)"),
    "name_taken": (409, "another seat at this table has this name"),
    "bad_level": (422, "not a computer player level: random, easy, normal, hard"),
    # late friends taking over a computer-played seat (server/live/takeover.py)
    "not_spectator": (409, "only a spectator may ask for a seat; this connection holds one"),
    "not_playing": (409, "seats are taken over only while the game is being played"),
    "seat_not_computer": (409, "that seat is not played by a computer (any more)"),
    "already_asked": (409, "this connection has a request open already; withdraw it first"),
    "too_many_requests": (429, "the table (or this connection) has asked for seats too often"),
    "unknown_request": (404, "no such open request: it was answered, withdrawn or expired"),
    # moves
    "not_between_rounds": (409, "ready is only said between rounds"),
    "stale_version": (409, "the game moved on since the version this move was made for"),
    "bad_action": (400, "the action object is malformed (the message says where)"),
    "bad_card": (400, "not a card code of this game's deck"),
    # chat and reactions
    "chat_off": (
        403,
        "chat is off at this table (or spectators may not chat or react): nothing was sent",
    ),
    "bad_chat": (422, "not a chat line (the message names the rule it breaks)"),
    "unknown_reaction": (422, "not one of the reactions the server knows (the message lists them)"),
    # the server itself
    "store_unavailable": (503, "the database cannot be reached; nothing was changed"),
    "conflict": (409, "another server process changed this game first; try again"),
    "server_stopping": (503, "the server is restarting; reconnect in a moment"),
    "internal_error": (500, "the server failed; the failure is logged (a bug to report)"),
}

#: the engine's refusals of a move (docs/record.md); all answered with HTTP-like 409
ENGINE_CODES: tuple[str, ...] = (
    "not_your_turn",
    "card_not_in_hand",
    "card_not_playable",
    "suit_required",
    "bad_suit",
    "must_draw",
    "must_play",
    "cannot_pass",
    "cannot_draw",
    "must_pass",
    "already_drawn",
    "wrong_draw_count",
    "nothing_to_catch",
    "round_over",
    "round_not_over",
    "game_over",
)


class ServerError(Exception):
    """A refusal with a stable ``code``; ``status`` is its HTTP status."""

    def __init__(self, code: str, message: str) -> None:
        message = bounded(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = ERROR_CODES[code][0] if code in ERROR_CODES else 409

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def store_unavailable(what: str, exc: BaseException) -> ServerError:
    """The refusal for a store failure while doing ``what`` ("the seats cannot be
    stored"): the client is told that the database cannot be reached, never why (the
    reason names the database, its driver, user, host or file: operator details, which
    go to the log)."""
    log.warning("%s: %s", what, exc)
    return ServerError("store_unavailable", f"{what}: the database cannot be reached right now")


def bounded(message: str) -> str:
    """``message`` with every quoted value and every run without a space cut to
    :data:`QUOTED_CHARS` characters (``'abcd…'``), at most :data:`MESSAGE_CHARS` long."""
    if len(message) <= QUOTED_CHARS:
        return message
    message = _PARTS.sub(_cut, message)
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 1] + "…"


def _cut(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) <= QUOTED_CHARS + 2:
        return text
    if text[0] in "'\"" and text[-1] == text[0]:
        return text[: QUOTED_CHARS + 1] + "…" + text[0]
    return text[:QUOTED_CHARS] + "…"
