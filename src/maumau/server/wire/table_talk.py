"""The protocol's messages of the talk around a table, beside the moves: late friends
asking the host for a computer-played seat (``maumau.server.live.takeover``), and the chat and
reactions (``maumau.server.live.chat``).  ``maumau.server.wire.protocol`` takes them into its
unions and lists; ``docs/protocol.md`` describes them with the rest."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from maumau.server.wire.model import Model, Name

# --- WebSocket: late friends ask for a computer-played seat (server/live/takeover.py) --------


class AskSeat(Model):
    """A spectator asks the host to take over ``seat``, a seat a computer plays (a bot,
    or a stand-in for a player who left), under the display name ``name``."""

    type: Literal["ask_seat"]
    seat: int = Field(ge=0, le=7)
    name: Name


class WithdrawSeat(Model):
    """The spectator withdraws its open request for a seat."""

    type: Literal["withdraw_seat"]


class AnswerSeat(Model):
    """The host accepts or declines the open request ``request``."""

    type: Literal["answer_seat"]
    request: int = Field(ge=1)
    accept: bool


# --- chat and reactions (maumau.server.live.chat): client to server ---------------------------


class Chat(Model):
    """A line for the table's chat: plain text by the rules of display names, at
    most 200 characters (otherwise ``bad_chat``); refused with ``chat_off`` when the
    host turned chat off, or for a spectator unless the host lets spectators chat."""

    type: Literal["chat"]
    text: str


class React(Model):
    """A quick reaction, shown at the sender's seat: one of the server's keys
    (``REACTIONS`` in maumau.server.live.chat; otherwise ``unknown_reaction``)."""

    type: Literal["react"]
    key: str = Field(max_length=32)


class SetChat(Model):
    """The host turns the table's chat on or off, lets spectators chat or not, and
    lets spectators react or not (``None``: as it is)."""

    type: Literal["set_chat"]
    chat: bool
    spectators: bool
    spectator_reactions: bool | None = None


# --- WebSocket: late friends, server to client (server/live/takeover.py) ---------------------


class SeatAsked(Model):
    """To the spectator that asked: its request ``request`` for ``seat`` waits for the
    host until ``expires`` (unix seconds)."""

    type: Literal["seat_asked"] = "seat_asked"
    request: int
    seat: int
    expires: float


class SeatRequestEnded(Model):
    """To the spectator that asked: its request ended without a seat (``reason``)."""

    type: Literal["seat_request_ended"] = "seat_request_ended"
    request: int
    reason: Literal["declined", "expired", "withdrawn", "seat_taken", "name_taken"]


class SeatRequestInfo(Model):
    """One open request, as the host sees it."""

    request: int
    seat: int
    name: str
    expires: float


class SeatRequests(Model):
    """To the host's connections: every open request for a seat (sent whenever the
    list changes, and after the host's ``hello`` while any is open)."""

    type: Literal["seat_requests"] = "seat_requests"
    requests: list[SeatRequestInfo]


class SeatGiven(Model):
    """To the spectator whose request the host accepted: it now holds ``seat``.  Keep
    ``token`` as a claimed seat's token; this connection plays the seat at once (a
    ``welcome`` for the seat and its ``state`` follow)."""

    type: Literal["seat_given"] = "seat_given"
    game_id: str
    seat: int
    token: str


# --- chat and reactions (maumau.server.live.chat): server to client ---------------------------


class ChatLine(Model):
    """One line of a table's chat."""

    #: increasing with each line, at the table and across tables
    id: int
    #: the writer's seat, ``None`` for a spectator
    seat: int | None
    #: the writer's display name when it was written (``None``: a spectator)
    name: str | None
    text: str
    #: unix seconds
    at: float


class ChatHistory(Model):
    """After ``welcome``: the chat's last lines, oldest first, and what the host allows
    (not sent while the chat has no line and the host's settings are the defaults)."""

    type: Literal["chat_history"] = "chat_history"
    #: chat is on at the table
    chat: bool
    #: spectators may chat too
    spectators: bool
    #: spectators may react
    spectator_reactions: bool
    lines: list[ChatLine]


class ChatSaid(Model):
    """A new line of the table's chat (sent to everyone, its writer too)."""

    type: Literal["chat_line"] = "chat_line"
    line: ChatLine


class Reaction(Model):
    """Somebody reacted: ``seat`` (``None``: a spectator) sent the reaction ``key``."""

    type: Literal["reaction"] = "reaction"
    seat: int | None
    key: str


class ChatOptions(Model):
    """The host changed what the chat allows (sent to everyone)."""

    type: Literal["chat_options"] = "chat_options"
    chat: bool
    spectators: bool
    spectator_reactions: bool
