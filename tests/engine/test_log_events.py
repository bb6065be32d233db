"""The public log says why things happen (issue 20): who was skipped, that the
direction reversed, a kept card, an accepted going out, and why a penalty was drawn
(and who caught it).  The reasons are derived from the actions: records do not change."""

from __future__ import annotations

from typing import Any

from maumau.engine import record_of
from maumau.engine.view import events_json
from support.scenarios import act, rigged

CATCH = {"mau_penalty": "catch"}
PILE = "2H 3H 4H 5H 6H 7H 8H 9H TH QH ..."


def last(game: Any, n: int = 1) -> list[dict[str, Any]]:
    return events_json(game, None)[-n:]


def test_an_eight_says_whom_it_skipped() -> None:
    game = rigged(hands=["8D 2C 3C", "4C 5C", "6C 7S"], start="9D", stock=PILE)
    act(game, "play 8D")
    assert last(game) == [{"seat": 0, "play": "8D", "skipped": 1}]
    assert game.round.turn == 2


def test_an_ace_skips_only_with_ace_skips() -> None:
    on = rigged({"ace_skips": True}, hands=["AD 2C 3C", "4C 5C", "6C 7S"], start="9D", stock=PILE)
    act(on, "play AD")
    assert last(on) == [{"seat": 0, "play": "AD", "skipped": 1}]
    off = rigged(hands=["AD 2C 3C", "4C 5C", "6C 7S"], start="9D", stock=PILE)
    act(off, "play AD")
    assert last(off) == [{"seat": 0, "play": "AD"}]


def test_with_two_players_the_skipped_seat_is_the_other_one() -> None:
    game = rigged(hands=["8D 2C 3C", "4C 5C"], start="9D", stock=PILE)
    act(game, "play 8D")
    assert last(game) == [{"seat": 0, "play": "8D", "skipped": 1}]


def test_a_nine_says_the_direction_reversed() -> None:
    game = rigged(
        {"nine_reverses": True}, hands=["9D 2C 3C", "4C 5C", "6C 7S"], start="8D", stock=PILE
    )
    act(game, "play 9D")
    assert last(game) == [{"seat": 0, "play": "9D", "reversed": True}]
    assert game.round.direction == -1


def test_a_skip_that_ends_the_round_lapses_and_is_not_logged() -> None:
    game = rigged(hands=["8D", "4C 5C", "6C 7S"], start="9D", stock=PILE)
    act(game, "play 8D maumau")
    assert last(game, 2) == [{"seat": 0, "play": "8D", "call": "maumau"}, {"out": 0}]


def test_keeping_a_drawn_card_is_not_a_plain_pass() -> None:
    game = rigged(hands=["2C 3C", "5C 6C"], start="8D", stock="5D ...")
    act(game, "draw")
    act(game, "pass")
    assert last(game) == [{"seat": 0, "pass": True, "kept": True}]


def test_a_forgotten_mau_says_missed() -> None:
    game = rigged(hands=["2D 3C", "5C 6C"], start="8D", stock=PILE)
    act(game, "play 2D")
    assert last(game) == [{"seat": 0, "penalty": 2, "reason": "missed"}]


def test_a_call_that_is_not_due_or_the_wrong_word_says_false() -> None:
    early = rigged(hands=["2D 3C 4C", "5C 6C"], start="8D", stock=PILE)
    act(early, "play 2D mau")
    assert last(early) == [{"seat": 0, "penalty": 2, "reason": "false"}]
    wrong = rigged(hands=["2D 3C", "5C 6C"], start="8D", stock=PILE)
    act(wrong, "play 2D maumau")
    assert last(wrong) == [{"seat": 0, "penalty": 2, "reason": "false"}]


def test_a_catch_says_caught_and_by_whom() -> None:
    game = rigged(CATCH, hands=["2D 3C", "5C 6C", "7C 9C"], start="8D", stock=PILE)
    act(game, "play 2D")
    act(game, "catch 0", seat=2)
    assert last(game, 2) == [
        {"seat": 2, "catch": 0},
        {"seat": 0, "penalty": 2, "reason": "caught", "by": 2},
    ]


def test_accepting_a_going_out_says_accept() -> None:
    game = rigged(CATCH, hands=["2D", "5C 6C"], start="8D", stock=PILE)
    act(game, "play 2D")
    act(game, "pass", seat=1)
    assert last(game, 2) == [{"seat": 1, "pass": True, "accept": True}, {"out": 0}]


def test_the_drawer_still_sees_its_penalty_cards_and_others_only_the_reason() -> None:
    game = rigged(hands=["2D 3C", "5C 6C"], start="8D", stock=PILE)
    act(game, "play 2D")
    mine = events_json(game, 0)[-1]
    theirs = events_json(game, 1)[-1]
    assert mine == {"seat": 0, "penalty": 2, "reason": "missed", "cards": ["2H", "3H"]}
    assert theirs == {"seat": 0, "penalty": 2, "reason": "missed"}


def test_the_record_is_unchanged_by_the_new_log_fields() -> None:
    game = rigged(CATCH, hands=["8D 2C", "5C 6C", "7C 9C"], start="9D", stock=PILE)
    act(game, "play 8D")
    act(game, "catch 0", seat=1)
    actions = record_of(game).to_json()["rounds"][0]["actions"]
    assert actions == [{"seat": 0, "play": "8D"}, {"seat": 1, "catch": 0}]
