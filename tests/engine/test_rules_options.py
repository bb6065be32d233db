"""Option keys, values, presets and player counts (docs/rules.md#options,
docs/rules.md#presets, docs/rules.md#cards-and-deal)."""

from __future__ import annotations

from typing import Any

import pytest

from maumau.engine import OPTION_KEYS, PRESETS, BadOption, Game, Rules
from support.scenarios import rigged

DEFAULTS: dict[str, Any] = {
    "deck": 52,
    "hand_size": 5,
    "draw_when_able": True,
    "seven_draw": 2,
    "seven_stacking": True,
    "eight_skips": True,
    "nine_reverses": False,
    "ace_skips": False,
    "jack_on_jack": False,
    "mau_penalty": "auto",
    "mau_penalty_cards": 2,
    "scoring": "single",
    "limit": 100,
    "deals": 8,
    "jack_value": 20,
    "ace_value": 11,
    "card_values": "face",
}

#: every key with every value the rule book allows (docs/rules.md#options; ranges: both
#: ends and one inside)
GOOD: dict[str, list[Any]] = {
    "deck": [52, 32],
    "hand_size": [3, 7, 10],
    "draw_when_able": [True, False],
    "seven_draw": [2, 3],
    "seven_stacking": [True, False],
    "eight_skips": [True, False],
    "nine_reverses": [True, False],
    "ace_skips": [True, False],
    "jack_on_jack": [True, False],
    "mau_penalty": ["auto", "catch", "off"],
    "mau_penalty_cards": [1, 3, 5],
    "scoring": ["single", "penalty", "deals", "reward"],
    "limit": [50, 150, 1000],
    "deals": [1, 8, 50],
    "jack_value": [0, 20, 50],
    "ace_value": [0, 11, 50],
    "card_values": ["face", "traditional"],
}

#: values outside the rule book, with the words the error must show about what is allowed
BAD: dict[str, tuple[list[Any], list[str]]] = {
    "deck": ([36, 0, "52", True, None, 52.0, 32.0], ["52", "32"]),
    "hand_size": ([2, 11, 0, -5, "5", 5.0, True], ["3", "10"]),
    "draw_when_able": ([1, 0, "on", "true", None], ["true", "false"]),
    "seven_draw": ([1, 4, "2", 2.0, True], ["2", "3"]),
    "seven_stacking": ([1, "off", None], ["true", "false"]),
    "eight_skips": ([0, "yes"], ["true", "false"]),
    "nine_reverses": ([1, "on"], ["true", "false"]),
    "ace_skips": ([1, "on"], ["true", "false"]),
    "jack_on_jack": ([0, "off"], ["true", "false"]),
    "mau_penalty": (["manual", "AUTO", "", None, True], ["auto", "catch", "off"]),
    "mau_penalty_cards": ([0, 6, "2", 2.5, True], ["1", "5"]),
    "scoring": (["points", "Single", None, 1], ["single", "penalty", "deals", "reward"]),
    "limit": ([49, 1001, 0, "100", 100.0, True], ["50", "1000"]),
    "deals": ([0, 51, "8", False], ["1", "50"]),
    "jack_value": ([-1, 51, "20", True], ["0", "50"]),
    "ace_value": ([-1, 51, "11", 11.5], ["0", "50"]),
    "card_values": (["german", "Face", None, 0], ["face", "traditional"]),
}


def test_the_option_keys_are_exactly_the_rule_books() -> None:
    assert set(OPTION_KEYS) == set(DEFAULTS)
    assert set(GOOD) == set(DEFAULTS) == set(BAD)


def test_defaults_are_the_standard_game() -> None:
    assert Rules().to_dict() == DEFAULTS
    assert Rules.from_dict({}).to_dict() == DEFAULTS
    assert Rules.from_dict(None).to_dict() == DEFAULTS
    assert Rules.from_preset("standard").to_dict() == DEFAULTS


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, vs in GOOD.items() for v in vs])
def test_every_allowed_value_is_accepted_and_kept(key: str, value: Any) -> None:
    rules = Rules.from_dict({key: value})
    got = rules.to_dict()
    assert got[key] == value
    assert type(got[key]) is type(value)
    # nothing else moved (limit follows the mode when it is not given)
    for other, default in DEFAULTS.items():
        if other in (key, "limit"):
            continue
        assert got[other] == default, other
    # and it reads back the same
    assert Rules.from_dict(got).to_dict() == got


def _bad_cases() -> list[Any]:
    cases = []
    for key, (values, allowed) in BAD.items():
        for value in values:
            cases.append(pytest.param(key, value, allowed))
    return cases


@pytest.mark.parametrize(("key", "value", "allowed"), _bad_cases())
def test_a_bad_value_is_refused_naming_the_key_and_what_is_allowed(
    key: str, value: Any, allowed: list[str]
) -> None:
    with pytest.raises(BadOption) as e:
        Rules.from_dict({key: value})
    assert e.value.code == "bad_option"
    message = str(e.value)
    assert key in message
    for word in allowed:
        assert word in message, (word, message)


@pytest.mark.parametrize("key", ["players", "seed", "jack_skips", "Deck", "hand-size", ""])
def test_an_unknown_key_is_refused_naming_it(key: str) -> None:
    with pytest.raises(BadOption) as e:
        Rules.from_dict({key: 1})
    assert e.value.code == "bad_option"
    assert repr(key) in str(e.value)


def test_an_unknown_key_is_refused_even_next_to_good_ones() -> None:
    with pytest.raises(BadOption) as e:
        Rules.from_dict({"deck": 32, "nine_reverses": True, "ace_skip": True})
    assert "'ace_skip'" in str(e.value)


def test_a_bad_value_is_refused_even_after_a_preset() -> None:
    with pytest.raises(BadOption) as e:
        Rules.from_dict({"preset": "gamerules", "limit": 40})
    assert "limit" in str(e.value)


@pytest.mark.parametrize("name", ["penalty", "Standard", "", None, 100])
def test_an_unknown_preset_is_refused_naming_the_presets(name: Any) -> None:
    with pytest.raises(BadOption) as e:
        Rules.from_dict({"preset": name})
    assert e.value.code == "bad_option"
    message = str(e.value)
    assert "preset" in message
    for preset in ("standard", "penalty-100", "penalty-150", "traditional", "gamerules"):
        assert preset in message


def test_options_must_be_a_mapping() -> None:
    with pytest.raises(BadOption):
        Rules.from_dict([("deck", 32)])  # type: ignore[arg-type]


# --- presets (docs/rules.md#presets) --------------------------------------------------

PRESET_SETTINGS: dict[str, dict[str, Any]] = {
    "standard": {},
    "penalty-100": {"scoring": "penalty", "limit": 100},
    "penalty-150": {"scoring": "penalty", "limit": 150},
    "traditional": {
        "deck": 32,
        "nine_reverses": True,
        "card_values": "traditional",
        "scoring": "penalty",
        "limit": 100,
    },
    "gamerules": {
        "deck": 32,
        "nine_reverses": True,
        "ace_value": 10,
        "mau_penalty": "catch",
        "scoring": "reward",
        "limit": 150,
    },
}


def test_the_presets_are_exactly_the_rule_books() -> None:
    assert set(PRESETS) == set(PRESET_SETTINGS)


@pytest.mark.parametrize("name", list(PRESET_SETTINGS))
def test_preset_settings(name: str) -> None:
    expected = {**DEFAULTS, **PRESET_SETTINGS[name]}
    assert Rules.from_preset(name).to_dict() == expected
    assert Rules.from_dict({"preset": name}).to_dict() == expected
    assert Game.new(name, players=2).rules.to_dict() == expected


def test_keys_after_a_preset_override_it() -> None:
    rules = Rules.from_dict({"preset": "traditional", "nine_reverses": False, "limit": 150})
    assert rules.to_dict() == {
        **DEFAULTS,
        **PRESET_SETTINGS["traditional"],
        "nine_reverses": False,
        "limit": 150,
    }


@pytest.mark.parametrize(
    ("scoring", "limit"), [("single", 100), ("penalty", 100), ("deals", 100), ("reward", 150)]
)
def test_limit_defaults_to_100_for_penalty_and_150_for_reward(scoring: str, limit: int) -> None:
    assert Rules.from_dict({"scoring": scoring}).to_dict()["limit"] == limit


@pytest.mark.parametrize("scoring", ["single", "penalty", "deals", "reward"])
def test_limit_and_deals_are_accepted_with_every_mode(scoring: str) -> None:
    rules = Rules.from_dict({"scoring": scoring, "limit": 70, "deals": 3})
    assert rules.to_dict()["limit"] == 70
    assert rules.to_dict()["deals"] == 3


def test_a_preset_switched_to_another_mode_keeps_its_limit() -> None:
    rules = Rules.from_dict({"preset": "gamerules", "scoring": "penalty"})
    assert rules.to_dict()["limit"] == 150


# --- player counts and deck size (docs/rules.md#cards-and-deal, docs/rules.md#presets) --


@pytest.mark.parametrize(("deck", "top"), [(52, 8), (32, 5)])
def test_player_counts_per_deck(deck: int, top: int) -> None:
    rules = Rules.from_dict({"deck": deck, "hand_size": 3})
    for n in range(2, top + 1):
        rules.check_players(n)
        assert Game.new(rules, players=n, seed=1).n == n
    for n in (0, 1, top + 1):
        with pytest.raises(BadOption) as e:
            Game.new(rules, players=n)
        assert e.value.code == "bad_option"
        assert "players" in str(e.value)


def test_player_names_count_as_seats() -> None:
    with pytest.raises(BadOption):
        Game.new({"deck": 32}, players=["a", "b", "c", "d", "e", "f"])
    assert Game.new({"deck": 32}, players=["a", "b", "c", "d", "e"]).n == 5


@pytest.mark.parametrize("n", [2, 3, 4])
def test_gamerules_takes_two_to_four_players(n: int) -> None:
    assert Game.new("gamerules", players=n, seed=3).n == n


@pytest.mark.parametrize("n", [1, 5])
def test_gamerules_refuses_other_player_counts(n: int) -> None:
    with pytest.raises(BadOption) as e:
        Game.new("gamerules", players=n)
    assert e.value.code == "bad_option"
    with pytest.raises(BadOption):
        Game.new({"preset": "gamerules"}, players=["a", "b", "c", "d", "e"][:n])


def test_five_players_are_fine_with_the_same_settings_without_the_preset() -> None:
    settings = dict(PRESET_SETTINGS["gamerules"])
    assert Game.new(settings, players=5, seed=3).n == 5


@pytest.mark.parametrize(
    ("deck", "players", "hand_size", "left"),
    [
        (52, 8, 6, 3),  # 52 - 48 - 1
        (52, 7, 7, 2),  # 52 - 49 - 1
        (52, 5, 10, 1),  # 52 - 50 - 1
        (32, 5, 6, 1),  # 32 - 30 - 1
        (32, 4, 7, 3),  # 32 - 28 - 1
        (32, 3, 9, 4),  # 32 - 27 - 1
        (32, 5, 5, 6),  # fine
        (52, 8, 5, 11),  # fine
        (32, 2, 10, 11),  # fine
        (52, 4, 10, 11),  # fine
        (32, 4, 6, 7),  # fine
        (52, 6, 7, 9),  # fine
    ],
)
def test_fewer_than_five_cards_left_to_draw_is_refused(
    deck: int, players: int, hand_size: int, left: int
) -> None:
    rules = Rules.from_dict({"deck": deck, "hand_size": hand_size})
    if left < 5:
        with pytest.raises(BadOption) as e:
            Game.new(rules, players=players)
        assert e.value.code == "bad_option"
        assert "hand_size" in str(e.value)
    else:
        game = Game.new(rules, players=players, seed=5)
        assert len(game.round.stock) == left


def test_the_nearest_setups_to_the_boundary() -> None:
    # Exactly 5 left cannot happen (46 or 26 cards in equal hands of 3..10), so check the
    # nearest on both sides: 6 left is fine, 4 left is refused.
    assert len(Game.new({"hand_size": 9}, players=5, seed=1).round.stock) == 6
    with pytest.raises(BadOption):
        Game.new({"deck": 32, "hand_size": 9}, players=3)


def test_the_rigged_helper_deals_what_it_is_told() -> None:
    game = rigged(hands=["8D KD", "2C 9S"], start="8S", stock="3C 4C ...")
    assert game.round.to_move == 0
    assert len(game.round.stock) == 52 - 5
