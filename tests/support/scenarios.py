"""Rigged games for the rule-scenario tests (``tests/engine/test_rules_*.py``).

A scenario lays out every card by hand, so that each rule of the rule book
(docs/rules.md) can be shown with a handful of readable card codes::

    game = rigged({"ace_skips": True}, hands=["AD KD", "2C 9S"], start="8D")

Cards are written as space-separated codes.  The token ``...`` stands for "every card of
the deck not named anywhere else, in canonical order" (clubs, diamonds, hearts, spades;
ranks ascending); the draw pile defaults to ``...``, so only the cards that matter need to
be named.  Put ``...`` into a hand (and give ``stock=""``) to build an empty draw pile.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from maumau.engine import Action, Game, IllegalAction, Layout, Rules, parse_action
from maumau.engine.cards import CODES, cards_of, deck_cards

REST = "..."

Options = Rules | Mapping[str, Any] | str | None


def make_rules(options: Options = None) -> Rules:
    """Rules from a :class:`Rules`, an options mapping, a preset name or ``None``."""
    if isinstance(options, Rules):
        return options
    if isinstance(options, str):
        return Rules.from_preset(options)
    return Rules.from_dict(options or {})


def canonical(deck: int = 52) -> list[str]:
    """The deck in canonical order, as codes."""
    return [CODES[c] for c in deck_cards(deck)]


def layout_for(
    rules: Rules,
    hands: Sequence[str],
    start: str,
    stock: str = REST,
) -> Layout:
    """A ``hand_size_free`` layout; ``...`` (at most once) is filled with the unnamed cards."""
    parts = [h.split() for h in hands] + [start.split(), stock.split()]
    named = [c for part in parts for c in part if c != REST]
    rest = [c for c in canonical(rules.deck) if c not in set(named)]
    if sum(part.count(REST) for part in parts) > 1:
        raise ValueError("'...' may appear only once in a scenario")
    filled = []
    for part in parts:
        out: list[str] = []
        for code in part:
            out.extend(rest if code == REST else [code])
        filled.append(out)
    (start_card,) = filled[-2]
    return Layout.parse(filled[:-2], start_card, filled[-1], hand_size_free=True)


def rigged(
    options: Options = None,
    hands: Sequence[str] = ("8D KD", "2C 9S"),
    start: str = "8S",
    stock: str = REST,
    seed: int = 0,
) -> Game:
    """A game whose first round is dealt exactly as laid out (seat 0 leads)."""
    rules = make_rules(options)
    return Game.new(
        rules, players=len(hands), seed=seed, layout=layout_for(rules, hands, start, stock)
    )


def deal_rigged(
    game: Game,
    hands: Sequence[str],
    start: str,
    stock: str = REST,
    seed: int = 0,
) -> None:
    """Deal the game's next round exactly as laid out."""
    game.deal(seed, layout_for(game.rules, hands, start, stock))


# --- looking at a game ----------------------------------------------------------------


def hand(game: Game, seat: int) -> str:
    """``seat``'s hand as codes in canonical order, e.g. ``"2C 9S"``."""
    return " ".join(str(c) for c in cards_of(game.round.hands[seat]))


def hands(game: Game) -> list[str]:
    return [hand(game, s) for s in range(game.n)]


def stock(game: Game) -> list[str]:
    """The draw pile as codes, the next card drawn first."""
    return [CODES[c] for c in reversed(game.round.stock)]


def discard(game: Game) -> list[str]:
    """The discard pile as codes, oldest first (the top card last)."""
    return [CODES[c] for c in game.round.discard]


def top(game: Game) -> str:
    return CODES[game.round.discard[-1]]


def legal(game: Game, seat: int | None = None) -> list[str]:
    """The legal actions of ``seat`` (default: the seat to move) in notation."""
    return [str(a) for a in game.legal_actions(seat)]


def shuffled(cards: Sequence[str], seed: int, skip_deal: int | None = None) -> list[str]:
    """``random.Random(seed).shuffle`` applied to ``cards`` (after first shuffling a deck
    of ``skip_deal`` cards with the same generator, as a seeded deal does)."""
    rng = random.Random(seed)
    if skip_deal is not None:
        rng.shuffle(list(range(skip_deal)))
    out = list(cards)
    rng.shuffle(out)
    return out


# --- acting ---------------------------------------------------------------------------


def act(game: Game, text: str, seat: int | None = None) -> None:
    """Apply an action written in notation (``"play JC>H mau"``, ``"draw 2"``, ...)."""
    game.apply(parse_action(text), seat)


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything an action could change."""
    r = game.round
    return (
        list(r.hands),
        list(r.stock),
        list(r.discard),
        r.match,
        r.named,
        r.pending,
        r.direction,
        r.turn,
        r.step,
        r.drawn,
        r.catchable,
        r.out,
        list(r.log),
        list(r.actions),
        list(getattr(r, "private", ())),
        r.rng.getstate(),
        game.version,
        list(game.totals),
        list(game.rounds_won),
        len(game.results),
        game.finished,
    )


def refused(game: Game, action: str | Action, code: str, seat: int | None = None) -> str:
    """Assert that ``action`` is refused with ``code`` and changes nothing; return the
    error message."""
    before = snapshot(game)
    act_ = parse_action(action) if isinstance(action, str) else action
    with pytest.raises(IllegalAction) as e:
        game.apply(act_, seat)
    assert e.value.code == code, e.value
    assert snapshot(game) == before
    return str(e.value)
