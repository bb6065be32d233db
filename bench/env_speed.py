#!/usr/bin/env python3
"""Environment steps per second with random masked actions: ``maumau_v0`` (PettingZoo),
``MauMauGym`` (Gymnasium), and, side by side in the same run, RLCard's ``uno``
environment loop and PettingZoo's own classic card games (under ``--peers-python``, an
interpreter with rlcard and PettingZoo's classic games; see bench/README.md).

    uv run python bench/env_speed.py --seconds 3 --peers-python $PEERS_VENV/bin/python

A script, not a test.  Every figure is the median of ``--reps`` runs; ours and the
peers' alternate run by run.  The loops are in ``bench/env_loops.py``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from env_loops import Rate, gymnasium_loop, null_env, pettingzoo_loop

HERE = Path(__file__).resolve().parent
GOAL = 5.0  # times RLCard's uno environment loop


def ours(seconds: float, seed: int) -> dict[str, Rate]:
    from maumau.env import maumau_v0
    from maumau.env.gym import MauMauGym

    def aec(rules: str, players: int, wrapped: bool = True) -> Callable[[], Any]:
        make = maumau_v0.env if wrapped else maumau_v0.raw_env
        return lambda: make(rules=rules, players=players)

    return {
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
    uno = medians.get("rlcard uno (env.step)")
    print(f"{'environment':36} {'steps/s':>10}  {'x uno':>6}")
    for name, value in medians.items():
        ratio = f"{value / uno:6.1f}" if uno else "     -"
        print(f"{name:36} {value:10,.0f}  {ratio}")
    if uno:
        best = medians["maumau_v0 standard 2p"]
        verdict = "met" if best >= GOAL * uno else "not met"
        print(f"goal: maumau_v0 >= {GOAL:.0f}x RLCard's uno env loop: {verdict}")
        floor = medians.get("null AEC env (no game), wrapped")
        if floor:
            print(
                f"the AEC API's own floor (an environment that plays no game, wrapped as "
                f"env() is): {floor / uno:.1f}x uno; maumau_v0 runs at {best / floor:.0%} of it"
            )
    for name, error in info["peer_errors"].items():
        print(f"(peer {name} not measured: {error})", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"medians": medians, "runs": runs, **info}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
