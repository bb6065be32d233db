"""What ``python_maumau`` shows a player, for each of OpenSpiel's observation types
(``pyspiel.IIGObservationType``), as OpenSpiel's own Python games build it: a flat
tensor and named pieces of it in ``observer.dict``.

* ``private_info``: ``SINGLE_PLAYER`` adds the player's ``hand`` and the card it has
  just ``drawn``; ``ALL_PLAYERS`` adds every seat's hand (``hands``, one row per
  relative seat, 8 x 52) and the card the seat to move has just drawn; ``NONE`` adds
  nothing private.
* ``public_info`` adds the public state of :func:`maumau.env.encoding.encode`
  (``top``, ``named``, ``discard``, ``step``, ``scalars``, ``seats``).  Seat slots are
  relative to the player; with ``private_info=NONE`` there is no observing seat and
  they are absolute (slot 0 is seat 0), so the public observation is the same for
  every player.
* ``perfect_recall`` adds the ``history`` window of
  :func:`~maumau.env.encoding.encode_info` (the last 8 public log entries of the
  round), and the strings carry the round's whole log.  Recall stops at the round:
  an earlier round is known only by the score (imperfect recall across rounds).

The default observation (public, single player, no recall) is exactly ``encode``'s
364 floats, the default information state (with recall) ``encode_info``'s 948.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Protocol

import numpy as np
import pyspiel

from maumau.engine import Game, SeatView
from maumau.engine.actions import MAX_SEATS
from maumau.engine.cards import CODES, cards_of
from maumau.engine.view import entry_json
from maumau.env.encoding import (
    DISCARD,
    DRAWN,
    ENTRY_SIZE,
    HAND,
    HISTORY,
    INFO_SIZE,
    NAMED,
    OBS_SIZE,
    SCALARS,
    SEAT_SIZE,
    SEATS,
    STEP,
    TOP,
    encode,
    encode_info,
)


class _Core(Protocol):
    """The engine's game inside an OpenSpiel state, and its number of players."""

    n: int
    game: Game


class MauMauState(Protocol):
    """What the observer reads of a :class:`maumau.env.spiel.MauMauState` (a protocol,
    so that this module does not import the game that imports it)."""

    core: _Core

    def view(self, player: int) -> SeatView | None: ...

    def start_card(self) -> str: ...

    def dealt_to(self, player: int) -> list[int]: ...


#: a piece of the tensor: name, shape, and where it comes from in ``encode_info``'s
#: layout (``None``: not from it)
Piece = tuple[str, tuple[int, ...], int | None]

_PRIVATE: list[Piece] = [("hand", (52,), HAND), ("drawn", (52,), DRAWN)]
_ALL: list[Piece] = [("hands", (MAX_SEATS, 52), None), ("drawn", (52,), None)]
_ORDER = ["hand", "hands", "top", "named", "drawn", "discard", "step", "scalars", "seats"]
_PUBLIC: list[Piece] = [
    ("top", (52,), TOP),
    ("named", (4,), NAMED),
    ("discard", (52,), DISCARD),
    ("step", (4,), STEP),
    ("scalars", (4,), SCALARS),
    ("seats", (MAX_SEATS, SEAT_SIZE), SEATS),
]
_HISTORY: Piece = ("history", (HISTORY, ENTRY_SIZE), OBS_SIZE)


def pieces_for(public: bool, private: Any, recall: bool) -> list[Piece]:
    """The pieces of an observation type, in ``encode``'s order."""
    chosen: list[Piece] = []
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
        chosen += _PRIVATE
    elif private == pyspiel.PrivateInfoType.ALL_PLAYERS:
        chosen += _ALL
    if public:
        chosen += _PUBLIC
    chosen.sort(key=lambda piece: _ORDER.index(piece[0]))
    if public and recall:
        chosen.append(_HISTORY)
    return chosen


class MauMauObserver:
    """Tensors and strings for one player (OpenSpiel's PyObserver interface)."""

    def __init__(self, iig_obs_type: Any) -> None:
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info
        self.single = self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.everyone = self.private == pyspiel.PrivateInfoType.ALL_PLAYERS
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.pieces = pieces_for(self.public, self.private, self.perfect_recall)
        size = sum(int(np.prod(shape)) for _, shape, _ in self.pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        offset = 0
        #: encode's layout exactly (the default types): written in place
        self._whole = size in (OBS_SIZE, INFO_SIZE) and self.single and self.public
        for name, shape, _ in self.pieces:
            length = int(np.prod(shape))
            self.dict[name] = self.tensor[offset : offset + length].reshape(shape)
            offset += length
        self._scratch = np.zeros(INFO_SIZE, np.float32)

    def _view(self, state: MauMauState, player: int) -> SeatView | None:
        """The view the encoding is read from: the player's, or with nothing private
        a view from seat 0 with no hand (absolute seats)."""
        view = state.view(player if self.single or self.everyone else 0)
        if view is None or self.single or self.everyone:
            return view
        return dataclasses.replace(view, hand=(), drawn=None, my_draws=())

    def set_from(self, state: MauMauState, player: int) -> None:
        view = self._view(state, player)
        tensor = self.tensor
        if view is None:  # the cards are being dealt
            tensor.fill(0.0)
            for seat in self._seats_private(state, player):
                row = self.dict["hand"] if self.single else self.dict["hands"][seat]
                for c in state.dealt_to((player + seat) % state.core.n):
                    row[c] = 1.0
            return
        if self._whole:
            (encode_info if self.perfect_recall else encode)(view, tensor)
            return
        scratch = self._scratch
        (encode_info if self.perfect_recall else encode)(view, scratch)
        for name, shape, source in self.pieces:
            if source is not None:
                piece = self.dict[name]
                piece[...] = scratch[source : source + piece.size].reshape(shape)
        if self.everyone:
            hands, drawn = self.dict["hands"], self.dict["drawn"]
            hands.fill(0.0)
            drawn.fill(0.0)
            r = state.core.game.round
            n = state.core.n
            for seat in range(n):
                hands[seat, [int(c) for c in cards_of(r.hands[(player + seat) % n])]] = 1.0
            if r.drawn >= 0:
                drawn[r.drawn] = 1.0

    def _seats_private(self, state: MauMauState, player: int) -> range:
        """The relative seats whose dealt cards the player observes."""
        if self.single:
            return range(1)
        return range(state.core.n) if self.everyone else range(0)

    def string_from(self, state: MauMauState, player: int) -> str:
        game = state.core.game
        view = self._view(state, player)
        parts: list[str] = []
        if self.single or self.everyone:
            parts.append(f"p{player}")
        if view is None:
            dealt = [
                " ".join(CODES[c] for c in state.dealt_to((player + s) % state.core.n))
                for s in self._seats_private(state, player)
            ]
            parts.append(f"dealing round {len(game.rounds) + 1}:")
            if dealt:
                parts.append(" | ".join(dealt) + ";")
            parts.append(f"totals {game.totals}")
            return " ".join(parts)
        hand = " ".join(str(c) for c in view.hand)
        hands = (
            " | ".join(" ".join(str(c) for c in cards_of(h)) for h in game.round.hands)
            if self.everyone
            else ""
        )
        if self.perfect_recall:
            if self.public:
                parts.append(
                    f"round {view.round + 1} totals {list(view.totals)} won "
                    f"{list(view.rounds_won)} start {state.start_card()}"
                )
            if self.single:
                parts.append(f"hand {hand}")
            elif self.everyone:
                parts.append(f"hands {hands}")
            if self.public:
                parts.append(f"log {json.dumps(self._log(state, view), separators=(',', ':'))}")
            elif self.single:
                parts.append(f"drew {[[CODES[c] for c in cards] for _, cards in view.my_draws]}")
            return " ".join(parts)
        if self.public:
            parts.append(view.step)
        if self.single:
            parts.append(f"hand {hand}")
        elif self.everyone:
            parts.append(f"hands {hands}")
        if self.public:
            named = "" if view.named_suit is None else f">{'CDHS'[view.named_suit]}"
            parts.append(
                f"top {view.top}{named} pending {view.pending} counts {list(view.counts)} "
                f"totals {list(view.totals)} to_move {view.to_move}"
            )
        elif self.single and view.drawn is not None:
            parts.append(f"drawn {view.drawn}")
        return " ".join(parts)

    def _log(self, state: MauMauState, view: SeatView) -> list[dict[str, Any]]:
        """The round's log with the draws the player observes: its own, everyone's or
        none."""
        if not self.everyone:
            return view.log_json()
        drawn: dict[int, tuple[int, ...]] = {}
        for mine in state.core.game.round.private:
            drawn.update(mine)
        return [entry_json(e, drawn.get(i)) for i, e in enumerate(view.log)]
