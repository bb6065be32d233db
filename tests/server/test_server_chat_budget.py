"""Nobody uses up another's share of a table's chat (maumau.server.live.chat_budget): the
spectators of one address share one budget, all spectators together one more, and
none of it is a player's; and the host may turn spectators' reactions off."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from maumau.server.app import create_app
from maumau.server.config import ServerConfig
from maumau.server.live import chat_budget
from support.serverkit import TEST_LIMITS, create_table, hello, join, receive_until

Message = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A server behind a trusted proxy: each socket says which address it comes from."""
    config = ServerConfig(data_dir=tmp_path, **TEST_LIMITS, trusted_proxies=("127.0.0.1",))
    with TestClient(create_app(config), client=("127.0.0.1", 50000)) as made:
        yield made


def socket(client: TestClient, stack: ExitStack, game_id: str, address: str) -> Any:
    return stack.enter_context(
        client.websocket_connect(f"/ws/{game_id}", headers={"X-Forwarded-For": address})
    )


def greeted(ws: WebSocketTestSession, token: str | None) -> WebSocketTestSession:
    hello(ws, token)
    ws.send_json({"type": "ping"})
    receive_until(ws, lambda m: m["type"] == "pong")
    return ws


def react(ws: WebSocketTestSession, key: str = "wow") -> Message | None:
    """Send a reaction; the error it was answered with, or ``None``: it was sent (the
    answer comes before that to a ping sent after it)."""
    ws.send_json({"type": "react", "key": key})
    ws.send_json({"type": "ping"})
    got = receive_until(ws, lambda m: m["type"] == "pong")
    errors = [m for m in got if m["type"] == "error"]
    if not errors:
        assert any(m["type"] == "reaction" for m in got)  # its own, among any others'
    return errors[0] if errors else None


def say(ws: WebSocketTestSession, text: str) -> Message:
    """Send a line; its answer: the line, or an error."""
    ws.send_json({"type": "chat", "text": text})
    return receive_until(
        ws, lambda m: m["type"] == "error" or m.get("line", {}).get("text") == text
    )[-1]


def test_the_spectators_of_one_address_share_one_budget_and_no_players(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_budget, "ADDRESS_REACTIONS_PER_SECOND", 1e-9)
    game_id, host = create_table(client, "Ana")
    with ExitStack() as stack:
        ana = greeted(socket(client, stack, game_id, "192.0.2.1"), host)
        crowd = [greeted(socket(client, stack, game_id, "192.0.2.66"), None) for _ in range(4)]
        for n in range(int(chat_budget.ADDRESS_REACTION_BURST)):
            assert react(crowd[n % len(crowd)]) is None
        for ws in crowd:  # the address's budget is spent, on every socket of it
            refused = react(ws)
            assert (
                refused is not None
                and refused["code"] == "rate_limited"
                and "this address" in refused["message"]
            )
        # a spectator elsewhere, and the player, have theirs
        other = greeted(socket(client, stack, game_id, "198.51.100.7"), None)
        assert react(other) is None
        for _ in range(int(chat_budget.REACTION_BURST)):
            assert react(ana) is None


def test_all_spectators_together_have_one_budget_and_no_players(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_budget, "SPECTATORS_LINES_PER_SECOND", 1e-9)
    monkeypatch.setattr(chat_budget, "SPECTATORS_LINE_BURST", 3.0)
    game_id, host = create_table(client, "Ana")
    with ExitStack() as stack:
        ana = greeted(socket(client, stack, game_id, "192.0.2.1"), host)
        ana.send_json({"type": "set_chat", "chat": True, "spectators": True})
        receive_until(ana, lambda m: m["type"] == "chat_options")
        rail = [greeted(socket(client, stack, game_id, f"203.0.113.{n}"), None) for n in range(4)]
        for n, ws in enumerate(rail):
            got = say(ws, f"from the rail {n}")
            if n < 3:
                assert got["type"] == "chat_line", got
            else:  # its own first line, the spectators' fourth
                assert got["code"] == "rate_limited" and "spectators" in got["message"]
        assert say(ana, "the host still talks")["type"] == "chat_line"


def test_the_host_can_turn_spectators_reactions_off(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    _, ben_token = join(client, game_id, "Ben")
    with ExitStack() as stack:
        ana = greeted(socket(client, stack, game_id, "192.0.2.1"), host)
        ben = greeted(socket(client, stack, game_id, "192.0.2.2"), ben_token)
        watcher = greeted(socket(client, stack, game_id, "192.0.2.3"), None)
        assert react(watcher) is None  # on by default
        ben.send_json({"type": "set_chat", "chat": True, "spectators": False,
                       "spectator_reactions": False})  # fmt: skip
        refused = receive_until(ben, lambda m: m["type"] in ("chat_options", "error"))[-1]
        assert refused["code"] == "not_host"
        ana.send_json(
            {"type": "set_chat", "chat": True, "spectators": False, "spectator_reactions": False}
        )
        options = receive_until(watcher, lambda m: m["type"] == "chat_options")[-1]
        assert options["spectator_reactions"] is False
        off = react(watcher)
        assert off is not None and off["code"] == "chat_off" and "reactions" in off["message"]
        assert react(ben) is None  # players react on
        # a set_chat without the field leaves it as it is
        ana.send_json({"type": "set_chat", "chat": True, "spectators": True})
        options = receive_until(watcher, lambda m: m["type"] == "chat_options")[-1]
        assert (options["spectators"], options["spectator_reactions"]) == (True, False)
    with client.websocket_connect(f"/ws/{game_id}") as again:
        hello(again, None)
        kept = receive_until(again, lambda m: m["type"] == "chat_history")[-1]
        assert kept["spectator_reactions"] is False
        refused = react(again)
        assert refused is not None and refused["code"] == "chat_off"


def test_a_tables_budgets_keep_a_bounded_number_of_people(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stream of new addresses cannot grow a table's budgets without bound: spent
    buckets beyond :data:`KEPT` are forgotten, the longest unused first, and one a
    person keeps using stays."""
    monkeypatch.setattr(chat_budget, "KEPT", 8)
    shares = chat_budget.Shares(1e-9, 1.0)
    assert shares.allow("regular")
    for n in range(100):
        assert shares.allow(f"198.51.100.{n}")
        assert not shares.allow("regular")  # (its use keeps it, spent)
        assert len(shares.buckets) <= 8
