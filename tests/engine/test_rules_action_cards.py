"""Action cards: Seven, Eight, Nine, Ace, Jack (docs/rules.md#action-cards)."""

from __future__ import annotations

import pytest

from maumau.engine import IllegalAction, Play, parse_card
from maumau.engine.round import PLAY
from support.scenarios import act, discard, hand, legal, refused, rigged, snapshot, stock, top

OFF = {"mau_penalty": "off"}


# --- Seven ------------------------------------------------------------------------------


@pytest.mark.parametrize("seven_draw", [2, 3])
def test_a_seven_makes_the_next_player_draw(seven_draw: int) -> None:
    game = rigged(
        {"seven_draw": seven_draw},
        hands=["7D 2C 3C", "KD 9C 4D", "5D 6D"],
        start="8D",
        stock="2H 3H 4H 5H ...",
    )
    act(game, "play 7D")
    assert game.round.pending == seven_draw
    assert game.round.to_move == 1
    assert legal(game) == [f"draw {seven_draw}"]
    act(game, f"draw {seven_draw}")
    drawn = ["2H", "3H", "4H"][:seven_draw]
    assert hand(game, 1) == " ".join(["9C", "4D", "KD", *drawn])
    assert stock(game)[0] == ("4H" if seven_draw == 2 else "5H")
    # their turn is over: the next seat moves, the Seven stays on top, nothing pending
    assert game.round.pending == 0
    assert game.round.to_move == 2
    assert game.round.step == PLAY
    assert top(game) == "7D"


@pytest.mark.parametrize("seven_draw", [2, 3])
def test_the_threatened_player_may_not_play_another_card_or_pass(seven_draw: int) -> None:
    game = rigged(
        {"seven_draw": seven_draw}, hands=["7D 2C 3C", "KD 9C JH 4D", "5D 6D"], start="8D"
    )
    act(game, "play 7D")
    msg = refused(game, "play KD", "must_draw")
    assert str(seven_draw) in msg
    refused(game, "play JH>D", "must_draw")
    refused(game, "pass", "cannot_pass")
    refused(game, f"draw {seven_draw - 1}", "wrong_draw_count")
    refused(game, f"draw {seven_draw + 1}", "wrong_draw_count")
    refused(game, "draw 1", "wrong_draw_count")


def test_the_drawn_cards_do_not_give_a_play_after_a_pending_draw() -> None:
    game = rigged(hands=["7D 2C 3C", "KS 9C", "5C 6C"], start="8D", stock="4D 5D ...")
    act(game, "play 7D")
    act(game, "draw")  # a draw without a count draws what is due
    assert hand(game, 1) == "9C 4D 5D KS"
    assert game.round.actions[-1][1].count == 2
    assert game.round.to_move == 2
    assert game.round.step == PLAY


def test_after_the_draw_the_seven_is_an_ordinary_top_card() -> None:
    game = rigged(hands=["7D 2C 3C", "KS 9C", "7H 6C 2S"], start="8D")
    act(game, "play 7D")
    act(game, "draw 2")
    # seat 2 plays a Seven on the Seven: a new threat of 2, not a sum with the old one
    act(game, "play 7H")
    assert game.round.pending == 2
    assert game.round.to_move == 0


@pytest.mark.parametrize(("seven_draw", "sums"), [(2, [2, 4, 6, 8]), (3, [3, 6, 9, 12])])
def test_sevens_stack_and_the_draws_add_up(seven_draw: int, sums: list[int]) -> None:
    game = rigged(
        {"seven_draw": seven_draw, **OFF},
        hands=["7D 7S 2C", "7C 3C", "7H 4C"],
        start="8D",
    )
    act(game, "play 7D")
    assert game.round.pending == sums[0]
    assert legal(game) == ["play 7C", f"draw {sums[0]}"]
    act(game, "play 7C")  # any suit
    assert game.round.pending == sums[1]
    assert game.round.to_move == 2
    act(game, "play 7H")
    assert game.round.pending == sums[2]
    assert legal(game) == ["play 7S", f"draw {sums[2]}"]
    act(game, "play 7S")
    assert game.round.pending == sums[3]
    assert game.round.to_move == 1
    refused(game, "play 3C", "must_draw")
    refused(game, f"draw {sums[3] - 1}", "wrong_draw_count")
    before = stock(game)
    act(game, f"draw {sums[3]}")
    assert set(hand(game, 1).split()) == {"3C", *before[: sums[3]]}
    assert stock(game) == before[sums[3] :]
    assert game.round.pending == 0
    assert game.round.to_move == 2


def test_who_will_not_add_a_seven_draws_the_whole_sum() -> None:
    game = rigged(OFF, hands=["7D 2C", "7C 3C", "7H 4C"], start="8D", stock="2H ...")
    act(game, "play 7D")
    act(game, "play 7C")
    assert legal(game) == ["play 7H", "draw 4"]
    act(game, "draw 4")  # holds 7H but may choose to draw
    assert hand(game, 2) == "4C 5C 6C 8C 2H 7H"
    assert game.round.to_move == 0


def test_with_stacking_off_a_seven_does_not_answer_a_seven() -> None:
    game = rigged({"seven_stacking": False}, hands=["7D 2C 3C", "7C 3D 4S"], start="8D")
    act(game, "play 7D")
    assert legal(game) == ["draw 2"]
    msg = refused(game, "play 7C", "must_draw")
    assert "stack" in msg
    refused(game, "play 3D", "must_draw")
    act(game, "draw 2")
    assert game.round.to_move == 0


def test_a_pending_draw_takes_fewer_cards_when_the_piles_run_out() -> None:
    # the draw pile is empty; only 8D lies under the top card
    game = rigged(OFF, hands=["7D 2C 3C", "..."], start="8D", stock="")
    act(game, "play 7D")
    assert game.round.pending == 2
    assert "draw 1" in legal(game, 1)
    refused(game, "draw 2", "wrong_draw_count")
    before = hand(game, 1)
    act(game, "draw 1")
    assert len(hand(game, 1).split()) == len(before.split()) + 1
    assert "8D" in hand(game, 1).split()
    assert discard(game) == ["7D"]
    assert game.round.pending == 0
    assert game.round.to_move == 0


def test_a_stacked_sum_takes_what_the_piles_hold() -> None:
    game = rigged(OFF, hands=["7D 2C 3C", "7C ..."], start="8D", stock="")
    act(game, "play 7D")
    act(game, "play 7C")
    assert game.round.pending == 4
    assert legal(game) == ["draw 2"]  # 8D and 7D under the top 7C
    act(game, "draw 2")
    assert hand(game, 0) == "2C 3C 7D 8D"
    assert discard(game) == ["7C"]
    assert game.round.to_move == 1


def test_a_pending_draw_of_zero() -> None:
    # seat 0 plays 7D missing its "Mau": the penalty takes the only card under the top,
    # so seat 1 has nothing to draw for the Seven: it draws 0 and its turn is over
    game = rigged({"mau_penalty": "auto"}, hands=["7D 2C", "..."], start="8D", stock="")
    act(game, "play 7D")
    assert hand(game, 0) == "2C 8D"
    assert game.round.pending == 2
    assert legal(game, 1) == ["play 7C", "play 7H", "play 7S", "draw 0"]
    refused(game, "draw 2", "wrong_draw_count")
    refused(game, "draw 1", "wrong_draw_count")
    refused(game, "pass", "cannot_pass")
    before = hand(game, 1)
    act(game, "draw")
    assert hand(game, 1) == before
    assert game.round.actions[-1][1].count == 0
    assert game.round.pending == 0
    assert game.round.to_move == 0


def test_a_pending_draw_reshuffles_part_way() -> None:
    game = rigged(OFF, hands=["7D 2C 3C", "..."], start="8D", stock="4H", seed=3)
    assert stock(game) == ["4H"]
    act(game, "play 7D")
    before = set(hand(game, 1).split())
    act(game, "draw 2")
    # 4H, then the discard pile under 7D is shuffled into a new draw pile: just 8D
    assert set(hand(game, 1).split()) - before == {"4H", "8D"}
    assert stock(game) == []
    assert discard(game) == ["7D"]
    assert ("reshuffle", 1) in game.round.log


# --- Eight and Ace: skips -----------------------------------------------------------------


@pytest.mark.parametrize(("card", "key"), [("8D", "eight_skips"), ("AD", "ace_skips")])
@pytest.mark.parametrize("on", [True, False])
def test_skip_with_three_players(card: str, key: str, on: bool) -> None:
    game = rigged({key: on}, hands=[f"{card} 2C 3C", "KD 4C", "QD 5C"], start="9D")
    act(game, f"play {card}")
    assert game.round.to_move == (2 if on else 1)
    assert game.round.direction == 1


@pytest.mark.parametrize(("card", "key"), [("8D", "eight_skips"), ("AD", "ace_skips")])
@pytest.mark.parametrize("on", [True, False])
def test_skip_with_two_players_means_the_same_player_moves_again(
    card: str, key: str, on: bool
) -> None:
    game = rigged({key: on, **OFF}, hands=[f"{card} 2D 3C", "KD 4C"], start="9D")
    act(game, f"play {card}")
    assert game.round.to_move == (0 if on else 1)
    if on:
        act(game, "play 2D")
        assert game.round.to_move == 1


@pytest.mark.parametrize("on", [True, False])
def test_eight_skips_is_on_and_ace_skips_off_by_default(on: bool) -> None:
    game = rigged({}, hands=["8D AD 2C 3C", "KD 4C", "QD 5C"], start="9D")
    act(game, "play 8D" if on else "play AD")
    assert game.round.to_move == (2 if on else 1)


def test_a_skip_wraps_round_the_table() -> None:
    game = rigged(OFF, hands=["2C 3C", "4C 5C", "6C 9C", "8C KC"], start="TC")
    for seat, card in enumerate(["2C", "4C", "6C"]):
        assert game.round.to_move == seat
        act(game, f"play {card}")
    act(game, "play 8C")  # seat 3 skips seat 0
    assert game.round.to_move == 1


def test_a_drawn_eight_played_at_once_skips_too() -> None:
    game = rigged(hands=["2C 3C 4C", "KD 4D", "QD 5D"], start="9D", stock="8D ...")
    act(game, "draw")
    act(game, "play 8D")
    assert game.round.to_move == 2


# --- Nine: reverse --------------------------------------------------------------------------


def test_nine_reverses_off_by_default() -> None:
    game = rigged(hands=["9D 2C 3C", "KD 4C", "QD 5C"], start="TD")
    act(game, "play 9D")
    assert game.round.direction == 1
    assert game.round.to_move == 1


def test_nine_reverses_at_once() -> None:
    game = rigged(
        {"nine_reverses": True, **OFF},
        hands=["9D 2D 3C", "KD 9C 4C", "QD 5C"],
        start="TD",
    )
    act(game, "play 9D")
    assert game.round.direction == -1
    assert game.round.to_move == 2
    act(game, "play QD")
    assert game.round.to_move == 1
    act(game, "play KD")
    assert game.round.to_move == 0
    act(game, "draw")  # may draw though holding 2D: 2C does not fit, the turn passes on
    assert game.round.to_move == 2
    act(game, "draw")
    assert game.round.to_move == 1
    refused(game, "play 9C", "card_not_playable")


def test_a_second_nine_reverses_back() -> None:
    game = rigged({"nine_reverses": True, **OFF}, hands=["9D 2C", "KD 4C", "9S 5C"], start="TD")
    act(game, "play 9D")
    assert game.round.to_move == 2
    act(game, "play 9S")
    assert game.round.direction == 1
    assert game.round.to_move == 0


def test_a_seven_after_a_reverse_threatens_the_seat_in_the_new_direction() -> None:
    game = rigged(
        {"nine_reverses": True, **OFF},
        hands=["9D 2C", "KS 4C", "7D 5C 6C"],
        start="TD",
    )
    act(game, "play 9D")
    act(game, "play 7D")
    assert game.round.to_move == 1
    assert game.round.pending == 2
    act(game, "draw 2")
    assert game.round.to_move == 0


def test_an_eight_after_a_reverse_skips_in_the_new_direction() -> None:
    game = rigged(
        {"nine_reverses": True, **OFF},
        hands=["9D 2C", "KS 4C", "8D 5C 6C"],
        start="TD",
    )
    act(game, "play 9D")
    act(game, "play 8D")  # seat 2 skips seat 1
    assert game.round.to_move == 0


@pytest.mark.parametrize("on", [True, False])
def test_nine_with_two_players_changes_nothing_about_who_moves(on: bool) -> None:
    game = rigged({"nine_reverses": on, **OFF}, hands=["9D 2D 3C", "KD 4C"], start="TD")
    act(game, "play 9D")
    assert game.round.to_move == 1
    assert game.round.direction == (-1 if on else 1)
    act(game, "play KD")
    assert game.round.to_move == 0
    act(game, "play 2D")
    assert game.round.to_move == 1


# --- Jack ---------------------------------------------------------------------------------


def test_a_jack_names_a_suit_the_next_card_must_follow() -> None:
    game = rigged(hands=["JC 2C 3C", "2D 5H QC 9S", "5C 6C"], start="8D")
    act(game, "play JC>H")
    assert game.round.named == 2
    assert legal(game) == ["play 5H", "draw 1"]
    refused(game, "play 2D", "card_not_playable")
    msg = refused(game, "play QC", "card_not_playable")  # the Jack's own suit, not named
    assert "hearts" in msg
    act(game, "play 5H")
    assert game.round.named == -1
    assert top(game) == "5H"


def test_a_jack_may_name_its_own_suit() -> None:
    game = rigged(hands=["JC 2D 3D", "2C 5H"], start="8D")
    act(game, "play JC>C")
    assert legal(game) == ["play 2C mau", "draw 1"]


@pytest.mark.parametrize("suit", ["C", "D", "H", "S"])
def test_a_jack_may_name_any_suit(suit: str) -> None:
    game = rigged(hands=["JH 2D 3D", "2C 5H 7S AD"], start="8C")
    act(game, f"play JH>{suit}")
    want = {"C": "2C", "D": "AD", "H": "5H", "S": "7S"}[suit]
    assert legal(game) == [f"play {want}", "draw 1"]


def test_the_named_suit_holds_until_a_card_is_played() -> None:
    game = rigged(hands=["JC 2C 3C", "2D 9S", "5H 6C"], start="8D", stock="4D 6S ...")
    act(game, "play JC>S")
    act(game, "draw")  # 4D does not follow spades
    assert game.round.to_move == 2
    assert game.round.named == 3
    assert legal(game) == ["draw 1"]
    act(game, "draw")  # 6S does
    assert legal(game) == ["play 6S", "pass"]


def test_a_jack_is_offered_once_per_suit() -> None:
    game = rigged(hands=["JC JS 2C", "2D 9S"], start="8D")
    assert legal(game) == [
        "play JC>C",
        "play JC>D",
        "play JC>H",
        "play JC>S",
        "play JS>C",
        "play JS>D",
        "play JS>H",
        "play JS>S",
        "draw 1",
    ]


@pytest.mark.parametrize("named", ["C", "D", "H", "S"])
def test_no_jack_on_a_jack_by_default_whatever_suit_was_named(named: str) -> None:
    game = rigged(hands=["JC 2C 3C", "JD JH JS 4C"], start="8C")
    act(game, f"play JC>{named}")
    for jack in ("JD", "JH", "JS"):
        msg = refused(game, f"play {jack}>{named}", "card_not_playable")
        assert "jack_on_jack" in msg
    assert not [a for a in legal(game) if a.startswith("play J")]


@pytest.mark.parametrize("named", ["C", "D", "H", "S"])
def test_jack_on_jack_on_allows_any_jack(named: str) -> None:
    game = rigged({"jack_on_jack": True}, hands=["JC 2C 3C", "JD 4D 5D 6D"], start="8C")
    act(game, f"play JC>{named}")
    acts = legal(game)
    assert {"play JD>C", "play JD>D", "play JD>H", "play JD>S"} <= set(acts)
    act(game, "play JD>S")
    assert game.round.named == 3
    assert top(game) == "JD"
    assert game.round.to_move == 0
    refused(game, "play 2C", "card_not_playable")


def test_a_jack_without_a_suit_is_refused() -> None:
    game = rigged(hands=["JC 2C 3C", "2D 9S"], start="8D")
    msg = refused(game, "play JC", "suit_required")
    assert "JC" in msg
    refused(game, Play(parse_card("JC"), None, "mau"), "suit_required")


@pytest.mark.parametrize("suit", [4, -1, 17])
def test_a_jack_naming_no_real_suit_is_refused(suit: int) -> None:
    game = rigged(hands=["JC 2C 3C", "2D 9S"], start="8D")
    before = snapshot(game)
    with pytest.raises(IllegalAction) as e:  # refused when the action is made or applied
        game.apply(Play(parse_card("JC"), suit))
    assert e.value.code == "bad_suit"
    assert snapshot(game) == before


def test_a_suit_named_on_another_card_is_refused() -> None:
    game = rigged(hands=["KD 2C 3C", "2D 9S"], start="8D")
    before = snapshot(game)
    with pytest.raises(IllegalAction) as e:
        game.apply(Play(parse_card("KD"), 2))
    assert e.value.code == "bad_suit"
    assert "KD" in str(e.value)
    assert snapshot(game) == before


def test_a_jack_on_a_seven_is_refused_while_the_draw_is_pending() -> None:
    game = rigged(hands=["7D 2C 3C", "JD 9S"], start="8D")
    act(game, "play 7D")
    refused(game, "play JD>D mau", "must_draw")
