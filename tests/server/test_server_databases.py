"""The server on both databases: a whole game, and a restart that resumes it.

Each test runs on SQLite and on PostgreSQL (a throwaway cluster; skipped with the
reason where none can be started).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from maumau.engine import replay
from support.serverkit import (
    add_bot,
    auth,
    create_table,
    hello,
    make_client,
    play_first_legal,
    start,
    wait_for_status,
)


def ended(message: dict[str, Any]) -> bool:
    return message["type"] == "game_end"


def test_a_whole_game(db_url: str, tmp_path: Path) -> None:
    with make_client(tmp_path, database_url=db_url) as client:
        game_id, token = create_table(client, preset="penalty-100")
        add_bot(client, game_id, token, "normal")
        add_bot(client, game_id, token, "random")
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            start(client, game_id, token)
            seen = play_first_legal(ws, 0, ended)
        # (the record is served once the table says finished, which may follow game_end)
        wait_for_status(client, game_id, "finished")
        record = client.get(f"/api/games/{game_id}/record").json()
    game = replay(record)
    assert game.finished and list(game.totals) == seen[-1]["totals"]
    acks = [m for m in seen if m["type"] == "state" and m["ack"] is not None]
    mine = sum(1 for r in record["rounds"] for a in r["actions"] if a["seat"] == 0)
    assert len(acks) == mine > 0


def test_a_restarted_server_resumes_the_game(db_url: str, tmp_path: Path) -> None:
    with make_client(tmp_path, database_url=db_url) as client:
        game_id, token = create_table(client, preset="penalty-100")
        add_bot(client, game_id, token, "easy")
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            start(client, game_id, token)
            seen = play_first_legal(ws, 0, lambda m: m["type"] == "state" and m["version"] > 20)
            version = seen[-1]["version"]
            hand = seen[-1]["view"]["hand"]
    # a new server process on the same database
    with make_client(tmp_path, database_url=db_url) as client:
        info = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        assert info["status"] == "playing"
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            assert hello(ws, token)["seat"] == 0
            states = _until_state(ws)
            state = states[-1]
            assert state["version"] >= version
            if state["version"] == version:
                assert state["view"]["hand"] == hand
            if state["legal"]:  # the human's turn: nothing happens until they move
                move = {"type": "action", "version": state["version"], "action_id": "again"}
                ws.send_json({**move, "action": state["legal"][0]})
            seen = play_first_legal(ws, 0, ended)
        # (the record is served once the table says finished, which may follow game_end)
        wait_for_status(client, game_id, "finished")
        record = client.get(f"/api/games/{game_id}/record").json()
    assert replay(record).finished
    assert seen[-1]["type"] == "game_end"


def _until_state(ws: Any) -> list[dict[str, Any]]:
    out = []
    while True:
        message: dict[str, Any] = ws.receive_json()
        out.append(message)
        if message["type"] == "state":
            return out
