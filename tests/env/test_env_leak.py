"""No hidden information in any observation: a seat's observation vector (and the
batched environment's, and the OpenSpiel information-state tensor and string) does not
change when the other hands and the draw pile are permuted, the engine's view test at
the encoding level."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (uv sync --extra rl)")

from maumau.engine import Game  # noqa: E402
from maumau.engine.game import DealtRound  # noqa: E402
from maumau.env.encoding import encode, encode_info  # noqa: E402
from maumau.env.session import resolve_rules  # noqa: E402


def permuted(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` in which the cards ``seat`` cannot see (the other hands and
    the draw pile) are dealt anew, every count kept; the public log is the same."""
    state = game.round.copy()
    hidden = [c for s in range(game.n) if s != seat for c in range(52) if state.hands[s] >> c & 1]
    hidden += state.stock
    rng.shuffle(hidden)
    i = 0
    for s in range(game.n):
        if s == seat:
            continue
        count = state.hands[s].bit_count()
        state.hands[s] = sum(1 << c for c in hidden[i : i + count])
        i += count
    state.stock[:] = hidden[i:]
    for drawer in range(len(state.private)):
        if drawer != seat:
            state.private[drawer] = []
    other = Game.__new__(Game)
    other.__dict__.update(game.__dict__)
    last = game.rounds[-1]
    other.rounds = [*game.rounds[:-1], DealtRound(last.seed, last.layout, state)]
    other._state = state
    return other


def positions(rules: str, players: int, seed: int) -> list[tuple[Game, int]]:
    """Mid-round positions of random games (every step), each with a seat to look from."""
    rng = random.Random(seed)
    game = Game.new(resolve_rules(rules), players, seed=seed)
    out = []
    while not game.finished and len(out) < 120:
        while not game.round_over:
            if rng.random() < 0.3:
                snapshot = Game.__new__(Game)
                snapshot.__dict__.update(game.__dict__)
                last = game.rounds[-1]
                state = last.state.copy()
                snapshot.rounds = [*game.rounds[:-1], DealtRound(last.seed, last.layout, state)]
                snapshot._state = state
                out.append((snapshot, rng.randrange(players)))
            acts = game.legal_actions()
            game.apply(acts[rng.randrange(len(acts))], game.to_move)
        if not game.finished:
            game.deal(rng.getrandbits(32))
    return out


CONFIGS = [("standard", 2), ("penalty-100", 4), ("traditional", 3), ("catch", 3)]


@pytest.mark.parametrize(("rules", "players"), CONFIGS)
def test_observation_ignores_the_cards_a_seat_cannot_see(rules: str, players: int) -> None:
    rng = random.Random(1)
    changed = 0
    for game, seat in positions(rules, players, seed=7):
        other = permuted(game, seat, rng)
        if [h for s, h in enumerate(other.round.hands) if s != seat] != [
            h for s, h in enumerate(game.round.hands) if s != seat
        ]:
            changed += 1
        assert np.array_equal(encode(game.view(seat)), encode(other.view(seat)))
        assert np.array_equal(encode_info(game.view(seat)), encode_info(other.view(seat)))
    assert changed > 20  # the permutations did change what the seat cannot see


def test_the_encoding_does_see_the_own_hand() -> None:
    """The check above could not pass by encoding nothing: swapping the seat's own
    cards with hidden ones changes its vector."""
    game, seat = positions("standard", 2, seed=3)[5]
    other = permuted(game, 1 - seat, random.Random(2))  # permutes ``seat``'s hand
    assert other.round.hands[seat] != game.round.hands[seat]
    assert not np.array_equal(encode(game.view(seat)), encode(other.view(seat)))


def test_openspiel_tensors_and_strings_ignore_the_hidden_cards() -> None:
    pytest.importorskip("pyspiel", reason="open-spiel is not installed (uv sync --extra spiel)")
    from maumau.env.spiel import load_game

    rng = random.Random(4)
    for rules, players in CONFIGS:
        game = load_game(rules, players)
        state = game.new_initial_state()
        checked = 0
        while not state.is_terminal() and checked < 40:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            seat = rng.randrange(players)
            twin = state.clone()
            twin.core.game = permuted(state.core.game, seat, rng)
            for method in (
                "information_state_tensor",
                "observation_tensor",
                "information_state_string",
                "observation_string",
            ):
                assert getattr(state, method)(seat) == getattr(twin, method)(seat), method
            checked += 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        assert checked == 40


def batch_observation(env: Any, game: Game) -> Any:
    """``BatchEnv``'s observation of ``game`` for the seat to move: the game put into
    slot 0 and followed from the start of its round, as after a deal."""
    env.sessions[0].game = game
    env._slots[0].round = None
    env._advance(None)
    return env._output()[0][0]


@pytest.mark.parametrize(("rules", "players"), CONFIGS)
def test_batch_observation_ignores_the_cards_the_seat_to_move_cannot_see(
    rules: str, players: int
) -> None:
    from maumau.env.batch import BatchEnv

    env = BatchEnv(1, rules, players, seed=0)
    env.reset()
    rng = random.Random(5)
    changed = 0
    for game, _seat in positions(rules, players, seed=9):
        seat = game.to_move
        other = permuted(game, seat, rng)
        hidden = [h for s, h in enumerate(game.round.hands) if s != seat]
        changed += [h for s, h in enumerate(other.round.hands) if s != seat] != hidden
        seen = batch_observation(env, game)
        assert np.array_equal(seen, encode(game.view(seat)))
        assert np.array_equal(seen, batch_observation(env, other))
    assert changed > 20  # the permutations did change what the seat cannot see


def test_the_batch_observation_does_see_the_own_hand() -> None:
    """The check above could not pass by encoding nothing: swapping the cards of the
    seat to move with hidden ones changes its batch observation."""
    from maumau.env.batch import BatchEnv

    env = BatchEnv(1, "standard", 2, seed=0)
    env.reset()
    game, _seat = positions("standard", 2, seed=3)[5]
    seat = game.to_move
    other = permuted(game, 1 - seat, random.Random(2))  # permutes ``seat``'s hand
    assert other.round.hands[seat] != game.round.hands[seat]
    assert not np.array_equal(batch_observation(env, game), batch_observation(env, other))
