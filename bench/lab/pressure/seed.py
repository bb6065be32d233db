"""The longest game the server allows, built with the engine and written into a server's
database (an SQLite file, or a PostgreSQL database by its URL) before that server starts
(the server never plays it).

Run with the Python of the tree under test, so that the game is written by that tree's
own store (``uv run --project DIR python -m lab.pressure.seed --db FILE``, or ``--url
postgresql://...``, from ``bench/``).  It imports only what every tree since the store's
first revision has: :class:`maumau.store.Store` (``create_game``, ``append``,
``set_status``), its rows, the engine's :class:`~maumau.engine.Game`, the bots and the
record form of an action.
The steps are those the server writes itself (``maumau.server.live.table``): a deal step
holds ``{seed, salt, commitment}``, an action step ``done.to_json(seat)``.

Prints one JSON line: the game's id, its seats, rounds, deals and actions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the longest game: the most deals the rules allow, scored over every deal
LONGEST_OPTIONS: dict[str, Any] = {"scoring": "deals", "deals": 50}
NAMES = ("Ada", "Bruno", "Cleo", "Dario", "Edda", "Finn", "Greta", "Hugo")
#: steps per append (one transaction each)
BATCH = 2_000


@dataclass(frozen=True, slots=True)
class Built:
    """A finished game as the steps a server would have stored."""

    names: tuple[str, ...]
    options: dict[str, Any]
    steps: list[tuple[str, dict[str, Any]]]  # (kind, data), in order
    rounds: int
    actions: int


def most_seats(options: dict[str, Any]) -> int:
    """The most players these options allow (as the server's ``max_seats``)."""
    from maumau.engine import BadOption, Rules

    rules = Rules.from_dict(options)
    for n in range(8, 1, -1):
        try:
            rules.check_players(n)
        except BadOption:
            continue
        return n
    raise ValueError(f"no player count from 2 up for {options}")


def build(options: dict[str, Any], seed: int, seats: int | None = None) -> Built:
    """Play a whole game of random bots (``seats`` of them, default the most these
    options allow) with seeded shuffles and commitments; every step in order."""
    from maumau.bots import make_bot
    from maumau.bots.match import play_round
    from maumau.engine import Game, Rules
    from maumau.engine.verify import commitment_of

    n = seats if seats is not None else most_seats(options)
    names = tuple(f"{NAMES[i % len(NAMES)]} (bot)" for i in range(n))
    rng = random.Random(f"pressure-seed-{seed}")
    bots = [make_bot("random", rng.getrandbits(32)) for _ in range(n)]
    game = Game(Rules.from_dict(options), list(names))
    steps: list[tuple[str, dict[str, Any]]] = []
    actions = 0
    while not game.finished:
        deal_seed = rng.getrandbits(63)
        salt = rng.randbytes(32).hex()
        commitment = commitment_of(deal_seed, salt)
        game.deal(deal_seed, commitment=commitment, salt=salt)
        steps.append(("deal", {"seed": deal_seed, "salt": salt, "commitment": commitment}))
        play_round(game, bots)
        for seat, done in game.round.actions:
            steps.append(("action", done.to_json(seat)))
            actions += 1
    return Built(names, dict(options), steps, len(game.rounds), actions)


async def write(db: Path | str, built: Built, game_id: str) -> None:
    """Store ``built`` as a finished game ``game_id`` in the SQLite file ``db``, or the
    database at the URL ``db`` (a string), made and migrated by the store if new."""
    from maumau.store import GameRow, SeatRow, StepRow, Store, sqlite_url

    now = time.time()
    seats = tuple(SeatRow(i, name, "bot", "random", None) for i, name in enumerate(built.names))
    row = GameRow(game_id, "playing", built.options, {}, 0, seats, now, now)
    store = await Store.open(db if isinstance(db, str) else sqlite_url(db))
    try:
        await store.create_game(row)
        for start in range(0, len(built.steps), BATCH):
            chunk = built.steps[start : start + BATCH]
            rows = [StepRow(start + i, kind, data) for i, (kind, data) in enumerate(chunk)]
            await store.append(game_id, rows, now)
        await store.set_status(game_id, "finished", now)
    finally:
        await store.close()


def seed_database(db: Path | str, game_id: str, seed: int = 3, seats: int | None = None,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Build and store the game; what the JSON line says."""
    started = time.perf_counter()
    built = build(LONGEST_OPTIONS if options is None else options, seed, seats)
    played = time.perf_counter() - started
    asyncio.run(write(db, built, game_id))
    return {
        "game_id": game_id,
        "seats": len(built.names),
        "options": built.options,
        "rounds": built.rounds,
        "actions": built.actions,
        "steps": len(built.steps),
        "build_seconds": round(played, 2),
        "write_seconds": round(time.perf_counter() - started - played, 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", type=Path, help="the server's SQLite file")
    where.add_argument("--url", help="or its database's URL (postgresql://...)")
    parser.add_argument("--game-id", default="pressure-replay-01")
    parser.add_argument("--seed", type=int, default=3, help="3: 16,786 actions")
    parser.add_argument("--seats", type=int, help="default: the most the rules allow")
    parser.add_argument("--options", type=json.loads, help="rule options as JSON")
    args = parser.parse_args(argv)
    result = seed_database(args.db or args.url, args.game_id, args.seed, args.seats, args.options)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
