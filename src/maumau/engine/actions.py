"""Actions and their notation.

Four small immutable action types, none of which names its seat (the seat is the
second argument of :meth:`maumau.engine.Game.apply`):

========================  =========================  ====================================
object                    notation                   record form (with ``"seat"``)
========================  =========================  ====================================
``Play(card)``            ``play 7H``                ``{"play": "7H"}``
``Play(card, call=MAU)``  ``play 7H mau``            ``{"play": "7H", "call": "mau"}``
``Play(jack, suit)``      ``play JC>H maumau``       ``{"play": "JC", "suit": "H", ...}``
``Draw(n)``               ``draw 2``                 ``{"draw": 2}``
``Pass()``                ``pass``                   ``{"pass": true}``
``Catch(seat)``           ``catch 2``                ``{"catch": 2}``
========================  =========================  ====================================

``str(action)`` and :func:`parse_action` round-trip; :meth:`Action.to_json` gives the
record form, which :mod:`maumau.engine.record` reads back.  The engine hands out
interned instances, so listing legal actions allocates nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from maumau.engine.cards import CARDS, CODES, SUITS, Card, parse_card, parse_suit
from maumau.engine.errors import IllegalAction

#: the calls a play may carry: none, "mau" (one card left), "maumau" (none left)
NO_CALL, MAU, MAUMAU = None, "mau", "maumau"
CALLS = (NO_CALL, MAU, MAUMAU)


class Action(ABC):
    """Base class of the four actions."""

    __slots__ = ()
    kind: ClassVar[str] = ""

    @abstractmethod
    def to_json(self, seat: int) -> dict[str, Any]:
        """The record form of this action taken by ``seat``."""

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


class Play(Action):
    """Play ``card``; a Jack names ``suit`` (0..3); ``call`` is ``None``, ``"mau"`` or
    ``"maumau"``."""

    __slots__ = ("call", "card", "suit")
    kind = "play"
    card: Card
    suit: int | None
    call: str | None

    def __init__(self, card: int, suit: int | None = None, call: str | None = None) -> None:
        if call not in CALLS:
            raise ValueError(f"call must be None, 'mau' or 'maumau', not {call!r}")
        if suit is not None and suit not in (0, 1, 2, 3):
            raise IllegalAction(
                "bad_suit", f"{suit!r} is not a suit: name one of 0..3 (C, D, H, S)"
            )
        object.__setattr__(self, "card", CARDS[card])
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "call", call)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Play)
            and self.card == other.card
            and self.suit == other.suit
            and self.call == other.call
        )

    def __hash__(self) -> int:
        return hash((self.card, self.suit, self.call))

    def __str__(self) -> str:
        text = "play " + CODES[self.card]
        if self.suit is not None:
            text += ">" + SUITS[self.suit]
        if self.call is not None:
            text += " " + self.call
        return text

    def to_json(self, seat: int) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": seat, "play": CODES[self.card]}
        if self.suit is not None:
            out["suit"] = SUITS[self.suit]
        if self.call is not None:
            out["call"] = self.call
        return out


class Draw(Action):
    """Draw; ``count`` is how many cards the rules make the seat draw (``None``: whatever
    they are; a number is checked against them)."""

    __slots__ = ("count",)
    kind = "draw"
    count: int | None

    def __init__(self, count: int | None = None) -> None:
        object.__setattr__(self, "count", count)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Draw) and self.count == other.count

    def __hash__(self) -> int:
        return hash(("draw", self.count))

    def __str__(self) -> str:
        return "draw" if self.count is None else f"draw {self.count}"

    def to_json(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "draw": 1 if self.count is None else self.count}


class Pass(Action):
    """Keep the card just drawn, pass when nothing can be played or drawn, or accept
    (catch mode) that a player went out without calling "Mau Mau"."""

    __slots__ = ()
    kind = "pass"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pass)

    def __hash__(self) -> int:
        return hash("pass")

    def __str__(self) -> str:
        return "pass"

    def to_json(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "pass": True}


class Catch(Action):
    """Catch seat ``target``'s missing call (``mau_penalty: catch``)."""

    __slots__ = ("target",)
    kind = "catch"
    target: int

    def __init__(self, target: int) -> None:
        object.__setattr__(self, "target", target)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catch) and self.target == other.target

    def __hash__(self) -> int:
        return hash(("catch", self.target))

    def __str__(self) -> str:
        return f"catch {self.target}"

    def to_json(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "catch": self.target}


PASS = Pass()

# Interned plays: PLAYS[call_index][card] for non-Jacks, JACK_PLAYS[call_index][card] holds
# the four suit choices of a Jack.  call_index: 0 none, 1 "mau", 2 "maumau".
PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(c, None, call) for c in range(52)) for call in CALLS
)
JACK_PLAYS: tuple[tuple[tuple[Play, ...], ...], ...] = tuple(
    tuple(tuple(Play(c, s, call) for s in range(4)) for c in range(52)) for call in CALLS
)
DRAWS: tuple[Draw, ...] = tuple(Draw(n) for n in range(160))

#: the most seats a game has (a 52-card deck)
MAX_SEATS = 8

# A round lists its actions as ``(seat, action)`` pairs.  These are made once, for each
# seat and interned action, so that a round keeps no pair objects of its own (a server
# holds every action of hundreds of live games, and the cycle collector walks each
# object it keeps): SEATED_PLAYS[seat][call_index][card],
# SEATED_JACK_PLAYS[seat][call_index][card][suit], SEATED_DRAWS[seat][count].
SEATED_PLAYS: tuple[tuple[tuple[tuple[int, Play], ...], ...], ...] = tuple(
    tuple(tuple((seat, p) for p in plays) for plays in PLAYS) for seat in range(MAX_SEATS)
)
SEATED_JACK_PLAYS: tuple[tuple[tuple[tuple[tuple[int, Play], ...], ...], ...], ...] = tuple(
    tuple(tuple(tuple((seat, p) for p in suits) for suits in by_card) for by_card in JACK_PLAYS)
    for seat in range(MAX_SEATS)
)
SEATED_DRAWS: tuple[tuple[tuple[int, Draw], ...], ...] = tuple(
    tuple((seat, d) for d in DRAWS) for seat in range(MAX_SEATS)
)


def draw_action(count: int) -> Draw:
    return DRAWS[count] if count < len(DRAWS) else Draw(count)


def play_action(card: int, suit: int | None = None, call: str | None = None) -> Play:
    """The interned ``Play(card, suit, call)``: a server keeps every move of every live
    game, and one shared object per play is one object less per move."""
    if call not in CALLS:
        raise ValueError(f"call must be None, 'mau' or 'maumau', not {call!r}")
    if suit is None:
        return PLAYS[CALLS.index(call)][card]
    if suit not in (0, 1, 2, 3):
        return Play(card, suit, call)  # raises bad_suit
    return JACK_PLAYS[CALLS.index(call)][card][suit]


def parse_action(text: str) -> Action:
    """Read the notation written by ``str(action)``: ``play JC>H mau``, ``draw``, ``pass``..."""
    words = text.split()
    if not words:
        raise ValueError("an empty action")
    verb, rest = words[0], words[1:]
    if verb == "play" and 1 <= len(rest) <= 2:
        card_text, _, suit_text = rest[0].partition(">")
        card = parse_card(card_text)
        suit = parse_suit(suit_text) if suit_text else None
        call = rest[1] if len(rest) == 2 else None
        if call not in (MAU, MAUMAU, None):
            raise ValueError(f"{call!r} is not a call: 'mau' or 'maumau'")
        return Play(card, suit, call)
    if verb == "draw" and len(rest) <= 1:
        return Draw(int(rest[0])) if rest else Draw()
    if verb == "pass" and not rest:
        return PASS
    if verb == "catch" and len(rest) == 1:
        return Catch(int(rest[0]))
    raise ValueError(
        f"{text!r} is not an action: play CARD[>SUIT] [mau|maumau], draw [N], pass, catch SEAT"
    )
