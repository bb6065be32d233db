"""Rewards in the scoring mode's terms (docs/research.md, "Rewards").

Both parts are zero-sum over the seats:

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
