"""Between rounds: the next round is dealt when every player present is ready, or when
the table's countdown (``next_round_seconds``) runs out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from starlette.testclient import WebSocketTestSession

from support.serverkit import (
    add_bot,
    create_table,
    hello,
    make_client,
    play_first_legal,
    start,
    wait_for_status,
)


def next_state(ws: WebSocketTestSession) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "state":
            return message


def round_end(message: dict[str, Any]) -> bool:
    return message["type"] == "round_end"


def test_the_next_round_waits_until_the_player_is_ready(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, next_round_seconds=600)
        add_bot(client, game_id, token, "easy")
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            start(client, game_id, token)
            ended = play_first_legal(ws, 0, round_end)[-1]
            before = time.time()
            ws.send_json({"type": "ping"})  # nothing but the pong comes while nobody is ready
            assert ws.receive_json() == {"type": "pong"}
            info = client.get(f"/api/games/{game_id}").json()
            assert info["status"] == "playing"
            ws.send_json({"type": "ready"})
            waiting = next_state(ws)
            # the ready state, then at once the next round (the only human is ready)
            assert waiting["view"]["round"] == ended["round"]
            assert waiting["ready"] == [0] and waiting["next_round_at"] is None
            dealt = next_state(ws)
            assert dealt["view"]["round"] == ended["round"] + 1
            assert dealt["ready"] == [] and dealt["next_round_at"] is None
            assert dealt["version"] == waiting["version"] + 1
            assert time.time() - before < 600


def test_the_countdown_deals_without_anyone_ready(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, next_round_seconds=1)
        add_bot(client, game_id, token, "easy")
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            start(client, game_id, token)
            seen = play_first_legal(ws, 0, round_end)
            over = [m for m in seen if m["type"] == "state"][-1]
            assert over["view"]["step"] == "over"
            assert over["next_round_at"] is not None and over["ready"] == []
            dealt = next_state(ws)
            assert dealt["view"]["round"] == seen[-1]["round"] + 1
            assert time.time() >= over["next_round_at"] - 0.05


def test_ready_only_between_rounds_and_only_for_players(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, grace_seconds=None)
        add_bot(client, game_id, token)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            ws.send_json({"type": "ready"})
            errors = [m for m in _replies(ws, 2) if m["type"] == "error"]
            assert errors[0]["code"] == "not_between_rounds"
            start(client, game_id, token)
            state = next_state(ws)
            ws.send_json({"type": "ready"})
            reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == "not_between_rounds"
        with client.websocket_connect(f"/ws/{game_id}") as watcher:
            hello(watcher, None)
            watcher.send_json({"type": "ready"})
            # (the table as it is comes first: lobby, the presence of the away seat, state)
            replies = [watcher.receive_json()]
            while replies[-1]["type"] != "error" and len(replies) < 6:
                replies.append(watcher.receive_json())
            assert replies[-1].get("code") == "not_seated"
        assert client.get(f"/api/games/{game_id}").json()["status"] == "playing"
        assert state["version"] >= 1


def test_nobody_to_wait_for_deals_at_once(tmp_path: Path) -> None:
    """The only human is away and played by a stand-in: the countdown does not hold
    the table up."""
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, next_round_seconds=600, grace_seconds=0)
        add_bot(client, game_id, token, "easy")
        start(client, game_id, token)
        wait_for_status(client, game_id, "finished")  # it never waits for nobody


def _replies(ws: WebSocketTestSession, count: int) -> list[dict[str, Any]]:
    return [ws.receive_json() for _ in range(count)]
