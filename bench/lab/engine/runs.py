"""One run of each measurement (the public API loop, state copies, random playouts), what
a run is given, and what the benchmark reports."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from maumau.engine import Game, Round

Playout = Callable[[Round, random.Random, int], int]
Config = tuple[str, int]  # (preset, players)


def load_playout() -> Playout | None:
    """``random_playout``, or ``None`` while the module does not exist yet."""
    try:
        from maumau.engine.playout import random_playout
    except ImportError:
        return None
    return random_playout


#: chance per action of keeping a mid-round state when sampling (uniform over steps)
SAMPLE_P = 0.05
clock = time.perf_counter


@dataclass
class Budget:
    """How long one run of a measurement lasts: ``games`` if given, else ``seconds``."""

    seconds: float
    games: int | None
    reps: int
    states: int  # mid-round states sampled for the copy and playout sections
    seed: int


@dataclass
class Report:
    meta: dict[str, Any]
    public_api: list[dict[str, Any]] = field(default_factory=list)
    copy: list[dict[str, Any]] = field(default_factory=list)
    playout: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    peers: dict[str, Any] | None = None
    ratios: list[dict[str, Any]] = field(default_factory=list)


def median_of(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each figure the median over the runs (figure by figure)."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def public_api_run(preset: str, players: int, seed: int, budget: Budget) -> dict[str, float]:
    """Play whole games through the public API; counts from ``round.actions``."""
    rng = random.Random(seed)
    rand = rng.random
    game_seed = seed * 1_000_000
    deal_seed = seed * 1_000_003
    games = rounds = actions = 0
    limit = budget.games
    t0 = clock()
    deadline = t0 + budget.seconds
    while True:
        game = Game.new(preset, players=players, seed=game_seed + games)
        while not game.finished:
            while not game.round_over:
                acts = game.legal_actions()
                game.apply(acts[int(rand() * len(acts))])
            actions += len(game.round.actions)
            rounds += 1
            if not game.finished:
                deal_seed += 1
                game.deal(deal_seed)
        games += 1
        if (games >= limit) if limit is not None else (clock() >= deadline):
            break
    dt = clock() - t0
    return {
        "seconds": dt,
        "games": games,
        "games_per_s": games / dt,
        "rounds_per_s": rounds / dt,
        "actions_per_s": actions / dt,
        "actions_per_game": actions / games,
        "actions_per_round": actions / rounds,
        "rounds_per_game": rounds / games,
    }


def sample_states(preset: str, players: int, count: int, seed: int) -> list[Round]:
    """``count`` random mid-round states (with their history), uniform over the steps of
    randomly played rounds; each is an independent ``copy()``."""
    rng = random.Random(seed)
    rand = rng.random
    states: list[Round] = []
    game_seed = seed * 7919
    while len(states) < count:
        game = Game.new(preset, players=players, seed=game_seed)
        game_seed += 1
        state = game.round
        while not game.round_over:
            if rand() < SAMPLE_P:
                states.append(state.copy())
            acts = game.legal_actions()
            game.apply(acts[int(rand() * len(acts))])
    return states[:count]


def per_call_us(states: Sequence[Round], call: Callable[[Round], object], inner: int) -> float:
    t0 = clock()
    for state in states:
        for _ in range(inner):
            call(state)
    return (clock() - t0) / (len(states) * inner) * 1e6


def copy_run(states: Sequence[Round], inner: int) -> dict[str, float]:
    rng = random.Random(1)  # made once and handed in, as a bot does
    return {
        "copy_us": per_call_us(states, lambda s: s.copy(), inner),
        "copy_nohist_us": per_call_us(states, lambda s: s.copy(history=False), inner),
        "copy_rng_nohist_us": per_call_us(states, lambda s: s.copy(rng, history=False), inner),
        "legal_actions_us": per_call_us(states, lambda s: s.legal_actions(), inner),
        "empty_call_us": per_call_us(states, lambda s: None, inner),
    }


def playout_run(
    playout: Playout, starts: Sequence[Round], seed: int, budget: Budget
) -> dict[str, float]:
    """Play copies of ``starts`` (cycled) to the end; only ``playout`` is timed, the
    ``copy(rng, history=False)`` before it is timed apart."""
    rng = random.Random(seed)
    t_play = t_copy = 0.0
    playouts = actions = 0
    limit = budget.games
    n_starts = len(starts)
    while True:
        start = starts[playouts % n_starts]
        t0 = clock()
        state = start.copy(rng, history=False)
        t1 = clock()
        actions += playout(state, rng, 1_000_000)
        t2 = clock()
        del state  # freed here, not inside the next copy's timing
        t_copy += t1 - t0
        t_play += t2 - t1
        playouts += 1
        if (playouts >= limit) if limit is not None else (t_play + t_copy >= budget.seconds):
            break
    return {
        "seconds": t_play,
        "playouts": playouts,
        "actions_per_s": actions / t_play,
        "actions_per_s_with_copy": actions / (t_play + t_copy),
        "playouts_per_s": playouts / t_play,
        "actions_per_playout": actions / playouts,
        "copy_us": t_copy / playouts * 1e6,
    }
