"""The sections of the benchmark: each measurement over the presets and player counts,
every figure the median of its runs."""

from __future__ import annotations

import functools
import inspect
import statistics
from collections.abc import Callable, Sequence
from typing import cast

from lab.engine.runs import (
    Budget,
    Config,
    Playout,
    Report,
    copy_run,
    load_playout,
    median_of,
    playout_run,
    public_api_run,
    sample_states,
)
from maumau.engine import Game, Round


def measure_public_api(configs: Sequence[Config], budget: Budget, report: Report) -> None:
    for preset, players in configs:
        runs = [
            public_api_run(preset, players, budget.seed + rep, budget) for rep in range(budget.reps)
        ]
        row = {"preset": preset, "players": players, **median_of(runs)}
        report.public_api.append(row)
        print(
            f"public API  {preset:12} {players}p: {row['actions_per_s']:>11,.0f} player act/s "
            f"{row['games_per_s']:>9,.1f} games/s",
            flush=True,
        )


def measure_copy(
    configs: Sequence[Config], budget: Budget, report: Report, inner: int
) -> dict[Config, list[Round]]:
    """The copy section; returns the sampled mid-round states for the playout section."""
    samples: dict[Config, list[Round]] = {}
    for preset, players in configs:
        states = sample_states(preset, players, budget.states, budget.seed)
        samples[preset, players] = states
        runs = [copy_run(states, inner) for _ in range(budget.reps)]
        row = {
            "preset": preset,
            "players": players,
            "states": len(states),
            "mean_log": statistics.mean(len(s.log) for s in states),
            **median_of(runs),
        }
        report.copy.append(row)
        print(
            f"state copy  {preset:12} {players}p: copy() {row['copy_us']:.2f} µs, "
            f"copy(rng, history=False) {row['copy_rng_nohist_us']:.2f} µs",
            flush=True,
        )
    return samples


def measure_playout(
    configs: Sequence[Config],
    budget: Budget,
    report: Report,
    samples: dict[Config, list[Round]],
    eager: bool = False,
) -> None:
    random_playout = load_playout()
    if random_playout is None:
        report.notes.append(
            "maumau.engine.playout.random_playout is not importable yet: playout section skipped"
        )
        return
    if eager and "eager" not in inspect.signature(random_playout).parameters:
        report.notes.append("random_playout has no eager option: --eager ignored")
        eager = False
    for preset, players in configs:
        fresh = [
            Game.new(preset, players=players, seed=budget.seed * 100_003 + i).round
            for i in range(200)
        ]
        mid = [s.copy(history=False) for s in samples[preset, players]]
        variants: list[tuple[str, list[Round], Playout]] = [
            ("fresh", fresh, random_playout),
            ("mid-round", mid, random_playout),
        ]
        if eager:
            variants.append(
                (
                    "fresh, eager",
                    fresh,
                    functools.partial(cast(Callable[..., int], random_playout), eager=True),
                )
            )
        for start, starts, playout in variants:
            runs = [
                playout_run(playout, starts, budget.seed + rep, budget)
                for rep in range(budget.reps)
            ]
            row = {"preset": preset, "players": players, "start": start, **median_of(runs)}
            report.playout.append(row)
            print(
                f"playout     {preset:12} {players}p {start:12}: "
                f"{row['actions_per_s']:>11,.0f} player act/s",
                flush=True,
            )
