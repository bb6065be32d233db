"""The batched environment ``maumau.env.batch.BatchEnv``: each of its games is a game
of ``maumau_v0`` (driven side by side: the same observations, masks, seats to move,
rewards and ends at every step), the same seed plays the same games, games reset
themselves, and the masks of live games are never empty.  Its leak test is in
``tests/env/test_env_leak.py``."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (uv sync --extra rl)")
np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from maumau.env import maumau_v0  # noqa: E402
from maumau.env.actions import ACTION_COUNT  # noqa: E402
from maumau.env.batch import BatchEnv, random_actions  # noqa: E402
from maumau.env.encoding import OBS_SIZE, encode  # noqa: E402

CONFIGS = [
    ("standard", 2),
    ("penalty-100", 4),
    ("traditional", 3),
    ("catch", 3),
    ("gamerules", 4),
    ("standard", 5),
]


def twins(env: BatchEnv, i: int) -> Any:
    """The ``maumau_v0`` game that slot ``i`` of ``env`` plays now."""
    twin = maumau_v0.raw_env(rules=env.rules, players=env.players)
    twin.reset(seed=env.game_seeds[i])
    return twin


@pytest.mark.parametrize(("rules", "players"), CONFIGS)
def test_every_step_is_maumau_v0s_step(rules: str, players: int) -> None:
    """Slot by slot and step by step: observation, mask, seat to move, rewards and the
    end of the game as ``maumau_v0`` has them for the same game; then the next game."""
    env = BatchEnv(num_envs=6, rules=rules, players=players, seed=11)
    obs, mask, to_move = env.reset()
    ref = [twins(env, i) for i in range(env.num_envs)]
    rng = np.random.default_rng(3)
    ended = steps = 0
    while ended < 4 and steps < 5000:
        for i, twin in enumerate(ref):
            agent = twin.agent_selection
            assert to_move[i] == twin.possible_agents.index(agent)
            seen = twin.observe(agent)
            assert np.array_equal(obs[i], seen["observation"]), (i, steps)
            assert np.array_equal(mask[i], seen["action_mask"].astype(bool)), (i, steps)
        assert mask.any(axis=1).all()
        actions = random_actions(mask, rng)
        obs, mask, to_move, rewards, done = env.step(actions)
        steps += 1
        for i, twin in enumerate(ref):
            twin.step(int(actions[i]))
            expected = [twin.rewards[a] for a in twin.possible_agents]
            assert rewards[i].tolist() == pytest.approx(expected, abs=1e-6)
            over = all(twin.terminations.values()) or all(twin.truncations.values())
            assert bool(done[i]) == over, (i, steps)
            if over:
                ended += 1
                ref[i] = twins(env, i)  # the slot plays its next game
    assert ended >= 4  # whole games, with their ends and the resets after them


def play(env: BatchEnv, steps: int, seed: int) -> list[Any]:
    obs, mask, to_move = env.reset()
    rng = np.random.default_rng(seed)
    seen = [(obs, mask, to_move)]
    for _ in range(steps):
        obs, mask, to_move, rewards, done = env.step(random_actions(mask, rng))
        seen.append((obs, mask, to_move, rewards, done))
    return seen


def same(a: list[Any], b: list[Any]) -> bool:
    return all(
        all(np.array_equal(x, y) for x, y in zip(sa, sb, strict=True))
        for sa, sb in zip(a, b, strict=True)
    )


def test_the_same_seed_plays_the_same_games() -> None:
    first = play(BatchEnv(8, "penalty-100", 3, seed=5), 400, seed=1)
    again = play(BatchEnv(8, "penalty-100", 3, seed=5), 400, seed=1)
    other = play(BatchEnv(8, "penalty-100", 3, seed=6), 400, seed=1)
    assert same(first, again)
    assert not same(first, other)
    assert any(step[4].any() for step in first[1:])  # games ended (and were reset) too


def test_a_slot_plays_the_same_games_whatever_the_batch_size() -> None:
    small, large = BatchEnv(3, seed=9), BatchEnv(7, seed=9)
    obs_s, _, _ = small.reset()
    obs_l, _, _ = large.reset()
    assert small.game_seeds == large.game_seeds[:3]
    assert np.array_equal(obs_s, obs_l[:3])


def test_an_unseeded_reset_goes_on_with_the_seed_stream() -> None:
    env = BatchEnv(4, seed=2)
    env.reset()
    first = list(env.game_seeds)
    env.reset()
    assert env.game_seeds != first  # new games ...
    again = BatchEnv(4, seed=2)
    again.reset()
    again.reset()
    assert again.game_seeds == env.game_seeds  # ... from the same stream
    env.reset(seed=2)
    assert env.game_seeds == first


def test_a_finished_game_is_reset_at_once() -> None:
    env = BatchEnv(16, "standard", 2, seed=4)
    _obs, mask, _to_move = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5000):
        seeds = list(env.game_seeds)
        obs, mask, _to_move, rewards, done = env.step(random_actions(mask, rng))
        if done.any():
            break
    i = int(np.flatnonzero(done)[0])
    assert env.game_seeds[i] != seeds[i]
    assert sorted(rewards[i].tolist()) == [-1.0, 1.0]  # the finished game's outcome
    fresh = twins(env, i)
    seen = fresh.observe(fresh.agent_selection)
    assert np.array_equal(obs[i], seen["observation"])  # the new game's first decision
    assert np.array_equal(mask[i], seen["action_mask"].astype(bool))
    assert not env.truncated.any()


def test_a_game_too_long_is_truncated_and_reset() -> None:
    env = BatchEnv(4, "standard", 2, seed=4, max_steps=4)  # no game ends in 4 actions
    _obs, mask, _to_move = env.reset()
    rng = np.random.default_rng(0)
    for step in range(4):
        _obs, mask, _to_move, _rewards, done = env.step(random_actions(mask, rng))
        if step < 3:
            assert not env.truncated.any()
    assert done.all() and env.truncated.all()
    assert all(session.steps == 0 for session in env.sessions)


def test_the_masks_of_live_games_are_never_empty() -> None:
    for rules, players in CONFIGS:
        env = BatchEnv(32, rules, players, seed=8)
        _obs, mask, _to_move = env.reset()
        rng = np.random.default_rng(1)
        for _ in range(300):
            assert mask.shape == (32, ACTION_COUNT) and mask.dtype == np.bool_
            assert mask.sum(axis=1).min() >= 1
            _obs, mask, _to_move, _rewards, _done = env.step(random_actions(mask, rng))


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = BatchEnv(4, seed=1)
    obs, mask, _to_move = env.reset()
    actions = random_actions(mask, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~mask[2])[0])
    with pytest.raises(ValueError, match="not legal in game 2"):
        env.step(actions)
    with pytest.raises(ValueError, match="integer action ids"):
        env.step(np.zeros(3, dtype=np.int64))
    assert all(session.steps == 0 for session in env.sessions)
    assert np.array_equal(env.obs, obs)


def test_shapes_types_and_copies() -> None:
    env = BatchEnv(5, "penalty-100", 4, seed=1)
    obs, mask, to_move = env.reset()
    assert obs.shape == (5, OBS_SIZE) and obs.dtype == np.float32
    assert to_move.shape == (5,) and np.issubdtype(to_move.dtype, np.integer)
    kept = obs.copy()
    _obs, _mask, _to, rewards, done = env.step(random_actions(mask, np.random.default_rng(0)))
    assert rewards.shape == (5, 4) and rewards.dtype == np.float32 and done.dtype == np.bool_
    assert np.array_equal(obs, kept)  # a copy: the next step did not overwrite it
    fast = BatchEnv(5, seed=1, copy=False)
    obs, _mask, _to = fast.reset()
    assert obs is fast.obs


def test_against_bots_the_caller_always_plays_its_seat() -> None:
    env = BatchEnv(6, "penalty-100", 3, seed=3, opponents=("random", "easy"), seat=1)
    obs, mask, to_move = env.reset()
    again = BatchEnv(6, "penalty-100", 3, seed=3, opponents=("random", "easy"), seat=1)
    assert np.array_equal(again.reset()[0], obs)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        assert (to_move == 1).all()
        for i, session in enumerate(env.sessions):
            assert np.array_equal(obs[i], encode(session.view(1)))
            assert np.flatnonzero(mask[i]).tolist() == sorted(session.legal())
        obs, mask, to_move, rewards, done = env.step(random_actions(mask, rng))
        assert rewards.sum(axis=1) == pytest.approx(np.zeros(6), abs=1e-5)  # zero-sum
        ended += int(done.sum())
    assert ended > 0


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        BatchEnv(0)
    with pytest.raises(ValueError, match="2 bot levels"):
        BatchEnv(2, players=3, opponents=("random",))
    with pytest.raises(ValueError, match="unknown bot level"):
        BatchEnv(2, opponents=("genius",))
    with pytest.raises(RuntimeError, match="reset"):
        BatchEnv(2).step(np.zeros(2, dtype=np.int64))


def test_random_actions_are_legal_and_uniform() -> None:
    mask = np.zeros((2, ACTION_COUNT), dtype=bool)
    mask[0, [3, 136]] = True
    mask[1, [7, 60, 137]] = True
    rng = np.random.default_rng(random.Random(0).getrandbits(32))
    picks = np.array([random_actions(mask, rng) for _ in range(3000)])
    assert set(picks[:, 0].tolist()) == {3, 136}
    counts = np.bincount(picks[:, 1], minlength=ACTION_COUNT)[[7, 60, 137]]
    assert counts.min() > 850  # about 1000 each
