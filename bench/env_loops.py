"""The step loops that ``bench/env_speed.py`` times, shared by both interpreters.

This file imports neither ``maumau`` nor ``lab``: ``bench/env_speed.py`` runs it under the
peers' interpreter too (``python bench/env_loops.py --serve``, an interpreter with rlcard
and PettingZoo's classic games), so that every PettingZoo environment, ours and
PettingZoo's own, is driven by the very same loop (:func:`pettingzoo_loop`).

Each loop plays whole episodes with uniformly random legal actions (from the action
mask) until ``seconds`` of CPU time (``time.process_time``: the process's own, so that
other work on a shared machine does not decide the figure) have passed, checking the
clock between episodes, and counts the agents' actions (not the ``None`` steps of
finished agents).
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any, ClassVar

Rate = dict[str, float]


def pettingzoo_loop(make: Any, seed: int, seconds: float) -> Rate:
    """A PettingZoo AEC environment from ``make()``: ``agent_iter``, ``last``, ``step``."""
    import numpy as np

    env = make()
    rng = random.Random(seed)
    rand = rng.random
    flat = np.flatnonzero
    steps = episodes = 0
    clock = time.process_time
    t0 = clock()
    deadline = t0 + seconds
    while clock() < deadline:
        env.reset(seed=rng.getrandbits(31))
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = flat(observation["action_mask"])
            env.step(int(legal[int(rand() * len(legal))]))
            steps += 1
        episodes += 1
    spent = clock() - t0
    return {"steps_per_s": steps / spent, "steps": steps, "episodes": episodes, "seconds": spent}


def gymnasium_loop(env: Any, seed: int, seconds: float) -> Rate:
    """A Gymnasium environment with ``info["action_mask"]``: ``reset``, ``step``."""
    import numpy as np

    rng = random.Random(seed)
    rand = rng.random
    flat = np.flatnonzero
    steps = episodes = 0
    clock = time.process_time
    t0 = clock()
    deadline = t0 + seconds
    while clock() < deadline:
        _observation, info = env.reset(seed=rng.getrandbits(31))
        done = False
        while not done:
            legal = flat(info["action_mask"])
            _observation, _r, terminated, truncated, info = env.step(
                int(legal[int(rand() * len(legal))])
            )
            done = terminated or truncated
            steps += 1
        episodes += 1
    spent = clock() - t0
    return {"steps_per_s": steps / spent, "steps": steps, "episodes": episodes, "seconds": spent}


def null_env(wrapped: bool = True, obs_size: int = 364, actions: int = 145) -> Any:
    """The floor of the AEC API: an environment that plays no game at all.  Two agents
    take turns for 100 steps; each observation is a fresh vector of ``obs_size`` zeros
    and a mask with 3 legal actions, as a card game's observation must be (fresh: an
    agent may keep it).  ``wrapped``: under PettingZoo's three classic wrappers, as
    ``maumau_v0.env()`` and PettingZoo's own classic games are."""
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    class NullEnv(AECEnv):  # type: ignore[misc]
        metadata: ClassVar[dict[str, Any]] = {
            "name": "null_v0",
            "is_parallelizable": False,
            "render_modes": [],
        }

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            self.agents = self.possible_agents[:]
            box = spaces.Box(0.0, 1.0, (obs_size,), np.float32)
            mask = spaces.Box(0, 1, (actions,), np.int8)
            self.observation_spaces = {
                a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.agents
            }
            self.action_spaces = {a: spaces.Discrete(actions) for a in self.agents}

        def observation_space(self, agent: str) -> Any:
            return self.observation_spaces[agent]

        def action_space(self, agent: str) -> Any:
            return self.action_spaces[agent]

        def reset(self, seed: int | None = None, options: Any = None) -> None:
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos: dict[str, Any] = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self.t = 0

        def observe(self, agent: str) -> Any:
            mask = np.zeros(actions, dtype=np.int8)
            mask[[0, 1, 2]] = 1
            return {"observation": np.zeros(obs_size, dtype=np.float32), "action_mask": mask}

        def step(self, action: Any) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self.t += 1
            if self.t >= 100:
                self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self.agent_selection = self.agents[self.t % 2]

    if not wrapped:
        return NullEnv()
    inner = wrappers.TerminateIllegalWrapper(NullEnv(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))


def rlcard_loop(name: str, seed: int, seconds: float) -> Rate:
    """RLCard's environment loop: ``env.reset``, ``env.step`` with a random legal action
    (observations encoded by RLCard at every step)."""
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    rng = random.Random(seed)
    rand = rng.random
    steps = episodes = 0
    clock = time.process_time
    t0 = clock()
    deadline = t0 + seconds
    while clock() < deadline:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[int(rand() * len(legal))])
            steps += 1
        episodes += 1
    spent = clock() - t0
    return {"steps_per_s": steps / spent, "steps": steps, "episodes": episodes, "seconds": spent}


def spiel_loop(name: str, seed: int, seconds: float, **params: Any) -> Rate:
    """An OpenSpiel game stepped from Python (``pyspiel``, C++ inside): at every decision
    the observation tensor of the player to move, its legal actions and a random one;
    chance outcomes (the deal, the draws) are sampled and not counted."""
    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    rand = rng.random
    steps = episodes = 0
    clock = time.process_time
    t0 = clock()
    deadline = t0 + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                continue
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(legal[int(rand() * len(legal))])
            steps += 1
        episodes += 1
    spent = clock() - t0
    return {"steps_per_s": steps / spent, "steps": steps, "episodes": episodes, "seconds": spent}


#: PettingZoo's classic card games, by module (they need rlcard)
PETTINGZOO_CARDS = ("leduc_holdem_v4", "texas_holdem_v4", "texas_holdem_no_limit_v6")


def peers(seconds: float, seed: int) -> dict[str, Any]:
    """Every peer measure this interpreter can run (errors are reported, not raised)."""
    import importlib
    import platform

    out: dict[str, Any] = {"python": platform.python_version(), "errors": {}, "rates": {}}
    try:
        import rlcard

        out["rlcard_version"] = rlcard.__version__
        out["rates"]["rlcard uno (env.step)"] = rlcard_loop("uno", seed, seconds)
    except Exception as exc:
        out["errors"]["rlcard"] = f"{type(exc).__name__}: {exc}"
    try:
        out["rates"]["openspiel crazy_eights 2p (pyspiel)"] = spiel_loop(
            "crazy_eights", seed, seconds, players=2
        )
    except Exception as exc:
        out["errors"]["openspiel"] = f"{type(exc).__name__}: {exc}"
    for module in PETTINGZOO_CARDS:
        try:
            game = importlib.import_module(f"pettingzoo.classic.{module}")
            out["rates"][f"pettingzoo {module}"] = pettingzoo_loop(game.env, seed, seconds)
        except Exception as exc:
            out["errors"][module] = f"{type(exc).__name__}: {exc}"
    try:
        import pettingzoo

        out["pettingzoo_version"] = pettingzoo.__version__
    except Exception as exc:
        out["errors"]["pettingzoo"] = f"{type(exc).__name__}: {exc}"
    return out


if __name__ == "__main__":
    if sys.argv[1:2] != ["--serve"] or len(sys.argv) != 4:
        sys.exit("usage: python bench/env_loops.py --serve SECONDS SEED (run by env_speed.py)")
    print(json.dumps(peers(float(sys.argv[2]), int(sys.argv[3]))))
