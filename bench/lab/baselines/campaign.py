"""Playing the campaign: every table of agent kinds, every deal once per seat rotation.

A *table* is a tuple of agent kinds, one entry each (heads-up: every pair of kinds;
4-seat: every set of four kinds).  The deal blocks, seatings and finishing orders are
:mod:`maumau.eval.duplicate`'s (the method every ``maumau.eval`` suite uses); this
module chooses the tables, resolves the kinds and spreads the blocks over processes.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from lab.baselines.agents import make_agent
from maumau.engine import Rules
from maumau.eval import duplicate
from maumau.eval.duplicate import Outcome, deal_seed, finishing_order, seating

__all__ = [
    "BlockJob",
    "Outcome",
    "deal_seed",
    "finishing_order",
    "play_block",
    "run_campaign",
    "seating",
    "tables_of",
]


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


def play_block(job: BlockJob) -> list[Outcome]:
    """The ``n`` matches of one deal block of one table (as
    :func:`maumau.eval.duplicate.play_block` plays them)."""
    return duplicate.play_block(
        job.kinds,
        lambda entry, seed: make_agent(job.kinds[entry], seed),
        job.rules,
        job.seed,
        job.table,
        job.block,
    )


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
