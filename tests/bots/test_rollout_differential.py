"""The playouts against the engine, over random option sets and positions.

The search bots never play through :meth:`Round.apply`: they play millions of rounds in
the tight loops of ``bots/rollout.py`` (:func:`heuristic_playout`) and
``engine/playout.py`` (:func:`random_playout`), which apply the action cards
themselves from the table in ``engine/effects.py``.  A rule undone or misread in one of
those loops would make every bot search a different game, and nothing else would see it.

* The heuristic playout is stepped one action at a time (``max_actions=1``) beside a
  twin round driven through the checked API with the action it took (the play of the
  card that left the hand, with the suit it named and the call that is due; the draw;
  the pass).  After every step the two must agree on the hands, both piles, the
  reshuffle generator, whose turn it is, the step, the pending draw, the named suit
  (the wish), the cards that fit and the direction; once the round is over, on who
  went out and the hands left (which is all the scores are made of).
* The random playout is compared with the reference of tests/engine/test_playout.py, which
  draws the same random numbers through ``legal_actions``/``apply``: same end state,
  same number of actions.

Positions come from random play (forgetful calls and catches included, so pending
draws, drawn cards, catchable seats and catch-mode waits all occur) under random
options and every preset.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maumau.bots.rollout import heuristic_playout
from maumau.engine import PRESETS, Action, Catch, Draw, Game, Pass, Play, Round
from maumau.engine.playout import random_playout
from maumau.engine.round import OVER, WAIT
from support.playouts import reference_playout
from support.strategies import Setup, choose_action, player_counts, scaled, setups

#: every action card switched on at once, on both packs
ALL_ACTIONS: dict[str, Any] = {
    "eight_skips": True,
    "ace_skips": True,
    "nine_reverses": True,
    "jack_on_jack": True,
    "seven_draw": 3,
}
OPTION_SETS: list[dict[str, Any]] = [{"preset": name} for name in PRESETS] + [
    ALL_ACTIONS,
    {**ALL_ACTIONS, "deck": 32, "seven_stacking": False, "draw_when_able": False},
]


def state_of(r: Round) -> dict[str, Any]:
    """What the rules make of a round: everything while it runs; once it is over, who
    went out, the hands left and the piles (a finished round's turn, direction and
    wish no longer mean anything, and the engine leaves them as the last card set them)."""
    state: dict[str, Any] = {
        "hands": tuple(r.hands),
        "stock": tuple(r.stock),
        "discard": tuple(r.discard),
        "step": r.step,
        "pending": r.pending,
        "reshuffles": r.rng.getstate(),
    }
    if r.step == OVER:
        state["out"] = r.out
    else:
        state.update(
            turn=r.turn,
            direction=r.direction,
            named=r.named,
            match=r.match,
            drawn=r.drawn,
            catchable=r.catchable,
        )
    return state


def position(setup: Setup, moves: int) -> Round | None:
    """The round after ``moves`` random actions of the setup's game (None if it ended)."""
    game = Game.new(setup.options, players=setup.players, seed=setup.seed)
    rng = random.Random(setup.policy)
    for _ in range(moves):
        if game.round_over:
            return None
        seat, action = choose_action(game, rng)
        game.apply(action, seat)
    return None if game.round_over else game.round


def action_taken(before: Round, after: Round) -> Action:
    """The listed action of ``before``'s seat to move that the playout took to reach
    ``after`` (one action on)."""
    if before.step == WAIT:
        return Pass()
    seat = before.turn
    listed = [a for a in before.legal_actions() if not isinstance(a, Catch)]
    left = before.hands[seat] & ~after.hands[seat]
    if left:
        assert left & (left - 1) == 0, f"seat {seat} played more than one card in one step"
        card = left.bit_length() - 1
        plays = [a for a in listed if isinstance(a, Play) and a.card == card]
        assert plays, f"seat {seat} played {card}, which is not a legal play: {listed}"
        if after.step == OVER or plays[0].suit is None:
            return plays[0]
        return next(p for p in plays if p.suit == after.named)
    if after.hands[seat] != before.hands[seat]:
        draws = [a for a in listed if isinstance(a, Draw)]
        assert draws, f"seat {seat} drew, which is not legal: {listed}"
        return draws[0]
    assert any(isinstance(a, Pass) for a in listed), f"seat {seat} passed illegally: {listed}"
    return Pass()


def check_heuristic_playout(
    start: Round, noise_seed: int, value_weight: float, noise: float
) -> int:
    """Step the heuristic playout from ``start`` beside the engine; returns the steps."""
    fast = start.copy(history=False)  # both copies clone the reshuffle generator
    engine = start.copy(history=False)
    rand = random.Random(noise_seed).random
    steps = 0
    while engine.step != OVER:
        before = engine.copy()
        done = heuristic_playout(fast, rand, 1, value_weight=value_weight, noise=noise)
        assert done == 1
        action = action_taken(before, fast)
        engine.apply(action)
        steps += 1
        assert state_of(fast) == state_of(engine), (
            f"step {steps}: the heuristic playout and the engine differ after {action!r}"
        )
        assert steps < 5000, "the playout does not end"
    assert fast.step == OVER
    return steps


def check_random_playout(start: Round, seed: int, eager: bool) -> None:
    fast = start.copy(random.Random(seed), history=False)
    slow = start.copy(random.Random(seed), history=False)
    n_fast = random_playout(fast, random.Random(~seed), eager=eager)
    n_slow = reference_playout(slow, random.Random(~seed), eager)
    assert state_of(fast) == state_of(slow), "the random playout and the engine differ"
    assert n_fast == n_slow


@scaled(2)
@given(
    setups(),
    st.integers(0, 60),
    st.integers(0, 2**32),
    st.sampled_from([0.0, 1.0, 2.5]),
    st.sampled_from([0.0, 4.0]),
    st.booleans(),
)
def test_playouts_match_the_engine_under_random_options(
    setup: Setup, moves: int, seed: int, value_weight: float, noise: float, eager: bool
) -> None:
    start = position(setup, moves)
    if start is None:
        return
    check_heuristic_playout(start, seed, value_weight, noise)
    check_random_playout(start, seed, eager)


@pytest.mark.parametrize("options", OPTION_SETS, ids=[*PRESETS, "all-actions", "all-actions-32"])
def test_playouts_match_the_engine_in_every_preset(options: dict[str, Any]) -> None:
    """Deterministic cases: every preset and every action card on, at each player count."""
    rules = Setup(options, 2, 0, 0).rules
    steps = 0
    for players in player_counts(rules):
        for seed in range(6):
            setup = Setup(options, players, seed, seed)
            start = position(setup, seed * 5)
            if start is None:
                continue
            steps += check_heuristic_playout(start, seed, 1.0, 4.0)
            check_random_playout(start, seed, eager=seed % 2 == 1)
    assert steps > 100
