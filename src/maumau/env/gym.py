"""A Gymnasium single-agent wrapper: one seat is the learner, our bots play the rest.

>>> import gymnasium
>>> import maumau.env.gym  # registers "maumau/MauMau-v0"
>>> env = gymnasium.make(
...     "maumau/MauMau-v0", rules="penalty-100", opponents=("normal", "easy")
... )
>>> observation, info = env.reset(seed=1)
>>> action = env.action_space.sample(info["action_mask"])

The observation is the vector of :mod:`maumau.env.encoding` (``Box(0, 1, (364,))``);
the legal actions are ``info["action_mask"]`` and :meth:`MauMauGym.action_masks` (a
boolean array, what sb3-contrib's ``MaskablePPO`` reads).  The reward is the
learner's share of :mod:`maumau.env.rewards` collected since its last move; an episode
is one game.  An illegal action ends it with -1 (``info["illegal_action"]`` names it),
as PettingZoo's classic games do.  The bots decide from their own seat's view, seeded
from ``reset(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from maumau.bots import Bot, make_bot
from maumau.env.actions import ACTION_COUNT, PASS
from maumau.env.encoding import OBS_SIZE, RULES_SIZE, Vector, encode_rules, encode_with
from maumau.env.render import RENDER_MODES, check_render_mode, show
from maumau.env.session import MAX_STEPS, RulesSpec, Session

ENV_ID = "maumau/MauMau-v0"
#: the simulations per decision of an ``ismcts`` opponent without ``:N``
ISMCTS_SIMULATIONS = 200


def make_opponent(level: str, seed: int | None = None) -> Bot:
    """A bot of ``level``: one of :func:`maumau.bots.make_bot`'s, or ``ismcts`` /
    ``ismcts:N``, OpenSpiel's ISMCTS with ``N`` simulations per decision
    (:mod:`maumau.env.spiel_bot`, which needs the ``spiel`` extra)."""
    name, _, budget = level.partition(":")
    if name != "ismcts":
        return make_bot(level, seed)
    if budget and (not budget.isdigit() or int(budget) < 1):
        raise ValueError(f"bot level {level!r}: ismcts takes a budget as ismcts:N with N >= 1")
    try:
        from maumau.env.spiel_bot import ismcts_agent
    except ImportError as exc:
        raise ValueError(
            f"bot level {level!r} needs OpenSpiel (the spiel extra: uv sync --extra spiel, "
            f'or pip install ".[spiel]" in the checkout): {exc}'
        ) from None
    simulations = int(budget) if budget else ISMCTS_SIMULATIONS
    return ismcts_agent(simulations, random.Random(seed).getrandbits(63))


class MauMauGym(gymnasium.Env[Vector, np.int64]):
    """The learner sits at ``seat``; ``opponents`` names the bot level of every other
    seat in seat order after it (``random``, ``easy``, ``normal``, ``hard``,
    ``hard:N``, or OpenSpiel's ``ismcts`` / ``ismcts:N``), so the table has
    ``len(opponents) + 1`` seats."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012 (gymnasium's)

    def __init__(
        self,
        rules: RulesSpec = "standard",
        opponents: Sequence[str] = ("normal",),
        seat: int = 0,
        render_mode: str | None = None,
        max_steps: int = MAX_STEPS,
        rules_in_obs: bool = False,
        reward: str = "both",
    ) -> None:
        if isinstance(opponents, str):
            raise ValueError(f"opponents: give a sequence of bot levels, not {opponents!r}")
        self.levels = tuple(opponents)
        players = len(self.levels) + 1
        for level in self.levels:
            make_opponent(level, 0)  # raises ValueError naming a bad level
        if not 0 <= seat < players:
            raise ValueError(f"seat: must be 0..{players - 1} for {players} players, not {seat!r}")
        check_render_mode(render_mode)
        self.session = Session(rules, players, max_steps, reward)
        self.seat = seat
        self.render_mode = render_mode
        #: the rule options appended to every observation (``rules_in_obs=True``)
        self._rules_tail = encode_rules(self.session.rules) if rules_in_obs else None
        size = OBS_SIZE + (RULES_SIZE if rules_in_obs else 0)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.bots: dict[int, Bot] = {}
        self._mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        self._illegal = False
        self._carry = 0.0

    # --- gymnasium -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Vector, dict[str, Any]]:
        super().reset(seed=seed)
        stream = random.Random(int(self.np_random.integers(0, 2**63 - 1)))
        others = [s for s in range(self.session.n) if s != self.seat]
        self.bots = {
            s: make_opponent(level, seed=stream.getrandbits(63))
            for s, level in zip(others, self.levels, strict=True)
        }
        self._illegal = False
        while True:
            self.session.reset(stream.getrandbits(63))
            # what the learner earned before its first move (a round the bots ended)
            self._carry = self._play_bots()
            if not self.session.finished and not self.session.truncated:
                break  # (else the bots ended the game before the learner moved: deal anew)
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Vector, float, bool, bool, dict[str, Any]]:
        session = self.session
        if session.finished or session.truncated or self._illegal:
            raise RuntimeError("the game is over: call reset()")
        index = int(action)
        if index not in session.legal():
            # PettingZoo's classic convention: an illegal action ends the game, -1
            self._illegal = True
            self._end_mask()
            info = self._info()
            info["illegal_action"] = index
            return encode_with(session.view(self.seat), self._rules_tail), -1.0, True, False, info
        rewards = session.step(index)
        reward = self._carry + (0.0 if rewards is None else rewards[self.seat])
        self._carry = 0.0
        reward += self._play_bots()
        return self._observe(), reward, session.finished, session.truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the learner now, as booleans (``MaskablePPO``'s hook)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        view = self.session.view(self.seat)
        hand = " ".join(str(c) for c in view.hand)
        return show(
            self.render_mode,
            f"round {view.round + 1}: top {view.top}, pending {view.pending}, counts "
            f"{list(view.counts)}, totals {list(view.totals)}; seat {self.seat} holds {hand}",
        )

    # --- the bots ------------------------------------------------------------------------

    def _play_bots(self) -> float:
        """Let the bots move until the learner is to move or the game ends; returns the
        learner's rewards meanwhile."""
        session = self.session
        total = 0.0
        while not session.finished and not session.truncated and session.to_move != self.seat:
            seat = session.to_move
            game = session.game
            choice = self.bots[seat].choose(game.view(seat), game.legal_actions())
            rewards = session.apply(choice)
            if rewards is not None:
                total += rewards[self.seat]
        return total

    def _observe(self) -> Vector:
        session = self.session
        if session.finished or session.truncated:
            self._end_mask()
        else:
            self._mask[:] = 0
            self._mask[list(session.legal())] = 1
        return encode_with(session.view(self.seat), self._rules_tail)

    def _end_mask(self) -> None:
        """The mask once the game is over: ``pass`` only, never all zeros, because
        Gymnasium's default vector autoreset (``NEXT_STEP``) hands the policy this
        mask with the final observation and ignores the action it picks (a masked
        policy cannot sample from an empty mask).  Stepping a finished game raises."""
        self._mask[:] = 0
        self._mask[PASS] = 1

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy()}


gymnasium.register(id=ENV_ID, entry_point="maumau.env.gym:MauMauGym")
