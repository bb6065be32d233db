"""OpenSpiel's ISMCTS bot as a maumau :class:`~maumau.bots.Bot`, to play our bots and
tables through the ``python_maumau`` registration.

A bot decides from its seat's view only.  :class:`SpielIsmctsBot` turns the view into
a ``python_maumau`` state the seat cannot tell from the real one (the cards it has
not seen dealt at random into the other hands and the draw pile, as
:class:`maumau.bots.world.WorldSampler` does, with the score and the round's public
state of the view) and runs ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` from
there; ISMCTS resamples the unseen cards itself (``resample_from_infostate``) at each
simulation.  Rollouts are :class:`~maumau.env.rollout.EngineRolloutEvaluator`'s,
by default with the heuristic playout the ``hard`` bot's search uses (so that at the
same number of simulations the two differ in their search, not in their model of how
a round goes on); ``rollouts="random"`` plays uniformly random games instead.

>>> from maumau.env.spiel_bot import ismcts_agent
>>> bot = ismcts_agent(simulations=200, seed=1)     # then bot.choose(view, legal)

The search tree starts at the decision (the round's earlier public log is not part
of the root state, so its information-state strings begin there); it is built anew
for every decision, as OpenSpiel's bot does.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from maumau.bots import Bot
from maumau.bots.world import WorldSampler
from maumau.engine import Action, Game, Rules, SeatView
from maumau.engine.game import DealtRound, RoundResult
from maumau.env.actions import legal_indices
from maumau.env.draws import Arranger
from maumau.env.rollout import EngineRolloutEvaluator, check_policy
from maumau.env.spiel import GAME_NAME, MauMauGame, MauMauState

#: OpenSpiel's default exploration constant for its ISMCTS examples
UCT_C = 1.4


def spiel_game(rules: Rules, players: int) -> MauMauGame:
    """``python_maumau`` for exactly these rules (every option key passed over the
    ``standard`` rule set)."""
    # (an unset limit is the scoring mode's default, which the rule set leaves unset too)
    options = {k: v for k, v in dataclasses.asdict(rules).items() if v is not None}
    options.pop("preset", None)
    params = {"rules": "standard", "players": players, "options": json.dumps(options)}
    game: MauMauGame = pyspiel.load_game(GAME_NAME, params)
    return game


def root_state(game: MauMauGame, view: SeatView, rng: random.Random) -> MauMauState:
    """A state of ``game`` that fits ``view``: its round sampled from what the seat
    has not seen, its score and round number the view's."""
    if view.seat is None:
        raise ValueError("a spectator has no seat to search for")
    world = WorldSampler(view, infer=False).sample(rng)
    world.rng = Arranger()  # reshuffles are chance nodes of python_maumau
    played = Game(game.rules, list(view.players))
    played.totals = list(view.totals)
    played.rounds_won = list(view.rounds_won)
    # earlier rounds are known by their number only: which seat leads the next one, and
    # (scoring by deals) how many are left; their results are the score so far
    played.rounds = [DealtRound(0, None, world)] * (view.round + 1)
    n = len(view.counts)
    earlier = RoundResult(-1, (0,) * n, view.totals, view.rounds_won, ((),) * n)
    played.results = [earlier] * view.round
    played._state = world
    state = game.new_initial_state()
    core = state.core
    core.game = played
    core.dealing = None
    core.history = None  # not a replay of chance outcomes: not serializable
    return state


class SpielIsmctsBot(Bot):
    """OpenSpiel's ``ISMCTSBot`` with ``simulations`` per decision."""

    level = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = 1000,
        uct_c: float = UCT_C,
        rollouts: str = "heuristic",
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations: must be at least 1, not {simulations!r}")
        self.simulations = simulations
        self.uct_c = uct_c
        self.rollouts = check_policy(rollouts, "rollouts")
        self._games: dict[tuple[Rules, int], MauMauGame] = {}

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("nothing to choose from: no legal action")
        if len(legal) == 1:
            return legal[0]
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator has no seat to play")
        n = len(view.counts)
        key = (view.rules, n)
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = spiel_game(view.rules, n)
        rng = self.rng
        state = root_state(game, view, rng)
        search = ismcts.ISMCTSBot(
            game,
            EngineRolloutEvaluator(seed=rng.getrandbits(63), policy=self.rollouts),
            self.uct_c,
            self.simulations,
            random_state=np.random.RandomState(rng.getrandbits(32)),
        )
        # OpenSpiel's bot resamples with a sampler of its own that is not seeded (the
        # same seed would not play the same match): ours is, from the bot's generator
        sampler = random.Random(rng.getrandbits(63)).random
        search.set_resampler(lambda s, player: s.resample_from_infostate(player, sampler))
        index = int(search.step(state))
        chosen = legal_indices(tuple(legal), seat, n, view.rules.mau_penalty == "catch").get(index)
        if chosen is None:
            raise RuntimeError(f"ISMCTS chose action {index}, which is not among the legal ones")
        return chosen

    def __repr__(self) -> str:
        return f"SpielIsmctsBot(simulations={self.simulations}, rollouts={self.rollouts!r})"


def ismcts_agent(simulations: int, seed: int, rollouts: str = "heuristic") -> SpielIsmctsBot:
    """OpenSpiel's ISMCTS as a maumau bot (what ``bench/baselines.py``'s ``ismcts:N``
    plays; ``ismcts-random:N`` with uniformly random rollouts)."""
    return SpielIsmctsBot(seed, simulations, rollouts=rollouts)
