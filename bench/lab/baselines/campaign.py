"""Playing the campaign: every table of agent kinds, every deal once per seat rotation.

A *table* is a tuple of agent kinds, one entry each (heads-up: every pair of kinds;
4-seat: every set of four kinds).  A *deal block* is one deal seed played ``n`` times,
with the entries rotated one seat further each time, so every entry sits in every seat
and is dealt every seat's cards once (duplicate deals: luck of the cards evens out
within a block).  Matches are whole matches (``maumau.bots.match.play_match``) under the
campaign's rules.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from lab.baselines.agents import make_agent
from maumau.bots.match import play_match
from maumau.engine import Rules


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


@dataclass(frozen=True, slots=True)
class BlockJob:
    table: int
    kinds: tuple[str, ...]
    block: int
    rules: Rules
    seed: int


def tables_of(kinds: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every set of ``seats`` different kinds, in the order the kinds are given."""
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"a kind is given twice: {', '.join(kinds)}")
    return list(combinations(kinds, seats))


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


def deal_seed(seed: int, table: int, block: int) -> int:
    """The seed of a block's match (the round seeds follow from it): the same for every
    rotation of the block, so each rotation is dealt the same cards seat by seat."""
    return random.Random(f"baselines-deals-{seed}-{table}-{block}").getrandbits(63)


def play_block(job: BlockJob) -> list[Outcome]:
    """The ``n`` matches of one deal block of one table."""
    n = len(job.kinds)
    tag = f"{job.seed}-{job.table}-{job.block}"
    dealt = deal_seed(job.seed, job.table, job.block)
    out = []
    for rotation in range(n):
        entry_of_seat = seating(n, rotation)
        rng = random.Random(f"baselines-bots-{tag}-{rotation}")
        bots = [make_agent(job.kinds[e], rng.getrandbits(63)) for e in entry_of_seat]
        names = [f"{job.kinds[e]}#{e}" for e in entry_of_seat]
        result, game = play_match(bots, job.rules, dealt, names)
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
                job.table,
                job.block,
                rotation,
                job.kinds,
                tuple(score),
                tuple(points),
                finishing_order(score, points, won, rng),
                result.rounds,
                tuple(decisions),
                tuple(seconds),
            )
        )
    return out


def run_campaign(
    tables: Sequence[tuple[str, ...]],
    blocks: int,
    rules: Rules,
    seed: int = 1,
    jobs: int = 1,
    first_table: int = 0,
    on_block: Callable[[list[Outcome]], None] | None = None,
    done: Collection[tuple[int, int]] = (),
) -> list[Outcome]:
    """Play ``blocks`` deal blocks of every table; tables are numbered from
    ``first_table`` (so heads-up and 4-seat tables of one campaign get distinct deals).
    The same arguments give the same outcomes whatever ``jobs`` is, so the blocks in
    ``done`` (``(table, block)`` pairs, from a run that was stopped) are left out."""
    for kinds in tables:
        rules.check_players(len(kinds))
        for kind in kinds:
            make_agent(kind, 0)  # refuse an unknown or unavailable kind before playing
    work = [
        BlockJob(first_table + t, kinds, b, rules, seed)
        for t, kinds in enumerate(tables)
        for b in range(blocks)
        if (first_table + t, b) not in done
    ]
    outcomes: list[Outcome] = []
    for block in _run(work, jobs):
        outcomes.extend(block)
        if on_block is not None:
            on_block(block)
    outcomes.sort(key=lambda o: (o.table, o.block, o.rotation))
    return outcomes


def _run(work: list[BlockJob], jobs: int) -> Iterator[list[Outcome]]:
    if jobs <= 1:
        yield from map(play_block, work)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap_unordered(play_block, work, chunksize=1)
