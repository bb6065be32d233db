"""The wire protocol: every message between a client and the server, as typed models.

These models are the single definition of the protocol; ``docs/protocol.md`` describes
them for people, and a test checks that it names every message, field and error code.
Cards are written as in game records (``"7H"``, ``"TC"``), actions as record actions
without the seat (the seat is the one the connection's token holds).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from maumau.server.wire.errors import ERROR_CODES
from maumau.server.wire.model import Model, Name
from maumau.server.wire.table_talk import (
    AnswerSeat,
    AskSeat,
    Chat,
    ChatHistory,
    ChatOptions,
    ChatSaid,
    React,
    Reaction,
    SeatAsked,
    SeatGiven,
    SeatRequestEnded,
    SeatRequests,
    SetChat,
    WithdrawSeat,
)

# --- table settings (not rule keys; chosen at creation, shown to everyone) -----------------


class TableSettings(Model):
    #: seconds a disconnected player has before a computer player takes the seat over
    #: (``null``: never)
    grace_seconds: float | None = Field(default=30.0, ge=0, le=3600)
    #: seconds a player has for a move before the seat's computer player makes it
    #: (``null``: no turn timer)
    turn_seconds: float | None = Field(default=None, ge=1, le=3600)
    #: how long a computer player waits before it moves, in milliseconds
    bot_delay_ms: int = Field(default=900, ge=0, le=10_000)
    #: after a round, the next one is dealt when every player present is ready, or
    #: after this many seconds (0: at once)
    next_round_seconds: float = Field(default=15.0, ge=0, le=600)
    #: the table closes after this many seconds with nobody connected (its record is kept)
    idle_close_seconds: float = Field(default=86_400.0, ge=1, le=30 * 86_400)
    #: the computer player that stands in for an absent player or an expired timer
    stand_in_level: Literal["random", "easy", "normal", "hard"] = "normal"
    #: the table's finished games may be exported without names as research data
    #: (``maumau admin research-export``); off unless the host turns it on
    research_export: bool = False


#: computer player levels a table offers
BOT_LEVELS = ("random", "easy", "normal", "hard")
# --- HTTP bodies ------------------------------------------------------------------------


class CreateGame(Model):
    """``POST /api/games``: a new table; its creator takes seat 0 and is the host."""

    name: Name
    preset: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    settings: TableSettings = Field(default_factory=TableSettings)


class JoinGame(Model):
    """``POST /api/games/{id}/seats``: claim a free seat."""

    name: Name


class AddBot(Model):
    """``POST /api/games/{id}/bots``: the host adds a computer player (one of
    ``random``, ``easy``, ``normal``, ``hard``; otherwise ``bad_level``)."""

    level: str = Field(default="normal", max_length=32)


class SeatGranted(Model):
    """The answer to creating a table or claiming a seat.  ``token`` is the seat's
    secret: keep it, send it only in the ``Authorization: Bearer`` header and in
    ``hello``; never put it in a URL."""

    game_id: str
    invite: str
    seat: int
    token: str


class BotAdded(Model):
    seat: int


class RematchCreated(Model):
    game_id: str
    invite: str


class Health(Model):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unavailable"]
    tables: int
    #: WebSockets that have said hello
    connections: int
    #: WebSockets open that have not said hello (yet)
    pending: int


class SeatInfo(Model):
    position: int
    name: str
    kind: Literal["human", "bot"]
    level: str | None
    #: a human seat with at least one open connection
    connected: bool
    #: a computer player is playing for this human seat: its player has been away
    #: longer than the grace period (a turn-timer move does not set this)
    stand_in: bool


class GameInfo(Model):
    """``GET /api/games/{id}``, and the ``lobby`` message: everything public about a
    table."""

    game_id: str
    invite: str
    status: Literal["lobby", "playing", "finished", "closed"]
    options: dict[str, Any]
    rules: dict[str, Any]
    settings: TableSettings
    host: int
    seats: list[SeatInfo]
    max_seats: int
    rematch_of: str | None
    rematch_id: str | None
    #: how many connections watch without a seat
    spectators: int = 0
    #: the server holds back the computer players: no human player is connected, and
    #: the table played unattended long enough (it goes on when one connects)
    paused: bool = False


class ErrorBody(Model):
    code: str
    message: str


class ErrorReply(Model):
    """Every HTTP error: ``{"error": {"code": ..., "message": ...}}``."""

    error: ErrorBody


# --- WebSocket: client to server ---------------------------------------------------------


class Hello(Model):
    """The first message on a connection: a seat's token, or none to watch."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=128)


class ActionMessage(Model):
    """A move.  ``action`` is a record action without ``seat``: ``{"play": "JC",
    "suit": "H", "call": "mau"}``, ``{"draw": 1}`` (or ``{"draw": null}``: whatever the
    rules make you draw), ``{"pass": true}``, ``{"catch": 2}``.  ``version`` is the state
    version the client saw; ``action_id`` is the client's own id for this move, so that a
    resent move is answered again, not applied twice."""

    type: Literal["action"]
    version: int = Field(ge=0)
    action_id: str = Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")
    action: dict[str, Any]


class Ping(Model):
    type: Literal["ping"]


class Ready(Model):
    """Between rounds: this seat is ready for the next one."""

    type: Literal["ready"]


#: every message a client may send: the one list of them (``CLIENT_MESSAGES`` and
#: ``CLIENT_TYPES`` below, and the parsing and dispatch in ``sockets.py``, read it)
ClientMessage = Annotated[
    Hello
    | ActionMessage
    | Ping
    | Ready
    | AskSeat
    | WithdrawSeat
    | AnswerSeat
    | Chat
    | React
    | SetChat,
    Field(discriminator="type"),
]


# --- WebSocket: server to client ---------------------------------------------------------


class Welcome(Model):
    """The answer to ``hello``: who this connection is, and what happened before it
    came (so that a client that reconnects can show the rounds it missed)."""

    type: Literal["welcome"] = "welcome"
    game_id: str
    seat: int | None
    role: Literal["player", "spectator"]
    host: bool
    #: every finished round so far, as its ``round_end`` message
    results: list[RoundEnd] = Field(default_factory=list)
    #: the game's ``game_end`` message, once it is over
    end: GameEnd | None = None


class Lobby(Model):
    """The table changed: seats, connections, status (sent to everyone)."""

    type: Literal["lobby"] = "lobby"
    game: GameInfo


class Away(Model):
    """A human seat whose player has no connection (docs/protocol.md, "Lost signal")."""

    seat: int
    #: unix time (server clock) since when the seat has no connection
    since: float
    #: unix time when a computer player takes the seat over; ``None``: it has already
    #: (the seat is in ``stand_in``), or never (``grace_seconds`` is ``null``)
    stand_in_at: float | None


class Presence(Model):
    """Who is at the table changed: sent to everyone, at most every quarter second, and
    only when something in it changed.  It updates the ``connected`` and ``stand_in``
    fields of the last ``lobby``'s seats, and its spectator count."""

    type: Literal["presence"] = "presence"
    #: the seats somebody is connected to
    connected: list[int]
    #: the human seats a computer player is playing for (see SeatInfo.stand_in)
    stand_in: list[int]
    #: how many connections watch without a seat
    spectators: int
    #: the human seats nobody is connected to, in seat order, with since when, and
    #: when a computer player takes over
    away: list[Away] = Field(default_factory=list)
    #: unix time on the server when this was sent: a client counts ``stand_in_at``
    #: down from it (its own clock may be off)
    server_time: float = 0.0


class State(Model):
    """The game as this connection may see it (docs/rules.md#what-a-player-may-see),
    after every change."""

    type: Literal["state"] = "state"
    version: int
    #: the seat's view (``SeatView.to_json``): its own hand only, counts for the others
    view: dict[str, Any]
    #: public log entries new since this connection's last ``state`` (this seat's own
    #: draws show their cards)
    events: list[dict[str, Any]]
    #: what this seat may do now, as action objects (empty when it may not act)
    legal: list[dict[str, Any]]
    #: SHA-256 commitment to this round's seed and salt (record.md, "Verifiable shuffle")
    commitment: str | None
    #: unix time when the turn timer runs out for the seat to move, if a timer runs
    turn_deadline: float | None
    #: between rounds: the seats that said they are ready for the next round
    ready: list[int]
    #: between rounds: unix time when the next round is dealt at the latest
    next_round_at: float | None
    #: unix time on the server when this state was sent: a client counts
    #: ``turn_deadline`` and ``next_round_at`` down from it (its own clock may be off)
    server_time: float
    #: the ``action_id`` of this connection's move that this state follows: the move
    #: was accepted and committed (its acknowledgement); ``None`` in every other state
    ack: str | None = None


class Ack(Model):
    """A move whose ``action_id`` had been accepted already: it was not applied again
    (``duplicate``).  A new move is acknowledged in the mover's next ``state``."""

    type: Literal["ack"] = "ack"
    action_id: str
    version: int
    duplicate: bool = True


class RoundEnd(Model):
    """A round ended: every hand revealed, the points, and the shuffle's seed and salt."""

    type: Literal["round_end"] = "round_end"
    round: int
    out: int
    hands: list[list[str]]
    hand_values: list[int]
    totals: list[int]
    rounds_won: list[int]
    seed: int
    salt: str | None
    commitment: str | None


class GameEnd(Model):
    type: Literal["game_end"] = "game_end"
    winners: list[int]
    draw: bool
    decided_by: str
    totals: list[int]
    rounds_won: list[int]


class Rematch(Model):
    """A rematch table exists: same options and seats; join it with the same token."""

    type: Literal["rematch"] = "rematch"
    game_id: str
    invite: str


class Pong(Model):
    type: Literal["pong"] = "pong"


class ErrorMessage(Model):
    """Something the client sent was refused; nothing changed.  ``action_id`` is set
    when the refused message was a move."""

    type: Literal["error"] = "error"
    code: str
    message: str
    action_id: str | None = None


class Closed(Model):
    """The server closes this connection (the table closed, or a fatal error)."""

    type: Literal["closed"] = "closed"
    code: str
    message: str


class Announcement(Model):
    """The operator's announcement (``maumau admin announce``), e.g. before maintenance:
    sent to every connected client when it is made, and after ``welcome`` while it
    lasts.  ``text`` is plain text to show as it is (never markup); an empty ``text``
    withdraws the announcement.  ``expires``: unix seconds after which it is no longer
    shown, or ``None``: until the next one."""

    type: Literal["announcement"] = "announcement"
    text: str
    expires: float | None = None


Welcome.model_rebuild()

SERVER_MESSAGES: tuple[type[Model], ...] = (
    Welcome,
    Lobby,
    Presence,
    State,
    Ack,
    RoundEnd,
    GameEnd,
    Rematch,
    Pong,
    ErrorMessage,
    Closed,
    Announcement,
    SeatAsked,
    SeatRequestEnded,
    SeatRequests,
    SeatGiven,
    ChatHistory,
    ChatSaid,
    Reaction,
    ChatOptions,
)
#: the client messages' models, in the order of :data:`ClientMessage` (read from it)
CLIENT_MESSAGES: tuple[type[Model], ...] = get_args(get_args(ClientMessage)[0])


def message_type(model: type[Model]) -> str:
    """The ``type`` a message model's messages carry (its ``Literal``)."""
    kind: str = get_args(model.model_fields["type"].annotation)[0]
    return kind


#: the client messages' types, in the same order
CLIENT_TYPES: tuple[str, ...] = tuple(message_type(m) for m in CLIENT_MESSAGES)

__all__ = ["CLIENT_MESSAGES", "CLIENT_TYPES", "ERROR_CODES", "SERVER_MESSAGES"]
