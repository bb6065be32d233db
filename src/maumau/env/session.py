"""One game driven by action indices: what the PettingZoo, Gymnasium and OpenSpiel
front ends share (pure Python; no optional library).

A :class:`Session` plays a whole game under its rules: it deals each round from a
seed stream that ``reset(seed)`` fixes, maps the action indices of
:mod:`maumau.env.actions` to engine actions, and hands out the rewards of
:mod:`maumau.env.rewards` as rounds and the game end.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from maumau.engine import Action, Game, Rules, SeatView
from maumau.env.actions import Legal, describe, legal_indices
from maumau.env.rewards import check_reward, game_rewards, round_rewards

#: rule sets by name: the engine's presets, and "catch" (standard rules with the
#: catch penalty for a missing "Mau", docs/rules.md#calling-mau)
RULE_SETS: dict[str, dict[str, Any]] = {
    "standard": {"preset": "standard"},
    "penalty-100": {"preset": "penalty-100"},
    "penalty-150": {"preset": "penalty-150"},
    "traditional": {"preset": "traditional"},
    "gamerules": {"preset": "gamerules"},
    "catch": {"preset": "standard", "mau_penalty": "catch"},
}

#: a game that has not ended after this many actions is truncated (a round can stall
#: when every card is held and nobody can play)
MAX_STEPS = 20_000

RulesSpec = Rules | Mapping[str, Any] | str


def resolve_rules(rules: RulesSpec) -> Rules:
    """A :class:`Rules` from a rule-set name of :data:`RULE_SETS`, an options mapping
    (as :meth:`Rules.from_dict` reads it) or a :class:`Rules`."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        if rules not in RULE_SETS:
            raise ValueError(
                f"rules: unknown rule set {rules!r}; the rule sets are: {', '.join(RULE_SETS)}"
                " (or pass an options mapping)"
            )
        return Rules.from_dict(RULE_SETS[rules])
    return Rules.from_dict(rules)


class Session:
    """A game of ``players`` seats under ``rules``, played by action indices."""

    def __init__(
        self,
        rules: RulesSpec = "standard",
        players: int = 2,
        max_steps: int = MAX_STEPS,
        reward: str = "both",
    ):
        self.rules = resolve_rules(rules)
        #: what :meth:`step` hands out: "outcome", "points" or "both" (rewards.REWARDS)
        self.reward = check_reward(reward)
        self.rules.check_players(players)
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps: must be a whole number >= 1, not {max_steps!r}")
        self.n = players
        self.max_steps = max_steps
        #: plays without the due call are offered only in catch mode
        self.silent = self.rules.mau_penalty == "catch"
        self.game = Game(self.rules, [f"player_{i}" for i in range(players)])
        #: the seed stream every round is dealt from; ``reset(seed)`` fixes it and a plain
        #: ``reset()`` continues it (``None`` until the first reset)
        self.seeds: random.Random | None = None
        self.steps = 0
        self._legal: Legal = {}
        self._legal_version = -1

    def reset(self, seed: int | None = None) -> None:
        """A new game; the same ``seed`` deals the same rounds.  ``None`` continues the
        seed stream of the last seeded reset (as Gymnasium's ``np_random`` does), so a
        run seeded once replays; before any seed, it starts a stream from the OS."""
        if seed is not None:
            self.seeds = random.Random(seed)
        elif self.seeds is None:
            self.seeds = random.Random(random.SystemRandom().getrandbits(63))
        self.game = Game(self.rules, self.game.players)
        self.game.deal(self.seeds.getrandbits(63))
        self.steps = 0
        self._legal_version = -1

    @property
    def finished(self) -> bool:
        return self.game.finished

    @property
    def truncated(self) -> bool:
        return not self.game.finished and self.steps >= self.max_steps

    @property
    def to_move(self) -> int:
        return self.game.to_move

    def view(self, seat: int) -> SeatView:
        return self.game.view(seat)

    def legal(self) -> Legal:
        """Index -> engine action for the seat to move (empty once the game is over)."""
        game = self.game
        if self._legal_version != game.version:
            seat = game.to_move
            self._legal = (
                legal_indices(game.legal_actions(), seat, self.n, self.silent) if seat >= 0 else {}
            )
            self._legal_version = game.version
        return self._legal

    def step(self, index: int) -> list[float] | None:
        """Apply action ``index`` for the seat to move; returns the seats' rewards if a
        round (or the game) ended, else ``None``.  An illegal index raises
        ``ValueError`` naming it and the legal ones."""
        action = self.legal().get(index)
        if action is None:
            legal = ", ".join(f"{i} ({describe(i)})" for i in sorted(self.legal()))
            raise ValueError(
                f"action {index!r} is not legal for seat {self.game.to_move} now; legal: {legal}"
            )
        return self.apply(action)

    def apply(self, action: Action) -> list[float] | None:
        """Apply an engine action for the seat to move (a bot's choice, which may be
        a play the index space leaves out, such as a forgotten call); the rewards as
        :meth:`step` returns them.  An illegal action raises ``IllegalAction``."""
        game = self.game
        game.apply(action, game.to_move)
        self.steps += 1
        if not game.round_over:
            return None
        if self.reward == "outcome":
            rewards = [0.0] * self.n
        else:
            rewards = round_rewards(self.rules, game.results[-1])
        if game.finished:
            assert game.winners is not None
            if self.reward != "points":
                for seat, value in enumerate(game_rewards(self.n, game.winners)):
                    rewards[seat] += value
        else:
            assert self.seeds is not None  # (a game is dealt by reset first)
            game.deal(self.seeds.getrandbits(63))
        return rewards
