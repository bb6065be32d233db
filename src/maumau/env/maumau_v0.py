"""Mau Mau, the PettingZoo AEC environment (classic-game conventions).

>>> from maumau.env import maumau_v0
>>> env = maumau_v0.env(rules="penalty-100", players=3, render_mode="ansi")
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     mask = observation["action_mask"]
...     action = None if termination or truncation else env.action_space(agent).sample(mask)
...     env.step(action)

========================  ===========================================================
agents                    ``player_0`` .. ``player_{n-1}`` (seat order, 2-8 players)
action space              ``Discrete(145)``, see :mod:`maumau.env.actions`
observation space         ``Dict(observation=Box(0, 1, (364,), float32),
                          action_mask=Box(0, 1, (145,), int8))``, see
                          :mod:`maumau.env.encoding`; the mask is all zeros for every
                          agent but the one to move; ``rules_in_obs=True`` appends the
                          rule options (``Box(0, 1, (386,))``)
rewards                   at the end of each round and of the game, see
                          :mod:`maumau.env.rewards`; ``reward="outcome"`` or
                          ``"points"`` hands out one part only (default ``"both"``)
episode                   one whole game under the rules (several rounds when the
                          scoring mode says so); truncated after ``max_steps`` actions
parallel API              ``parallel_env()``: PettingZoo's turn-based conversion
                          (``turn_based_aec_to_parallel``); each step, only the action
                          of the agent to move (the one with a non-zero mask) counts
========================  ===========================================================

Catches are offered to the agent to move (the engine lists them for it); the other
seats' out-of-turn catches are not modelled, as one AEC agent acts at a time.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from maumau.engine.cards import CODES, SUITS
from maumau.env.actions import ACTION_COUNT
from maumau.env.encoding import OBS_SIZE, RULES_SIZE, encode_rules, encode_with
from maumau.env.render import RENDER_MODES, check_render_mode, show
from maumau.env.session import MAX_STEPS, RulesSpec, Session

AgentID = str
Observation = dict[str, Any]


def env(**kwargs: Any) -> AECEnv[AgentID, Observation, int | None]:
    """The environment with PettingZoo's classic wrappers: an illegal action ends the
    game with -1 for the agent that took it, actions out of range raise, and the call
    order is enforced."""
    inner: AECEnv[AgentID, Observation, int | None] = raw_env(**kwargs)
    inner = wrappers.TerminateIllegalWrapper(inner, illegal_reward=-1)
    inner = wrappers.AssertOutOfBoundsWrapper(inner)
    return wrappers.OrderEnforcingWrapper(inner)


def parallel_env(**kwargs: Any) -> ParallelEnv[AgentID, Observation, int | None]:
    """The parallel API over :func:`env`, by PettingZoo's turn-based conversion: every
    agent observes each step, only the agent to move acts (the others' actions are
    ignored); ``infos[agent]["active_agent"]`` names the agent to move next."""
    return turn_based_aec_to_parallel(env(**kwargs))


class raw_env(AECEnv[AgentID, Observation, int | None], EzPickle):  # type: ignore[misc]
    """The unwrapped environment; ``env()`` is what to use."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "maumau_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: RulesSpec = "standard",
        players: int = 2,
        render_mode: str | None = None,
        max_steps: int = MAX_STEPS,
        rules_in_obs: bool = False,
        reward: str = "both",
    ) -> None:
        EzPickle.__init__(self, rules, players, render_mode, max_steps, rules_in_obs, reward)
        super().__init__()
        check_render_mode(render_mode)
        self.session = Session(rules, players, max_steps, reward)
        #: the rule options appended to every observation (``rules_in_obs=True``)
        self._rules_tail = encode_rules(self.session.rules) if rules_in_obs else None
        size = OBS_SIZE + (RULES_SIZE if rules_in_obs else 0)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[AgentID, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    # --- spaces ------------------------------------------------------------------------

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the loop ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.session.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.session.to_move]

    def observe(self, agent: AgentID) -> Observation:
        seat = self._seat[agent]
        session = self.session
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        if seat == session.to_move and not self.terminations.get(agent, True):
            mask[list(session.legal())] = 1
        return {
            "observation": encode_with(session.view(seat), self._rules_tail),
            "action_mask": mask,
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give an action, not None")
        session = self.session
        self._cumulative_rewards[agent] = 0.0
        rewards = session.step(int(action))
        for a in self.agents:
            self.rewards[a] = 0.0 if rewards is None else rewards[self._seat[a]]
        if session.finished or session.truncated:
            done = dict.fromkeys(self.agents, True)
            if session.finished:
                self.terminations = done
            else:
                self.truncations = done
            self._accumulate_rewards()
            return
        self._accumulate_rewards()
        self.agent_selection = self.possible_agents[session.to_move]

    # --- rendering ---------------------------------------------------------------------

    def render(self) -> str | None:
        """The table as the seat to move sees it (its hand, the public state of every
        seat), as text: returned with ``render_mode="ansi"``, printed with ``"human"``."""
        if self.render_mode is None:
            return None
        session = self.session
        seat = session.to_move
        view = session.view(seat if seat >= 0 else 0)
        named = "" if view.named_suit is None else f" (named {SUITS[view.named_suit]})"
        lines = [
            f"round {view.round + 1}, {view.step}; top {CODES[view.top]}{named}, "
            f"pending {view.pending}, direction {'+1' if view.direction == 1 else '-1'}, "
            f"draw pile {view.stock_count}"
        ]
        for s, name in enumerate(view.players):
            mark = ">" if s == seat else " "
            lines.append(
                f"{mark} {name}: {view.counts[s]} cards, total {view.totals[s]}, "
                f"rounds won {view.rounds_won[s]}"
            )
        if seat >= 0:
            hand = " ".join(CODES[c] for c in view.hand)
            lines.append(f"{view.players[seat]} holds: {hand}")
        else:
            lines.append(f"game over: winners {list(view.winners or ())}")
        return show(self.render_mode, "\n".join(lines))

    def close(self) -> None:
        pass
