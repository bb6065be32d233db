"""Precomputed per-rules tables that the hot paths read (shared, never copied)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from maumau.engine.cards import JACK, JACKS, RANK_MASKS, SUIT_MASKS, deck_mask
from maumau.engine.effects import CardEffects, card_effects
from maumau.engine.options import Rules

MAU_OFF, MAU_AUTO, MAU_CATCH = 0, 1, 2
_MAU_MODES = {"off": MAU_OFF, "auto": MAU_AUTO, "catch": MAU_CATCH}


@dataclass(frozen=True, slots=True)
class Table:
    rules: Rules
    deck: int  # bitmask of the pack
    #: match[c]: the cards that may go on top card ``c`` (not a Jack) with nothing pending
    match: tuple[int, ...]
    #: named[s]: the cards that may go on a Jack that named suit ``s``
    named: tuple[int, ...]
    #: the cards that may go on a start Jack (it names no suit)
    start_jack: int
    #: what each card does when played (the action cards; see effects.py)
    effects: CardEffects
    draw_when_able: bool
    mau_mode: int
    penalty_cards: int
    values: tuple[int, ...]

    def fits(self, top: int, named: int) -> int:
        """The cards that may go on ``top`` (a Jack that named suit ``named``, or -1 for
        none named, as on a start Jack) when nothing is pending."""
        if top % 13 != JACK:
            return self.match[top]
        return self.named[named] if named >= 0 else self.start_jack

    #: memo of legal-action tuples, keyed by playable mask, call and draw/pass offer
    legal_memo: dict[int, tuple[Any, ...]] = field(default_factory=dict, compare=False)


@lru_cache(maxsize=256)
def table_for(rules: Rules) -> Table:
    deck = deck_mask(rules.deck)
    jacks_ok = JACKS if rules.jack_on_jack else 0
    match = tuple(
        (SUIT_MASKS[c // 13] | RANK_MASKS[c % 13] | JACKS) & deck
        if c % 13 != JACK
        else ((SUIT_MASKS[c // 13] & ~JACKS) | jacks_ok) & deck
        for c in range(52)
    )
    named = tuple(((SUIT_MASKS[s] & ~JACKS) | jacks_ok) & deck for s in range(4))
    return Table(
        rules=rules,
        deck=deck,
        match=match,
        named=named,
        start_jack=(deck & ~JACKS) | jacks_ok,
        effects=card_effects(rules),
        draw_when_able=rules.draw_when_able,
        mau_mode=_MAU_MODES[rules.mau_penalty],
        penalty_cards=rules.mau_penalty_cards,
        values=rules.card_value_table(),
    )
