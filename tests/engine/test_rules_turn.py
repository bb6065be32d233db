"""A turn: play, draw, pass, empty piles and the reshuffle (docs/rules.md#a-turn,
docs/rules.md#end-of-a-round)."""

from __future__ import annotations

import random

import pytest

from maumau.engine import Game
from maumau.engine.round import DRAWN, PLAY
from support.scenarios import (
    act,
    canonical,
    discard,
    hand,
    legal,
    refused,
    rigged,
    stock,
    top,
)

OFF = {"mau_penalty": "off"}


# --- playing ----------------------------------------------------------------------------


def test_a_card_of_the_same_suit_may_be_played() -> None:
    game = rigged(hands=["KS 2D 3D", "2C 9C"], start="8D")
    refused(game, "play KS", "card_not_playable")
    act(game, "play 2D")
    assert top(game) == "2D"
    assert hand(game, 0) == "3D KS"
    assert game.round.to_move == 1


def test_a_card_of_the_same_rank_may_be_played() -> None:
    game = rigged(hands=["KS 8H 3C", "2C 9C"], start="8D")
    assert legal(game) == ["play 8H", "draw 1"]
    act(game, "play 8H")
    assert top(game) == "8H"
    assert discard(game) == ["8D", "8H"]


def test_a_card_matching_neither_is_refused() -> None:
    game = rigged(hands=["KS 2C 3C", "2D 9C"], start="8D")
    msg = refused(game, "play KS", "card_not_playable")
    assert "KS" in msg and "8D" in msg
    refused(game, "play 3C", "card_not_playable")


def test_a_jack_is_playable_on_anything_but_a_jack() -> None:
    game = rigged(hands=["JC 2C 3C", "2D 9C"], start="8D")
    assert legal(game) == [
        "play JC>C",
        "play JC>D",
        "play JC>H",
        "play JC>S",
        "draw 1",
    ]
    act(game, "play JC>S")
    assert top(game) == "JC"
    assert game.round.named == 3


def test_a_card_not_held_is_refused() -> None:
    game = rigged(hands=["KS 2C", "2D 9C"], start="8D")
    refused(game, "play 9D", "card_not_in_hand")
    refused(game, "play 2D", "card_not_in_hand")  # seat 1's card


def test_only_the_seat_to_move_may_act() -> None:
    game = rigged(hands=["KS 2D", "3D 9C", "4D 5D"], start="8D")
    for seat in (1, 2):
        refused(game, "play 3D" if seat == 1 else "play 4D", "not_your_turn", seat=seat)
        refused(game, "draw", "not_your_turn", seat=seat)
        refused(game, "pass", "not_your_turn", seat=seat)
    refused(game, "draw", "not_your_turn", seat=7)
    assert legal(game, 1) == []
    assert legal(game, 2) == []


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_play_goes_clockwise_from_seat_0_and_round_again(players: int) -> None:
    ranks = "23456"[:players]
    game = rigged(OFF, hands=[f"{r}D {r}C" for r in ranks], start="KD")
    for seat, rank in enumerate(ranks):
        assert game.round.to_move == seat
        act(game, f"play {rank}D")
    assert game.round.to_move == 0
    act(game, "draw")  # 2C does not fit the last Diamond; neither does the card drawn
    assert game.round.to_move == 1 % players


# --- drawing ----------------------------------------------------------------------------


def test_a_drawn_card_that_does_not_fit_ends_the_turn() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D", stock="4C ...")
    act(game, "draw")
    assert hand(game, 0) == "2C 4C KS"
    assert game.round.to_move == 1
    assert game.round.step == PLAY
    assert stock(game)[:2] == ["3C", "5C"]


def test_a_drawn_card_that_fits_may_be_played_at_once() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D", stock="5D ...")
    act(game, "draw 1")
    assert game.round.step == DRAWN
    assert game.round.to_move == 0
    assert legal(game) == ["play 5D", "pass"]
    assert legal(game, 1) == []
    act(game, "play 5D")
    assert top(game) == "5D"
    assert hand(game, 0) == "2C KS"
    assert game.round.to_move == 1


def test_a_drawn_card_that_fits_may_be_kept_with_pass() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D", stock="5D ...")
    act(game, "draw")
    act(game, "pass")
    assert hand(game, 0) == "2C 5D KS"
    assert top(game) == "8D"
    assert game.round.to_move == 1
    assert game.round.step == PLAY


def test_after_drawing_only_the_drawn_card_may_be_played() -> None:
    game = rigged(hands=["KD 2C", "3D 9C"], start="8D", stock="5D ...")
    act(game, "draw")
    msg = refused(game, "play KD", "card_not_playable")
    assert "5D" in msg
    refused(game, "play 2C", "card_not_playable")


def test_a_second_draw_is_refused() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D", stock="5D ...")
    act(game, "draw")
    refused(game, "draw", "already_drawn")
    refused(game, "draw 1", "already_drawn")


def test_a_drawn_card_with_a_call_due_is_offered_with_the_call() -> None:
    game = rigged(hands=["2C", "3D 9C"], start="8D", stock="5D ...")
    act(game, "draw")
    assert legal(game) == ["play 5D mau", "pass"]


def test_a_drawn_jack_is_offered_once_per_suit() -> None:
    game = rigged(hands=["2C 3C", "3D 9C"], start="8D", stock="JH ...")
    act(game, "draw")
    assert legal(game) == ["play JH>C", "play JH>D", "play JH>H", "play JH>S", "pass"]
    refused(game, "play JH", "suit_required")


def test_a_drawn_jack_on_a_jack_does_not_fit() -> None:
    game = rigged(hands=["2C 3C", "3D 9C"], start="JD", stock="JH ...")
    act(game, "draw")
    assert hand(game, 0) == "2C 3C JH"
    assert game.round.to_move == 1


def test_a_draw_with_nothing_pending_is_one_card() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D")
    refused(game, "draw 2", "wrong_draw_count")
    refused(game, "draw 0", "wrong_draw_count")


@pytest.mark.parametrize("draw_when_able", [True, False])
def test_drawing_while_holding_a_playable_card(draw_when_able: bool) -> None:
    game = rigged(
        {"draw_when_able": draw_when_able},
        hands=["KD 2C 3C", "3D 9C"],
        start="8D",
        stock="4C ...",
    )
    if draw_when_able:
        assert legal(game) == ["play KD", "draw 1"]
        act(game, "draw")
        assert hand(game, 0) == "2C 3C 4C KD"
        assert game.round.to_move == 1
    else:
        assert legal(game) == ["play KD"]
        msg = refused(game, "draw", "must_play")
        assert "draw_when_able" in msg
        refused(game, "draw 1", "must_play")


@pytest.mark.parametrize("draw_when_able", [True, False])
def test_drawing_with_nothing_playable_is_always_allowed(draw_when_able: bool) -> None:
    game = rigged(
        {"draw_when_able": draw_when_able},
        hands=["KS 2C", "3D 9C 4C"],
        start="8D",
        stock="6D ...",
    )
    assert legal(game) == ["draw 1"]
    act(game, "draw")
    assert legal(game) == ["play 6D", "pass"]
    act(game, "pass")
    assert hand(game, 0) == "2C 6D KS"
    # seat 1 holds 3D: with draw_when_able off it must play it
    if draw_when_able:
        assert legal(game) == ["play 3D", "draw 1"]
    else:
        assert legal(game) == ["play 3D"]
        refused(game, "draw", "must_play")


def test_draw_when_able_off_does_not_stop_a_pending_draw() -> None:
    game = rigged({"draw_when_able": False}, hands=["7D 2C", "3D 9C KD"], start="8D")
    act(game, "play 7D mau")
    assert legal(game) == ["draw 2"]  # seat 1 holds 3D and KD but must draw
    act(game, "draw 2")
    assert hand(game, 1) == "3C 4C 9C 3D KD"


# --- passing ----------------------------------------------------------------------------


def test_pass_is_refused_while_a_card_can_be_played() -> None:
    game = rigged(hands=["KD 2C", "3D 9C"], start="8D")
    msg = refused(game, "pass", "cannot_pass")
    assert "play" in msg


def test_pass_is_refused_while_a_card_can_be_drawn() -> None:
    game = rigged(hands=["KS 2C", "3D 9C"], start="8D")
    msg = refused(game, "pass", "cannot_pass")
    assert "draw" in msg


def test_pass_is_refused_while_a_draw_is_pending() -> None:
    game = rigged(hands=["7D 2C", "3D 9C"], start="8D")
    act(game, "play 7D mau")
    refused(game, "pass", "cannot_pass")


def _empty_piles(options: dict[str, object] | None = None) -> Game:
    """Seat 0 holds 2C 3C, seat 1 everything else; KD is up and the draw pile is empty."""
    return rigged({**OFF, **(options or {})}, hands=["2C 3C", "..."], start="KD", stock="")


def test_pass_when_nothing_can_be_played_or_drawn() -> None:
    game = _empty_piles()
    assert stock(game) == []
    assert legal(game) == ["pass"]
    act(game, "pass")
    assert game.round.to_move == 1
    assert hand(game, 0) == "2C 3C"
    assert game.round.actions[-1][0] == 0


def test_draw_is_refused_when_nothing_can_be_had() -> None:
    game = _empty_piles()
    msg = refused(game, "draw", "cannot_draw")
    assert "seat 0" in msg
    refused(game, "draw 1", "cannot_draw")


@pytest.mark.parametrize("draw_when_able", [True, False])
def test_with_empty_piles_a_seat_that_can_play_must_play(draw_when_able: bool) -> None:
    game = _empty_piles({"draw_when_able": draw_when_able})
    act(game, "pass")
    acts = legal(game)
    assert acts  # seat 1 holds every Diamond and King but KD
    assert all(a.startswith("play ") for a in acts)
    assert "pass" not in acts
    assert "draw 1" not in acts
    refused(game, "pass", "cannot_pass")
    refused(game, "draw", "cannot_draw")


def test_with_one_discard_below_the_top_that_card_is_drawn() -> None:
    game = rigged(OFF, hands=["2C 3C", "KS ..."], start="KD", stock="")
    act(game, "pass")
    act(game, "play KS", 1)
    assert discard(game) == ["KD", "KS"]
    assert legal(game) == ["draw 1"]
    act(game, "draw")
    assert hand(game, 0) == "2C 3C KD"
    assert discard(game) == ["KS"]
    assert stock(game) == []
    assert game.round.log[-2] == ("reshuffle", 1)


# --- the reshuffle (docs/rules.md#cards-and-deal, docs/rules.md#end-of-a-round) -----------


@pytest.mark.parametrize("seed", [0, 5, 77, 2**33 + 1])
def test_reshuffles_of_a_laid_out_round_use_random_seed(seed: int) -> None:
    rest = " ".join(c for c in canonical(52) if c not in {"3S", "4S", "5S", "9S", "2C"})
    game = rigged(OFF, hands=["3S 4S 5S", rest], start="9S", stock="2C", seed=seed)
    act(game, "play 3S")
    act(game, "play 6S")
    act(game, "play 4S")
    act(game, "play TS")
    act(game, "draw")  # the last card of the draw pile: 2C, which does not fit
    assert hand(game, 0) == "2C 5S"
    assert stock(game) == []
    assert game.round.to_move == 1

    rng = random.Random(seed)
    first = ["9S", "3S", "6S", "4S"]  # the discard pile without its top card, oldest first
    rng.shuffle(first)
    before = set(hand(game, 1).split())
    act(game, "draw")
    assert set(hand(game, 1).split()) - before == {first[0]}
    assert stock(game) == first[1:]
    assert discard(game) == ["TS"]
    assert ("reshuffle", 4) in game.round.log
    act(game, "pass")  # every card drawn now is a spade and fits: keep them

    act(game, "play 5S")
    act(game, "play QS")
    act(game, "draw")
    act(game, "pass")
    act(game, "play KS")
    act(game, "draw")
    act(game, "pass")
    act(game, "play AS")
    act(game, "draw")
    act(game, "pass")
    assert hand(game, 0) == " ".join(c for c in canonical(52) if c in {"2C", *first[1:]})
    assert stock(game) == []

    # the second reshuffle goes on with the same generator
    second = ["TS", "5S", "QS", "KS"]
    rng.shuffle(second)
    before = set(hand(game, 1).split())
    act(game, "draw")
    assert set(hand(game, 1).split()) - before == {second[0]}
    assert stock(game) == second[1:]
    assert discard(game) == ["AS"]


def test_reshuffles_of_a_seeded_round_continue_the_deals_generator() -> None:
    checked = 0
    for seed in range(300):
        if checked >= 10:
            break
        game = Game.new(OFF, players=3, seed=seed)
        rng = random.Random(seed)
        rng.shuffle(list(range(52)))  # the deal
        while not game.round_over:
            r = game.round
            action = game.legal_actions()[0]  # play whatever fits first, else draw
            if not r.stock and action.kind == "draw":
                pile = discard(game)[:-1]
                rng.shuffle(pile)
                seat = r.to_move
                before = set(hand(game, seat).split())
                game.apply(action)
                got = set(hand(game, seat).split()) - before
                k = len(got)
                assert got == set(pile[:k])
                assert stock(game) == pile[k:]
                checked += 1
            else:
                before_log = len(r.log)
                game.apply(action)
                if any(e[0] == "reshuffle" for e in r.log[before_log:]):
                    # reshuffled part way through a draw: keep the generator in step
                    n = next(e[1] for e in r.log[before_log:] if e[0] == "reshuffle")
                    rng.shuffle(list(range(n)))
    assert checked >= 10


def test_the_round_cannot_get_stuck() -> None:
    """Every card is in a hand or a pile: with both piles empty a seat can play."""
    for seed in range(30):
        game = Game.new({"deck": 32, **OFF}, players=5, seed=seed)
        for _ in range(2000):
            if game.round_over:
                break
            acts = game.legal_actions()
            assert acts, f"seed {seed}: nothing legal for seat {game.round.to_move}"
            game.apply(acts[0])  # play whatever fits first, else draw, else pass
        assert game.round_over


@pytest.mark.parametrize("preset", ["penalty-100", "gamerules", "traditional"])
def test_a_round_lists_shared_pairs_of_equal_actions(preset: str) -> None:
    """Each (seat, action) pair a round lists is one shared object per value, whatever
    object the action was applied as: a server keeps every pair of every live game."""
    from maumau.engine import Catch, Draw, Pass, Play, Rules
    from maumau.engine.actions import Action

    def fresh(action: Action) -> Action:  # an equal action that is not the interned one
        if isinstance(action, Play):
            return Play(action.card, action.suit, action.call)
        if isinstance(action, Draw):
            return Draw(action.count)
        if isinstance(action, Catch):
            return Catch(action.target)
        return Pass()

    rng = random.Random(5)
    game = Game(Rules.from_preset(preset), ["A", "B", "C"])
    pairs = []
    for deal in range(3):
        game.deal(deal)
        applied = []
        while not game.round_over:
            seat = game.to_move
            action = fresh(rng.choice(game.legal_actions(seat)))
            game.apply(action, seat)
            applied.append((seat, action))
        assert game.round.actions == applied  # equal values, in order
        assert all(p[1] is not a for p, (_, a) in zip(game.round.actions, applied, strict=True))
        pairs += game.round.actions
        if game.finished:
            break
    assert len(set(pairs)) < len(pairs)  # some repeat, so sharing is tested
    assert len({id(p) for p in pairs}) == len(set(pairs))
