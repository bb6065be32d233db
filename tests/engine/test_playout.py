"""The fast random playout plays exactly the games a uniform pick from legal_actions plays.

The reference (tests/support/playouts.py) walks the public API and draws random numbers the way
:func:`random_playout` documents (plays without a suit in card order, then each Jack
once per suit, then the draw or pass; after drawing a playable card, one number picks
"pass" with probability 1/k); with the same generator both must end in the identical
state after the identical number of actions, for every option combination.
"""

from __future__ import annotations

import random
from itertools import product
from typing import Any

import pytest

from maumau.engine import Game
from maumau.engine.playout import random_playout
from maumau.engine.round import OVER, Round
from support.playouts import reference_playout

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"preset": "penalty-100"},
    {"preset": "traditional"},
    {"preset": "gamerules"},
    {"deck": 32, "hand_size": 6, "seven_draw": 3, "ace_skips": True, "nine_reverses": True},
    {"draw_when_able": False, "seven_stacking": False, "eight_skips": False},
    {"jack_on_jack": True, "mau_penalty": "off", "hand_size": 3},
    {"hand_size": 10, "mau_penalty": "catch", "mau_penalty_cards": 5},
]


def _snapshot(state: Round) -> tuple[Any, ...]:
    return (
        tuple(state.hands),
        tuple(state.stock),
        tuple(state.discard),
        state.out,
        state.step,
        state.pending,
    )


@pytest.mark.parametrize("eager", [False, True])
@pytest.mark.parametrize(("options", "players"), list(product(OPTION_SETS, (2, 3, 4))))
def test_playout_matches_reference(options: dict[str, Any], players: int, eager: bool) -> None:
    for seed in range(40):
        game = Game.new(options, players=players, seed=seed)
        pre = random.Random(seed)
        # start from a mid-round position half of the time
        for _ in range(seed % 2 * (seed % 17)):
            if game.round_over:
                break
            acts = game.legal_actions()
            game.apply(acts[int(pre.random() * len(acts))])
        if game.round_over:
            continue
        fast = game.round.copy(random.Random(seed), history=False)
        slow = game.round.copy(random.Random(seed), history=False)
        n_fast = random_playout(fast, random.Random(1000 + seed), eager=eager)
        n_slow = reference_playout(slow, random.Random(1000 + seed), eager)
        assert fast.step == OVER
        assert _snapshot(fast) == _snapshot(slow), f"seed {seed}"
        assert n_fast == n_slow


def test_playout_keeps_every_card_once() -> None:
    for seed in range(200):
        state = Game.new({"deck": 32, "seven_draw": 3}, players=4, seed=seed).round
        random_playout(state, random.Random(seed))
        cards = [c for h in state.hands for c in range(52) if h >> c & 1]
        cards += state.stock + state.discard
        assert sorted(cards) == sorted(c for c in range(52) if c % 13 >= 5)
        assert state.hands[state.out] == 0


def test_playout_stops_at_max_actions_in_a_consistent_state() -> None:
    state = Game.new("standard", players=4, seed=3).round
    used = random_playout(state, random.Random(3), max_actions=5)
    assert used in (5, 6)  # a draw and the play of the drawn card may finish together
    assert state.step != OVER
    # the state can still be played on through the checked API
    acts = state.legal_actions()
    assert acts
    state.apply(acts[0])


def test_playout_of_a_finished_round_does_nothing() -> None:
    state = Game.new("standard", players=2, seed=1).round
    random_playout(state, random.Random(1))
    before = _snapshot(state)
    assert random_playout(state, random.Random(2)) == 0
    assert _snapshot(state) == before
