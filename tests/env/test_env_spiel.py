"""The OpenSpiel game ``python_maumau``: pyspiel's own checks, the chance nodes for
deals and draws, resampling, and OpenSpiel's ISMCTS and MCTS bots playing it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open-spiel is not installed (uv sync --extra spiel)"
)
np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from maumau.env.actions import ACTION_COUNT, DRAW  # noqa: E402
from maumau.env.encoding import INFO_SIZE, OBS_SIZE  # noqa: E402
from maumau.env.rollout import EngineRolloutEvaluator  # noqa: E402
from maumau.env.spiel import GAME_NAME, load_game  # noqa: E402


def to_player_node(state: object, rng: random.Random) -> None:
    while state.is_chance_node():  # type: ignore[attr-defined]
        outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])  # type: ignore[attr-defined]


def test_the_game_is_registered_with_its_type_and_sizes() -> None:
    assert GAME_NAME in pyspiel.registered_names()
    game = pyspiel.load_game(GAME_NAME, {"rules": "penalty-100", "players": 3})
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 3
    assert game.num_distinct_actions() == ACTION_COUNT
    assert game.max_chance_outcomes() == 52
    assert game.observation_tensor_size() == OBS_SIZE
    assert game.information_state_tensor_size() == INFO_SIZE


@pytest.mark.parametrize(
    ("rules", "players", "serialize"),
    [("standard", 2, True), ("catch", 3, False), ("standard", 4, False)],
)
def test_pyspiel_random_sim_test_passes(rules: str, players: int, serialize: bool) -> None:
    """pyspiel's checks of every state of random games (with ``serialize`` also a
    serialization round trip at every step, which replays the game: quadratic)."""
    game = load_game(rules, players)
    pyspiel.random_sim_test(game, num_sims=1, serialize=serialize, verbose=False)


@pytest.mark.parametrize(("rules", "players"), [("penalty-100", 2), ("traditional", 3)])
def test_whole_multi_round_games_play_to_a_zero_sum_end(rules: str, players: int) -> None:
    game = load_game(rules, players)
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            mask = state.legal_actions_mask()
            assert [i for i, m in enumerate(mask) if m] == legal
            state.apply_action(legal[rng.randrange(len(legal))])
    assert len(state.core.game.results) >= 1
    assert sum(state.returns()) == pytest.approx(0.0)
    assert max(state.returns()) > 0


def test_options_over_a_rule_set_and_bad_parameters() -> None:
    game = load_game("standard", 2, ace_skips=True, hand_size=7)
    assert game.rules.ace_skips and game.rules.hand_size == 7
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 52
    with pytest.raises(Exception, match="unknown rule set"):
        load_game("nope", 2)
    with pytest.raises(Exception, match="unknown option key 'sevens'"):
        load_game("standard", 2, sevens=3)
    with pytest.raises(Exception, match="options: not JSON"):
        pyspiel.load_game(GAME_NAME, {"rules": "standard", "players": 2, "options": "{ace"})


def test_the_deal_and_every_draw_are_chance_nodes_over_the_unseen_cards() -> None:
    game = load_game("standard", 2)
    state = game.new_initial_state()
    rng = random.Random(1)
    for dealt in range(11):
        assert state.is_chance_node()
        assert len(state.chance_outcomes()) == 52 - dealt
        state.apply_action(state.chance_outcomes()[rng.randrange(52 - dealt)][0])
    draws = 0
    while draws < 5 and not state.is_terminal():
        to_player_node(state, rng)
        seat = state.current_player()
        if DRAW in state.legal_actions():
            round_ = state.core.game.round
            pile = sorted(round_.stock)
            before = round_.hands[seat]
            state.apply_action(DRAW)
            assert state.is_chance_node()
            outcomes = state.chance_outcomes()
            assert sorted(c for c, _ in outcomes) == pile
            card = outcomes[-1][0]
            state.apply_action(card)
            while state.is_chance_node():  # the Seven sum: more than one card
                state.apply_action(state.chance_outcomes()[0][0])
            assert (state.core.game.round.hands[seat] & ~before) >> card & 1
            draws += 1
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert draws == 5


def test_resampling_keeps_the_information_state_and_changes_the_hidden_cards() -> None:
    game = load_game("catch", 3)
    state = game.new_initial_state()
    rng = random.Random(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differed = 0
    for _ in range(30):
        to_player_node(state, rng)
        if state.is_terminal():
            break
        player = state.current_player()
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        real, other = state.core.game.round, sample.core.game.round
        assert [h.bit_count() for h in other.hands] == [h.bit_count() for h in real.hands]
        assert sorted(other.stock) != sorted(real.stock) or other.hands != real.hands
        differed += other.hands != real.hands
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert differed > 10


@pytest.mark.parametrize(("rules", "players"), [("standard", 2), ("catch", 3), ("standard", 4)])
def test_ismcts_and_mcts_play_whole_games_with_legal_actions(rules: str, players: int) -> None:
    """Seat 0 is OpenSpiel's ISMCTS bot, seat 1 its MCTS bot, the others play at
    random; every action they choose is legal, and the game ends."""
    game = load_game(rules, players)
    value = EngineRolloutEvaluator(seed=1)
    search = ismcts.ISMCTSBot(game, value, 1.4, 8, random_state=np.random.RandomState(0))
    perfect = mcts.MCTSBot(game, 1.4, 8, value, random_state=np.random.RandomState(1))
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    moves = [0] * players
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        seat = state.current_player()
        bot = search if seat == 0 else perfect if seat == 1 else None
        legal = state.legal_actions()
        action = bot.step(state) if bot is not None else int(rng.choice(legal))
        assert action in legal
        state.apply_action(action)
        moves[seat] += 1
    assert moves[0] > 0 and moves[1] > 0
    assert sum(state.returns()) == pytest.approx(0.0)


def test_ismcts_works_with_openspiels_own_rollouts_too() -> None:
    """OpenSpiel's ``RandomRolloutEvaluator`` drives its rollouts through pyspiel (slow:
    a few decisions only)."""
    game = load_game("standard", 2, hand_size=3)
    value = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    search = ismcts.ISMCTSBot(game, value, 1.4, 2, random_state=np.random.RandomState(0))
    state = game.new_initial_state()
    rng = random.Random(5)
    decisions = 0
    while decisions < 3 and not state.is_terminal():
        to_player_node(state, rng)
        action = search.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions == 3


def test_resampling_for_another_seat_does_not_keep_the_card_the_drawer_just_drew() -> None:
    """After seat 0 draws (and may play the card), seat 1 has not seen that card: its
    samples deal it like every other unseen card (the drawer keeps a drawn card, a
    sampled one, so the drawer's options stay well formed)."""
    game = load_game("standard", 2)
    rng = random.Random(4)
    state = game.new_initial_state()
    while True:  # to a position where a seat has just drawn and may play the card
        to_player_node(state, rng)
        assert not state.is_terminal()
        round_ = state.core.game.round
        if round_.drawn >= 0:
            break
        legal = state.legal_actions()
        state.apply_action(DRAW if DRAW in legal else legal[rng.randrange(len(legal))])
    drawer, card = round_.turn, round_.drawn
    other = 1 - drawer
    picks = random.Random(0)
    kept = 0
    for _ in range(50):
        sample = state.resample_from_infostate(other, picks.random)
        r = sample.core.game.round
        assert sample.information_state_string(other) == state.information_state_string(other)
        assert r.hands[drawer].bit_count() == round_.hands[drawer].bit_count()
        assert r.drawn >= 0 and r.hands[drawer] >> r.drawn & 1
        kept += r.hands[drawer] >> card & 1
    assert kept < 50
    mine = state.resample_from_infostate(drawer, picks.random)  # the drawer knows its card
    assert mine.core.game.round.drawn == card


def observer(public: bool, private: str, recall: bool) -> object:
    from open_spiel.python.observation import make_observation

    kind = pyspiel.IIGObservationType(
        public_info=public,
        perfect_recall=recall,
        private_info=getattr(pyspiel.PrivateInfoType, private),
    )
    return make_observation(load_game("catch", 3), kind)


def mid_round_states(rules: str, players: int, count: int) -> list[object]:
    game = load_game(rules, players)
    rng = random.Random(6)
    state = game.new_initial_state()
    states = [state.clone()]  # a state while the cards are dealt too
    for _ in range(8):
        state.apply_action(state.chance_outcomes()[0][0])
    states.append(state.clone())
    while len(states) < count and not state.is_terminal():
        to_player_node(state, rng)
        if state.is_terminal():
            break
        states.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return states


@pytest.mark.parametrize("recall", [False, True])
def test_a_public_only_observation_is_the_same_for_every_seat_and_holds_no_hand(
    recall: bool,
) -> None:
    public = observer(True, "NONE", recall)
    assert "hand" not in public.dict and "drawn" not in public.dict  # type: ignore[attr-defined]
    for state in mid_round_states("catch", 3, 60):
        tensors, strings = [], []
        for seat in range(3):
            public.set_from(state, seat)  # type: ignore[attr-defined]
            tensors.append(public.tensor.copy())  # type: ignore[attr-defined]
            strings.append(public.string_from(state, seat))  # type: ignore[attr-defined]
        assert all(np.array_equal(t, tensors[0]) for t in tensors)
        assert len(set(strings)) == 1
        assert "hand" not in strings[0]


def test_the_observation_types_choose_the_named_pieces() -> None:
    from maumau.env.encoding import encode, encode_info

    default = observer(True, "SINGLE_PLAYER", False)
    names = ["hand", "top", "named", "drawn", "discard", "step", "scalars", "seats"]
    assert list(default.dict) == names  # type: ignore[attr-defined]
    info = observer(True, "SINGLE_PLAYER", True)
    assert list(info.dict) == [*names, "history"]  # type: ignore[attr-defined]
    private = observer(False, "SINGLE_PLAYER", False)
    assert list(private.dict) == ["hand", "drawn"]  # type: ignore[attr-defined]
    everyone = observer(True, "ALL_PLAYERS", False)
    assert everyone.dict["hands"].shape == (8, 52)  # type: ignore[attr-defined]
    for state in mid_round_states("catch", 3, 40)[2:]:
        seat = state.current_player()  # type: ignore[attr-defined]
        view = state.view(seat)  # type: ignore[attr-defined]
        default.set_from(state, seat)  # type: ignore[attr-defined]
        assert np.array_equal(default.tensor, encode(view))  # type: ignore[attr-defined]
        info.set_from(state, seat)  # type: ignore[attr-defined]
        assert np.array_equal(info.tensor, encode_info(view))  # type: ignore[attr-defined]
        private.set_from(state, seat)  # type: ignore[attr-defined]
        assert np.flatnonzero(private.dict["hand"]).tolist() == [int(c) for c in view.hand]  # type: ignore[attr-defined]
        everyone.set_from(state, seat)  # type: ignore[attr-defined]
        hands = state.core.game.round.hands  # type: ignore[attr-defined]
        for k in range(3):
            row = everyone.dict["hands"][k]  # type: ignore[attr-defined]
            assert sum(1 << int(c) for c in np.flatnonzero(row)) == hands[(seat + k) % 3]
        assert not everyone.dict["hands"][3:].any()  # type: ignore[attr-defined]


@pytest.mark.parametrize("reward", ["outcome", "points", "both"])
def test_the_reward_choice_is_the_same_as_in_pettingzoo(reward: str) -> None:
    from maumau.env.rewards import game_rewards, round_rewards

    game = load_game("penalty-100", 2, reward=reward)
    assert pyspiel.load_game(GAME_NAME, {"rules": "penalty-100", "reward": reward}).reward == reward
    rng = random.Random(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        to_player_node(state, rng)
        if not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    engine = state.core.game
    assert len(engine.results) >= 2
    points = [sum(round_rewards(engine.rules, r)[s] for r in engine.results) for s in range(2)]
    outcome = game_rewards(2, engine.winners)
    wanted = {
        "outcome": outcome,
        "points": points,
        "both": [p + o for p, o in zip(points, outcome, strict=True)],
    }
    assert state.returns() == pytest.approx(wanted[reward])
    assert game.min_utility() <= min(state.returns()) <= max(state.returns()) <= game.max_utility()
