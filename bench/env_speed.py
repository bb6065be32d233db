#!/usr/bin/env python3
"""Environment steps per CPU-second with random masked actions: ``BatchEnv`` (batched),
``maumau_v0`` (PettingZoo), ``MauMauGym`` (Gymnasium), and, side by side in the same
run, RLCard's ``uno`` environment loop, OpenSpiel's ``crazy_eights`` stepped from
Python and PettingZoo's own classic card games (under ``--peers-python``, an
interpreter with rlcard, open-spiel and PettingZoo's classic games; see
bench/README.md).

    uv run python bench/env_speed.py --seconds 3 --peers-python $PEERS_VENV/bin/python

A script, not a test.  Every figure is in CPU time (``time.process_time`` of the
process that runs the loop), the median of ``--reps`` runs; ours and the peers'
alternate run by run.  A ``BatchEnv`` row counts every game's action (``num_envs`` a
step) and is measured after a warm-up of one measure, so that its games are at every
stage of a game, not all at the cheap start.  The loops are in ``bench/env_loops.py``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from env_loops import Rate, gymnasium_loop, null_env, pettingzoo_loop
from maumau.env.batch import BatchEnv, random_actions

HERE = Path(__file__).resolve().parent
GOAL = 3.0  # BatchEnv, times RLCard's uno environment loop (issue 33)
BATCH = "BatchEnv standard 2p, 256 games"
UNO = "rlcard uno (env.step)"
SPIEL = "openspiel crazy_eights 2p (pyspiel)"


class BatchLoop:
    """A ``BatchEnv`` stepped with random legal actions; it keeps its games from run to
    run, and warms up for the first run's length before its first measure."""

    def __init__(self, num_envs: int, rules: str, players: int, **options: Any) -> None:
        self.args = (num_envs, rules, players)
        self.options = options
        self.env: BatchEnv | None = None
        self.mask = np.zeros((0, 0), dtype=np.bool_)

    def __call__(self, seconds: float, seed: int) -> Rate:
        rng = np.random.default_rng(seed)
        if self.env is None:
            num_envs, rules, players = self.args
            self.env = BatchEnv(num_envs, rules, players, seed=1, **self.options)
            self.mask = self.env.reset()[1]
            self.run(seconds, rng)
        return self.run(seconds, rng)

    def run(self, seconds: float, rng: np.random.Generator) -> Rate:
        env = self.env
        assert env is not None
        mask = self.mask
        steps = 0
        clock = time.process_time
        t0 = clock()
        deadline = t0 + seconds
        while clock() < deadline:
            _obs, mask, _to_move, _rewards, _done = env.step(random_actions(mask, rng))
            steps += env.num_envs
        self.mask = mask
        spent = clock() - t0
        return {"steps_per_s": steps / spent, "steps": steps, "seconds": spent}


BATCHES = {
    BATCH: BatchLoop(256, "standard", 2),
    "BatchEnv standard 2p, 1024 games": BatchLoop(1024, "standard", 2),
    "BatchEnv standard 2p, 256, copy=False": BatchLoop(256, "standard", 2, copy=False),
    "BatchEnv penalty-100 4p, 256 games": BatchLoop(256, "penalty-100", 4),
    "BatchEnv standard 2p vs random bot, 256": BatchLoop(256, "standard", 2, opponents=("random",)),
}


def ours(seconds: float, seed: int) -> dict[str, Rate]:
    from maumau.env import maumau_v0
    from maumau.env.gym import MauMauGym

    def aec(rules: str, players: int, wrapped: bool = True) -> Callable[[], Any]:
        make = maumau_v0.env if wrapped else maumau_v0.raw_env
        return lambda: make(rules=rules, players=players)

    rates = {name: loop(seconds, seed) for name, loop in BATCHES.items()}
    return rates | {
        "maumau_v0 standard 2p": pettingzoo_loop(aec("standard", 2), seed, seconds),
        "maumau_v0 standard 4p": pettingzoo_loop(aec("standard", 4), seed, seconds),
        "maumau_v0 penalty-100 4p": pettingzoo_loop(aec("penalty-100", 4), seed, seconds),
        "maumau_v0 standard 2p, raw_env": pettingzoo_loop(
            aec("standard", 2, wrapped=False), seed, seconds
        ),
        "MauMauGym standard vs random": gymnasium_loop(
            MauMauGym(rules="standard", opponents=("random",)), seed, seconds
        ),
        # the API's own cost: an environment that plays no game, same observation sizes
        "null AEC env (no game), wrapped": pettingzoo_loop(null_env, seed, seconds),
        "null AEC env (no game), raw": pettingzoo_loop(lambda: null_env(False), seed, seconds),
    }


def peers(python: str, seconds: float, seed: int) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(HERE / "env_loops.py"), "--serve", str(seconds), str(seed)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"errors": {"peers": done.stderr.strip()[-500:]}, "rates": {}}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measure and run")
    parser.add_argument("--reps", type=int, default=3, help="runs per measure (the median)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peers-python", help="an interpreter with rlcard and pettingzoo")
    parser.add_argument("--json", help="write every figure to this file too")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.reps < 1:
        parser.error("--seconds must be > 0 and --reps >= 1")
    runs: dict[str, list[float]] = {}
    info: dict[str, Any] = {"python": platform.python_version(), "peer_errors": {}}
    for rep in range(args.reps):
        for name, rate in ours(args.seconds, args.seed + rep).items():
            runs.setdefault(name, []).append(rate["steps_per_s"])
        if args.peers_python:
            found = peers(args.peers_python, args.seconds, args.seed + rep)
            info["peer_errors"].update(found.get("errors", {}))
            for key in ("rlcard_version", "pettingzoo_version"):
                if key in found:
                    info[key] = found[key]
            for name, rate in found["rates"].items():
                runs.setdefault(name, []).append(rate["steps_per_s"])
    medians = {name: statistics.median(values) for name, values in runs.items()}
    uno = medians.get(UNO)
    spiel = medians.get(SPIEL)
    print(f"{'environment (steps per CPU-second)':42} {'steps/s':>10}  {'x uno':>6}  {'x c8':>6}")
    for name, value in medians.items():
        ratio = f"{value / uno:6.2f}" if uno else "     -"
        versus = f"{value / spiel:6.2f}" if spiel else "     -"
        print(f"{name:42} {value:10,.0f}  {ratio}  {versus}")
    print("(x c8: times OpenSpiel's crazy_eights stepped from Python)")
    if uno:
        batch = medians[BATCH]
        verdict = "met" if batch >= GOAL * uno else "not met"
        print(f"goal: {BATCH} >= {GOAL:.0f}x RLCard's uno env loop: {verdict} ({batch / uno:.2f}x)")
        floor = medians.get("null AEC env (no game), wrapped")
        best = medians["maumau_v0 standard 2p"]
        if floor:
            print(
                f"the AEC API's own floor (an environment that plays no game, wrapped as "
                f"env() is): {floor / uno:.2f}x uno; maumau_v0 runs at {best / floor:.0%} of it"
            )
    for name, error in info["peer_errors"].items():
        print(f"(peer {name} not measured: {error})", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"medians": medians, "runs": runs, **info}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
