"""What one client can make the server send to everyone else: presence changes are
coalesced into small ``presence`` messages, a message that changes nothing sends
nothing, and a store failure is told to the client without the operator's details."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from test_seat_identity import Client

from maumau.server.config import ServerConfig
from maumau.server.http.sockets import receive
from maumau.server.live import seating
from maumau.server.live.hub import Hub
from maumau.server.live.presence import PresenceNotices
from maumau.server.wire.protocol import CreateGame
from maumau.store import Store, StoreUnavailable
from support.serverkit import auth, create_table, join, make_client

Message = dict[str, Any]


def test_presence_changes_are_sent_once_per_window_and_only_when_they_differ() -> None:
    async def scenario() -> list[str]:
        facts = [((0,), (), 0, ())]
        sent: list[str] = []
        notices = PresenceNotices(lambda: facts[-1], sent.append, lambda: 7.0, seconds=0.01)
        for spectators in range(1, 51):  # fifty changes in one window: one message
            facts.append(((0,), (), spectators, ()))
            notices.changed()
        await asyncio.sleep(0.05)
        notices.changed()  # nothing changed since: nothing is sent
        await asyncio.sleep(0.05)
        facts.append(((0, 1), (1,), 50, ()))
        notices.changed()
        await asyncio.sleep(0.05)
        return sent

    sent = asyncio.run(scenario())
    assert [json.loads(m) for m in sent] == [
        {"type": "presence", "connected": [0], "stand_in": [], "spectators": 50}
        | {"away": [], "server_time": 7.0},
        {"type": "presence", "connected": [0, 1], "stand_in": [1], "spectators": 50}
        | {"away": [], "server_time": 7.0},
    ]


def test_a_stranger_opening_and_closing_sockets_sends_players_little(tmp_path: Path) -> None:
    """Each connect and disconnect used to send the whole table to every player.  Now
    a player is sent small ``presence`` messages, fewer than the stranger's sockets,
    and no ``lobby`` at all."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        with client.websocket_connect(f"/ws/{game_id}") as wa:
            wa.send_json({"type": "hello", "token": host})
            assert wa.receive_json()["type"] == "welcome"
            assert wa.receive_json()["type"] == "lobby"  # the newcomer's own
            for _ in range(30):
                with client.websocket_connect(f"/ws/{game_id}") as stranger:
                    stranger.send_json({"type": "hello", "token": None})
                    stranger.receive_json()
            # the last change is told within a quarter second; a ping marks the end
            with client.websocket_connect(f"/ws/{game_id}") as last:
                last.send_json({"type": "hello", "token": None})
                last.receive_json()
                seen: list[Message] = []
                while not any(m["type"] == "presence" and m["spectators"] == 1 for m in seen[-1:]):
                    seen.append(wa.receive_json())
        kinds = [m["type"] for m in seen]
        assert set(kinds) == {"presence"}, kinds
        assert len(seen) < 30
        assert all(len(json.dumps(m)) < 200 for m in seen)


def test_a_repeated_ready_sends_nothing(tmp_path: Path) -> None:
    """Between rounds, the first ``ready`` of a seat tells everyone; saying it again
    changes nothing and sends nothing (it used to send every connection a state)."""
    asyncio.run(_repeated_ready(tmp_path))


async def _repeated_ready(tmp_path: Path) -> None:
    config = ServerConfig(data_dir=tmp_path)
    store = await Store.open(config.url)
    hub = Hub(store, config)
    try:
        body = {
            "name": "Ana",
            "preset": "penalty-100",
            "settings": {"bot_delay_ms": 0, "next_round_seconds": 600},
        }
        granted = await seating.create_table(hub, CreateGame.model_validate(body))
        game_id = granted.game_id
        ben = await seating.claim_seat(hub, game_id, "Ben", None)
        referee = await hub.referee(game_id)
        clients = [Client(granted.token), Client(ben.token)]
        for client in clients:
            text = json.dumps({"type": "hello", "token": client.token})
            await receive(client.conn, referee, hub, config, text)
        await seating.start_game(hub, game_id, granted.token)
        game = referee.table.require_game()
        moves = 0
        while not game.round_over:
            seat = game.to_move
            await referee.act(clients[seat].conn, game.version, f"m{moves}", _wire(game, seat))
            moves += 1
        ana, other = clients
        await referee.ready(ana.conn)
        told = len(other.wire.sent)
        assert other.wire.sent[-1]["type"] == "state" and other.wire.sent[-1]["ready"] == [0]
        before = len(ana.wire.sent)
        for _ in range(5):
            await referee.ready(ana.conn)
        assert len(other.wire.sent) == told
        assert len(ana.wire.sent) == before
    finally:
        await hub.stop()
        await store.close()


def _wire(game: Any, seat: int) -> dict[str, object]:
    data: dict[str, object] = game.legal_actions(seat)[0].to_json(seat)
    del data["seat"]
    return data


def test_a_store_failure_does_not_tell_the_client_where_the_database_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reply says the database cannot be reached; the database's URL (driver,
    user, host, file) goes to the log only."""
    secret = "postgresql+asyncpg://maumau:***@db.internal:5432/maumau"
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        hub: Hub = client.app.state.hub  # type: ignore[attr-defined]

        async def broken(*args: Any, **kwargs: Any) -> None:
            raise StoreUnavailable(f"database {secret} unavailable: ConnectionRefusedError")

        hub.store.replace_seats = broken  # type: ignore[method-assign]
        caplog.set_level(logging.WARNING, "maumau.server")
        reply = client.post(f"/api/games/{game_id}/seats", json={"name": "Ben"})
        assert reply.status_code == 503
        error = reply.json()["error"]
        assert error["code"] == "store_unavailable"
        assert "db.internal" not in reply.text and "asyncpg" not in reply.text
        assert "db.internal" in caplog.text
        reply = client.post(f"/api/games/{game_id}/bots", json={}, headers=auth(host))
        assert reply.status_code == 503 and "db.internal" not in reply.text


def test_an_action_id_with_a_control_character_is_bad_input(tmp_path: Path) -> None:
    """A NUL in an ``action_id`` would reach the store as text (PostgreSQL refuses
    it, which answered ``store_unavailable``): it is refused as a bad message."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        join(client, game_id, "Ben")
        client.post(f"/api/games/{game_id}/start", headers=auth(host))
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            ws.send_json({"type": "hello", "token": host})
            state = next(m for m in iter(ws.receive_json, None) if m["type"] == "state")
            action = state["legal"][0] if state["legal"] else {"draw": None}
            ws.send_json(
                {
                    "type": "action",
                    "version": state["version"],
                    "action_id": "a\x00b",
                    "action": action,
                }
            )
            ws.send_json({"type": "ping"})
            replies = []
            while not replies or replies[-1]["type"] != "pong":
                replies.append(ws.receive_json())
            errors = [m for m in replies if m["type"] == "error"]
            assert errors, replies
            error = errors[0]
            assert error["code"] == "bad_message", error
            assert "action_id" in error["message"]
