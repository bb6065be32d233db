"""The observation encoding means what docs/research.md says, slot by slot."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from maumau.engine import Game, Layout, parse_action  # noqa: E402
from maumau.engine.cards import CODES, parse_card  # noqa: E402
from maumau.env import encoding as e  # noqa: E402
from maumau.env.actions import ACTION_COUNT, CATCH, DRAW, PASS, describe, play_index  # noqa: E402


def three_seat_game() -> Game:
    hands = [
        ["7D", "JH", "2C", "3C", "4C"],
        ["9S", "KD", "5C", "6C", "8C"],
        ["TC", "QC", "KC", "AC", "2D"],
    ]
    used = {c for hand in hands for c in hand} | {"7S"}
    stock = [c for c in CODES if c not in used]
    return Game.new("penalty-100", 3, seed=1, layout=Layout.parse(hands, "7S", stock))


def seat_slot(vector: object, relative: int) -> object:
    base = e.SEATS + relative * e.SEAT_SIZE
    return vector[base : base + e.SEAT_SIZE]  # type: ignore[index]


def test_each_part_of_the_vector() -> None:
    game = three_seat_game()
    game.apply(parse_action("play 7D"))  # seat 0: a Seven, 2 pending for seat 1
    game.apply(parse_action("draw 2"))  # seat 1 draws the Seven sum
    view = game.view(2)
    v = e.encode(view)
    assert v.shape == (e.OBS_SIZE,) and v.dtype == np.float32
    assert sorted(np.flatnonzero(v[e.HAND : e.HAND + 52])) == sorted(
        parse_card(c) for c in ["TC", "QC", "KC", "AC", "2D"]
    )
    assert list(np.flatnonzero(v[e.TOP : e.TOP + 52])) == [parse_card("7D")]
    assert not v[e.NAMED : e.NAMED + 4].any() and not v[e.DRAWN : e.DRAWN + 52].any()
    assert sorted(np.flatnonzero(v[e.DISCARD : e.DISCARD + 52])) == sorted(
        [parse_card("7S"), parse_card("7D")]
    )
    assert list(np.flatnonzero(v[e.STEP : e.STEP + 4])) == [e.STEPS["play"]]
    assert v[e.SCALARS] == 0.0  # the Seven sum was drawn
    assert v[e.SCALARS + 1] == 1.0  # clockwise
    assert v[e.SCALARS + 2] == pytest.approx(view.stock_count / 52)
    me, left_of_me, right = seat_slot(v, 0), seat_slot(v, 1), seat_slot(v, 2)
    # seat 2 looks: slot 0 is itself, slot 1 is seat 0 (next clockwise), slot 2 seat 1
    assert me[e.SEAT_TO_MOVE] == 1.0 and me[e.SEAT_COUNT] == pytest.approx(5 / 52)
    assert left_of_me[e.SEAT_LEADER] == 1.0
    assert left_of_me[e.SEAT_LAST + 0] == 1.0  # seat 0 played
    assert left_of_me[e.SEAT_SUIT + 1] == 1.0  # diamonds
    assert right[e.SEAT_LAST + 1] == 1.0  # seat 1 drew
    assert right[e.SEAT_COUNT] == pytest.approx(7 / 52)
    for slot in range(3, 8):
        assert not seat_slot(v, slot).any()  # no such seat
    info = e.encode_info(view)
    assert info.shape == (e.INFO_SIZE,)
    assert np.array_equal(info[: e.OBS_SIZE], v)
    newest = info[e.OBS_SIZE : e.OBS_SIZE + e.ENTRY_SIZE]
    assert newest[2] == 1.0  # relative seat 2: seat 1, as seat 2 sees it
    assert newest[e.MAX_SEATS + 1] == 1.0  # a draw
    assert newest[-1] == pytest.approx(0.2)  # of 2 cards


def test_a_jack_names_a_suit_in_the_vector_and_the_action_space() -> None:
    game = three_seat_game()
    jack = parse_card("JH")
    index = play_index(jack, 3)
    assert index == 52 + 4 * 2 + 3 and describe(index) == "play JH>S"
    game.apply(parse_action("play JH>S"))
    v = e.encode(game.view(1))
    assert list(np.flatnonzero(v[e.NAMED : e.NAMED + 4])) == [3]
    played = seat_slot(v, 2)  # seat 0, two places after seat 1
    assert list(np.flatnonzero(played[e.SEAT_SUIT : e.SEAT_SUIT + 4])) == [3]  # named, not H
    assert describe(DRAW) == "draw" and describe(PASS) == "pass"
    assert describe(CATCH) == "catch +1" and describe(ACTION_COUNT - 1) == "catch +7"
    with pytest.raises(ValueError, match="outside the action space"):
        describe(ACTION_COUNT)


def test_a_spectators_view_is_refused() -> None:
    with pytest.raises(ValueError, match="spectator"):
        e.encode(three_seat_game().view(None))
