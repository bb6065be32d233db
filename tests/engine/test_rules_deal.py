"""The seeded deal and the start card (docs/rules.md#cards-and-deal)."""

from __future__ import annotations

import random

import pytest

from maumau.engine import EngineError, Game, Layout, Rules, parse_card
from support.scenarios import (
    act,
    canonical,
    discard,
    hand,
    layout_for,
    legal,
    refused,
    rigged,
    stock,
    top,
)


def expected_deal(
    seed: int, players: int, hand_size: int, deck: int
) -> tuple[list[list[str]], str, list[str]]:
    """docs/rules.md#cards-and-deal done by hand: shuffle the canonical deck with
    random.Random(seed), deal blocks of hand_size by seat, then the start card, then the
    draw pile in order."""
    cards = canonical(deck)
    assert cards[:3] == (["2C", "3C", "4C"] if deck == 52 else ["7C", "8C", "9C"])
    assert cards[-1] == "AS"
    random.Random(seed).shuffle(cards)
    hands = [cards[i * hand_size : (i + 1) * hand_size] for i in range(players)]
    start = cards[players * hand_size]
    return hands, start, cards[players * hand_size + 1 :]


def test_the_canonical_orders() -> None:
    assert canonical(52)[:14] == [
        "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "2D",
    ]  # fmt: skip
    assert canonical(32) == [r + s for s in "CDHS" for r in "789TJQKA"]
    assert canonical(52) == [r + s for s in "CDHS" for r in "23456789TJQKA"]


@pytest.mark.parametrize(
    ("seed", "players", "hand_size", "deck"),
    [
        (0, 2, 5, 52),
        (1, 3, 5, 52),
        (42, 4, 7, 52),
        (2024, 8, 5, 52),
        (123456789, 2, 10, 52),
        (7, 2, 5, 32),
        (99, 4, 5, 32),
        (31337, 5, 3, 32),
        (2**40 + 3, 3, 6, 32),
        (-5, 2, 5, 52),
    ],
)
def test_a_seeded_deal_is_exactly_the_rule_books(
    seed: int, players: int, hand_size: int, deck: int
) -> None:
    hands, start, pile = expected_deal(seed, players, hand_size, deck)
    game = Game.new({"deck": deck, "hand_size": hand_size}, players=players, seed=seed)
    for seat in range(players):
        # the hand is a set; compare it in canonical order
        assert hand(game, seat) == " ".join(c for c in canonical(deck) if c in hands[seat])
    assert discard(game) == [start]
    assert stock(game) == pile
    assert game.round.to_move == 0
    assert game.round.leader == 0
    assert game.round.direction == 1
    assert game.round.pending == 0


def test_the_first_card_of_the_draw_pile_is_drawn_first() -> None:
    seed = 11
    _hands, _start, pile = expected_deal(seed, 2, 5, 52)
    game = Game.new({}, players=2, seed=seed)
    before = hand(game, 0).split()
    act(game, "draw 1")
    assert sorted(set(hand(game, 0).split()) - set(before)) == [pile[0]]
    assert stock(game) == pile[1:]


def test_the_same_seed_and_actions_give_the_same_game() -> None:
    def play(seed: int) -> list[object]:
        game = Game.new({"deck": 32}, players=3, seed=seed)
        for _ in range(60):
            if game.round_over:
                break
            game.apply(game.legal_actions()[-1])  # draws a lot: forces reshuffles
        return [list(game.round.log), list(game.round.hands), stock(game)]

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_the_seed_must_be_a_whole_number() -> None:
    game = Game.new({}, players=2)
    for seed in ("1", 1.0, True, None):
        with pytest.raises(Exception) as e:
            game.deal(seed)  # type: ignore[arg-type]
        assert getattr(e.value, "code", None) == "bad_option"
    assert game.rounds == []


# --- the start card's action does not apply -----------------------------------------------


def test_start_seven_makes_nobody_draw() -> None:
    game = rigged(hands=["2C KD", "2D 9S"], start="7S")
    assert game.round.pending == 0
    assert game.round.to_move == 0
    # seat 0 holds nothing that fits a Seven of spades: it draws one card, not two
    assert legal(game) == ["draw 1"]
    refused(game, "draw 2", "wrong_draw_count")
    act(game, "draw")
    assert hand(game, 0) == "2C 3C KD"
    assert game.round.to_move == 1


def test_start_seven_takes_ordinary_cards_and_sevens_stack_from_zero() -> None:
    game = rigged(hands=["7D KS 2C", "2D 9S 3D"], start="7S")
    assert legal(game) == ["play 7D", "play KS", "draw 1"]
    act(game, "play 7D")
    assert game.round.pending == 2  # not 4: the start Seven added nothing


def test_start_seven_with_stacking_off_takes_ordinary_cards() -> None:
    game = rigged({"seven_stacking": False}, hands=["KS 2C", "2D 9S"], start="7S")
    act(game, "play KS", 0)
    assert top(game) == "KS"
    assert game.round.to_move == 1


def test_start_eight_skips_nobody() -> None:
    game = rigged(hands=["2C KD", "2D 9S", "3D 4D"], start="8S")
    assert game.round.to_move == 0
    refused(game, "draw", "not_your_turn", seat=2)
    refused(game, "draw", "not_your_turn", seat=1)
    act(game, "draw", 0)  # 3C does not fit
    assert game.round.to_move == 1


def test_start_ace_skips_nobody_with_ace_skips_on() -> None:
    game = rigged({"ace_skips": True}, hands=["2C KD", "2D 9S", "3D 4D"], start="AS")
    assert game.round.to_move == 0


def test_start_nine_reverses_nothing() -> None:
    game = rigged({"nine_reverses": True}, hands=["2C KS", "2D 9D", "3D 4D"], start="9S")
    assert game.round.direction == 1
    act(game, "play KS")
    assert game.round.to_move == 1


def test_start_jack_names_no_suit_and_takes_any_card_but_a_jack() -> None:
    game = rigged(hands=["JC 2D 5H QS AC", "2C 9S"], start="JD")
    assert game.round.named == -1
    assert legal(game) == ["play AC", "play 2D", "play 5H", "play QS", "draw 1"]
    msg = refused(game, "play JC>C", "card_not_playable")
    assert "JC" in msg
    act(game, "play 5H")
    assert top(game) == "5H"
    assert game.round.to_move == 1


def test_start_jack_takes_a_jack_with_jack_on_jack_on() -> None:
    game = rigged({"jack_on_jack": True}, hands=["JC 2D", "2C 9S"], start="JD")
    assert legal(game) == [
        "play JC>C mau",
        "play JC>D mau",
        "play JC>H mau",
        "play JC>S mau",
        "play 2D mau",
        "draw 1",
    ]
    act(game, "play JC>H mau")
    assert game.round.named == 2


@pytest.mark.parametrize(("rank", "what"), [("7", "seven"), ("8", "eight"), ("J", "jack")])
def test_a_seeded_start_action_card_does_not_apply(rank: str, what: str) -> None:
    # find the first seed whose start card has this rank, deal it by seed
    seed = next(s for s in range(10_000) if expected_deal(s, 3, 5, 52)[1][0] == rank)
    hands, start, _pile = expected_deal(seed, 3, 5, 52)
    game = Game.new({"ace_skips": True, "nine_reverses": True}, players=3, seed=seed)
    assert top(game) == start
    assert game.round.pending == 0
    assert game.round.to_move == 0
    assert game.round.named == -1
    acts = legal(game)
    assert acts[-1] == "draw 1"
    if what == "jack":
        assert not any(a.startswith("play J") for a in acts)
        # every non-Jack card in hand is playable on the start Jack
        assert len(acts) - 1 == sum(1 for c in hands[0] if c[0] != "J")


def test_rules_object_can_be_passed_too() -> None:
    rules = Rules.from_dict({"deck": 32})
    game = Game.new(rules, players=2, seed=3)
    hands, start, pile = expected_deal(3, 2, 5, 32)
    assert stock(game) == pile
    assert discard(game) == [start]
    assert hand(game, 1) == " ".join(c for c in canonical(32) if c in hands[1])


# --- laid-out rounds must be exactly one deck ---------------------------------------------


def _layout_error(options: dict[str, object], layout: Layout) -> str:
    game = Game.new(options, players=len(layout.hands))
    with pytest.raises(EngineError) as e:
        game.deal(0, layout)
    assert game.rounds == []
    return e.value.code


def test_a_layout_must_hold_every_card_once() -> None:
    rules = Rules()
    good = layout_for(rules, ["8D KD", "2C 9S"], "8S")
    assert _layout_error({}, Layout(good.hands, good.start, good.stock[:-1], True)) == (
        "bad_layout"
    )
    doubled = (*good.stock[:-1], good.stock[0])
    assert _layout_error({}, Layout(good.hands, good.start, doubled, True)) == "bad_layout"


def test_a_layout_card_outside_the_short_deck_is_refused() -> None:
    rules = Rules.from_dict({"deck": 32})
    good = layout_for(rules, ["8D KD", "TC 9S"], "8S")
    bad = Layout(((parse_card("2C"), *good.hands[0]), good.hands[1]), good.start, good.stock, True)
    assert _layout_error({"deck": 32}, bad) == "bad_card"


def test_a_layout_needs_hand_size_cards_unless_hand_size_free() -> None:
    rules = Rules()
    free = layout_for(rules, ["8D KD", "2C 9S"], "8S")
    strict = Layout(free.hands, free.start, free.stock, False)
    assert _layout_error({}, strict) == "bad_layout"
    five = layout_for(rules, ["8D KD 2D 3D 4D", "2C 9S 3C 4C 5C"], "8S")
    game = Game.new({}, players=2)
    game.deal(0, Layout(five.hands, five.start, five.stock, False))
    assert hand(game, 0) == "2D 3D 4D 8D KD"


def test_a_layout_hand_may_not_be_empty_and_must_match_the_seats() -> None:
    rules = Rules()
    layout = layout_for(rules, ["8D KD", "2C 9S"], "8S")
    empty = Layout(((), layout.hands[1]), layout.start, (*layout.hands[0], *layout.stock), True)
    assert _layout_error({}, empty) == "bad_layout"
    game = Game.new({}, players=3)
    with pytest.raises(EngineError) as e:
        game.deal(0, layout)
    assert e.value.code == "bad_layout"
