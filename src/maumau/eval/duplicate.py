"""Duplicate deals with rotated seats: how every evaluation plays its matches.

A *table* is a tuple of entries, one per seat (an entry is a name: an agent kind such
as ``hard:500``, or the policy being evaluated).  A *deal block* is one deal seed played
``n`` times, with the entries rotated one seat further each time, so every entry sits
in every seat and is dealt every seat's cards once (duplicate deals: the luck of the
cards evens out within a block).  Matches are whole matches
(:func:`maumau.bots.match.play_match`) under the table's rules.

Everything is seeded from text (``random.Random(str)`` hashes it with SHA-512), so the
same table, block and seed give the same matches in any process and in any order:
``bench/baselines.py`` (prefix ``baselines``) and each suite of
:mod:`maumau.eval.suites` (prefix: the suite's name) rely on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from maumau.bots import Bot
from maumau.bots.match import play_match
from maumau.engine import Rules

#: makes the bot of one entry of a table: (entry index, seed) -> Bot
MakeBot = Callable[[int, int], Bot]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One match, entry by entry (entry ``i`` is ``kinds[i]``, whatever its seat)."""

    table: int
    block: int
    rotation: int
    kinds: tuple[str, ...]
    #: 1 won, 1/k when k entries share the win, 0 lost
    score: tuple[float, ...]
    #: points left in hand, summed over the match's rounds (lower is better)
    points: tuple[int, ...]
    #: the entries in finishing order, best first
    order: tuple[int, ...]
    rounds: int
    #: per entry: its decisions in the match, and the seconds they took in all (empty
    #: in results files written before these were kept)
    decisions: tuple[int, ...] = ()
    seconds: tuple[float, ...] = field(default=(), compare=False)  # (not reproducible)

    def to_json(self, seconds: bool = False) -> dict[str, Any]:
        """The match as a results file keeps it; ``seconds`` too only if asked (they
        differ from run to run, so a file meant to be reproducible leaves them out)."""
        out: dict[str, Any] = {
            "table": self.table,
            "block": self.block,
            "rotation": self.rotation,
            "kinds": list(self.kinds),
            "score": list(self.score),
            "points": list(self.points),
            "order": list(self.order),
            "rounds": self.rounds,
            "decisions": list(self.decisions),
        }
        if seconds:
            out["seconds"] = list(self.seconds)
        return out


def finishing_order(
    score: Sequence[float], points: Sequence[int], rounds_won: Sequence[int], rng: random.Random
) -> tuple[int, ...]:
    """Entries best first: by match score, then fewer points, then more rounds won; a
    tie that is left is broken by ``rng`` (seeded, so reproducible)."""
    coins = [rng.random() for _ in score]
    return tuple(
        sorted(range(len(score)), key=lambda e: (-score[e], points[e], -rounds_won[e], coins[e]))
    )


def seating(n: int, rotation: int) -> list[int]:
    """The entry in each seat at ``rotation``: over ``n`` rotations every entry sits in
    every seat once."""
    return [(seat + rotation) % n for seat in range(n)]


def deal_seed(seed: int, table: int, block: int, prefix: str = "baselines") -> int:
    """The seed of a block's match (the round seeds follow from it): the same for every
    rotation of the block, so each rotation is dealt the same cards seat by seat."""
    return random.Random(f"{prefix}-deals-{seed}-{table}-{block}").getrandbits(63)


def play_block(
    kinds: tuple[str, ...],
    make: MakeBot,
    rules: Rules,
    seed: int,
    table: int,
    block: int,
    prefix: str = "baselines",
) -> list[Outcome]:
    """The ``n`` matches of one deal block of one table: entry ``e`` is named
    ``kinds[e]`` and played by ``make(e, bot_seed)``, a bot made anew for each match."""
    n = len(kinds)
    tag = f"{seed}-{table}-{block}"
    dealt = deal_seed(seed, table, block, prefix)
    out = []
    for rotation in range(n):
        entry_of_seat = seating(n, rotation)
        rng = random.Random(f"{prefix}-bots-{tag}-{rotation}")
        bots = [make(e, rng.getrandbits(63)) for e in entry_of_seat]
        names = [f"{kinds[e]}#{e}" for e in entry_of_seat]
        result, game = play_match(bots, rules, dealt, names)
        score = [0.0] * n
        points = [0] * n
        won = [0] * n
        decisions = [0] * n
        seconds = [0.0] * n
        for seat, entry in enumerate(entry_of_seat):
            decisions[entry] = len(result.times[seat])
            seconds[entry] = round(sum(result.times[seat]), 6)
            if seat in result.winners:
                score[entry] = 1.0 / len(result.winners)
            points[entry] = sum(r.hand_values[seat] for r in game.results)
            won[entry] = result.rounds_won[seat]
        out.append(
            Outcome(
                table,
                block,
                rotation,
                kinds,
                tuple(score),
                tuple(points),
                finishing_order(score, points, won, rng),
                result.rounds,
                tuple(decisions),
                tuple(seconds),
            )
        )
    return out
