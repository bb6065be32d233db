"""A fast rollout evaluator for OpenSpiel's MCTS and ISMCTS bots on ``python_maumau``.

OpenSpiel's ``RandomRolloutEvaluator`` plays a rollout through ``pyspiel`` one action
and one chance node at a time (about 3,000 steps a second here; a random rollout of a
52-card round is some 800 steps).  :class:`EngineRolloutEvaluator` plays the same
uniformly random legal actions on a copy of the engine's game through its public API,
with the draw pile shuffled (its order is a chance event in ``python_maumau``) and
each later round dealt from a random seed, about a hundred times faster.

>>> from open_spiel.python.algorithms import ismcts
>>> bot = ismcts.ISMCTSBot(game, EngineRolloutEvaluator(seed=1), 1.4, 100)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import numpy.typing as npt

from maumau.bots.rollout import heuristic_playout
from maumau.env.rewards import game_rewards
from maumau.env.session import MAX_STEPS

#: the rollout policies
POLICIES = ("random", "heuristic")


def check_policy(policy: str, what: str = "policy") -> str:
    """``policy`` if it is one of :data:`POLICIES`; else ``ValueError`` naming ``what``."""
    if policy not in POLICIES:
        raise ValueError(f"{what}: must be one of {', '.join(POLICIES)}, not {policy!r}")
    return policy


class EngineRolloutEvaluator:
    """OpenSpiel's evaluator interface (``evaluate``, ``prior``): the mean outcome of
    ``n_rollouts`` games played on from the state, and a uniform prior.

    ``policy="random"`` plays uniformly random legal actions; ``policy="heuristic"``
    plays every seat as :func:`maumau.bots.rollout.heuristic_playout` does (the playout
    the ``hard`` bot's search uses), which ends a round in tens of actions where random
    play takes hundreds."""

    def __init__(
        self, n_rollouts: int = 1, seed: int | None = None, policy: str = "random"
    ) -> None:
        if n_rollouts < 1:
            raise ValueError(f"n_rollouts: must be at least 1, not {n_rollouts!r}")
        self.n_rollouts = n_rollouts
        self.policy = check_policy(policy)
        self.rng = random.Random(seed)

    def evaluate(self, state: Any) -> npt.NDArray[np.float64]:
        n = state.num_players()
        if state.is_terminal():
            return np.array(state.returns(), dtype=np.float64)
        core = state.core
        if core.dealing is not None or core.plan is not None:
            return np.zeros(n)  # a chance node: MCTS samples past those
        total = np.zeros(n)
        rng = self.rng
        for _ in range(self.n_rollouts):
            game = copy.deepcopy(core).game
            r = game.round
            r.rng = random.Random(rng.getrandbits(63))
            rng.shuffle(r.stock)
            steps = core.steps
            while not game.finished and steps < MAX_STEPS:
                if self.policy == "heuristic":
                    # (shedding points weighs little when only going out counts, as in hard)
                    weight = 0.1 if game.rules.scoring == "single" else 1.0
                    played = heuristic_playout(
                        game.round, rng.random, MAX_STEPS - steps, value_weight=weight
                    )
                    steps += played
                    if game.round_over:
                        game.settle()
                while not game.round_over and steps < MAX_STEPS:
                    acts = game.legal_actions()
                    game.apply(acts[int(rng.random() * len(acts))], game.to_move)
                    steps += 1
                if game.round_over and not game.finished:
                    game.deal(rng.getrandbits(63))
            if game.finished and game.winners is not None:
                total += game_rewards(n, game.winners)
        return total / self.n_rollouts

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]
