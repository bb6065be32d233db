"""The PettingZoo environment ``maumau.env.maumau_v0``: PettingZoo's own test suite for
the rule sets and player counts, and what the test suite does not check (masks,
rewards in the scoring mode's terms, catches, errors)."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (uv sync --extra rl)")
np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test  # noqa: E402

from maumau.engine import Catch  # noqa: E402
from maumau.env import maumau_v0  # noqa: E402
from maumau.env.actions import ACTION_COUNT, CATCH, DRAW, SILENT, describe  # noqa: E402
from maumau.env.encoding import OBS_SIZE, encode  # noqa: E402
from maumau.env.rewards import game_rewards, round_rewards  # noqa: E402

CONFIGS = [
    (rules, players)
    for rules in ("standard", "penalty-100", "traditional", "catch")
    for players in (2, 3, 4)
] + [("standard", 6), ("traditional", 5), ("gamerules", 4)]


@pytest.mark.parametrize(("rules", "players"), CONFIGS)
def test_pettingzoo_api_and_seed_tests_pass(rules: str, players: int) -> None:
    api_test(maumau_v0.env(rules=rules, players=players), num_cycles=60)
    seed_test(lambda: maumau_v0.env(rules=rules, players=players), num_cycles=60)


def random_game(env: Any, seed: int) -> list[tuple[str, Any, float]]:
    """Play ``env`` to its end with random legal actions; (agent, observation, reward)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _info = env.last()
        seen.append((agent, observation, reward))
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(list(legal))))
    return seen


def test_the_mask_is_the_engines_legal_actions_and_zero_for_the_others() -> None:
    env = maumau_v0.raw_env(rules="penalty-100", players=3)
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(300):
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        game = env.session.game
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (ACTION_COUNT,)
        wanted = {describe(i) for i in env.session.legal()}
        assert {describe(int(i)) for i in np.flatnonzero(mask)} == wanted
        assert len(wanted) == len(game.legal_actions())
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        observation = env.observe(agent)["observation"]
        assert observation.shape == (OBS_SIZE,)
        assert np.array_equal(observation, encode(game.view(seat)))
        env.step(int(rng.choice(list(np.flatnonzero(mask)))))
        if env.terminations[agent]:
            break


@pytest.mark.parametrize(("rules", "players"), [("penalty-100", 3), ("gamerules", 2)])
def test_rewards_follow_the_scoring_and_sum_to_zero(rules: str, players: int) -> None:
    env = maumau_v0.env(rules=rules, players=players)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=11)
    rng = random.Random(11)
    for _agent in env.agent_iter():
        observation, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
        step_rewards = env.unwrapped.rewards
        assert sum(step_rewards.values()) == pytest.approx(0.0)
        for a, value in step_rewards.items():
            returns[a] += value
    game = env.unwrapped.session.game
    assert game.finished and len(game.results) >= 1
    expected = [0.0] * players
    for result in game.results:
        for seat, value in enumerate(round_rewards(game.rules, result)):
            expected[seat] += value
    assert game.winners is not None
    for seat, value in enumerate(game_rewards(players, game.winners)):
        expected[seat] += value
    assert [returns[a] for a in env.possible_agents] == pytest.approx(expected)
    winner = env.possible_agents[game.winners[0]]
    assert returns[winner] == max(returns.values())


def test_single_scoring_gives_plus_one_to_the_winner_only_at_the_end() -> None:
    seen = random_game(maumau_v0.env(rules="standard", players=4), seed=3)
    rewards = [reward for _agent, _obs, reward in seen]
    assert sorted(rewards[-4:]) == pytest.approx([-1 / 3, -1 / 3, -1 / 3, 1.0])
    assert all(reward == 0 for reward in rewards[:-4])


def test_the_same_seed_plays_the_same_game_and_another_seed_another() -> None:
    def first_hands(seed: int) -> list[Any]:
        env = maumau_v0.raw_env(rules="standard", players=3)
        env.reset(seed=seed)
        return [env.observe(a)["observation"][:52].tolist() for a in env.possible_agents]

    assert first_hands(7) == first_hands(7)
    assert first_hands(7) != first_hands(8)


def test_catch_mode_offers_silent_plays_and_the_next_seat_may_catch() -> None:
    caught = 0
    for seed in range(40):
        env = maumau_v0.raw_env(rules="catch", players=3)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            session = env.session
            legal = session.legal()
            if not legal:
                break
            silent = [i for i in legal if SILENT <= i < DRAW]
            if silent:
                # a call is due: the same play with the call is legal too
                assert all(i - SILENT in legal for i in silent)
                seat = session.to_move
                session_before = session.game.round_index
                env.step(silent[0])
                if (
                    session.game.round_index != session_before
                    or env.terminations[env.agent_selection]
                ):
                    break
                nxt = session.legal()
                catches = [i for i in nxt if i >= CATCH]
                assert catches, "the seat to move may catch the missing call"
                (index,) = catches
                target = (session.to_move + index - CATCH + 1) % 3
                assert target == seat and nxt[index] == Catch(seat)
                caught += 1
                break
            env.step(rng.choice(sorted(legal)))
    assert caught > 0


def test_standard_rules_offer_no_silent_plays() -> None:
    env = maumau_v0.raw_env(rules="standard", players=2)
    for seed in range(10):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while env.session.legal() and not env.terminations[env.agent_selection]:
            legal = env.session.legal()
            assert all(i < SILENT or i >= DRAW for i in legal)
            env.step(rng.choice(sorted(legal)))


def test_an_illegal_action_is_refused_naming_it() -> None:
    raw = maumau_v0.raw_env(rules="standard", players=2)
    raw.reset(seed=1)
    illegal = next(i for i in range(ACTION_COUNT) if i not in raw.session.legal())
    with pytest.raises(ValueError, match=rf"action {illegal} is not legal.*legal: "):
        raw.step(illegal)
    wrapped = maumau_v0.env(rules="standard", players=2)
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.step(illegal)  # PettingZoo's wrapper: the game ends, -1 for the offender
    assert wrapped.terminations[agent]
    assert wrapped.rewards[agent] == -1


def test_bad_parameters_are_named() -> None:
    with pytest.raises(ValueError, match="unknown rule set 'nope'"):
        maumau_v0.env(rules="nope")
    with pytest.raises(Exception, match="players: a 32-card deck takes 2 to 5 players, not 6"):
        maumau_v0.env(rules="traditional", players=6)
    with pytest.raises(ValueError, match="render_mode: 'pixels'"):
        maumau_v0.env(render_mode="pixels")


def test_ansi_render_shows_the_table_and_only_the_hand_of_the_seat_to_move() -> None:
    env = maumau_v0.env(rules="penalty-100", players=3, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str)
    seat = env.unwrapped.session.to_move
    view = env.unwrapped.session.view(seat)
    assert f"player_{seat} holds: " + " ".join(str(c) for c in view.hand) in text
    assert text.count("holds") == 1
    assert f"top {view.top}" in text


def test_a_run_seeded_once_is_reproducible() -> None:
    """``reset(seed=s)`` once, then plain ``reset()``: the later games continue the seed
    stream (as PettingZoo's and Gymnasium's own card games do), so the whole run
    replays; another first seed gives another run."""

    def run(seed: int) -> list[list[Any]]:
        env = maumau_v0.raw_env(rules="penalty-100", players=3)
        games = []
        for game in range(3):
            if game == 0:
                env.reset(seed=seed)
            else:
                env.reset()
            games.append([env.observe(a)["observation"][:52].tolist() for a in env.agents])
        return games

    first = run(42)
    assert first == run(42)
    assert first[1] != first[0] and first[2] != first[1]
    assert first != run(43)


def test_pettingzoo_render_test_passes_in_every_render_mode() -> None:
    render_test(
        lambda render_mode=None: maumau_v0.env(rules="catch", players=3, render_mode=render_mode)
    )


def test_human_rendering_prints_the_ansi_text(capsys: pytest.CaptureFixture[str]) -> None:
    shown = maumau_v0.env(players=3, render_mode="ansi")
    shown.reset(seed=4)
    printed = maumau_v0.env(players=3, render_mode="human")
    printed.reset(seed=4)
    assert printed.render() is None
    assert capsys.readouterr().out == f"{shown.render()}\n"


def test_rgb_array_is_refused_at_construction_as_a_type_error_for_sb3s_fallback() -> None:
    """A card table has no picture here; SB3's ``make_vec_env`` first tries
    ``render_mode="rgb_array"`` and falls back without it on ``TypeError``."""
    with pytest.raises(TypeError, match="render_mode 'rgb_array' is not supported"):
        maumau_v0.env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_mode 'rgb_array' is not supported"):
        maumau_v0.raw_env(render_mode="rgb_array")


def test_the_environment_pickles_and_unwraps_as_pettingzoos_own_tests_ask() -> None:
    """PettingZoo's pickle and unwrapped tests (of its repository), which make the
    environment with ``render_mode="human"``."""
    import pickle

    env = maumau_v0.env(rules="penalty-100", players=3, render_mode="human")
    copy = pickle.loads(pickle.dumps(env))
    env.reset(seed=6)
    copy.reset(seed=6)
    for agent in env.possible_agents:
        assert np.array_equal(env.observe(agent)["observation"], copy.observe(agent)["observation"])
    assert isinstance(env.unwrapped, maumau_v0.raw_env)
    assert env.unwrapped.unwrapped is env.unwrapped
    assert env.unwrapped.render_mode == "human"


@pytest.mark.parametrize(("rules", "players"), [("standard", 2), ("catch", 3), ("penalty-100", 4)])
def test_the_parallel_api_passes_pettingzoos_parallel_api_test(rules: str, players: int) -> None:
    parallel_api_test(maumau_v0.parallel_env(rules=rules, players=players), num_cycles=300)


def test_in_the_parallel_api_only_the_seat_to_move_acts() -> None:
    env = maumau_v0.parallel_env(rules="penalty-100", players=3)
    observations, _infos = env.reset(seed=8)
    rng = random.Random(8)
    steps = 0
    while env.agents:
        movers = [a for a, o in observations.items() if o["action_mask"].any()]
        assert movers == [env.unwrapped.agent_selection]
        actions = {a: 0 for a in env.agents}  # 0 for the others: ignored
        actions[movers[0]] = int(
            rng.choice(list(np.flatnonzero(observations[movers[0]]["action_mask"])))
        )
        observations, rewards, _terms, _truncs, _infos = env.step(actions)
        assert sum(rewards.values()) == pytest.approx(0.0)
        steps += 1
    assert env.unwrapped.session.finished and steps > 10


def test_rules_in_obs_appends_the_rule_options_and_leaves_the_layout_alone() -> None:
    from maumau.env.encoding import RULES_SIZE, encode_rules

    plain = maumau_v0.raw_env(rules="penalty-100", players=3)
    assert plain.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    env = maumau_v0.raw_env(rules="penalty-100", players=3, rules_in_obs=True)
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE + RULES_SIZE,)
    env.reset(seed=3)
    plain.reset(seed=3)
    for agent in env.possible_agents:
        both = env.observe(agent)["observation"]
        assert np.array_equal(both[:OBS_SIZE], plain.observe(agent)["observation"])
        assert np.array_equal(both[OBS_SIZE:], encode_rules(env.session.rules))
    tails = {
        tuple(encode_rules(maumau_v0.raw_env(rules=r).session.rules))
        for r in ("standard", "penalty-100", "penalty-150", "traditional", "gamerules", "catch")
    }
    assert len(tails) == 6  # every rule set is told apart
    api_test(maumau_v0.env(rules="traditional", players=3, rules_in_obs=True), num_cycles=40)


@pytest.mark.parametrize("reward", ["outcome", "points", "both"])
def test_the_reward_choice_hands_out_the_outcome_the_points_or_both(reward: str) -> None:
    env = maumau_v0.env(rules="penalty-100", players=3, reward=reward)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=11)
    rng = random.Random(11)
    for agent in env.agent_iter():
        observation, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
        for a, value in env.unwrapped.rewards.items():
            returns[a] += value
        del agent
    game = env.unwrapped.session.game
    assert game.winners is not None and len(game.results) >= 2
    points = [0.0] * 3
    for result in game.results:
        for seat, value in enumerate(round_rewards(game.rules, result)):
            points[seat] += value
    outcome = game_rewards(3, game.winners)
    wanted = {
        "outcome": outcome,
        "points": points,
        "both": [p + o for p, o in zip(points, outcome, strict=True)],
    }[reward]
    assert [returns[a] for a in env.possible_agents] == pytest.approx(wanted)


def test_an_unknown_reward_choice_is_named() -> None:
    with pytest.raises(
        ValueError, match="reward: 'score' is not one of 'outcome', 'points', 'both'"
    ):
        maumau_v0.env(reward="score")
