"""Calling "Mau" and "Mau Mau" in the three modes (docs/rules.md#calling-mau,
docs/rules.md#end-of-a-round)."""

from __future__ import annotations

import pytest

from maumau.engine import Catch
from maumau.engine.round import OVER, PLAY, WAIT
from support.scenarios import act, discard, hand, legal, refused, rigged, stock, top

AUTO = {"mau_penalty": "auto"}
CATCH = {"mau_penalty": "catch"}
OFF = {"mau_penalty": "off"}

#: the draw pile of most scenarios starts with these cards (then the rest of the deck)
PILE = "2H 3H 4H 5H 6H 7H 8H 9H TH QH"


# --- what legal_actions offers ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "catch"])
def test_legal_actions_offer_each_card_once_with_the_due_call(mode: str) -> None:
    opts = {"mau_penalty": mode}
    three = rigged(opts, hands=["2D 3D 4C", "5C"], start="8D")
    assert legal(three) == ["play 2D", "play 3D", "draw 1"]
    two = rigged(opts, hands=["2D JC", "5C"], start="8D")
    assert legal(two) == [
        "play JC>C mau",
        "play JC>D mau",
        "play JC>H mau",
        "play JC>S mau",
        "play 2D mau",
        "draw 1",
    ]
    one = rigged(opts, hands=["2D", "5C"], start="8D")
    assert legal(one) == ["play 2D maumau", "draw 1"]


def test_legal_actions_offer_no_calls_with_mau_penalty_off() -> None:
    game = rigged(OFF, hands=["2D JC", "5C"], start="8D")
    assert legal(game) == [
        "play JC>C",
        "play JC>D",
        "play JC>H",
        "play JC>S",
        "play 2D",
        "draw 1",
    ]
    assert legal(rigged(OFF, hands=["2D", "5C"], start="8D")) == ["play 2D", "draw 1"]


def test_the_due_call_counts_the_card_just_drawn() -> None:
    game = rigged(hands=["2C", "5C 6C"], start="8D", stock="5D ...")
    act(game, "draw")
    assert legal(game) == ["play 5D mau", "pass"]


# --- auto ---------------------------------------------------------------------------------


def test_auto_the_right_calls_cost_nothing() -> None:
    game = rigged(AUTO, hands=["2D 3D", "5C 6C", "7C 9C"], start="8D", stock="4H 5H 6H ...")
    act(game, "play 2D mau")
    assert hand(game, 0) == "3D"
    assert stock(game)[:1] == ["4H"]
    act(game, "draw", 1)
    act(game, "draw", 2)
    act(game, "play 3D maumau")
    assert game.round.step == OVER
    assert game.round.out == 0
    assert game.finished and game.winners == (0,)


@pytest.mark.parametrize("cards", [1, 2, 3, 4, 5])
def test_auto_a_missing_mau_draws_the_penalty_at_once(cards: int) -> None:
    game = rigged(
        {**AUTO, "mau_penalty_cards": cards},
        hands=["2D 3C", "5C 6C"],
        start="8D",
        stock=PILE + " ...",
    )
    act(game, "play 2D")
    drawn = PILE.split()[:cards]
    assert set(hand(game, 0).split()) == {"3C", *drawn}
    assert stock(game)[0] == PILE.split()[cards]
    assert top(game) == "2D"  # the card still counts
    assert game.round.to_move == 1
    assert game.round.log[-1][:2] == ("penalty", 0)


def test_auto_the_default_penalty_is_two_cards() -> None:
    game = rigged(AUTO, hands=["2D 3C", "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, "play 2D")
    assert hand(game, 0) == "3C 2H 3H"


@pytest.mark.parametrize(
    ("hand0", "play", "expect"),
    [
        ("2D 3C", "play 2D maumau", "3C 2H 3H"),  # wrong word for "mau"
        ("2D 3C 4C", "play 2D mau", "3C 4C 2H 3H"),  # nothing due yet
        ("2D 3C 4C", "play 2D maumau", "3C 4C 2H 3H"),  # nothing due yet
        ("2D 3C", "play 2D mau", "3C"),  # right
    ],
)
def test_auto_a_wrong_word_or_a_call_when_none_is_due_is_punished(
    hand0: str, play: str, expect: str
) -> None:
    game = rigged(AUTO, hands=[hand0, "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, play)
    assert hand(game, 0) == expect
    assert game.round.to_move == 1


def test_auto_the_last_card_without_mau_mau_does_not_go_out() -> None:
    game = rigged(AUTO, hands=["2D", "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, "play 2D")
    assert hand(game, 0) == "2H 3H"
    assert game.round.step == PLAY
    assert game.round.out == -1
    assert game.round.to_move == 1
    assert not game.round_over
    assert game.results == []


def test_auto_the_last_card_with_mau_instead_of_mau_mau_does_not_go_out() -> None:
    game = rigged(AUTO, hands=["2D", "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, "play 2D mau")
    assert hand(game, 0) == "2H 3H"
    assert not game.round_over


def test_auto_the_last_card_draws_what_there_is() -> None:
    # the draw pile is empty and only the start card lies under the top: 1 of 2 drawn
    game = rigged(AUTO, hands=["2D", "..."], start="8D", stock="")
    act(game, "play 2D")
    assert hand(game, 0) == "8D"
    assert discard(game) == ["2D"]
    assert not game.round_over
    assert game.round.to_move == 1


def test_auto_a_missing_call_on_a_seven_still_makes_the_next_player_draw() -> None:
    game = rigged(AUTO, hands=["7D 3C", "5C 6C", "9C"], start="8D", stock=PILE + " ...")
    act(game, "play 7D")
    assert hand(game, 0) == "3C 2H 3H"  # the penalty first
    assert game.round.pending == 2
    assert game.round.to_move == 1
    act(game, "draw 2")
    assert hand(game, 1) == "5C 6C 4H 5H"


def test_auto_a_missing_maumau_on_a_last_seven_does_not_lapse_the_seven() -> None:
    game = rigged(AUTO, hands=["7D", "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, "play 7D")
    assert hand(game, 0) == "2H 3H"
    assert game.round.pending == 2
    assert legal(game) == ["draw 2"]


def test_auto_a_missing_call_on_an_eight_still_skips() -> None:
    game = rigged(AUTO, hands=["8D 3C", "5C 6C", "9C"], start="9D", stock=PILE + " ...")
    act(game, "play 8D")
    assert hand(game, 0) == "3C 2H 3H"
    assert game.round.to_move == 2


def test_auto_a_missing_call_on_a_jack_still_names_the_suit() -> None:
    game = rigged(AUTO, hands=["JD 3C", "5C 6S 7C"], start="9D", stock=PILE + " ...")
    act(game, "play JD>S")
    assert hand(game, 0) == "3C 2H 3H"
    assert game.round.named == 3
    assert legal(game) == ["play 6S", "draw 1"]


def test_auto_a_missing_call_on_a_drawn_card() -> None:
    game = rigged(AUTO, hands=["2C", "5C 6C"], start="8D", stock="5D " + PILE + " ...")
    act(game, "draw")
    act(game, "play 5D")
    assert hand(game, 0) == "2C 2H 3H"


# --- off ----------------------------------------------------------------------------------


@pytest.mark.parametrize("call", [None, "mau", "maumau"])
def test_off_no_call_is_needed_and_none_is_punished(call: str | None) -> None:
    suffix = f" {call}" if call else ""
    game = rigged(OFF, hands=["2D 3D 4D", "5C 6C"], start="8D", stock="6H 7H ...")
    act(game, "play 2D" + suffix)
    assert hand(game, 0) == "3D 4D"
    act(game, "draw", 1)
    act(game, "play 3D" + suffix)
    assert hand(game, 0) == "4D"
    act(game, "draw", 1)
    act(game, "play 4D" + suffix)
    assert game.round.step == OVER
    assert game.round.out == 0
    assert stock(game)[0] == "2C"  # seat 1 drew 6H and 7H; nobody drew a penalty


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_catch_is_refused_outside_catch_mode(mode: str) -> None:
    game = rigged({"mau_penalty": mode}, hands=["2D 3C", "5C 6C"], start="8D")
    act(game, "play 2D")
    msg = refused(game, "catch 0", "nothing_to_catch", seat=1)
    assert "catch" in msg
    assert "catch 0" not in legal(game, 1)


# --- catch: a missed "Mau" ----------------------------------------------------------------


def test_catch_a_missing_mau_is_not_punished_at_once() -> None:
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "9C TC"], start="8D", stock=PILE + " ...")
    act(game, "play 2D")
    assert hand(game, 0) == "3C"
    assert game.round.catchable == 0
    assert game.round.to_move == 1
    assert legal(game, 1) == ["draw 1", "catch 0"]
    assert legal(game, 2) == ["catch 0"]
    assert legal(game, 0) == []


@pytest.mark.parametrize("catcher", [1, 2])
def test_catch_any_opponent_may_catch_and_play_goes_on(catcher: int) -> None:
    game = rigged(
        {**CATCH, "mau_penalty_cards": 3},
        hands=["2D 3C", "5C 6C", "9C TC"],
        start="8D",
        stock=PILE + " ...",
    )
    act(game, "play 2D")
    act(game, "catch 0", catcher)
    assert hand(game, 0) == "3C 2H 3H 4H"
    assert game.round.catchable == -1
    assert game.round.to_move == 1  # as before
    assert game.round.log[-2] == ("catch", catcher, 0)
    assert game.round.log[-1][:2] == ("penalty", 0)
    refused(game, "catch 0", "nothing_to_catch", seat=3 - catcher)
    refused(game, "catch 0", "nothing_to_catch", seat=catcher)


@pytest.mark.parametrize("next_action", ["play 5D mau", "draw"])
def test_catch_the_window_closes_with_the_next_action(next_action: str) -> None:
    game = rigged(CATCH, hands=["2D 3C", "5D 6C", "9C TC"], start="8D", stock="4C ...")
    act(game, "play 2D")
    act(game, next_action)
    assert game.round.catchable == -1
    refused(game, "catch 0", "nothing_to_catch", seat=2)
    refused(game, "catch 0", "nothing_to_catch", seat=1)
    assert legal(game, 2)[-1:] != ["catch 0"]


def test_catch_the_window_closes_with_a_pass_after_a_draw() -> None:
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "9C TC"], start="8D", stock="4D ...")
    act(game, "play 2D")
    act(game, "draw")  # 4D fits
    assert legal(game, 2) == []  # the draw was an action: the window has closed
    act(game, "pass")
    refused(game, "catch 0", "nothing_to_catch", seat=2)


def test_catch_the_window_closes_when_the_next_player_draws_a_pending_seven() -> None:
    game = rigged(CATCH, hands=["7D 3C", "5C 6C", "9C TC"], start="8D", stock=PILE + " ...")
    act(game, "play 7D")  # missed "Mau"
    assert game.round.catchable == 0
    act(game, "draw 2")  # seat 1's action closes the window
    assert game.round.to_move == 2
    refused(game, "catch 0", "nothing_to_catch", seat=2)
    assert legal(game, 2) == ["draw 1"]


def test_catch_the_window_closes_when_the_next_player_stacks_a_seven() -> None:
    game = rigged(CATCH, hands=["7D 3C", "7C 6C 5C", "9C TC"], start="8D")
    act(game, "play 7D")
    act(game, "play 7C")
    refused(game, "catch 0", "nothing_to_catch", seat=2)


def test_catch_a_refused_action_does_not_close_the_window() -> None:
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "9C TC"], start="8D", stock=PILE + " ...")
    act(game, "play 2D")
    refused(game, "play 5C", "card_not_playable")
    refused(game, "pass", "cannot_pass")
    act(game, "catch 0", 2)
    assert hand(game, 0) == "3C 2H 3H"


def test_catch_after_a_skip_with_two_players_until_the_offender_moves_again() -> None:
    game = rigged(CATCH, hands=["8D 3D 3C", "5C 6C"], start="9D", stock=PILE + " ...")
    act(game, "play 8D")  # two cards left: nothing due
    assert game.round.catchable == -1
    act(game, "play 3D")  # one left, "Mau" missed; the Eight's skip is over
    assert game.round.to_move == 1
    assert game.round.catchable == 0
    game2 = rigged(CATCH, hands=["8D 3C", "5C 6C"], start="9D", stock=PILE + " ...")
    act(game2, "play 8D")  # missed "Mau"; skip: seat 0 moves again
    assert game2.round.to_move == 0
    assert legal(game2, 1) == ["catch 0"]
    assert "catch 0" not in legal(game2, 0)
    act(game2, "draw")  # 2H does not fit
    refused(game2, "catch 0", "nothing_to_catch", seat=1)


@pytest.mark.parametrize(
    ("hand0", "play"),
    [
        ("2D 3C", "play 2D maumau"),  # the wrong word counts as a missing call
        ("2D 3C", "play 2D"),
    ],
)
def test_catch_a_wrong_word_counts_as_missing(hand0: str, play: str) -> None:
    game = rigged(CATCH, hands=[hand0, "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, play)
    assert game.round.catchable == 0
    act(game, "catch 0", 1)
    assert hand(game, 0) == "3C 2H 3H"


@pytest.mark.parametrize("play", ["play 2D mau", "play 2D maumau"])
def test_catch_a_call_when_none_is_due_is_not_punished(play: str) -> None:
    game = rigged(CATCH, hands=["2D 3C 4C", "5C 6C"], start="8D", stock=PILE + " ...")
    act(game, play)
    assert hand(game, 0) == "3C 4C"
    assert game.round.catchable == -1
    refused(game, "catch 0", "nothing_to_catch", seat=1)


def test_catch_nothing_to_catch() -> None:
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "9C TC"], start="8D")
    refused(game, "catch 0", "nothing_to_catch", seat=1)  # nobody has played
    act(game, "play 2D mau")
    refused(game, "catch 0", "nothing_to_catch", seat=1)  # the call was made
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "9C TC"], start="8D")
    act(game, "play 2D")
    refused(game, "catch 2", "nothing_to_catch", seat=1)  # the wrong seat
    refused(game, "catch 0", "nothing_to_catch", seat=0)  # oneself
    refused(game, "catch 0", "nothing_to_catch", seat=5)  # no such seat
    refused(game, Catch(0), "not_your_turn")  # a catch must say who catches


# --- catch: the last card without "Mau Mau" -------------------------------------------------


def test_catch_correct_mau_mau_goes_out_at_once() -> None:
    game = rigged(CATCH, hands=["2D", "5C 6C"], start="8D")
    act(game, "play 2D maumau")
    assert game.round.step == OVER
    assert game.round.out == 0


@pytest.mark.parametrize(
    ("options", "hands", "start", "last", "accepter"),
    [
        ({}, ["2D", "5C", "6C"], "8D", "2D", 1),  # plain card: the next seat
        ({}, ["8D", "5C", "6C"], "9D", "8D", 2),  # an Eight skips seat 1
        ({"ace_skips": True}, ["AD", "5C", "6C"], "9D", "AD", 2),
        ({"nine_reverses": True}, ["9D", "5C", "6C"], "TD", "9D", 2),  # reversed
        ({}, ["7D", "5C", "6C"], "8D", "7D", 1),  # the threatened seat
        ({}, ["8D", "5C"], "9D", "8D", 1),  # two players, skip: the other player
        ({"ace_skips": True}, ["AD", "5C"], "9D", "AD", 1),
        ({"nine_reverses": True}, ["9D", "5C"], "TD", "9D", 1),
        ({}, ["2D", "5C"], "8D", "2D", 1),
        ({}, ["JD", "5C", "6C", "7C"], "8D", "JD>H", 1),
        ({}, ["8D", "5C", "6C", "7C"], "9D", "8D", 2),
        ({"nine_reverses": True}, ["9D", "5C", "6C", "7C"], "TD", "9D", 3),
    ],
)
def test_catch_a_last_card_without_mau_mau_waits_for_the_next_player(
    options: dict[str, object], hands: list[str], start: str, last: str, accepter: int
) -> None:
    game = rigged({**CATCH, **options}, hands=hands, start=start, stock=PILE + " ...")
    act(game, f"play {last}")
    r = game.round
    assert r.step == WAIT
    assert r.out == -1
    assert not game.round_over
    assert hand(game, 0) == ""
    assert r.to_move == accepter
    assert legal(game) == ["pass", "catch 0"]
    assert legal(game, 0) == []
    for seat in range(1, len(hands)):
        if seat != accepter:
            assert legal(game, seat) == ["catch 0"]
            refused(game, "pass", "not_your_turn", seat=seat)
    # the accepter may do nothing but pass (or catch)
    refused(game, "draw", "must_pass", seat=accepter)
    refused(game, "play 5C", "must_pass", seat=accepter)
    refused(game, "pass", "not_your_turn", seat=0)
    act(game, "pass", accepter)
    assert r.step == OVER
    assert r.out == 0
    assert r.pending == 0  # a last Seven's draw lapses
    assert game.results[-1].out == 0
    assert game.finished


def test_catch_during_the_wait_the_offender_draws_and_does_not_go_out() -> None:
    game = rigged(CATCH, hands=["2D", "5C 6C", "9C TC"], start="8D", stock=PILE + " ...")
    act(game, "play 2D")
    act(game, "catch 0", 2)  # not the accepter: any opponent may catch
    r = game.round
    assert hand(game, 0) == "2H 3H"
    assert r.step == PLAY
    assert r.out == -1
    assert r.to_move == 1  # the turn passes on as after any play
    assert legal(game, 1) == ["draw 1"]
    refused(game, "catch 0", "nothing_to_catch", seat=1)
    act(game, "draw")
    assert game.round.to_move == 2


def test_catch_during_the_wait_by_the_accepter() -> None:
    game = rigged(
        {**CATCH, "mau_penalty_cards": 1},
        hands=["2D", "5C 6C", "9C TC"],
        start="8D",
        stock=PILE + " ...",
    )
    act(game, "play 2D")
    act(game, "catch 0", 1)
    assert hand(game, 0) == "2H"
    assert game.round.to_move == 1


def test_catch_during_the_wait_after_a_last_seven_the_seven_still_counts() -> None:
    game = rigged(CATCH, hands=["7D", "5C 6C", "9C TC"], start="8D", stock=PILE + " ...")
    act(game, "play 7D")
    act(game, "catch 0", 2)
    assert hand(game, 0) == "2H 3H"
    assert game.round.pending == 2
    assert game.round.to_move == 1
    assert legal(game) == ["draw 2"]


def test_catch_during_the_wait_two_players_skip_the_offender_moves_again() -> None:
    game = rigged(CATCH, hands=["8D", "5C 6C"], start="9D", stock=PILE + " ...")
    act(game, "play 8D")
    assert game.round.to_move == 1  # the other player accepts or catches
    act(game, "catch 0", 1)
    assert hand(game, 0) == "2H 3H"
    assert game.round.to_move == 0  # as after the skip


def test_catch_a_caught_player_draws_what_there_is() -> None:
    game = rigged(CATCH, hands=["2D", "..."], start="8D", stock="")
    act(game, "play 2D")
    act(game, "catch 0", 1)
    assert hand(game, 0) == "8D"
    assert discard(game) == ["2D"]
    assert not game.round_over


def test_catch_after_a_skip_with_two_players_the_offender_keeps_the_turn() -> None:
    game = rigged(CATCH, hands=["8D 3C", "5C 6C"], start="9D", stock=PILE + " ...")
    act(game, "play 8D")  # missed "Mau"; the skip gives seat 0 the next turn
    act(game, "catch 0", 1)
    assert hand(game, 0) == "3C 2H 3H"
    assert game.round.to_move == 0  # play goes on as before
    assert game.round.catchable == -1


def test_catch_a_missed_mau_on_a_drawn_card() -> None:
    game = rigged(CATCH, hands=["2C", "4C 6C"], start="8D", stock="5D " + PILE + " ...")
    act(game, "draw")
    act(game, "play 5D")  # one card left, no call
    assert legal(game, 1) == ["draw 1", "catch 0"]
    act(game, "catch 0", 1)
    assert hand(game, 0) == "2C 2H 3H"
