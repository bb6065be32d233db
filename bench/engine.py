#!/usr/bin/env python3
"""Engine benchmark: random legal play, state copies and random playouts.

Run from the repository root (see ``bench/README.md``)::

    uv run python bench/engine.py                     # the full run, 2-3 minutes
    uv run python bench/engine.py --quick             # a smoke run of a few seconds
    uv run python bench/engine.py --peers-python $PEERS_VENV/bin/python --json out.json

Sections, each for 2 and 4 players and the ``standard`` and ``penalty-100`` presets,
every figure the median of ``--reps`` runs (3 by default), all from fixed seeds:

1. **Public API**: the loop a library user writes -- ``Game.new(preset, players, seed)``,
   then ``legal_actions()`` / ``apply()`` with a uniformly random choice until the
   round is over, ``deal(next_seed)`` until the game is finished.  ``standard`` is one
   round per game; ``penalty-100`` plays whole multi-round games (games/s and
   rounds/s).  The time includes ``Game.new``, the deals and the random choice.
2. **State copy**: ``Round.copy()`` in µs over many random mid-round states, also
   ``copy(history=False)`` and ``copy(rng, history=False)`` (a generator made once and
   passed in, as a bot does), plus ``legal_actions()`` on the same states.
3. **Random playout**: ``maumau.engine.playout.random_playout`` from freshly dealt
   rounds and from random mid-round positions, as player actions/s with the state copy
   (``copy(rng, history=False)``) outside the timed part; the copy cost is reported
   apart, and the rate with it included.
4. **Peers** (only with ``--peers-python``): ``bench/peers.py --serve`` runs in that
   interpreter (OpenSpiel ``crazy_eights``, RLCard ``uno``); our runs and the peer runs
   alternate one by one, and each our/peer ratio is the median of the per-run ratios.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import inspect
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

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


PRESETS = ("standard", "penalty-100")
PLAYERS = (2, 4)
#: targets in player actions/s, printed next to the 4-player standard figures
TARGET_PUBLIC_API = 250_000
TARGET_PLAYOUT = 600_000
TARGET_CONFIG = ("standard", 4)
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


# --- 1. the public API loop ----------------------------------------------------------


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


# --- 2. state copies -----------------------------------------------------------------


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


# --- 3. random playouts --------------------------------------------------------------


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


# --- 4. peers ------------------------------------------------------------------------


class PeerError(Exception):
    pass


class PeerProcess:
    """``bench/peers.py --serve`` under another interpreter: one request per run."""

    def __init__(self, python: str) -> None:
        script = Path(__file__).with_name("peers.py")
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        self.proc = subprocess.Popen(
            [python, str(script), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.info: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise PeerError(f"the peer process ended (exit code {self.proc.wait()})")
        try:
            answer: dict[str, Any] = json.loads(line)
        except ValueError as exc:
            raise PeerError(f"unreadable answer from the peer process: {line[:300]!r}") from exc
        return answer

    def run(self, measure: str, seed: int, budget: Budget) -> dict[str, float]:
        assert self.proc.stdin is not None
        request = {
            "measure": measure,
            "seed": seed,
            "seconds": budget.seconds,
            "games": budget.games,
            "states": budget.states,
        }
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise PeerError(f"the peer process is gone: {exc}") from exc
        answer = self._read()
        if "error" in answer:
            raise PeerError(str(answer["error"]))
        result: dict[str, float] = answer["ok"]
        return result

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass(frozen=True)
class Ratio:
    what: str
    ours: str  # key of our figure in a rep
    peer: str  # key of the peer figure in a rep
    inverse: bool = False  # a cost (µs): ratio = peer / ours


RATIOS = (
    Ratio("public API 4p / OpenSpiel py loop 4p", "api_4p", "openspiel_py"),
    Ratio("playout 4p / OpenSpiel py loop 4p", "playout_4p", "openspiel_py"),
    Ratio("playout 4p / OpenSpiel C++ loop 4p", "playout_4p", "openspiel_cpp"),
    Ratio("public API 2p / RLCard uno game.step 2p", "api_2p", "rlcard_uno_2p"),
    Ratio("public API 4p / RLCard uno game.step 4p", "api_4p", "rlcard_uno_4p"),
    Ratio(
        "copy(rng, history=False) µs vs OpenSpiel clone() µs, 4p",
        "copy_4p",
        "openspiel_clone",
        inverse=True,
    ),
)


def measure_peers(
    python: str,
    budget: Budget,
    report: Report,
    samples: dict[Config, list[Round]],
    inner: int,
) -> None:
    """Our figures for the ratios and the peers' runs, alternating run by run, so that a
    change in the machine's load hits both sides of a ratio alike."""
    print(f"peers: starting {python} {Path(__file__).with_name('peers.py')} --serve", flush=True)
    try:
        peer = PeerProcess(python)
    except (OSError, PeerError) as exc:
        report.peers = {"info": {"executable": python}, "errors": {"start": str(exc)}}
        return
    errors: dict[str, str] = dict(peer.info.get("errors") or {})
    playout = load_playout()
    fresh4 = [
        Game.new("standard", players=4, seed=budget.seed * 100_003 + i).round for i in range(200)
    ]
    states4 = samples.get(("standard", 4)) or sample_states(
        "standard", 4, budget.states, budget.seed
    )
    peer_runs: dict[str, list[dict[str, float]]] = {}
    reps: list[dict[str, float]] = []

    def ask(measure: str, seed: int, rep: dict[str, float]) -> None:
        engine = "openspiel" if measure.startswith("openspiel") else "rlcard"
        if engine in errors:
            return
        try:
            run = peer.run(measure, seed, budget)
        except PeerError as exc:
            errors[engine] = str(exc)
            return
        peer_runs.setdefault(measure, []).append(run)
        rep[measure] = run["clone_us"] if "clone_us" in run else run["player_actions_per_s"]

    try:
        for i in range(budget.reps):
            seed = budget.seed + i
            rep: dict[str, float] = {}
            rep["api_4p"] = public_api_run("standard", 4, seed, budget)["actions_per_s"]
            ask("openspiel_py", seed, rep)
            if playout is not None:
                rep["playout_4p"] = playout_run(playout, fresh4, seed, budget)["actions_per_s"]
            ask("openspiel_cpp", seed, rep)
            rep["api_2p"] = public_api_run("standard", 2, seed, budget)["actions_per_s"]
            ask("rlcard_uno_2p", seed, rep)
            ask("rlcard_uno_4p", seed, rep)
            rep["copy_4p"] = copy_run(states4, inner)["copy_rng_nohist_us"]
            ask("openspiel_clone", seed, rep)
            reps.append(rep)
            shown = ", ".join(f"{k} {v:,.2f}" for k, v in rep.items())
            print(f"peers rep {i}: {shown}", flush=True)
    finally:
        peer.close()
    report.peers = {
        "info": peer.info,
        "errors": errors,
        "medians": {name: median_of(runs) for name, runs in peer_runs.items()},
        "runs": peer_runs,
        "paired_reps": reps,
    }
    for ratio in RATIOS:
        paired = [r for r in reps if ratio.ours in r and ratio.peer in r]
        if not paired:
            continue
        per_rep = [
            r[ratio.peer] / r[ratio.ours] if ratio.inverse else r[ratio.ours] / r[ratio.peer]
            for r in paired
        ]
        report.ratios.append(
            {
                "what": ratio.what,
                "ours": statistics.median(r[ratio.ours] for r in paired),
                "peer": statistics.median(r[ratio.peer] for r in paired),
                "ratio": statistics.median(per_rep),
                "per_rep": per_rep,
            }
        )


# --- output --------------------------------------------------------------------------


def fmt(value: Any, digits: int = 0) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain text table: the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def target_cell(preset: str, players: int, value: float, target: int) -> str:
    if (preset, players) != TARGET_CONFIG:
        return ""
    verdict = "ok" if value >= target else "MISSED"
    return f">= {target:,} {verdict}"


def print_report(report: Report, budget: Budget) -> None:
    meta = report.meta
    runs = f"{budget.reps} run" + ("s" if budget.reps != 1 else "")
    size = f"{budget.games} games" if budget.games is not None else f"{budget.seconds:g} s"
    print()
    print(
        f"Mau Mau engine benchmark -- Python {meta['python']} on {meta['machine']}, "
        f"{meta['cpus']} CPUs; each figure the median of {runs} of {size}"
    )
    print()
    print("Public API loop (Game.new, legal_actions, apply with a random choice, deal)")
    rows = [
        [
            r["preset"],
            str(r["players"]),
            fmt(r["games_per_s"]),
            fmt(r["rounds_per_s"]),
            fmt(r["actions_per_s"]),
            fmt(r["actions_per_game"], 1),
            fmt(r["actions_per_round"], 1),
            target_cell(r["preset"], r["players"], r["actions_per_s"], TARGET_PUBLIC_API),
        ]
        for r in report.public_api
    ]
    heads = ["preset", "players", "games/s", "rounds/s", "player act/s", "act/game"]
    print(table([*heads, "act/round", "target"], rows, left=2))
    print()
    if report.copy:
        r0 = report.copy[0]
        print(
            f"State copy and legal actions, µs per call over {r0['states']} random "
            f"mid-round states per row (copy(rng, ...) gets one Random(1) made beforehand; "
            f"loop overhead ~{r0['empty_call_us']:.2f} µs not subtracted)"
        )
        rows = [
            [
                r["preset"],
                str(r["players"]),
                fmt(r["mean_log"], 1),
                fmt(r["copy_us"], 2),
                fmt(r["copy_nohist_us"], 2),
                fmt(r["copy_rng_nohist_us"], 2),
                fmt(r["legal_actions_us"], 2),
            ]
            for r in report.copy
        ]
        heads = ["preset", "players", "log len", "copy()", "copy(history=False)"]
        print(table([*heads, "copy(rng, history=False)", "legal_actions()"], rows, left=2))
        print()
    if report.playout:
        print(
            "Random playout (maumau.engine.playout.random_playout), player actions/s with "
            "the copy(rng, history=False) before each playout outside the timing"
        )
        rows = [
            [
                r["preset"],
                str(r["players"]),
                r["start"],
                fmt(r["playouts_per_s"]),
                fmt(r["actions_per_s"]),
                fmt(r["actions_per_playout"], 1),
                fmt(r["copy_us"], 2),
                fmt(r["actions_per_s_with_copy"]),
                target_cell(r["preset"], r["players"], r["actions_per_s"], TARGET_PLAYOUT)
                if r["start"] == "fresh"
                else "",
            ]
            for r in report.playout
        ]
        heads = ["preset", "players", "from", "playouts/s", "player act/s", "act/playout"]
        print(table([*heads, "copy µs", "act/s incl. copy", "target"], rows, left=3))
        print()
    for note in report.notes:
        print(f"note: {note}")
    if report.notes:
        print()
    if report.peers is not None:
        print_peers(report)


def print_peers(report: Report) -> None:
    peers = report.peers or {}
    info = peers.get("info") or {}
    medians = peers.get("medians") or {}
    print(
        f"Peers, run by {info.get('executable', '?')} (Python {info.get('python', '?')}, "
        f"open-spiel {info.get('open_spiel_version', '-')}, "
        f"rlcard {info.get('rlcard_version', '-')}); random legal play, medians"
    )
    names = {
        "openspiel_py": ("OpenSpiel crazy_eights, special cards", "Python loop", 4),
        "openspiel_cpp": ("OpenSpiel crazy_eights, special cards", "C++ evaluate_bots", 4),
        "rlcard_uno_2p": ("RLCard uno", "raw game.step loop", 2),
        "rlcard_uno_4p": ("RLCard uno", "raw game.step loop", 4),
    }
    rows = [
        [
            engine,
            loop,
            str(players),
            fmt(r["games_per_s"]),
            fmt(r["player_actions_per_s"]),
            fmt(r["player_actions_per_game"], 1),
            fmt(r["chance_actions_per_game"], 1),
        ]
        for key, (engine, loop, players) in names.items()
        if (r := medians.get(key))
    ]
    if rows:
        heads = ["engine", "loop", "players", "games/s", "player act/s", "player act/game"]
        print(table([*heads, "chance act/game"], rows, left=2))
    if "openspiel_clone" in medians:
        print(f"OpenSpiel state.clone(): {medians['openspiel_clone']['clone_us']:.2f} µs (4p)")
    for name, error in (peers.get("errors") or {}).items():
        print(f"peer {name} failed: {error}")
    print()
    if report.ratios:
        print(
            "Ratios ours/peer (> 1: ours is faster), each the median of the per-run ratios; "
            "ours = standard preset, measured in turn with the peer runs (not the tables above)"
        )
        rows = [
            [
                r["what"],
                fmt(r["ours"], 2 if r["ours"] < 100 else 0),
                fmt(r["peer"], 2 if r["peer"] < 100 else 0),
                f"{r['ratio']:.2f}x",
                " ".join(f"{x:.2f}" for x in r["per_rep"]),
            ]
            for r in report.ratios
        ]
        print(table(["comparison", "ours", "peer", "ratio", "per run"], rows))
        print()


# --- running the sections --------------------------------------------------------------


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


# --- main ----------------------------------------------------------------------------


def profile_public_api(budget: Budget, top: int) -> None:
    """cProfile the public-API loop, 4 players standard, and print the top entries."""
    preset, players = TARGET_CONFIG
    profiler = cProfile.Profile()
    profiler.enable()
    public_api_run(preset, players, budget.seed, budget)
    profiler.disable()
    print(f"cProfile of the public API loop ({preset}, {players} players), by own time:")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Benchmark the Mau Mau engine (and optionally peer engines).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ap.add_argument(
        "--seconds", type=float, default=None, help="time budget of one run (default 2, quick 0.1)"
    )
    ap.add_argument(
        "--games", type=int, default=None, help="games (playouts) per run, instead of --seconds"
    )
    ap.add_argument("--reps", type=int, default=None, help="runs per figure (default 3)")
    ap.add_argument("--states", type=int, default=None, help="mid-round states (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets")
    ap.add_argument("--players", default="2,4", help="comma-separated player counts")
    ap.add_argument(
        "--peers-python",
        metavar="PATH",
        help="a Python interpreter with open-spiel and rlcard: also run the peer engines",
    )
    ap.add_argument(
        "--eager",
        action="store_true",
        help="also time random_playout(..., eager=True) from fresh rounds",
    )
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    ap.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="instead, cProfile the public API loop (4p standard) and print the top N",
    )
    args = ap.parse_args(argv)
    budget = Budget(
        seconds=args.seconds if args.seconds is not None else (0.1 if args.quick else 2.0),
        games=args.games,
        reps=args.reps if args.reps is not None else (1 if args.quick else 3),
        states=args.states if args.states is not None else (200 if args.quick else 2000),
        seed=args.seed,
    )
    if args.profile:
        profile_public_api(budget, args.profile)
        return 0
    presets = [p for p in args.presets.split(",") if p]
    player_counts = [int(p) for p in args.players.split(",") if p]
    configs = [(p, n) for p in presets for n in player_counts]
    report = Report(
        meta={
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "machine": f"{platform.system()} {platform.machine()}",
            "cpus": os.cpu_count(),
            "seconds": budget.seconds,
            "games": budget.games,
            "reps": budget.reps,
            "states": budget.states,
            "seed": budget.seed,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
    )
    measure_public_api(configs, budget, report)
    inner = 5 if args.quick else 20
    samples = measure_copy(configs, budget, report, inner)
    measure_playout(configs, budget, report, samples, eager=args.eager)
    if args.peers_python:
        measure_peers(args.peers_python, budget, report, samples, inner)
    else:
        report.notes.append(
            "peers not run: pass --peers-python PATH (an interpreter with open-spiel and "
            "rlcard, see bench/README.md) to measure OpenSpiel and RLCard in the same run"
        )

    print_report(report, budget)
    if args.json:
        data = {
            "meta": report.meta,
            "public_api": report.public_api,
            "copy": report.copy,
            "playout": report.playout,
            "peers": report.peers,
            "ratios": report.ratios,
            "notes": report.notes,
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
