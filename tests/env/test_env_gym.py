"""The Gymnasium single-agent wrapper ``maumau.env.gym.MauMauGym``: Gymnasium's
``check_env``, the action mask as MaskablePPO reads it, the bots' seats, seeding."""

from __future__ import annotations

import random

import pytest

gymnasium = pytest.importorskip(
    "gymnasium", reason="the rl extra is not installed (uv sync --extra rl)"
)
np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from maumau.env.actions import ACTION_COUNT, PASS  # noqa: E402
from maumau.env.encoding import OBS_SIZE, encode  # noqa: E402
from maumau.env.gym import ENV_ID, MauMauGym  # noqa: E402


@pytest.mark.parametrize(
    ("rules", "opponents", "seat"),
    [
        ("standard", ("normal",), 0),
        ("penalty-100", ("easy", "random"), 1),
        ("traditional", ("normal", "easy", "random"), 3),
        ("catch", ("easy", "easy"), 0),
    ],
)
def test_gymnasium_check_env_passes(rules: str, opponents: tuple[str, ...], seat: int) -> None:
    check_env(MauMauGym(rules=rules, opponents=opponents, seat=seat, render_mode="ansi"))


def play(env: MauMauGym, seed: int) -> tuple[list[int], float, int]:
    observation, info = env.reset(seed=seed)
    rng = random.Random(seed)
    actions, total, done = [], 0.0, False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (ACTION_COUNT,)
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        assert mask.any()
        view = env.session.view(env.seat)
        assert env.session.to_move == env.seat
        assert np.array_equal(observation[:OBS_SIZE], encode(view))
        action = int(rng.choice(list(np.flatnonzero(mask))))
        actions.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    assert np.flatnonzero(env.action_masks()).tolist() == [PASS]  # never all zeros
    return actions, total, len(env.session.game.results)


def test_the_learner_moves_only_on_its_turn_and_the_bots_play_the_rest() -> None:
    env = MauMauGym(rules="penalty-100", opponents=("normal", "easy"), seat=2)
    actions, total, rounds = play(env, seed=4)
    game = env.session.game
    assert game.finished and rounds >= 2
    assert game.winners is not None
    assert (total > 0) == (2 in game.winners)
    moves_by_seat = [0, 0, 0]
    for result_round in game.rounds:
        for seat, _action in result_round.state.actions:
            moves_by_seat[seat] += 1
    assert moves_by_seat[2] == len(actions)
    assert moves_by_seat[0] > 0 and moves_by_seat[1] > 0


def test_reset_with_a_seed_replays_the_game_the_bots_included() -> None:
    env = MauMauGym(rules="penalty-100", opponents=("hard:20", "normal"))
    assert play(env, seed=9) == play(env, seed=9)
    assert play(env, seed=9) != play(env, seed=10)


def test_an_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = MauMauGym(rules="standard", opponents=("random",))
    _observation, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == illegal
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(illegal)


def test_registered_with_gymnasium() -> None:
    env = gymnasium.make(ENV_ID, rules="catch", opponents=("easy", "normal"))
    observation, info = env.reset(seed=3)
    assert observation.shape == (OBS_SIZE,)
    assert info["action_mask"].sum() >= 1


def test_bad_parameters_are_named() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'genius'"):
        MauMauGym(opponents=("genius",))
    with pytest.raises(ValueError, match="opponents: give a sequence"):
        MauMauGym(opponents="normal")
    with pytest.raises(ValueError, match=r"seat: must be 0\.\.1"):
        MauMauGym(opponents=("normal",), seat=2)


def bot_goes_out_first(env: MauMauGym, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the first deal one in which seat 0 (a bot) goes out with its first card,
    before the learner at seat 1 has moved; later deals are the usual ones."""
    from maumau.engine import Game, Layout
    from maumau.engine.cards import CODES

    session = env.session
    real = session.reset
    calls = []

    def reset(seed: int | None = None) -> None:
        real(seed)
        calls.append(1)
        if len(calls) == 1:
            hands = [["8D"], ["2C", "3C", "4C", "5C", "6C"]]
            used = {"8D", "8S", *hands[1]}
            stock = [c for c in CODES if c not in used]
            layout = Layout.parse(hands, "8S", stock, hand_size_free=True)
            session.game = Game.new(session.rules, session.game.players, seed=1, layout=layout)

    monkeypatch.setattr(session, "reset", reset)
    return calls


def test_a_game_the_bots_end_before_the_learner_moves_is_dealt_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = MauMauGym(rules="standard", opponents=("normal",), seat=1)
    calls = bot_goes_out_first(env, monkeypatch)
    _observation, info = env.reset(seed=2)
    assert len(calls) == 2  # the first game ended at once: a second one was dealt
    assert not env.session.finished and env.session.to_move == 1
    assert info["action_mask"].any()


def test_a_round_the_bots_end_before_the_learners_first_move_still_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from maumau.env.rewards import round_rewards

    env = MauMauGym(rules="penalty-100", opponents=("normal",), seat=1)
    bot_goes_out_first(env, monkeypatch)
    _observation, info = env.reset(seed=2)
    game = env.session.game
    assert len(game.results) == 1 and game.round_index == 1 and env.session.to_move == 1
    carried = round_rewards(game.rules, game.results[0])[1]
    assert carried < 0  # the learner was left holding its five cards
    action = int(np.flatnonzero(info["action_mask"])[0])
    _observation, reward, _terminated, _truncated, _info = env.step(action)
    assert len(game.results) == 1  # no other round ended meanwhile (fixed seeds)
    assert reward == pytest.approx(carried)


def test_human_rendering_passes_check_env_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    check_env(MauMauGym(opponents=("normal",), render_mode="human"))
    env = MauMauGym(opponents=("easy", "normal"), render_mode="human")
    env.reset(seed=2)
    assert env.render() is None
    assert "seat 0 holds" in capsys.readouterr().out


def test_sb3s_rgb_array_probe_falls_back_to_no_render_mode() -> None:
    """What Stable-Baselines3's ``make_vec_env`` does with an environment id: try
    ``render_mode="rgb_array"``, and on ``TypeError`` make it without."""

    def sb3_make(**kwargs: object) -> gymnasium.Env:  # type: ignore[type-arg]
        try:
            return gymnasium.make(ENV_ID, render_mode="rgb_array", **kwargs)
        except TypeError:
            return gymnasium.make(ENV_ID, **kwargs)

    env = sb3_make(opponents=("normal",))
    assert env.render_mode is None
    observation, _info = env.reset(seed=1)
    assert observation.shape == (OBS_SIZE,)


def vector_masks(mode: object, steps: int) -> tuple[list[np.ndarray], int]:  # type: ignore[type-arg]
    """Every mask a masked policy (the first legal action: a play when there is one) is
    handed by ``make_vec`` under the autoreset
    ``mode``, and how many episodes ended."""
    envs = gymnasium.make_vec(
        ENV_ID,
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        opponents=("random",),
        rules={"preset": "standard", "hand_size": 3},
    )
    _observations, infos = envs.reset(seed=5)
    handed, ended = [], 0
    for _ in range(steps):
        masks = infos["action_mask"]
        handed.extend(masks)
        actions = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]
        _observations, _rewards, terminations, truncations, infos = envs.step(np.array(actions))
        ended += int(np.sum(terminations | truncations))
    envs.close()
    return handed, ended


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_vector_autoreset_never_hands_the_policy_an_all_zero_mask(mode: str) -> None:
    """Gymnasium's default autoreset (``NEXT_STEP``) hands the policy the final
    observation's mask and ignores the action it picks: that mask holds ``pass`` only,
    so a masked policy can always sample; ``SAME_STEP`` hands it the next game's."""
    from gymnasium.vector import AutoresetMode

    handed, ended = vector_masks(getattr(AutoresetMode, mode), 100)
    assert ended >= 3
    assert all(mask.any() for mask in handed)


def test_openspiels_ismcts_can_be_an_opponent() -> None:
    pytest.importorskip("pyspiel", reason="open-spiel is not installed (uv sync --extra spiel)")
    from maumau.env.spiel_bot import SpielIsmctsBot

    env = MauMauGym(rules={"preset": "standard", "hand_size": 3}, opponents=("ismcts:4", "easy"))
    first = play(env, seed=3)
    assert isinstance(env.bots[1], SpielIsmctsBot)
    assert env.session.game.finished
    assert play(env, seed=3) == first  # seeded from reset(seed) like the other bots
    with pytest.raises(ValueError, match="ismcts:N with N >= 1"):
        MauMauGym(opponents=("ismcts:x",))


def test_rules_in_obs_and_the_reward_choice_reach_the_gym_wrapper() -> None:
    from maumau.env.encoding import RULES_SIZE, encode_rules

    env = MauMauGym(rules="traditional", opponents=("normal",), rules_in_obs=True, reward="outcome")
    observation, _info = env.reset(seed=2)
    assert env.observation_space.shape == observation.shape == (OBS_SIZE + RULES_SIZE,)
    assert np.array_equal(observation[OBS_SIZE:], encode_rules(env.session.rules))
    check_env(env)
    _actions, total, rounds = play(env, seed=2)
    assert rounds >= 2 and total in (-1.0, 1.0)  # the outcome only, however many rounds
