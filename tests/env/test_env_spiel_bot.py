"""OpenSpiel's ISMCTS bot as a maumau bot (``maumau.env.spiel_bot``): it plays whole
matches against ours from a seat's view only, and the rollouts it searches with."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open-spiel is not installed (uv sync --extra spiel)"
)
np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from maumau.bots import Bot, make_bot  # noqa: E402
from maumau.bots.match import play_match  # noqa: E402
from maumau.engine import Game, IllegalAction, Play, Rules, SeatView  # noqa: E402
from maumau.engine.actions import Action  # noqa: E402
from maumau.env.rollout import EngineRolloutEvaluator  # noqa: E402
from maumau.env.spiel import load_game  # noqa: E402
from maumau.env.spiel_bot import SpielIsmctsBot, ismcts_agent, root_state, spiel_game  # noqa: E402


class Watched(Bot):
    """Passes every decision on to ``inner`` and checks that it chose a legal action."""

    level = "watched"

    def __init__(self, inner: Bot) -> None:
        super().__init__(0)
        self.inner = inner
        self.decisions = 0

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        action = self.inner.choose(view, legal)
        self.decisions += 1
        # (in catch mode a play may leave out its due call: the same card, no call)
        assert action in legal or (
            view.rules.mau_penalty == "catch"
            and isinstance(action, Play)
            and action.call is None
            and any(
                isinstance(a, Play) and (a.card, a.suit) == (action.card, action.suit)
                for a in legal
            )
        ), (action, legal)
        return action


@pytest.mark.parametrize(
    ("preset", "extra", "players", "rollouts"),
    [
        ("standard", {}, 2, "heuristic"),
        ("penalty-100", {}, 3, "heuristic"),
        ("standard", {"mau_penalty": "catch"}, 4, "heuristic"),
        ("standard", {}, 2, "random"),
    ],
)
def test_ismcts_plays_whole_matches_against_our_bots(
    preset: str, extra: dict[str, str], players: int, rollouts: str
) -> None:
    rules = Rules.from_dict({"preset": preset, **extra})
    search = Watched(ismcts_agent(12, seed=3, rollouts=rollouts))
    bots: list[Bot] = [search, *(make_bot("normal", s) for s in range(1, players))]
    result, game = play_match(bots, rules, seed=5)
    assert game.finished and result.winners
    assert search.decisions > 0


def test_the_root_state_fits_the_seats_view_and_nothing_else() -> None:
    """The searched state holds the seat's own hand, the public state and the score; the
    other hands are a sample of the unseen cards (not the real ones, in general)."""
    rules = Rules.from_preset("penalty-100")
    real = Game(rules, ["a", "b", "c"])
    real.deal(11)
    rng = random.Random(0)
    while real.round.step != 3 and len(real.round.log) < 12:  # a few moves into the round
        legal = real.legal_actions()
        real.apply(legal[rng.randrange(len(legal))])
    real.totals = [12, 40, 7]
    view = real.view(real.to_move)
    game = spiel_game(rules, 3)
    assert game.rules.to_dict() == rules.to_dict()
    differs = 0
    for seed in range(8):
        state = root_state(game, view, random.Random(seed))
        mine = state.view(view.seat or 0)
        assert mine is not None
        assert mine.hand == view.hand and mine.counts == view.counts
        assert mine.totals == view.totals and mine.round == view.round
        assert (mine.top, mine.pending, mine.to_move) == (view.top, view.pending, view.to_move)
        assert state.current_player() == view.seat
        differs += state.core.game.round.hands != real.round.hands
        sample = state.resample_from_infostate(view.seat, random.Random(seed).random)
        assert sample.information_state_string(view.seat) == state.information_state_string(
            view.seat
        )
    assert differs >= 6


def test_a_bad_budget_or_rollout_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="simulations: must be at least 1"):
        SpielIsmctsBot(1, simulations=0)
    with pytest.raises(ValueError, match="rollouts: must be one of random, heuristic"):
        SpielIsmctsBot(1, rollouts="clever")
    with pytest.raises(ValueError, match="policy: must be one of random, heuristic"):
        EngineRolloutEvaluator(policy="clever")


def test_heuristic_rollouts_score_rounds_and_finish_games() -> None:
    """A heuristic rollout plays on Round internals; the game still scores each round
    and ends by its scoring mode (penalty points: several rounds)."""
    game = load_game("penalty-100", players=3)
    state = game.new_initial_state()
    rng = random.Random(4)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    value = EngineRolloutEvaluator(n_rollouts=20, seed=1, policy="heuristic").evaluate(state)
    assert value.shape == (3,)
    assert sum(value) == pytest.approx(0.0)
    assert any(v != 0 for v in value)  # games ended with winners


def test_settle_scores_a_round_played_on_its_state_once() -> None:
    game = Game.new("penalty-100", 2, seed=3)
    with pytest.raises(IllegalAction, match="has not ended"):
        game.settle()
    from maumau.bots.rollout import heuristic_playout

    heuristic_playout(game.round, random.Random(1).random)
    assert game.round_over and not game.results
    game.settle()
    assert len(game.results) == 1 and sum(game.totals) == sum(game.results[0].hand_values)
    with pytest.raises(IllegalAction, match="scored already"):
        game.settle()


def test_the_same_seed_plays_the_same_match() -> None:
    """A bot's decisions follow from its seed (OpenSpiel's search is seeded from it)."""
    rules = Rules.from_preset("standard")

    def record() -> list[object]:
        _, game = play_match([ismcts_agent(10, seed=8), make_bot("normal", 1)], rules, seed=2)
        return list(game.round.actions)

    assert record() == record()


def test_the_searched_game_ends_where_the_real_one_does() -> None:
    """Scoring by a number of deals: in the last deal, the searched state's game ends
    with its round, as the real game will (the rounds before count, though only their
    number is known)."""
    from maumau.bots.rollout import heuristic_playout

    rules = Rules.from_dict({"preset": "standard", "scoring": "deals", "deals": 2})
    real = Game(rules, ["a", "b"])
    real.deal(1)
    heuristic_playout(real.round, random.Random(1).random)
    real.settle()
    real.deal(2)
    view = real.view(real.to_move)
    assert view.round == 1 and not real.finished
    state = root_state(spiel_game(rules, 2), view, random.Random(3))
    searched = state.core.game
    heuristic_playout(searched.round, random.Random(2).random)
    searched.settle()
    assert searched.finished  # the second deal was the last
