"""Cards, suits and the two-character card notation.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank`` where suits are ordered
clubs, diamonds, hearts, spades (``C D H S``) and ranks ``2 3 4 5 6 7 8 9 T J Q K A``.
That order is also the canonical deck order the shuffle starts from, so sorting the
ints gives the canonical order of either deck.  A set of cards (a hand) is a bitmask
with bit ``card`` set, which makes "which of my cards fit?" one ``&``.

:class:`Card` is an ``int`` subclass that prints as its notation (``str(Card.parse("TH"))
== "TH"``); the engine hands out the 52 interned instances in :data:`CARDS`.
"""

from __future__ import annotations

from collections.abc import Iterator

from maumau.engine.errors import BadCard, IllegalAction

SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)


class Card(int):
    """One card; an ``int`` (0..51) that knows its rank, suit and notation."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank index: 0 is a Two, 12 an Ace."""
        return int(self) % 13

    @property
    def suit(self) -> int:
        """Suit index: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return int(self) // 13

    @property
    def code(self) -> str:
        """The two-character notation, e.g. ``"7H"``."""
        return CODES[self]

    @property
    def name(self) -> str:
        """A readable name, e.g. ``"Queen of hearts"``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card code such as ``"TS"``; anything else raises :class:`BadCard`."""
        return CARDS[parse_card(text)]

    def __str__(self) -> str:
        return CODES[self]

    def __repr__(self) -> str:
        return f"Card.parse({CODES[self]!r})"


CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
_BY_CODE = {code: i for i, code in enumerate(CODES)}


def parse_card(text: object) -> int:
    """Return the card int for a code like ``"JC"``; raise :class:`BadCard` naming the text."""
    if isinstance(text, str):
        card = _BY_CODE.get(text)
        if card is not None:
            return card
    raise BadCard(f"{text!r} is not a card: write rank (2-9 T J Q K A) then suit (C D H S)")


def card_code(card: int) -> str:
    """The notation of a card int."""
    return CODES[card]


def parse_suit(text: object) -> int:
    """Return the suit index of ``"C"``, ``"D"``, ``"H"`` or ``"S"``."""
    if isinstance(text, str) and len(text) == 1 and text in SUITS:
        return SUITS.index(text)
    raise IllegalAction("bad_suit", f"{text!r} is not a suit: name one of C, D, H, S")


# --- bitmask sets ---------------------------------------------------------------

SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
RANK_MASKS: tuple[int, ...] = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
JACKS = RANK_MASKS[JACK]
SEVENS = RANK_MASKS[SEVEN]
FULL_DECK = (1 << 52) - 1
SHORT_DECK = sum(RANK_MASKS[r] for r in range(SEVEN, ACE + 1))


def deck_mask(deck: int) -> int:
    """The set of cards in a 52- or 32-card pack."""
    return FULL_DECK if deck == 52 else SHORT_DECK


def deck_cards(deck: int) -> list[int]:
    """The cards of a pack in canonical order (C, D, H, S; ranks ascending)."""
    return list(iter_cards(deck_mask(deck)))


def iter_cards(mask: int) -> Iterator[int]:
    """The cards of a bitmask, lowest first (canonical order)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask as :class:`Card` objects, canonical order."""
    return tuple(map(CARDS.__getitem__, iter_cards(mask)))
