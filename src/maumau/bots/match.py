"""Playing a whole match between bots: every round, to the game's result."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from maumau.bots.base import Bot
from maumau.engine import Game, Rules


@dataclass(slots=True)
class MatchResult:
    """The outcome of one match, seat by seat."""

    winners: tuple[int, ...]
    draw: bool
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    rounds: int
    #: decision times in seconds, one list per seat
    times: list[list[float]] = field(default_factory=list)


def round_seeds(seed: int) -> random.Random:
    """The generator of a match's round seeds (each round: ``getrandbits(63)``)."""
    return random.Random(f"maumau-match-{seed}")


def play_match(
    bots: Sequence[Bot],
    rules: Rules,
    seed: int,
    names: Sequence[str] | None = None,
    max_rounds: int = 500,
) -> tuple[MatchResult, Game]:
    """Play a full match; bot ``i`` sits in seat ``i``.  Returns the result and the game
    (whose record can be written with :func:`maumau.engine.record.record_of`)."""
    n = len(bots)
    game = Game(rules, list(names) if names is not None else [b.level for b in bots])
    seeds = round_seeds(seed)
    times: list[list[float]] = [[] for _ in range(n)]
    while not game.finished and len(game.rounds) < max_rounds:
        game.deal(seeds.getrandbits(63))
        play_round(game, bots, times)
    return (
        MatchResult(
            winners=game.winners or (),
            draw=game.draw,
            totals=tuple(game.totals),
            rounds_won=tuple(game.rounds_won),
            rounds=len(game.rounds),
            times=times,
        ),
        game,
    )


def play_round(game: Game, bots: Sequence[Bot], times: list[list[float]] | None = None) -> None:
    """Play the round just dealt in ``game`` to its end; bot ``i`` sits in seat ``i``.
    Each decision's time in seconds is appended to ``times[seat]`` when given."""
    clock = time.perf_counter
    while not game.round_over:
        seat = game.to_move
        view = game.view(seat)
        legal = game.legal_actions(seat)
        start = clock()
        action = bots[seat].choose(view, legal)
        if times is not None:
            times[seat].append(clock() - start)
        game.apply(action, seat)
        if game.round.catchable >= 0 and not game.round_over:
            _offer_catches(game, bots, seat)


def _offer_catches(game: Game, bots: Sequence[Bot], actor: int) -> None:
    """After a missed call, every other bot in seat order may catch it (the first wins)."""
    n = len(bots)
    for step in range(1, n + 1):
        seat = (actor + step) % n
        if seat == game.to_move:
            continue  # the seat to move decides in its own turn (catch or act)
        legal = game.legal_actions(seat)
        if not legal:
            continue
        action = bots[seat].react(game.view(seat), legal)
        if action is not None:
            game.apply(action, seat)
            return
