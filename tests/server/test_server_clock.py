"""Every ``state`` says the server's time (``server_time``), so that a client counts
``turn_deadline`` down by the server's clock, not by its own (which may be off)."""

from __future__ import annotations

import time
from pathlib import Path

from support.serverkit import add_bot, create_table, hello, make_client, receive_until, start


def test_state_carries_the_server_time_with_the_turn_deadline(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", turn_seconds=30, bot_delay_ms=5000)
        add_bot(client, game_id, ana, "easy")
        before = time.time()
        start(client, game_id, ana)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, ana)
            state = receive_until(ws, lambda m: m["type"] == "state")[-1]
        after = time.time()
        assert isinstance(state["server_time"], float)
        assert before <= state["server_time"] <= after
        # the first turn is Ana's (seat 0 leads round 0): its timer runs from the deal
        assert state["view"]["to_move"] == 0
        left = state["turn_deadline"] - state["server_time"]
        assert 0 < left <= 30


def test_spectators_get_the_server_time_too(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", turn_seconds=30, bot_delay_ms=5000)
        add_bot(client, game_id, ana, "easy")
        start(client, game_id, ana)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, None)
            state = receive_until(ws, lambda m: m["type"] == "state")[-1]
        assert state["view"]["seat"] is None
        assert isinstance(state["server_time"], float)
        assert state["turn_deadline"] is not None
        assert state["turn_deadline"] > state["server_time"]
