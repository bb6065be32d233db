"""The ``hard`` level: Monte Carlo search over worlds sampled from the seat's view.

For each decision the bot samples worlds consistent with what its seat knows
(:mod:`maumau.bots.world`); in each world it tries its candidate actions and plays the
round out with a fast heuristic playout (:mod:`maumau.bots.rollout`), all candidates
with the same luck, and it halves the candidates between phases (successive halving)
so that the budget goes to the close calls.  The ``normal`` bot's choice is always a
candidate and is overruled only on clear evidence.  The reward scores the round's end
the way the game's scoring mode does: going out in ``single``, penalty points relative
to the others (and the match result when the round would end the match) in
``penalty`` and ``deals``, points gained in ``reward``.  The budget is a number of
simulations, so the same seed gives the same decisions; ``time_limit`` adds a cap in
seconds for live play.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import cycle

from maumau.bots.base import Bot
from maumau.bots.normal import NormalBot, suit_preference
from maumau.bots.rollout import heuristic_playout
from maumau.bots.world import WorldSampler
from maumau.engine import Action, Catch, Play, Rules, SeatView
from maumau.engine.cards import JACK
from maumau.engine.round import OVER, Round
from maumau.engine.table import table_for

DEFAULT_SIMULATIONS = 2000
#: standard errors by which search must beat the heuristic's choice to overrule it
CONFIDENCE = 1.0
#: fewest paired worlds on which the search may overrule the heuristic
MIN_WORLDS = 8
#: random numbers drawn per sampled world, shared by the candidates' playouts
LUCK = 96


class HardBot(Bot):
    """Runs ``simulations`` playouts per decision over worlds sampled from its view."""

    level = "hard"

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        time_limit: float | None = None,
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.simulations = simulations
        self.time_limit = time_limit
        #: simulations run for the last decision (0 when there was nothing to weigh)
        self.last_simulations = 0
        #: the heuristic whose choice the search must beat
        self.advisor = NormalBot(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        self.last_simulations = 0
        catch = next((a for a in legal if isinstance(a, Catch)), None)
        if catch is not None:  # a catch only ever costs the offender
            return catch
        if len(legal) == 1:
            return legal[0]
        return legal[self._search(view, legal)]

    def _search(self, view: SeatView, legal: Sequence[Action]) -> int:
        """Successive halving over paired simulations: every surviving candidate is
        played out in the same sampled worlds with the same stream of luck, so that the
        comparison between them measures the action and not the deal.  The ``normal``
        bot's choice is always a candidate, and it is overruled only when the best
        candidate beats it by more than ``CONFIDENCE`` standard errors."""
        seat = view.seat
        assert seat is not None
        base = legal.index(self.advisor.choose(view, legal))
        candidates = _candidates(view, legal, base)
        if len(candidates) == 1:
            return base
        sampler = WorldSampler(view)
        evaluate = reward_function(view)
        weight = 0.1 if view.rules.scoring == "single" else 1.0
        rng = self.rng
        stream = [rng.random() for _ in range(LUCK * 16)]
        rewards: dict[int, list[float]] = {i: [] for i in candidates}
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        phases = max(1, math.ceil(math.log2(len(candidates))))
        budget = self.simulations
        sims = 0
        for phase in range(phases):
            share = (budget - sims) // (phases - phase)
            for _ in range(max(1, share // len(candidates))):
                if sims + len(candidates) > budget:
                    break
                world = sampler.sample(rng)
                start = int(rng.random() * (len(stream) - LUCK))
                luck = stream[start : start + LUCK]
                for i in candidates:
                    trial = world.copy(rng, history=False)
                    trial.apply(legal[i], seat)
                    if trial.step != OVER:
                        heuristic_playout(trial, cycle(luck).__next__, 500, value_weight=weight)
                    rewards[i].append(evaluate(trial))
                sims += len(candidates)
                if deadline is not None and time.perf_counter() > deadline:
                    break
            if len(candidates) > 2:
                ranked = sorted(candidates, key=lambda i: -sum(rewards[i]))
                keep = ranked[: max(1, (len(ranked) + 1) // 2)]
                candidates = keep if base in keep else [*keep, base]
            if deadline is not None and time.perf_counter() > deadline:
                break
        self.last_simulations = sims
        best = max(candidates, key=lambda i: sum(rewards[i]))
        if best == base or not rewards[base]:
            return base
        gains = [x - y for x, y in zip(rewards[best], rewards[base], strict=True)]
        if len(gains) < MIN_WORLDS:
            return base
        error = statistics.stdev(gains) / math.sqrt(len(gains))
        return best if statistics.fmean(gains) > CONFIDENCE * error else base


def _candidates(view: SeatView, legal: Sequence[Action], base: int) -> list[int]:
    """The actions worth searching: all of them, except that a Jack is tried with the
    two suits its player holds most (and the suit the heuristic names)."""
    rest = [c for c in view.hand if c.rank != JACK]
    suits = suit_preference(rest)[:2]
    out = []
    for i, action in enumerate(legal):
        if i == base or not isinstance(action, Play) or action.suit is None or action.suit in suits:
            out.append(i)
    return out


@lru_cache(maxsize=64)
def suit_value_tables(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """For each suit, the value of every set of its 13 cards (a 13-bit chunk of a hand),
    so that a hand's value is four look-ups."""
    values = table_for(rules).values
    tables = []
    for suit in range(4):
        per_rank = values[13 * suit : 13 * suit + 13]
        table = [0] * 8192
        for chunk in range(1, 8192):
            low = chunk & -chunk
            table[chunk] = table[chunk ^ low] + per_rank[low.bit_length() - 1]
        tables.append(tuple(table))
    return tuple(tables)


def reward_function(view: SeatView) -> Callable[[Round], float]:
    """How good the end of a (simulated) round is for ``view.seat``, in [0, 1].

    In ``penalty`` with three or more players it is the chance of winning the match:
    certain when the round ends the match, estimated by :func:`match_win_chance` when
    it goes on.  Heads-up (and in ``deals``) it weighs the round's points against the
    opponents' and the match lead."""
    seat = view.seat
    assert seat is not None
    rules = view.rules
    mode = rules.scoring
    limit = rules.effective_limit
    totals = view.totals
    n = len(view.counts)
    others = [s for s in range(n) if s != seat]
    last_deal = mode == "deals" and view.round + 1 >= rules.deals
    # with three players or more, points matter through the match: a round that leaves
    # the match going is worth the chance of ending it with the fewest points
    by_match = mode == "penalty" and n > 2
    chances: dict[tuple[int, ...], float] = {}

    c, d, h, s = suit_value_tables(rules)

    def hand_values(world: Round) -> list[int]:
        return [
            c[hand & 8191] + d[hand >> 13 & 8191] + h[hand >> 26 & 8191] + s[hand >> 39]
            for hand in world.hands
        ]

    def single(world: Round) -> float:
        if world.step == OVER:
            return 1.0 if world.out == seat else 0.0
        counts = [h.bit_count() for h in world.hands]  # cut short: fewest cards is best
        return 0.5 if counts[seat] <= min(counts) else 0.0

    def penalty(world: Round) -> float:
        vals = hand_values(world)
        if world.step != OVER:
            vals = [v + 5 * h.bit_count() for v, h in zip(vals, world.hands, strict=True)]
        after = [t + v for t, v in zip(totals, vals, strict=True)]
        if last_deal or (mode == "penalty" and max(after) >= limit):
            rival = min(after[s] for s in others)
            return 1.0 if after[seat] < rival else 0.5 if after[seat] == rival else 0.0
        if by_match:  # the same totals recur from playout to playout: look them up
            key = tuple(after)
            chance = chances.get(key)
            if chance is None:
                chance = chances[key] = match_win_chance(after, seat, limit)
            return chance
        mean_other = sum(vals[s] for s in others) / len(others)
        lead = min(after[s] for s in others) - after[seat]
        return 0.5 + 0.35 * math.tanh((mean_other - vals[seat]) / 30) + 0.15 * math.tanh(lead / 60)

    def reward(world: Round) -> float:
        if world.step != OVER:
            return 0.5
        gain = sum(hand_values(world))
        out = world.out
        if totals[out] + gain >= limit:
            return 1.0 if out == seat else 0.0
        mine = gain if out == seat else 0
        best_other = gain if out != seat else 0
        return 0.5 + 0.5 * math.tanh((mine - best_other) / 40)

    if mode == "single":
        return single
    if mode == "reward":
        return reward
    return penalty


#: probabilists' Gauss-Hermite nodes and weights (normalised to sum 1), ten points
_GH_NODES = (
    -4.859462828332312,
    -3.581823483551927,
    -2.484325841638955,
    -1.465989094391158,
    -0.484935707515498,
    0.484935707515498,
    1.465989094391158,
    2.484325841638955,
    3.581823483551927,
    4.859462828332312,
)
_GH_WEIGHTS = (
    4.310652630718e-06,
    7.580709343122e-04,
    1.911158050077e-02,
    1.354837029802e-01,
    3.446423349321e-01,
    3.446423349321e-01,
    1.354837029802e-01,
    1.911158050077e-02,
    7.580709343122e-04,
    4.310652630718e-06,
)
#: the spread of one player's penalty points over a round (normal bots, four seats)
ROUND_SPREAD = 13.0
#: how much the highest total rises per round, roughly
ROUND_RISE = 20.0


def match_win_chance(after: Sequence[int], seat: int, limit: int) -> float:
    """The chance that ``seat`` ends a penalty match with the fewest points, given the
    totals ``after`` a round that leaves the match going.  The rounds left are about
    ``(limit - highest total) / ROUND_RISE``; over them every player's points are taken
    as independent normal draws with the same mean and spread, so the chance is
    ``E_z[prod over rivals of Phi(gap / spread - z)]``, integrated by Gauss-Hermite
    quadrature.  Equal totals give exactly one in the number of players."""
    rounds_left = max(0.5, (limit - max(after)) / ROUND_RISE)
    scale = ROUND_SPREAD * math.sqrt(2.0 * rounds_left)
    mine = after[seat]
    gaps = [(t - mine) / scale for s, t in enumerate(after) if s != seat]
    erf = math.erf
    total = 0.0
    for z, w in zip(_GH_NODES, _GH_WEIGHTS, strict=True):
        p = w
        for g in gaps:
            p *= 0.5 + 0.5 * erf(g - z * 0.7071067811865476)
        total += p
    return total
