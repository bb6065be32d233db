"""Card values, the four scoring modes and the rounds of a game (docs/rules.md#scoring,
docs/rules.md#end-of-a-round, docs/rules.md#end-of-the-game)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from maumau.engine import Game, IllegalAction, Pass, Rules
from maumau.engine.cards import CODES, deck_cards, parse_card
from maumau.engine.round import OVER
from support.scenarios import act, deal_rigged, hand, refused, rigged

#: cards that never fit the start card 8D, for seats that must draw before the winner moves
FILLER = "2S 3S 4S 5S 6S 9S"


def value(options: Mapping[str, object], cards: str) -> int:
    table = Rules.from_dict(options).card_value_table()
    return sum(table[parse_card(c)] for c in cards.split())


def play_round(game: Game, out: int, others: Mapping[int, str]) -> None:
    """Deal a round in which seat ``out`` holds just 2D and goes out with it; the other
    seats hold ``others``.  Seats that move before ``out`` draw a card from FILLER (which
    never fits 8D) in turn, so the hands at the end are ``others`` plus those draws."""
    hands = [("2D" if s == out else others[s]) for s in range(game.n)]
    deal_rigged(game, hands, start="8D", stock=FILLER + " ...")
    while game.round.to_move != out:
        act(game, "draw")
    act(game, "play 2D maumau")
    assert game.round.step == OVER
    assert game.round.out == out


# --- card values ------------------------------------------------------------------------


def test_worked_example_face() -> None:
    assert value({}, "JC AC KC 7C") == 48  # 20 + 11 + 10 + 7


def test_worked_example_traditional() -> None:
    assert value({"card_values": "traditional"}, "JC AC KC 7C") == 35  # 20 + 11 + 4 + 0


def test_worked_examples_as_a_round_reports_them() -> None:
    game = rigged({}, hands=["2D", "JC AC KC 7C"], start="8D")
    act(game, "play 2D maumau")
    assert game.results[-1].hand_values == (0, 48)
    game = rigged({"card_values": "traditional"}, hands=["2D", "JC AC KC 7C"], start="8D")
    act(game, "play 2D maumau")
    assert game.results[-1].hand_values == (0, 35)


FACE = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10}
FACE |= {"J": 20, "Q": 10, "K": 10, "A": 11}
TRAD = {r: 0 for r in "23456789"} | {"T": 10, "J": 20, "Q": 3, "K": 4, "A": 11}


@pytest.mark.parametrize(("scheme", "values"), [("face", FACE), ("traditional", TRAD)])
def test_every_card_value(scheme: str, values: dict[str, int]) -> None:
    table = Rules.from_dict({"card_values": scheme}).card_value_table()
    for card in range(52):
        assert table[card] == values[CODES[card][0]], CODES[card]


def test_with_the_32_card_pack_and_face_every_card_is_worth_at_least_7() -> None:
    table = Rules.from_dict({"deck": 32}).card_value_table()
    cards = deck_cards(32)
    assert len(cards) == 32
    assert min(table[c] for c in cards) == 7
    assert sum(table[c] for c in cards) == 4 * (7 + 8 + 9 + 10 + 20 + 10 + 10 + 11)


@pytest.mark.parametrize("scheme", ["face", "traditional"])
@pytest.mark.parametrize(("jack", "ace"), [(0, 0), (50, 1), (7, 50)])
def test_jack_value_and_ace_value(scheme: str, jack: int, ace: int) -> None:
    opts = {"card_values": scheme, "jack_value": jack, "ace_value": ace}
    assert value(opts, "JC JD") == 2 * jack
    assert value(opts, "AH") == ace
    assert value(opts, "JC AC KC 7C") == jack + ace + (10 if scheme == "face" else 4) + (
        7 if scheme == "face" else 0
    )


def test_the_gamerules_ace_is_worth_10() -> None:
    assert value({"preset": "gamerules"}, "AC AD") == 20


# --- single -------------------------------------------------------------------------------


def test_single_one_deal_and_the_player_who_goes_out_wins() -> None:
    game = rigged({}, hands=["KD JH", "2D", "AC 7C"], start="8D", stock=FILLER + " ...")
    act(game, "draw")  # seat 0 draws 2S
    act(game, "play 2D maumau")
    assert game.round.out == 1
    assert game.finished
    assert game.winners == (1,)
    assert game.draw is False
    result = game.results[-1]
    assert result.hand_values == (2 + 10 + 20, 0, 18)  # still reported
    assert result.totals == (0, 0, 0)
    assert game.totals == [0, 0, 0]
    assert result.rounds_won == (0, 1, 0)
    assert result.hands == (("KD", "JH", "2S"), (), ("7C", "AC"))
    with pytest.raises(IllegalAction) as e:
        game.deal(5)
    assert e.value.code == "game_over"


# --- penalty ------------------------------------------------------------------------------


def test_penalty_the_others_add_their_cards_and_the_player_out_nothing() -> None:
    game = Game.new({"scoring": "penalty"}, players=3)
    play_round(game, 0, {1: "JC AC KC 7C", 2: "3H"})
    assert game.results[-1].hand_values == (0, 48, 3)
    assert game.totals == [0, 48, 3]
    assert game.rounds_won == [1, 0, 0]
    assert not game.finished
    play_round(game, 1, {0: "TC", 2: "QH"})
    assert game.totals == [10, 48, 13]
    assert game.rounds_won == [1, 1, 0]
    assert game.results[-1].totals == (10, 48, 13)
    assert game.results[0].totals == (0, 48, 3)  # the running figures, round by round
    assert not game.finished


@pytest.mark.parametrize(("second", "ends"), [("AH", False), ("AH 2H", True), ("KH QH", True)])
def test_penalty_the_game_ends_after_the_round_that_reaches_the_limit(
    second: str, ends: bool
) -> None:
    game = Game.new({"scoring": "penalty", "limit": 50}, players=2)
    play_round(game, 0, {1: "JC KC 7C"})  # 37
    assert game.totals == [0, 37]
    assert not game.finished
    play_round(game, 1, {0: "2C"})  # seat 0 gets 2
    assert game.totals == [2, 37]
    play_round(game, 0, {1: second})  # 37 + 11 = 48, 37 + 13 = 50, 37 + 20 = 57
    total = 37 + value({}, second)
    assert game.totals == [2, total]
    assert game.finished is ends
    if ends:
        assert game.winners == (0,)
        assert game.draw is False
        with pytest.raises(IllegalAction) as e:
            game.deal(1)
        assert e.value.code == "game_over"
    else:
        assert game.winners is None


def test_penalty_exactly_the_limit_ends_the_game() -> None:
    game = Game.new("penalty-100", players=2)
    play_round(game, 0, {1: "JC JD JH JS KC 9C"})  # 99
    assert game.totals == [0, 99]
    assert not game.finished
    play_round(game, 1, {0: "2C"})
    assert not game.finished
    play_round(game, 0, {1: "AC"})  # 110
    assert game.finished
    assert game.winners == (0,)

    game = Game.new("penalty-100", players=2)
    play_round(game, 0, {1: "JC JD JH JS KC QC"})  # 100
    assert game.totals == [0, 100]
    assert game.finished
    assert game.winners == (0,)


def test_penalty_the_limit_of_penalty_150() -> None:
    game = Game.new("penalty-150", players=2)
    play_round(game, 0, {1: "JC JD JH JS KC QC"})  # 100
    assert not game.finished
    play_round(game, 1, {0: "2C"})
    play_round(game, 0, {1: "JC JD AC"})  # 151
    assert game.totals == [2, 151]
    assert game.finished


def test_penalty_the_winner_has_the_fewest_points_even_if_they_never_went_out() -> None:
    game = Game.new({"scoring": "penalty", "limit": 50}, players=3)
    play_round(game, 0, {1: "2C", 2: "JC JD KC"})  # [0, 2, 50]
    assert game.totals == [0, 2, 50]
    assert game.finished
    assert game.winners == (0,)
    game = Game.new({"scoring": "penalty", "limit": 50}, players=3)
    play_round(game, 0, {1: "2C", 2: "3C"})  # [0, 2, 3]
    play_round(game, 1, {0: "JC JD KC", 2: "4C"})  # [50, 2, 7]
    assert game.finished
    assert game.winners == (1,)


def test_penalty_a_tie_on_points_goes_to_the_most_rounds_won() -> None:
    # traditional values: the filler cards drawn (2S, 3S) are worth nothing
    game = Game.new({"scoring": "penalty", "limit": 50, "card_values": "traditional"}, players=3)
    play_round(game, 0, {1: "TC", 2: "JC"})  # [0, 10, 20], won [1, 0, 0]
    play_round(game, 1, {0: "TD", 2: "3C"})  # [10, 10, 20], won [1, 1, 0]
    # round 3 is led by seat 2: seats 2 and 0 draw (2S, 3S) before seat 1 goes out
    play_round(game, 1, {0: "4C", 2: "JD TH"})
    assert hand(game, 0) == "4C 3S"
    assert hand(game, 2) == "JD TH 2S"
    assert game.totals == [10, 10, 50]
    assert game.rounds_won == [1, 2, 0]
    assert game.finished
    assert game.winners == (1,)
    assert game.draw is False


def test_penalty_a_tie_on_points_and_rounds_won_is_a_draw() -> None:
    game = Game.new({"scoring": "penalty", "limit": 50}, players=3)
    play_round(game, 0, {1: "TC", 2: "JC"})  # [0, 10, 20]
    play_round(game, 1, {0: "TD", 2: "JD KD"})  # [10, 10, 50]; rounds won 1, 1, 0
    assert game.totals == [10, 10, 50]
    assert game.rounds_won == [1, 1, 0]
    assert game.finished
    assert game.winners == (0, 1)
    assert game.draw is True


# --- deals --------------------------------------------------------------------------------


@pytest.mark.parametrize("deals", [1, 2, 3])
def test_deals_the_game_ends_after_exactly_that_many_rounds(deals: int) -> None:
    game = Game.new({"scoring": "deals", "deals": deals, "limit": 50}, players=2)
    for r in range(deals):
        assert not game.finished
        # far over the limit, which the mode ignores
        play_round(game, r % 2, {(r + 1) % 2: "JC JD JH JS"})
    assert game.finished
    assert len(game.results) == deals
    with pytest.raises(IllegalAction) as e:
        game.deal(1)
    assert e.value.code == "game_over"


def test_deals_defaults_to_eight_rounds() -> None:
    game = Game.new({"scoring": "deals"}, players=2)
    for r in range(8):
        assert not game.finished
        play_round(game, r % 2, {(r + 1) % 2: "3C"})
    assert game.finished
    assert game.totals == [12, 12]
    assert game.draw is True
    assert game.winners == (0, 1)


def test_deals_winner_and_tie_rules() -> None:
    game = Game.new({"scoring": "deals", "deals": 3}, players=2)
    play_round(game, 0, {1: "KC"})  # [0, 10]
    play_round(game, 1, {0: "KD"})  # [10, 10]
    play_round(game, 0, {1: "2C"})  # [10, 12]
    assert game.totals == [10, 12]
    assert game.winners == (0,)

    game = Game.new({"scoring": "deals", "deals": 3, "jack_value": 0}, players=2)
    play_round(game, 0, {1: "KC"})  # [0, 10]
    play_round(game, 1, {0: "KD"})  # [10, 10]
    play_round(game, 0, {1: "JC"})  # [10, 10]: seat 0 won two rounds
    assert game.totals == [10, 10]
    assert game.rounds_won == [2, 1]
    assert game.winners == (0,)
    assert game.draw is False

    game = Game.new({"scoring": "deals", "deals": 2}, players=2)
    play_round(game, 0, {1: "KC"})
    play_round(game, 1, {0: "KD"})
    assert game.winners == (0, 1)
    assert game.draw is True


# --- reward -------------------------------------------------------------------------------


def test_reward_the_player_out_scores_the_others_cards() -> None:
    game = Game.new({"scoring": "reward"}, players=3)
    play_round(game, 0, {1: "JC AC KC 7C", 2: "3H"})
    assert game.results[-1].hand_values == (0, 48, 3)
    assert game.totals == [51, 0, 0]
    play_round(game, 1, {0: "TC", 2: "QH"})
    assert game.totals == [51, 20, 0]
    assert not game.finished


def test_reward_the_first_to_reach_the_limit_wins() -> None:
    game = Game.new({"scoring": "reward", "limit": 50}, players=2)
    play_round(game, 0, {1: "JC KC QC"})  # 40
    assert game.totals == [40, 0]
    assert not game.finished
    play_round(game, 1, {0: "JD KD QD"})  # seat 1: 40
    assert game.totals == [40, 40]
    assert not game.finished
    play_round(game, 0, {1: "TC"})  # seat 0: 50
    assert game.totals == [50, 40]
    assert game.finished
    assert game.winners == (0,)
    assert game.draw is False


def test_reward_limit_defaults_to_150() -> None:
    game = Game.new({"scoring": "reward"}, players=2)
    play_round(game, 0, {1: "JC JD JH JS AC AD AH AS KC QC 5C"})  # 149
    assert game.totals == [149, 0]
    assert not game.finished
    play_round(game, 1, {0: "2C"})
    play_round(game, 0, {1: "2H"})
    assert game.totals == [151, 2]
    assert game.finished
    assert game.winners == (0,)


# --- between rounds -------------------------------------------------------------------------


def test_the_leader_rotates_and_the_direction_returns_to_clockwise() -> None:
    game = Game.new({"scoring": "deals", "deals": 5, "nine_reverses": True}, players=3)
    leaders = []
    for r in range(5):
        leader = r % 3
        hands = [("9D" if s == leader else f"{s + 3}C") for s in range(3)]
        deal_rigged(game, hands, start="8D")
        leaders.append(game.round.leader)
        assert game.round.to_move == leader
        assert game.round.direction == 1
        act(game, "play 9D maumau")
        assert game.round.direction == -1
        assert game.round_over
    assert leaders == [0, 1, 2, 0, 1]
    assert game.finished


def test_the_leader_rotates_in_seeded_rounds() -> None:
    game = Game.new({"scoring": "deals", "deals": 3}, players=2, seed=1)
    for r, seed in enumerate([1, 2, 3]):
        if r:
            game.deal(seed)
        assert game.round.leader == r % 2
        assert game.round.to_move == r % 2
        while not game.round_over:
            game.apply(game.legal_actions()[0])
    assert game.finished


def test_a_new_round_before_the_last_ended_is_refused() -> None:
    game = rigged({"scoring": "penalty"}, hands=["2D 3C", "KC"], start="8D")
    with pytest.raises(IllegalAction) as e:
        game.deal(7)
    assert e.value.code == "round_not_over"
    assert len(game.rounds) == 1


def test_before_the_first_deal() -> None:
    game = Game.new({}, players=2)
    assert game.round_over
    assert list(game.legal_actions()) == []
    with pytest.raises(IllegalAction) as e:
        game.apply(Pass())
    assert e.value.code == "round_not_over"


def test_an_action_after_the_round_ended_is_refused() -> None:
    game = rigged({"scoring": "penalty"}, hands=["2D", "KC"], start="8D")
    act(game, "play 2D maumau")
    assert game.round_over
    assert list(game.legal_actions()) == []
    assert list(game.legal_actions(1)) == []
    refused(game, "draw", "round_over", seat=1)
    refused(game, "pass", "round_over", seat=1)
    refused(game, "play KC", "round_over", seat=1)
    refused(game, "catch 0", "round_over", seat=1)
    game.deal(3)
    assert not game.round_over


def test_the_round_ends_the_moment_the_last_card_is_played_and_a_last_seven_lapses() -> None:
    game = rigged({}, hands=["7D", "KC 2C"], start="8D")
    act(game, "play 7D maumau")
    assert game.round.pending == 0
    assert game.round.out == 0
    assert hand(game, 1) == "2C KC"
