"""Rewards in the scoring mode's terms (docs/research.md, "Rewards").

Both parts are zero-sum over the seats; ``reward=`` (:data:`REWARDS`) chooses the
outcome, the points or both, in every API alike:

* at the end of each round (not in ``single`` scoring, where the game reward says it
  all): ``penalty`` and ``deals`` give each seat minus its penalty points of the round,
  less the mean, over the limit; ``reward`` gives the seat that went out the value of
  every hand left, less the mean, over the limit;
* at the end of the game: with ``k`` winners among ``n`` seats a winner gets
  ``(n / k - 1) / (n - 1)`` and every other seat ``-1 / (n - 1)`` (a sole winner +1; a
  draw of every seat 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from maumau.engine import RoundResult, Rules
from maumau.engine.cards import deck_cards

#: what an environment hands out (``reward=``): the game's outcome only, the round
#: points only, or both (docs/research.md, "Rewards")
REWARDS = ("outcome", "points", "both")


def check_reward(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARDS`, else ``ValueError`` naming them."""
    if reward not in REWARDS:
        raise ValueError(f"reward: {reward!r} is not one of {', '.join(map(repr, REWARDS))}")
    return reward


def round_rewards(rules: Rules, result: RoundResult) -> list[float]:
    """What each seat earns for the round ``result`` ended."""
    values = result.hand_values
    n = len(values)
    if rules.scoring == "single":
        return [0.0] * n
    limit = float(rules.effective_limit)
    if rules.scoring == "reward":
        gain = [0.0] * n
        gain[result.out] = float(sum(values))
    else:
        gain = [-float(v) for v in values]
    mean = sum(gain) / n
    return [(g - mean) / limit for g in gain]


def game_rewards(n: int, winners: Sequence[int]) -> list[float]:
    """What each seat earns for the game's outcome (``winners`` as the engine says)."""
    k = len(winners)
    win = (n / k - 1.0) / (n - 1)
    lose = -1.0 / (n - 1)
    return [win if seat in winners else lose for seat in range(n)]


def points_bound(rules: Rules) -> float:
    """A bound on the absolute sum of a seat's round rewards over a whole game: a
    seat's total stays below the limit plus one round's worth of cards (penalty and
    reward scoring end at the limit), or ``deals`` rounds' worth (``deals``)."""
    if rules.scoring == "single":
        return 0.0
    values = rules.card_value_table()
    worth = sum(values[c] for c in deck_cards(rules.deck))
    limit = rules.effective_limit
    total = rules.deals * worth if rules.scoring == "deals" else limit + worth
    return total / limit
