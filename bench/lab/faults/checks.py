"""The checks against the database after a campaign: every acknowledged move stored
exactly once, every unfinished game replayed and resumed at its stored version."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.faults.seats import LOST, Seat, is_state
from lab.faults.servers import Server, http
from maumau.server.live.table import Table
from maumau.store import Store


def read_ledger(*paths: Path) -> list[dict[str, Any]]:
    """The lines of the ledgers (a load tool stopped early may have left its last line
    half written: a line that does not parse is skipped)."""
    lines: list[dict[str, Any]] = []
    for path in paths:
        with contextlib.suppress(OSError):
            for text in path.read_text().splitlines():
                with contextlib.suppress(ValueError):
                    lines.append(json.loads(text))
    return lines


@dataclass(frozen=True)
class Stored:
    """A stored step that carries a client's ``action_id``."""

    game_id: str
    client_id: str
    seat: int
    seq: int
    created_at: float
    status: str  # of its game


def stored_moves(url: str) -> list[Stored]:
    """Every stored step with a client id."""
    query = (
        "SELECT s.game_id, s.client_id, s.data, s.seq, s.created_at, g.status"
        " FROM steps s JOIN games g ON g.id = s.game_id WHERE s.client_id IS NOT NULL"
    )
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1]
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            rows = db.execute(query).fetchall()
    else:

        async def fetch() -> list[Any]:
            import asyncpg

            conn = await asyncpg.connect(url, timeout=10)
            try:
                return list(await conn.fetch(query))
            finally:
                await conn.close()

        rows = [tuple(r) for r in asyncio.run(fetch())]
    out = []
    for game_id, client_id, data, seq, created_at, status in rows:
        body = json.loads(data) if isinstance(data, str) else data
        seat = int(body["seat"])
        out.append(Stored(str(game_id), str(client_id), seat, int(seq), created_at, str(status)))
    return out


def check_ledger(lines: list[dict[str, Any]], stored: list[Stored]) -> dict[str, Any]:
    """Every acknowledged move stored exactly once, for its seat."""
    count = Counter((m.game_id, m.client_id) for m in stored)
    seats = {(m.game_id, m.client_id): m.seat for m in stored}
    keys = [(x["game_id"], x["action_id"]) for x in lines]
    missing = [k for k in keys if count[k] == 0]
    doubled = [k for k in keys if count[k] > 1]
    wrong_seat = [
        (x["game_id"], x["action_id"])
        for x in lines
        if count[(x["game_id"], x["action_id"])]
        and seats[(x["game_id"], x["action_id"])] != x["seat"]
    ]
    acked = set(keys)
    # stored moves whose ack never reached the client: the last client move of its
    # game is one in flight when the load tool stopped (or when a kill ended the game's
    # play); in a game that finished, the others played on and ended the game before
    # the sender reconnected to ask again; any other is worth a look
    last: dict[str, int] = {}
    for m in stored:
        last[m.game_id] = max(m.seq, last.get(m.game_id, -1))
    unacked = [m for m in stored if (m.game_id, m.client_id) not in acked]
    ended = [m for m in unacked if m.seq != last[m.game_id] and m.status == "finished"]
    other = [m for m in unacked if m.seq != last[m.game_id] and m.status != "finished"]
    return {
        "acknowledged": len(lines),
        "ledger_repeats": len(keys) - len(acked),
        "stored": sum(1 for k in acked if count[k] >= 1),
        "missing": len(missing),
        "doubled": len(doubled),
        "wrong_seat": len(wrong_seat),
        "client_ids_stored_twice": sum(1 for n in count.values() if n > 1),
        "stored_not_acknowledged": len(unacked),
        "stored_not_acknowledged_last": len(unacked) - len(other) - len(ended),
        "stored_not_acknowledged_game_ended": len(ended),
        "stored_not_acknowledged_other": len(other),
        "other_examples": [
            [m.game_id, m.client_id, m.seq, round(m.created_at, 3)] for m in other[:10]
        ],
        "missing_examples": [list(k) for k in missing[:5]],
        "doubled_examples": [list(k) for k in doubled[:5]],
    }


async def _replay_all(url: str) -> list[dict[str, Any]]:
    """Every lobby/playing game: loaded and replayed through the engine."""
    store = await Store.open(url)
    out: list[dict[str, Any]] = []
    try:
        for game_id in await store.game_ids(("lobby", "playing")):
            entry: dict[str, Any] = {"game_id": game_id}
            try:
                loaded = await store.load(game_id)
                if loaded is None:
                    entry.update(ok=False, detail="vanished")
                else:
                    row, steps = loaded
                    table = Table.load(row, steps)  # every deal and action through the engine
                    version = 0 if table.game is None else table.game.version
                    entry.update(status=row.status, steps=len(steps), version=version)
                    entry["ok"] = version == len(steps)
                    if not entry["ok"]:
                        entry["detail"] = f"replayed to version {version}, {len(steps)} steps"
            except Exception as exc:
                entry.update(ok=False, detail=f"replay failed: {type(exc).__name__}: {exc}")
            out.append(entry)
    finally:
        await store.close()
    return out


def check_games(url: str, servers: list[Server]) -> dict[str, Any]:
    """Every unfinished game replays, answers on every process, and is resumed at the
    stored version there."""
    games = asyncio.run(_replay_all(url))
    problems: list[str] = []
    resumed = 0
    for entry in games:
        game_id = entry["game_id"]
        if not entry["ok"]:
            problems.append(f"{game_id}: {entry.get('detail')}")
            continue
        for server in servers:
            status, info = http("GET", f"{server.url}/api/games/{game_id}")
            if status != 200 or not isinstance(info, dict) or info["status"] != entry["status"]:
                problems.append(f"{game_id} on {server.name}: GET {status} {info}")
                continue
            if entry["steps"] == 0:
                continue  # in the lobby: no state to compare
            try:
                spectator = Seat(server, game_id, None)
                try:
                    state = spectator.pump(is_state, 15)
                finally:
                    spectator.close()
            except LOST as exc:
                problems.append(f"{game_id} on {server.name}: no state ({type(exc).__name__})")
                continue
            if state["version"] != entry["steps"]:
                problems.append(
                    f"{game_id} on {server.name}: state version {state['version']}, "
                    f"{entry['steps']} steps stored"
                )
            else:
                resumed += 1
    return {
        "unfinished": len(games),
        "playing": sum(1 for g in games if g.get("status") == "playing"),
        "lobby": sum(1 for g in games if g.get("status") == "lobby"),
        "replayed": sum(1 for g in games if g["ok"]),
        "resumed_at_stored_version": resumed,
        "problems": problems,
    }
