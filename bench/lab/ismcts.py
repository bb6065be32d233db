"""Information-set Monte Carlo tree search for Mau Mau: a research player, kept beside
the benchmarks to compare with the ``hard`` level (``bench/rounds.py``), not a level of
the game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): each simulation samples
one world consistent with the seat's view (:class:`maumau.bots.world.WorldSampler`),
walks one tree of actions from the root (a node's children are the actions taken from
it, whichever world they were legal in), picks among the actions legal in this world by
UCB1 counted over the simulations in which each was available, adds one node, plays the
round out with the heuristic playout and scores the end for every seat with the
``hard`` level's reward (:func:`maumau.bots.hard.reward_function`).  Each node's
statistics are those of the seat that acts there.  ``opponents="playout"`` grows the
tree only over the seat's own decisions: the other seats then play as the playout
plays, which is how the ``normal`` bots they face play.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import cycle
from typing import Literal

from maumau.bots.base import Bot
from maumau.bots.hard import DEFAULT_SIMULATIONS, LUCK, reward_function
from maumau.bots.rollout import heuristic_playout
from maumau.bots.world import WorldSampler
from maumau.engine import Action, Catch, SeatView
from maumau.engine.round import OVER, Round

#: UCB1's exploration constant, for rewards in [0, 1]
EXPLORATION = 0.7

Opponents = Literal["tree", "playout"]


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


class IsmctsBot(Bot):
    """``simulations`` ISMCTS simulations per decision; ``opponents``: whether the other
    seats' decisions are searched in the tree (``"tree"``) or played as the playout
    plays (``"playout"``)."""

    level = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        opponents: Opponents = "tree",
        exploration: float = EXPLORATION,
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.simulations = simulations
        self.opponents = opponents
        self.exploration = exploration

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        catch = next((a for a in legal if isinstance(a, Catch)), None)
        if catch is not None:  # a catch only ever costs the offender
            return catch
        if len(legal) == 1:
            return legal[0]
        root = self._search(view)
        return max(legal, key=lambda a: root.children[a].visits if a in root.children else -1)

    def _search(self, view: SeatView) -> _Node:
        seat = view.seat
        assert seat is not None
        rewards = _rewards_by_seat(view)
        sampler = WorldSampler(view)
        rng = self.rng
        weight = 0.1 if view.rules.scoring == "single" else 1.0
        stream = [rng.random() for _ in range(LUCK * 16)]
        searched_seats = None if self.opponents == "tree" else seat
        root = _Node()
        for _ in range(self.simulations):
            world = sampler.sample(rng)
            start = int(rng.random() * (len(stream) - LUCK))
            rand = cycle(stream[start : start + LUCK]).__next__
            path = self._descend(root, world, searched_seats, rand, weight)
            if world.step != OVER:
                heuristic_playout(world, rand, 500, value_weight=weight)
            scores = [reward(world) for reward in rewards]
            for node, actor in path:
                node.visits += 1
                node.total += scores[actor]
        return root

    def _descend(
        self,
        root: _Node,
        world: Round,
        only: int | None,
        rand: Callable[[], float],
        weight: float,
    ) -> list[tuple[_Node, int]]:
        """Walk the tree in ``world`` (applying each action) until it adds a node or the
        round ends; the nodes walked through and the seat acting at each."""
        node, path = root, []
        c = self.exploration
        while world.step != OVER:
            actor = world.to_move
            if only is not None and actor != only:
                heuristic_playout(world, rand, 1, value_weight=weight)
                continue
            acts = world.legal_actions(actor)
            if len(acts) == 1:
                world.apply(acts[0], actor)
                continue
            children = node.children
            fresh = []
            for a in acts:
                seen = children.get(a)
                if seen is None:
                    fresh.append(a)
                else:
                    seen.avail += 1
            if fresh:
                action = fresh[int(self.rng.random() * len(fresh))]
                child = children[action] = _Node()
            else:
                action = max(
                    acts,
                    key=lambda a: (
                        children[a].total / children[a].visits
                        + c * math.sqrt(math.log(children[a].avail) / children[a].visits)
                    ),
                )
                child = children[action]
            world.apply(action, actor)
            path.append((child, actor))
            if fresh:
                break
            node = child
        return path


def _rewards_by_seat(view: SeatView) -> list[Callable[[Round], float]]:
    """The ``hard`` level's reward of a round's end, for each seat in turn (it reads
    only the public part of the view: the rules, the totals, the round)."""
    return [reward_function(replace(view, seat=s)) for s in range(len(view.counts))]
