"""Everything that would show a change to a game, before and after the probes, and where
two such snapshots differ."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from lab.hostile.games import Context
from lab.hostile.peer import Peer, greet
from lab.hostile.server import Server


async def snapshot(server: Server, ctx: Context) -> dict[str, Any]:
    """Everything that would show a change: each table's info (without who is
    connected), its record reply, what each seat and a spectator are shown, and its
    rows in the database."""
    import httpx

    shot: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        for key, game in ctx.games.items():
            info = (await http.get(f"/api/games/{game.id}")).json()
            for seat in info.get("seats", []):
                seat.pop("connected", None)
            record = await http.get(f"/api/games/{game.id}/record")
            views = {}
            for who in ["spectator", *(f"seat{s}" for s in sorted(game.tokens))]:
                peer = await Peer.open(f"{server.ws_base}/ws/{game.id}")
                try:
                    state = await greet(peer, game, who)
                finally:
                    await peer.close()
                if state is not None:
                    views[who] = {k: state[k] for k in ("version", "view", "legal", "commitment")}
            shot[key] = {
                "info": info,
                "record": [record.status_code, record.json()],
                "views": views,
                "rows": database_rows(server.data_dir / "maumau.sqlite3", game.id),
            }
    return shot


def database_rows(path: Path, game_id: str) -> dict[str, Any]:
    """The game's rows (read-only): its table row, seats and every stored step."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        game = db.execute(
            "SELECT id, status, options, settings, host, rematch_of, rematch_id FROM games "
            "WHERE id = ?",
            (game_id,),
        ).fetchall()
        seats = db.execute(
            "SELECT position, name, kind, level, token_hash FROM seats WHERE game_id = ? "
            "ORDER BY position",
            (game_id,),
        ).fetchall()
        steps = db.execute(
            "SELECT seq, kind, data, client_id FROM steps WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
    finally:
        db.close()
    return {"game": game, "seats": seats, "steps": steps}


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Where two snapshots differ (paths), for each game."""
    found: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key), b.get(key), f"{path}.{key}")
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}[{i}]")
        elif a != b:
            found.append(path)

    walk(before, after, "")
    return found
