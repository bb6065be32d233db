"""A table's reactions and chat over the WebSocket (docs/protocol.md, "Chat and
reactions"): lines are checked by the rules of names, capped, rate-limited, kept with
the table (its last lines, replayed after hello), never in the record; the host's
chat-off and the spectators' rule are the server's, not only the page's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from maumau.server.live import chat, chat_budget
from maumau.store import Store, sqlite_url
from maumau.store import chat as chat_store
from support.serverkit import (
    add_bot,
    create_table,
    hello,
    join,
    make_client,
    play_first_legal,
    receive_until,
    start,
)

Message = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as made:
        yield made


def greet(ws: WebSocketTestSession, token: str | None) -> Message | None:
    """Say hello; returns the ``chat_history`` that follows the welcome, if one does
    (it comes before the answer to a ping sent after the hello)."""
    hello(ws, token)
    histories = [m for m in quiet_until_pong(ws) if m["type"] == "chat_history"]
    assert len(histories) <= 1
    return histories[0] if histories else None


def history(ws: WebSocketTestSession, token: str | None) -> Message:
    """Say hello; returns the ``chat_history``, which must come."""
    said = greet(ws, token)
    assert said is not None, "no chat_history came"
    return said


def next_of(ws: WebSocketTestSession, kind: str) -> Message:
    return receive_until(ws, lambda m: m["type"] in (kind, "error"))[-1]


def answer(ws: WebSocketTestSession, text: str) -> Message:
    """The answer to a line ``text`` that ``ws`` sent: the line, or an error."""
    return receive_until(
        ws, lambda m: m["type"] == "error" or m.get("line", {}).get("text") == text
    )[-1]


def quiet_until_pong(ws: WebSocketTestSession) -> list[Message]:
    """Everything ``ws`` received before the answer to a ping sent now."""
    ws.send_json({"type": "ping"})
    return receive_until(ws, lambda m: m["type"] == "pong")[:-1]


def said(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m["type"] in ("chat_line", "reaction", "chat_options")]


def said_four(ws: WebSocketTestSession) -> list[Message]:
    """The next four chat messages ``ws`` receives (whatever else comes between)."""
    got: list[Message] = []
    while len(got) < 4:
        got += said([ws.receive_json()])
    return got


def test_a_line_reaches_everyone_and_a_reload_shows_it(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    _, ben_token = join(client, game_id, "Ben")
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as ben,
        client.websocket_connect(f"/ws/{game_id}") as watcher,
    ):
        assert greet(ana, host) is None  # a new table's chat: nothing to tell
        greet(ben, ben_token)
        greet(watcher, None)
        ana.send_json({"type": "chat", "text": "  good   luck  "})
        lines = [next_of(ws, "chat_line") for ws in (ana, ben, watcher)]
        line = lines[0]["line"]
        assert all(m == lines[0] for m in lines)  # the same to everyone
        assert (line["seat"], line["name"], line["text"]) == (0, "Ana", "good luck")
        assert set(line) == {"id", "seat", "name", "text", "at"}
    with client.websocket_connect(f"/ws/{game_id}") as again:
        kept = history(again, ben_token)
    assert [(x["name"], x["text"]) for x in kept["lines"]] == [("Ana", "good luck")]
    assert kept["lines"][0]["id"] == line["id"]


def test_the_lines_and_settings_are_kept_over_a_restart(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        with client.websocket_connect(f"/ws/{game_id}") as ana:
            greet(ana, host)
            ana.send_json({"type": "chat", "text": "see you later"})
            next_of(ana, "chat_line")
            ana.send_json({"type": "set_chat", "chat": True, "spectators": True})
            next_of(ana, "chat_options")
    with make_client(tmp_path) as client, client.websocket_connect(f"/ws/{game_id}") as ws:
        kept = history(ws, None)
    assert (kept["chat"], kept["spectators"]) == (True, True)
    assert [(x["seat"], x["text"]) for x in kept["lines"]] == [(0, "see you later")]


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("", "it is empty"),
        ("   ", "visible"),
        ("hi\nthere", "control and format characters"),
        ("\u202eevil", "U+202E"),
        ("a\u200bb", "U+200B"),
        ("x" * (chat.MAX_TEXT + 1), f"at most {chat.MAX_TEXT} characters"),
    ],
)
def test_a_bad_line_is_refused_naming_the_rule(client: TestClient, text: str, rule: str) -> None:
    game_id, host = create_table(client, "Ana")
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        ana.send_json({"type": "chat", "text": text})
        error = next_of(ana, "chat_line")
        assert error["type"] == "error" and error["code"] == "bad_chat", error
        assert error["message"].startswith("chat: ") and rule in error["message"], error
        assert not said(quiet_until_pong(ana))
    with client.websocket_connect(f"/ws/{game_id}") as again:
        assert greet(again, host) is None  # nothing was stored


def test_the_longest_line_is_taken(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        ana.send_json({"type": "chat", "text": "é" * chat.MAX_TEXT})
        assert next_of(ana, "chat_line")["line"]["text"] == "é" * chat.MAX_TEXT


def test_a_line_that_is_no_string_is_a_bad_message(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        ana.send_json({"type": "chat", "text": 12})
        assert next_of(ana, "chat_line")["code"] == "bad_message"


def test_a_seats_tabs_share_its_budget_and_leave_the_others_theirs(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All the sockets of one seat (its tabs) share one budget: many tabs get no
    more lines than one, and use up neither the host's lines nor anybody's."""
    monkeypatch.setattr(chat_budget, "LINES_PER_SECOND", 1e-9)  # (no refill meanwhile)
    game_id, host = create_table(client, "Ana")
    _, ben_token = join(client, game_id, "Ben")
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as ben,
        client.websocket_connect(f"/ws/{game_id}") as ben2,
        client.websocket_connect(f"/ws/{game_id}") as ben3,
    ):
        greet(ana, host)
        tabs = (ben, ben2, ben3)
        for tab in tabs:
            greet(tab, ben_token)
        for n in range(int(chat_budget.LINE_BURST)):
            tab = tabs[n % len(tabs)]
            tab.send_json({"type": "chat", "text": f"line {n}"})
            assert answer(tab, f"line {n}")["type"] == "chat_line"
        for tab in tabs:  # every tab of the seat: its budget is spent
            tab.send_json({"type": "chat", "text": "one too many"})
            refused = answer(tab, "one too many")
            assert (refused["type"], refused["code"]) == ("error", "rate_limited")
            assert "this seat" in refused["message"]
        # the host has all of hers
        for n in range(int(chat_budget.LINE_BURST)):
            ana.send_json({"type": "chat", "text": f"host {n}"})
            assert answer(ana, f"host {n}")["type"] == "chat_line"


def test_reactions_are_known_keys_rate_limited_and_reach_everyone(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_budget, "REACTIONS_PER_SECOND", 1e-9)
    game_id, host = create_table(client, "Ana")
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as watcher,
    ):
        greet(ana, host)
        greet(watcher, None)
        watcher.send_json({"type": "react", "key": "ouch"})
        assert next_of(ana, "reaction") == {"type": "reaction", "seat": None, "key": "ouch"}
        ana.send_json({"type": "react", "key": "<b>boo</b>"})
        unknown = next_of(ana, "reaction")
        assert unknown["code"] == "unknown_reaction" and "nice" in unknown["message"]
        for _ in range(int(chat_budget.REACTION_BURST)):
            ana.send_json({"type": "react", "key": "gg"})
            assert next_of(ana, "reaction") == {"type": "reaction", "seat": 0, "key": "gg"}
        ana.send_json({"type": "react", "key": "gg"})
        assert next_of(ana, "reaction")["code"] == "rate_limited"


def test_the_hosts_chat_off_is_enforced_by_the_server(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    _, ben_token = join(client, game_id, "Ben")
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as ben,
    ):
        greet(ana, host)
        greet(ben, ben_token)
        ben.send_json({"type": "set_chat", "chat": False, "spectators": False})
        assert next_of(ben, "chat_options")["code"] == "not_host"
        ana.send_json({"type": "set_chat", "chat": False, "spectators": False})
        off = {
            "type": "chat_options",
            "chat": False,
            "spectators": False,
            "spectator_reactions": True,
        }
        assert next_of(ana, "chat_options") == off
        assert next_of(ben, "chat_options") == off
        ben.send_json({"type": "chat", "text": "can I?"})
        refused = next_of(ben, "chat_line")
        assert (refused["type"], refused["code"]) == ("error", "chat_off")
        ana.send_json({"type": "chat", "text": "not even the host"})
        assert next_of(ana, "chat_line")["code"] == "chat_off"
        assert not said(quiet_until_pong(ana))  # nothing was sent to anyone
        # reactions go on
        ben.send_json({"type": "react", "key": "wow"})
        assert next_of(ana, "reaction")["seat"] == 1
    with client.websocket_connect(f"/ws/{game_id}") as again:
        kept = history(again, ben_token)
    assert (kept["chat"], kept["lines"]) == (False, [])  # stored: nothing; off: kept


def test_spectators_chat_only_when_the_host_allows_it(client: TestClient) -> None:
    game_id, host = create_table(client, "Ana")
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as watcher,
    ):
        greet(ana, host)
        greet(watcher, None)
        watcher.send_json({"type": "chat", "text": "hello from the rail"})
        assert next_of(watcher, "chat_line")["code"] == "chat_off"
        watcher.send_json({"type": "set_chat", "chat": True, "spectators": True})
        assert next_of(watcher, "chat_options")["code"] == "not_host"
        assert not said(quiet_until_pong(ana))
        ana.send_json({"type": "set_chat", "chat": True, "spectators": True})
        assert next_of(watcher, "chat_options")["spectators"] is True
        watcher.send_json({"type": "chat", "text": "hello from the rail"})
        line = next_of(ana, "chat_line")["line"]
        assert (line["seat"], line["name"], line["text"]) == (None, None, "hello from the rail")


def test_chat_needs_hello_first(client: TestClient) -> None:
    game_id, _ = create_table(client, "Ana")
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        for message in (
            {"type": "chat", "text": "hi"},
            {"type": "react", "key": "gg"},
            {"type": "set_chat", "chat": False, "spectators": False},
        ):
            ws.send_json(message)
            assert ws.receive_json()["code"] == "hello_required"


def test_only_the_last_lines_are_kept(
    tmp_path: Path, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_budget, "LINE_BURST", 1000.0)
    game_id, host = create_table(client, "Ana")
    sent = chat.KEEP + 7
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        for n in range(sent):
            ana.send_json({"type": "chat", "text": f"line {n}"})
            next_of(ana, "chat_line")
    with client.websocket_connect(f"/ws/{game_id}") as again:
        kept = history(again, host)
    texts = [x["text"] for x in kept["lines"]]
    assert texts == [f"line {n}" for n in range(sent - chat.KEEP, sent)]

    client.portal.call(client.app.state.hub.store.chat.flush)  # (written in batches)

    async def stored() -> int:
        async with await Store.open(sqlite_url(tmp_path / "maumau.sqlite3")) as store:
            return await store.read(lambda conn: chat_store.count(conn, game_id))

    assert asyncio.run(stored()) == chat.KEEP


def test_chat_is_never_in_the_record(client: TestClient) -> None:
    game_id, host = create_table(
        client, "Ana", "standard", {"scoring": "deals", "deals": 1}, grace_seconds=None
    )
    add_bot(client, game_id, host, "random")
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        ana.send_json({"type": "chat", "text": "secret-words-42"})
        next_of(ana, "chat_line")
        start(client, game_id, host)
        ana.send_json({"type": "react", "key": "heart"})
        ana.send_json({"type": "chat", "text": "more-words-43"})
        play_first_legal(ana, 0, lambda m: m["type"] == "game_end")
    record = client.get(f"/api/games/{game_id}/record")
    assert record.status_code == 200, record.text
    text = record.text
    assert "secret-words-42" not in text and "more-words-43" not in text
    assert "heart" not in text and "chat" not in text


def test_chat_messages_carry_nothing_of_anybodys_hand(client: TestClient) -> None:
    """Chat and reactions during a game: every receiver (both players and a
    spectator) gets the same text, with only the documented fields; no card code
    that the sender did not write, nothing of a seat's view."""
    game_id, host = create_table(client, "Ana")
    _, ben_token = join(client, game_id, "Ben")
    start(client, game_id, host)
    with (
        client.websocket_connect(f"/ws/{game_id}") as ana,
        client.websocket_connect(f"/ws/{game_id}") as ben,
        client.websocket_connect(f"/ws/{game_id}") as watcher,
    ):
        sockets = (ana, ben, watcher)
        histories = [
            greet(ws, token) for ws, token in zip(sockets, (host, ben_token, None), strict=True)
        ]
        assert all(h == histories[0] for h in histories)
        ana.send_json({"type": "chat", "text": "your move"})
        ben.send_json({"type": "react", "key": "ouch"})
        ana.send_json({"type": "react", "key": "fire"})
        ana.send_json({"type": "set_chat", "chat": True, "spectators": True})
        seen = [sorted(json.dumps(m, sort_keys=True) for m in said_four(ws)) for ws in sockets]
    assert seen[0] == seen[1] == seen[2]
    fields = {
        "chat_line": {"type", "line"},
        "reaction": {"type", "seat", "key"},
        "chat_options": {"type", "chat", "spectators", "spectator_reactions"},
    }
    for text in seen[0]:
        message = json.loads(text)
        assert set(message) == fields[message["type"]], message
        assert "hand" not in text and "legal" not in text and "seed" not in text
    (line,) = [json.loads(t)["line"] for t in seen[0] if json.loads(t)["type"] == "chat_line"]
    assert set(line) == {"id", "seat", "name", "text", "at"}
    assert (line["seat"], line["name"], line["text"]) == (0, "Ana", "your move")


def test_settings_missed_while_the_listener_was_away_are_read_again(client: TestClient) -> None:
    """Another process's host turned chat off while this process heard no notices (its
    PostgreSQL listener was away): once the listener is back the settings are read again,
    and a line is refused here too."""
    game_id, host = create_table(client, "Ana")
    with client.websocket_connect(f"/ws/{game_id}") as ana:
        greet(ana, host)
        hub = client.app.state.hub
        referee = hub.referees[game_id]
        client.portal.call(referee.chat.load)  # the settings as this process knows them
        off = chat_store.ChatSettingsRow(chat=False, spectators=False)

        async def elsewhere() -> None:  # what the other process stored, unheard here
            await hub.store.write(lambda conn: chat_store.set_settings(conn, game_id, off))

        client.portal.call(elsewhere)
        client.portal.call(hub.reconnected)
        ana.send_json({"type": "chat", "text": "still on?"})
        assert next_of(ana, "chat_line")["code"] == "chat_off"
