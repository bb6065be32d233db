"""What one seat may see (docs/rules.md#what-a-player-may-see): a pure function of the
game.

:func:`seat_view` is the only way information about a game should leave the engine
towards a player: it holds the seat's own hand, everybody's card counts and scores,
the discard pile (every card on it was played in public), the pending draw, the
direction, whose turn it is, the draw pile's size and the public log, in which other
seats' draws are counts only.  It never holds another hand, the draw pile's order or
the seed while the round runs; when the round is over every hand is revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from maumau.engine.cards import CARDS, CODES, SUITS, Card, cards_of, iter_cards
from maumau.engine.options import Rules
from maumau.engine.round import OVER, STEP_NAMES, LogEntry, Round


class ViewedGame(Protocol):
    """What a view reads of a game: :class:`maumau.engine.game.Game` is one (the view
    names only these, so that the game may import the view and not the other way)."""

    @property
    def n(self) -> int: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def round(self) -> Round: ...
    @property
    def round_index(self) -> int: ...
    @property
    def totals(self) -> Sequence[int]: ...
    @property
    def rounds_won(self) -> Sequence[int]: ...
    @property
    def finished(self) -> bool: ...
    @property
    def winners(self) -> tuple[int, ...] | None: ...


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's (or a spectator's, ``seat is None``) view of a game."""

    seat: int | None
    players: tuple[str, ...]
    #: the game's options (public; not repeated in :meth:`to_json`)
    rules: Rules
    round: int
    leader: int
    step: str
    to_move: int
    hand: tuple[Card, ...]
    counts: tuple[int, ...]
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    top: Card
    named_suit: int | None
    pending: int
    direction: int
    stock_count: int
    discard: tuple[Card, ...]
    #: the card this seat just drew and may play (only the drawer sees it)
    drawn: Card | None
    #: the seat whose missing call may be caught now, if any
    catchable: int | None
    #: the round's public log (see :mod:`maumau.engine.round`): draws as counts
    log: tuple[LogEntry, ...]
    #: what this seat drew: (log index, cards) for each of its draws this round
    my_draws: tuple[tuple[int, tuple[int, ...]], ...]
    out: int | None
    #: every hand, only once the round is over
    hands: tuple[tuple[Card, ...], ...] | None
    finished: bool
    winners: tuple[int, ...] | None

    def log_json(self, start: int = 0) -> list[dict[str, Any]]:
        """The log from entry ``start`` on as JSON, with this seat's drawn cards."""
        mine = dict(self.my_draws)
        return [entry_json(e, mine.get(i)) for i, e in enumerate(self.log) if i >= start]

    def to_json(self, log: bool = True) -> dict[str, Any]:
        """A JSON-ready dict with cards as codes; ``log=False`` leaves the log out (a
        client that is sent the new entries as they come keeps the log itself)."""
        out: dict[str, Any] = {
            "seat": self.seat,
            "players": list(self.players),
            "round": self.round,
            "leader": self.leader,
            "step": self.step,
            "to_move": self.to_move,
            "hand": [str(c) for c in self.hand],
            "counts": list(self.counts),
            "totals": list(self.totals),
            "rounds_won": list(self.rounds_won),
            "top": str(self.top),
            "named_suit": None if self.named_suit is None else SUITS[self.named_suit],
            "pending": self.pending,
            "direction": self.direction,
            "stock_count": self.stock_count,
            "discard": [str(c) for c in self.discard],
            "drawn": None if self.drawn is None else str(self.drawn),
            "catchable": self.catchable,
            "out": self.out,
            "hands": None if self.hands is None else [[str(c) for c in h] for h in self.hands],
            "finished": self.finished,
            "winners": None if self.winners is None else list(self.winners),
        }
        if log:
            out["log"] = self.log_json()
        return out


def entry_json(entry: LogEntry, cards: tuple[int, ...] | None = None) -> dict[str, Any]:
    """A public log entry as JSON; ``cards`` adds what was drawn (for the drawer only)."""
    kind = entry[0]
    if kind == "play":
        out: dict[str, Any] = {"seat": entry[1], "play": CODES[entry[2]]}
        if entry[3] >= 0:
            out["suit"] = SUITS[entry[3]]
        if entry[4] is not None:
            out["call"] = entry[4]
        if entry[5] >= 0:
            out["skipped"] = entry[5]
        if entry[6]:
            out["reversed"] = True
        return out
    if kind in ("draw", "penalty"):
        out = {"seat": entry[1], kind: entry[2]}
        if kind == "penalty":
            out["reason"] = entry[3]
            if entry[4] >= 0:
                out["by"] = entry[4]
        if cards is not None:
            out["cards"] = [CODES[c] for c in cards]
        return out
    if kind == "pass":
        out = {"seat": entry[1], "pass": True}
        if entry[2]:
            out[entry[2]] = True
        return out
    if kind == "catch":
        return {"seat": entry[1], "catch": entry[2]}
    if kind == "reshuffle":
        return {"reshuffle": entry[1]}
    return {"out": entry[1]}


def seat_view(game: ViewedGame, seat: int | None) -> SeatView:
    """The view of ``seat`` (``None`` for a spectator) of ``game``'s current round."""
    if seat is not None and not 0 <= seat < game.n:
        raise ValueError(f"there is no seat {seat}")
    state = game.round
    over = state.step == OVER
    hands = state.hands
    return SeatView(
        seat=seat,
        players=game.players,
        rules=game.rules,
        round=game.round_index,
        leader=state.leader,
        step=STEP_NAMES[state.step],
        to_move=state.to_move,
        hand=cards_of(hands[seat]) if seat is not None else (),
        counts=tuple(map(int.bit_count, hands)),
        totals=tuple(game.totals),
        rounds_won=tuple(game.rounds_won),
        top=CARDS[state.discard[-1]],
        named_suit=state.named if state.named >= 0 else None,
        pending=state.pending,
        direction=state.direction,
        stock_count=len(state.stock),
        discard=tuple(map(CARDS.__getitem__, state.discard)),
        drawn=CARDS[state.drawn] if state.drawn >= 0 and seat == state.turn else None,
        catchable=state.catchable if state.catchable >= 0 else None,
        log=tuple(state.log),
        my_draws=tuple(state.private[seat]) if seat is not None else (),
        out=state.out if over else None,
        hands=tuple(cards_of(h) for h in hands) if over else None,
        finished=game.finished,
        winners=game.winners,
    )


def public_json(game: ViewedGame) -> dict[str, Any]:
    """What every seat's view has in common: a spectator's view as JSON, without the
    log.  :func:`seat_json` adds one seat's own part; a server that tells every seat
    after each move builds this once per move instead of once per seat."""
    state = game.round
    over = state.step == OVER
    hands = state.hands
    return {
        "seat": None,
        "players": list(game.players),
        "round": game.round_index,
        "leader": state.leader,
        "step": STEP_NAMES[state.step],
        "to_move": state.to_move,
        "hand": [],
        "counts": [h.bit_count() for h in hands],
        "totals": list(game.totals),
        "rounds_won": list(game.rounds_won),
        "top": CODES[state.discard[-1]],
        "named_suit": SUITS[state.named] if state.named >= 0 else None,
        "pending": state.pending,
        "direction": state.direction,
        "stock_count": len(state.stock),
        "discard": [CODES[c] for c in state.discard],
        "drawn": None,
        "catchable": state.catchable if state.catchable >= 0 else None,
        "out": state.out if over else None,
        "hands": [[CODES[c] for c in iter_cards(h)] for h in hands] if over else None,
        "finished": game.finished,
        "winners": None if game.winners is None else list(game.winners),
    }


def seat_json(game: ViewedGame, seat: int | None, public: dict[str, Any]) -> dict[str, Any]:
    """``seat_view(game, seat).to_json(log=False)``, from ``public = public_json(game)``."""
    if seat is None:
        return public
    return {**public, **own_json(game, seat)}


def own_json(game: ViewedGame, seat: int | None) -> dict[str, Any]:
    """The fields of a seat's view that are its own: ``seat``, ``hand``, ``drawn``."""
    if seat is None:
        return {"seat": None, "hand": [], "drawn": None}
    if not 0 <= seat < game.n:
        raise ValueError(f"there is no seat {seat}")
    state = game.round
    drawn = CODES[state.drawn] if state.drawn >= 0 and seat == state.turn else None
    return {"seat": seat, "hand": [CODES[c] for c in iter_cards(state.hands[seat])], "drawn": drawn}


def events_json(
    game: ViewedGame, seat: int | None, start: int = 0, marks: Mapping[int, str] | None = None
) -> list[dict[str, Any]]:
    """``seat_view(game, seat).log_json(start)`` without building the whole view.
    ``marks``: log index -> who made that entry's move for its seat, when it was not
    the player (a server's ``"timeout"`` or ``"stand_in"``), added as ``"by"``."""
    state = game.round
    log = state.log
    if start >= len(log):
        return []
    mine = {i: cards for i, cards in state.private[seat] if i >= start} if seat is not None else {}
    out = [entry_json(log[i], mine.get(i)) for i in range(start, len(log))]
    if marks:
        for i, entry in enumerate(out, start):
            mark = marks.get(i)
            if mark is not None:
                entry["by"] = mark
    return out
