#!/usr/bin/env python3
"""Peer-engine throughput, run by ``bench/engine.py --peers-python PATH`` in a subprocess.

This file never imports ``maumau``: it runs under a *different* interpreter, one that
has ``open-spiel`` and ``rlcard`` installed (a scratch venv outside the project, see
``bench/README.md``), so that the benchmark's own process stays clean.  It can also be
run by hand with that interpreter::

    $PEERS_VENV/bin/python bench/peers.py --seconds 2 --reps 3

Every game is played to the end with uniformly random legal actions from fixed seeds.
What is measured:

* OpenSpiel ``crazy_eights``, 4 players, ``use_special_cards=true`` (C++ engine):
  - ``py``: the Python loop a user writes (``current_player``, ``legal_actions`` or
    ``chance_outcomes``, ``apply_action``); chance actions are sampled with their
    probabilities and counted apart from player actions;
  - ``cpp``: ``pyspiel.evaluate_bots`` with C++ uniform random bots, the whole game in
    C++ (only that call is timed; actions are counted afterwards);
  - ``clone()`` in µs over random mid-game states.
* RLCard ``uno`` (pure Python), the raw engine loop ``game.step(action)`` (no
  observation encoding), 2 players and 4 (``game.num_players = 4``).

Run by hand it prints the medians.  ``engine.py`` starts it with ``--serve`` instead and
asks for one run at a time, so that our runs and the peers' alternate (see
:func:`serve`).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from typing import Any

Counts = tuple[float, int, int, int]  # (seconds, games, player actions, chance actions)


# --- OpenSpiel crazy_eights -------------------------------------------------------------


def _openspiel_game(players: int) -> Any:
    import pyspiel

    return pyspiel.load_game("crazy_eights", {"players": players, "use_special_cards": True})


def openspiel_py(game: Any, seed: int, seconds: float, games: int | None) -> Counts:
    """The Python loop: random legal player actions, chance outcomes by probability."""
    import pyspiel

    chance = int(pyspiel.PlayerId.CHANCE)
    terminal = int(pyspiel.PlayerId.TERMINAL)
    rng = random.Random(seed)
    rand = rng.random
    n_games = n_player = n_chance = 0
    clock = time.perf_counter
    t0 = clock()
    deadline = t0 + seconds
    while True:
        state = game.new_initial_state()
        while True:
            cp = state.current_player()
            if cp == terminal:
                break
            if cp == chance:
                outcomes = state.chance_outcomes()
                r = rand()
                acc = 0.0
                pick = outcomes[-1][0]
                for action, p in outcomes:
                    acc += p
                    if r < acc:
                        pick = action
                        break
                state.apply_action(pick)
                n_chance += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rand() * len(legal))])
                n_player += 1
        n_games += 1
        if (n_games >= games) if games is not None else (clock() >= deadline):
            break
    return clock() - t0, n_games, n_player, n_chance


def openspiel_cpp(game: Any, seed: int, seconds: float, games: int | None) -> Counts:
    """``evaluate_bots`` with C++ uniform random bots; only that call is timed."""
    import pyspiel

    chance = int(pyspiel.PlayerId.CHANCE)
    bots = [
        pyspiel.make_uniform_random_bot(p, (seed * 31 + 1 + p) % 2147483647)
        for p in range(game.num_players())
    ]
    n_games = n_player = n_chance = 0
    clock = time.perf_counter
    spent = 0.0
    while True:
        state = game.new_initial_state()
        t0 = clock()
        pyspiel.evaluate_bots(state, bots, (seed * 100003 + n_games) % 2147483647)
        spent += clock() - t0
        for step in state.full_history():
            if step.player == chance:
                n_chance += 1
            else:
                n_player += 1
        n_games += 1
        if (n_games >= games) if games is not None else (spent >= seconds):
            break
    return spent, n_games, n_player, n_chance


def openspiel_clone_us(game: Any, seed: int, n_states: int, inner: int = 20) -> float:
    """Mean ``state.clone()`` cost in µs over random reachable mid-game states."""
    rng = random.Random(seed)
    states: list[Any] = []
    while len(states) < n_states:
        state = game.new_initial_state()
        while not state.is_terminal():
            if rng.random() < 0.05:
                states.append(state.clone())
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    states = states[:n_states]
    t0 = time.perf_counter()
    for state in states:
        clone = state.clone
        for _ in range(inner):
            clone()
    return (time.perf_counter() - t0) / (len(states) * inner) * 1e6


# --- RLCard uno -------------------------------------------------------------------------


def rlcard_uno(players: int, seed: int, *, seconds: float, games: int | None) -> Counts:
    """The raw engine loop on ``env.game``: ``init_game``, ``get_legal_actions``, ``step``."""
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    game = env.game
    game.num_players = players
    rng = random.Random(seed)
    rand = rng.random
    n_games = n_player = 0
    clock = time.perf_counter
    t0 = clock()
    deadline = t0 + seconds
    while True:
        game.init_game()
        rnd = game.round
        while not rnd.is_over:
            legal = game.get_legal_actions()
            game.step(legal[int(rand() * len(legal))])
            n_player += 1
        n_games += 1
        if (n_games >= games) if games is not None else (clock() >= deadline):
            break
    return clock() - t0, n_games, n_player, 0


# --- driver -----------------------------------------------------------------------------

MEASURES = ("openspiel_py", "openspiel_cpp", "openspiel_clone", "rlcard_uno_2p", "rlcard_uno_4p")


def rates(counts: Counts) -> dict[str, float]:
    seconds, n_games, n_player, n_chance = counts
    return {
        "seconds": seconds,
        "games": n_games,
        "games_per_s": n_games / seconds,
        "player_actions_per_s": n_player / seconds,
        "all_actions_per_s": (n_player + n_chance) / seconds,
        "player_actions_per_game": n_player / n_games,
        "chance_actions_per_game": n_chance / n_games,
    }


class Peers:
    """The peer engines, imported once; :meth:`run` does one run of one measurement."""

    def __init__(self) -> None:
        self.info: dict[str, Any] = {
            "python": platform.python_version(),
            "executable": sys.executable,
            "errors": {},
        }
        self._openspiel: Any = None
        try:
            from importlib.metadata import version

            self.info["open_spiel_version"] = version("open-spiel")
            self._openspiel = _openspiel_game(4)
            self.info["openspiel_game"] = str(self._openspiel)
        except Exception as exc:  # an optional peer: report it and go on
            self.info["errors"]["openspiel"] = f"{type(exc).__name__}: {exc}"
        try:
            import rlcard

            self.info["rlcard_version"] = rlcard.__version__
        except Exception as exc:
            self.info["errors"]["rlcard"] = f"{type(exc).__name__}: {exc}"

    def run(
        self, measure: str, seed: int, seconds: float, games: int | None, states: int
    ) -> dict[str, float]:
        game = self._openspiel
        if measure == "openspiel_py":
            return rates(openspiel_py(game, seed, seconds, games))
        if measure == "openspiel_cpp":
            # the C++ loop is several times faster: give it more games for --games
            return rates(openspiel_cpp(game, seed, seconds, None if games is None else 4 * games))
        if measure == "openspiel_clone":
            return {"clone_us": openspiel_clone_us(game, seed, states)}
        if measure in ("rlcard_uno_2p", "rlcard_uno_4p"):
            players = int(measure[-2])
            return rates(rlcard_uno(players, seed, seconds=seconds, games=games))
        raise ValueError(f"unknown measurement {measure!r}; known: {', '.join(MEASURES)}")


def serve() -> int:
    """The protocol ``bench/engine.py`` speaks: the info object as the first line, then
    one JSON request per input line (``{"measure", "seed", "seconds", "games",
    "states"}``), answered by one line ``{"ok": {...}}`` or ``{"error": "..."}``."""
    peers = Peers()
    print(json.dumps(peers.info), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer: dict[str, Any] = {"ok": peers.run(**json.loads(line))}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time budget per run")
    ap.add_argument("--games", type=int, default=None, help="games per run (overrides --seconds)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--states", type=int, default=2000, help="states for clone()")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--serve", action="store_true", help="answer requests on stdin (engine.py)")
    args = ap.parse_args(argv)
    if args.serve:
        return serve()
    peers = Peers()
    print(json.dumps(peers.info))
    skip = {"openspiel": "openspiel_", "rlcard": "rlcard_"}
    for measure in MEASURES:
        if any(measure.startswith(skip[e]) for e in peers.info["errors"]):
            continue
        runs = [
            peers.run(measure, args.seed + rep, args.seconds, args.games, args.states)
            for rep in range(args.reps)
        ]
        medians = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        shown = ", ".join(f"{k}={v:,.2f}" for k, v in medians.items() if k != "seconds")
        print(f"{measure} (median of {args.reps}): {shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
