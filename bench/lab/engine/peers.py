"""The peer engines: ``bench/peers.py --serve`` under another interpreter, run in turn
with our own runs, and the ratios ours / peer."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from dataclasses import dataclass
from typing import Any

from lab.engine.runs import (
    Budget,
    Config,
    Report,
    copy_run,
    load_playout,
    median_of,
    playout_run,
    public_api_run,
    sample_states,
)
from lab.paths import ROOT
from maumau.engine import Game, Round

#: the peers' side (it does not import maumau)
PEERS_SCRIPT = ROOT / "bench" / "peers.py"


class PeerError(Exception):
    pass


class PeerProcess:
    """``bench/peers.py --serve`` under another interpreter: one request per run."""

    def __init__(self, python: str) -> None:
        script = PEERS_SCRIPT
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
    print(f"peers: starting {python} {PEERS_SCRIPT} --serve", flush=True)
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
