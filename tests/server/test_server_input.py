"""Every bad input the server can get, over HTTP and over the WebSocket.

Each refusal must carry its stable error code, leave the connection usable where that
makes sense, leave the game exactly as it was, and log nothing as a crash.  Seat
tokens must never leave the server except to their holder, and never reach a URL or
a log line.  The autouse fixture :func:`clean_logs` checks the logs of every test.

The tables whose game runs are dealt from a fixed seed (chosen below with the engine
itself), so that seat 0 is to move and holds a Jack and a card that does not fit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from maumau.engine import Game, Rules
from maumau.engine.verify import commitment_of
from maumau.server.live import referee as referee_module
from maumau.server.live import seating
from maumau.server.wire.errors import ERROR_CODES, MESSAGE_CHARS, QUOTED_CHARS
from support.serverkit import (
    add_bot,
    auth,
    create_table,
    hello,
    join,
    make_client,
    play_first_legal,
    receive_until,
    start,
)

Message = dict[str, Any]

PONG = {"type": "pong"}
JSON_TYPE = {"content-type": "application/json"}

DECK_52 = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- the logs: no crash, no token ---------------------------------------------------------


@pytest.fixture(autouse=True)
def clean_logs(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Capture everything at DEBUG; afterwards (the app shut down) assert that nothing
    was logged at ERROR or above and that no log line holds a seat token.  Every token
    the server issues is recorded on its way out."""
    caplog.set_level(logging.DEBUG)
    issued: list[str] = []
    original = seating.new_token

    def recording_new_token() -> str:
        token = original()
        issued.append(token)
        return token

    monkeypatch.setattr(seating, "new_token", recording_new_token)
    yield
    records = [r for when in ("setup", "call", "teardown") for r in caplog.get_records(when)]
    assert records, "the logs were not captured"
    crashes = [
        f"{r.name} {r.levelname}: {r.getMessage()}" for r in records if r.levelno >= logging.ERROR
    ]
    assert not crashes, crashes
    hashes = [sha256(t) for t in issued]
    for record in records:
        if record.name.startswith(("httpx", "httpcore")):
            continue  # the test's own HTTP client logging the URLs it requests
        text = record.getMessage() + (record.exc_text or "")
        # no token anywhere; not even its hash in the server's own lines (aiosqlite's
        # DEBUG lines show the SQL parameters, and so the stored hashes)
        secrets = [*issued, *hashes] if record.name.startswith("maumau") else issued
        leaked = [s for s in secrets if s in text]
        assert not leaked, f"a token is in the log line {text!r}"


# --- a fixed deal ------------------------------------------------------------------------


@functools.cache
def seed_for(preset: str, need_unplayable: bool) -> int:
    """A seed after which seat 0 (of two) is to move with nothing pending, holding a
    Jack and (if asked) a non-Jack card that may not be played."""
    rules = Rules.from_dict({"preset": preset})
    for seed in range(10_000):
        game = Game(rules, ["Ana", "Bo"])
        game.deal(seed)
        view = game.view(0).to_json()
        plays = {a.to_json(0).get("play") for a in game.legal_actions(0)}
        hand: list[str] = view["hand"]
        if view["to_move"] != 0 or view["step"] != "play" or view["pending"]:
            continue
        if not any(c[0] == "J" for c in hand):
            continue
        if need_unplayable and not any(c[0] != "J" and c not in plays for c in hand):
            continue
        return seed
    raise AssertionError("no seed fits")


def fix_deal(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The server deals every round from ``seed`` (still with salt and commitment)."""
    salt = "5a" * 32

    def deal() -> dict[str, Any]:
        return {"seed": seed, "salt": salt, "commitment": commitment_of(seed, salt)}

    monkeypatch.setattr(referee_module, "new_deal", deal)


@dataclass
class Dealt:
    """A started two-player table: seat 0 (the host) is to move; seat 1 waits."""

    client: TestClient
    game_id: str
    host: str
    guest: str


@pytest.fixture
def dealt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dealt]:
    fix_deal(monkeypatch, seed_for("penalty-100", need_unplayable=True))
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, grace_seconds=None)
        _, guest = join(client, game_id, "Bo")
        start(client, game_id, host)
        yield Dealt(client, game_id, host, guest)


# --- WebSocket helpers -------------------------------------------------------------------


def greet(ws: WebSocketTestSession, token: str | None) -> tuple[Message, Message | None]:
    """hello; returns the welcome and (once the game runs) the first state."""
    welcome = hello(ws, token)
    lobby = receive_until(ws, lambda m: m["type"] == "lobby")[-1]
    state = None
    if lobby["game"]["status"] == "playing":
        state = receive_until(ws, lambda m: m["type"] == "state")[-1]
    return welcome, state


def reply(ws: WebSocketTestSession) -> Message:
    """The next message that is not a lobby update (other sockets come and go)."""
    while True:
        message: Message = ws.receive_json()
        if message["type"] not in ("lobby", "presence"):
            return message


NO_ID = object()


def refused(ws: WebSocketTestSession, code: str, action_id: object = NO_ID) -> Message:
    """The next reply is an error with ``code`` (and ``action_id``, if given)."""
    message = reply(ws)
    assert message["type"] == "error", message
    assert message["code"] == code, message
    assert isinstance(message["message"], str) and message["message"]
    if action_id is not NO_ID:
        assert message["action_id"] == action_id, message
    return message


def answers_ping(ws: WebSocketTestSession) -> None:
    ws.send_json({"type": "ping"})
    assert reply(ws) == {"type": "pong"}


def snapshot(client: TestClient, game_id: str, token: str | None) -> tuple[int, Message]:
    """The version and view a fresh connection with ``token`` is sent."""
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        _, state = greet(ws, token)
    assert state is not None
    return state["version"], state["view"]


def move(version: int, action_id: str, action: Message) -> Message:
    return {"type": "action", "version": version, "action_id": action_id, "action": action}


def accepted(ws: WebSocketTestSession, state: Message, action_id: str = "good-1") -> Message:
    """Play the first legal action of ``state``; the new state this connection was
    sent acknowledges it, at the next version."""
    ws.send_json(move(state["version"], action_id, state["legal"][0]))
    seen = receive_until(ws, lambda m: m["type"] in ("ack", "error") or m.get("ack") == action_id)
    new_state = seen[-1]
    assert new_state["type"] == "state", new_state
    assert new_state["version"] == state["version"] + 1
    return new_state


# --- WebSocket: malformed messages -------------------------------------------------------

ACTION_OK = {"version": 1, "action_id": "m-1", "action": {"draw": 1}}

MALFORMED: list[tuple[str, str]] = [
    ("{not json", "bad_json"),
    ('{"type": "ping"', "bad_json"),
    ("", "bad_json"),
    ("[" * 2000, "bad_json"),  # deeply nested, yet under the size limit
    ("[1, 2]", "bad_message"),
    ('"ping"', "bad_message"),
    ("null", "bad_message"),
    ("42", "bad_message"),
    ("{}", "bad_message"),  # an object without a type
    ('{"version": 1}', "bad_message"),
    ('{"type": "shout"}', "unknown_type"),
    ('{"type": "pong"}', "unknown_type"),
    ('{"type": "welcome", "game_id": "x"}', "unknown_type"),
    ('{"type": "ping", "extra": 1}', "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "version": "one"}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "version": -1}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "version": 1.5}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "version": "1"}), "bad_message"),  # no text
    (json.dumps({"type": "action", **ACTION_OK, "version": True}), "bad_message"),
    (json.dumps({"type": "hello", "token": 12345}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "action_id": ""}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "action_id": "x" * 65}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "action_id": 7}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "action": [1]}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "action": "draw"}), "bad_message"),
    (json.dumps({"type": "action", **ACTION_OK, "extra": True}), "bad_message"),
    (json.dumps({"type": "action", "version": 1, "action": {"draw": 1}}), "bad_message"),
    (json.dumps({"type": "action", "version": 1, "action_id": "m-1"}), "bad_message"),
]


@pytest.mark.parametrize(("text", "code"), MALFORMED, ids=[f"{c}:{t[:24]}" for t, c in MALFORMED])
def test_ws_malformed_message_is_refused_and_changes_nothing(
    dealt: Dealt, text: str, code: str
) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        _, state = greet(ws, dealt.host)
        assert state is not None
        ws.send_text(text)
        refused(ws, code)
        answers_ping(ws)
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == (
            state["version"],
            state["view"],
        )
        accepted(ws, state)  # the connection still plays, at the same version


def test_ws_unknown_type_message_names_the_types(dealt: Dealt) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        greet(ws, dealt.host)
        ws.send_json({"type": "shout"})
        error = refused(ws, "unknown_type")
        assert "shout" in error["message"]
        for kind in ("hello", "action", "ping"):
            assert kind in error["message"]


def test_ws_binary_frame_is_read_as_text(dealt: Dealt) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        greet(ws, dealt.host)
        ws.send_bytes(b'{"type": "ping"}')
        assert reply(ws) == {"type": "pong"}
        ws.send_bytes(b"\xff\xfe\x00")
        refused(ws, "bad_json")
        answers_ping(ws)


# --- WebSocket: hello --------------------------------------------------------------------


BAD_HELLOS: list[Message] = [
    {"type": "hello", "token": 5},
    {"type": "hello", "token": ["a"]},
    {"type": "hello", "token": "t" * 200},
    {"type": "hello", "token": None, "seat": 0},
    {"type": "hello", "name": "Ana"},
]


@pytest.mark.parametrize("bad", BAD_HELLOS, ids=[str(i) for i in range(len(BAD_HELLOS))])
def test_ws_hello_with_bad_fields_then_good_hello(dealt: Dealt, bad: Message) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        ws.send_json(bad)
        refused(ws, "bad_message")
        welcome, state = greet(ws, dealt.host)
        assert welcome["seat"] == 0 and welcome["role"] == "player"
        assert state is not None
        accepted(ws, state)


def test_ws_action_before_hello(dealt: Dealt) -> None:
    before = snapshot(dealt.client, dealt.game_id, dealt.host)
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        ws.send_json(move(before[0], "early", {"draw": 1}))
        refused(ws, "hello_required", "early")
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == before
        welcome, state = greet(ws, dealt.host)
        assert welcome["seat"] == 0
        assert state is not None and (state["version"], state["view"]) == before
        accepted(ws, state)


def test_ws_hello_twice(dealt: Dealt) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        _, state = greet(ws, dealt.host)
        assert state is not None
        for token in (dealt.host, dealt.guest, None):
            ws.send_json({"type": "hello", "token": token})
            refused(ws, "already_greeted")
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == (
            state["version"],
            state["view"],
        )
        # still seat 0 (not the guest's seat, not a spectator): seat 0's move is taken
        accepted(ws, state)


def test_ws_wrong_token_then_right_one(dealt: Dealt) -> None:
    _, other_table_token = create_table(dealt.client)
    before = snapshot(dealt.client, dealt.game_id, dealt.host)
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        for wrong in ("not-a-token", dealt.host[:-1], other_table_token):  # (3 at most)
            ws.send_json({"type": "hello", "token": wrong})
            refused(ws, "bad_token")
        # a refused hello greets nobody: a move still needs a hello
        ws.send_json(move(before[0], "m", {"draw": 1}))
        refused(ws, "hello_required", "m")
        welcome, state = greet(ws, dealt.host)
        assert welcome == {
            "type": "welcome",
            "game_id": dealt.game_id,
            "seat": 0,
            "role": "player",
            "host": True,
            "results": [],
            "end": None,
        }
        assert state is not None and (state["version"], state["view"]) == before
        accepted(ws, state)


def test_ws_a_fourth_wrong_token_closes_the_connection(dealt: Dealt) -> None:
    """Each hello with an unknown token may cost a look into the store (another
    process may have just seated it): a connection may try three, the fourth closes
    it (and new connections are limited per address a minute)."""
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        for n in range(3):
            ws.send_json({"type": "hello", "token": f"made-up-{n}"})
            refused(ws, "bad_token")
        ws.send_json({"type": "hello", "token": sha256(dealt.host)})
        closed = reply(ws)
        assert closed["type"] == "closed" and closed["code"] == "bad_token", closed
        with pytest.raises(WebSocketDisconnect) as gone:
            reply(ws)
        assert gone.value.code == 1008
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        greet(ws, dealt.host)  # the seat's own token is let in as ever


def test_ws_spectator_cannot_act(dealt: Dealt) -> None:
    before = snapshot(dealt.client, dealt.game_id, dealt.host)
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        welcome, state = greet(ws, None)
        assert welcome["role"] == "spectator" and welcome["seat"] is None
        assert state is not None and state["legal"] == []
        assert "hand" not in state["view"] or not state["view"]["hand"]
        for action in ({"draw": 1}, {"seat": 0, "draw": 1}, {"play": before[1]["hand"][0]}):
            ws.send_json(move(state["version"], "spy", action))
            refused(ws, "not_seated", "spy")
        answers_ping(ws)
    assert snapshot(dealt.client, dealt.game_id, dealt.host) == before


# --- WebSocket: moves that are refused ---------------------------------------------------


def _hand(state: Message) -> list[str]:
    hand: list[str] = state["view"]["hand"]
    return hand


def _plays(state: Message) -> set[str]:
    return {a["play"] for a in state["legal"] if "play" in a}


def _not_in_hand(state: Message) -> Message:
    return {"play": next(c for c in DECK_52 if c not in _hand(state) and c[0] != "J")}


def _unplayable(state: Message) -> Message:
    plays = _plays(state)
    return {"play": next(c for c in _hand(state) if c[0] != "J" and c not in plays)}


def _jack_without_suit(state: Message) -> Message:
    return {"play": next(c for c in _hand(state) if c[0] == "J")}


def _suit_on_non_jack(state: Message) -> Message:
    return {"play": next(c for c in _hand(state) if c[0] != "J"), "suit": "H"}


def _jack_bad_suit(state: Message) -> Message:
    return {"play": next(c for c in _hand(state) if c[0] == "J"), "suit": "X"}


def _fixed(action: Message) -> Callable[[Message], Message]:
    return lambda state: action


#: (code, version offset, the action built from the state)
REFUSED_MOVES: list[tuple[str, str, int, Callable[[Message], Message]]] = [
    ("card_not_in_hand", "not-in-hand", 0, _not_in_hand),
    ("card_not_playable", "does-not-fit", 0, _unplayable),
    ("suit_required", "jack-no-suit", 0, _jack_without_suit),
    ("bad_suit", "suit-on-non-jack", 0, _suit_on_non_jack),
    ("bad_suit", "jack-suit-X", 0, _jack_bad_suit),
    ("bad_card", "ZZ", 0, _fixed({"play": "ZZ"})),
    ("bad_card", "10H", 0, _fixed({"play": "10H"})),
    ("bad_card", "lowercase", 0, _fixed({"play": "qh"})),
    ("bad_action", "two-verbs", 0, _fixed({"play": "QH", "draw": 1})),
    ("bad_action", "no-verb", 0, _fixed({})),
    ("bad_action", "unknown-key", 0, _fixed({"draw": 1, "why": "because"})),
    ("bad_action", "play-number", 0, _fixed({"play": 7})),
    ("bad_action", "pass-false", 0, _fixed({"pass": False})),
    ("bad_action", "draw-negative", 0, _fixed({"draw": -1})),
    ("bad_action", "draw-bool", 0, _fixed({"draw": True})),
    ("bad_action", "draw-null-extra", 0, _fixed({"draw": None, "suit": "H"})),
    ("bad_action", "bad-call", 0, _fixed({"play": "QH", "call": "hello"})),
    ("wrong_draw_count", "draw-3", 0, _fixed({"draw": 3})),
    ("not_your_seat", "seat-1", 0, _fixed({"seat": 1, "draw": 1})),
    ("not_your_seat", "seat-7", 0, _fixed({"seat": 7, "draw": 1})),
    ("not_your_seat", "seat-str", 0, _fixed({"seat": "1", "draw": 1})),
    ("stale_version", "older", -1, lambda state: state["legal"][0]),
    ("stale_version", "newer", 1, lambda state: state["legal"][0]),
]


@pytest.mark.parametrize(
    ("code", "offset", "build"),
    [(code, offset, build) for code, _, offset, build in REFUSED_MOVES],
    ids=[f"{code}:{name}" for code, name, _, _ in REFUSED_MOVES],
)
def test_ws_refused_move_changes_nothing(
    dealt: Dealt, code: str, offset: int, build: Callable[[Message], Message]
) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        _, state = greet(ws, dealt.host)
        assert state is not None and state["view"]["to_move"] == 0
        ws.send_json(move(state["version"] + offset, "bad-1", build(state)))
        refused(ws, code, "bad-1")
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == (
            state["version"],
            state["view"],
        )
        assert snapshot(dealt.client, dealt.game_id, dealt.guest)[0] == state["version"]
        accepted(ws, state)


def test_ws_out_of_turn(dealt: Dealt) -> None:
    host_before = snapshot(dealt.client, dealt.game_id, dealt.host)
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        welcome, state = greet(ws, dealt.guest)
        assert welcome["seat"] == 1
        assert state is not None
        assert state["view"]["to_move"] == 0 and state["legal"] == []
        early: list[Message] = [{"draw": 1}, {"draw": None}, {"play": _hand(state)[0]}]
        for i, action in enumerate(early):
            ws.send_json(move(state["version"], f"early-{i}", action))
            refused(ws, "not_your_turn", f"early-{i}")
        answers_ping(ws)
        assert snapshot(dealt.client, dealt.game_id, dealt.guest) == (
            state["version"],
            state["view"],
        )
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == host_before
        # once the host has moved, it is the guest's turn and the guest's move is taken
        with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as host_ws:
            _, host_state = greet(host_ws, dealt.host)
            assert host_state is not None
            after = accepted(host_ws, host_state, "host-1")
        if after["view"]["to_move"] == 1:
            guest_state = receive_until(
                ws, lambda m: m["type"] == "state" and m["version"] == after["version"]
            )[-1]
            accepted(ws, guest_state, "guest-1")


def test_ws_duplicate_action_id_moves_once(dealt: Dealt) -> None:
    with dealt.client.websocket_connect(f"/ws/{dealt.game_id}") as ws:
        _, state = greet(ws, dealt.host)
        assert state is not None
        version = state["version"]
        after = accepted(ws, state, "once")
        for _ in range(2):  # resent, twice
            ws.send_json(move(version, "once", state["legal"][0]))
            assert reply(ws) == {
                "type": "ack",
                "action_id": "once",
                "version": version + 1,
                "duplicate": True,
            }
        assert snapshot(dealt.client, dealt.game_id, dealt.host) == (version + 1, after["view"])
        assert len(after["events"]) == 1  # one move, one new log entry


def test_ws_card_of_another_deck_is_bad_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 32-card game has no Two: "2H" is not a card code of this game's deck."""
    fix_deal(monkeypatch, seed_for("traditional", need_unplayable=False))
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, preset="traditional", grace_seconds=None)
        join(client, game_id, "Bo")
        start(client, game_id, host)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            _, state = greet(ws, host)
            assert state is not None and state["view"]["to_move"] == 0
            ws.send_json(move(state["version"], "two", {"play": "2H"}))
            refused(ws, "bad_card", "two")
            assert snapshot(client, game_id, host) == (state["version"], state["view"])
            accepted(ws, state)


# --- WebSocket: size and rate limits -----------------------------------------------------


def test_ws_message_size_limit(tmp_path: Path) -> None:
    with make_client(tmp_path, max_message_bytes=512) as client:
        game_id, host = create_table(client)
        before = client.get(f"/api/games/{game_id}").json()
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            greet(ws, host)
            ping = '{"type": "ping"}'
            ws.send_text(ping + " " * (512 - len(ping)))  # exactly at the limit
            assert reply(ws) == {"type": "pong"}
            ws.send_text(ping + " " * (513 - len(ping)))
            error = refused(ws, "message_too_large")
            assert "512" in error["message"]
            ws.send_text(json.dumps({"type": "ping", "pad": "x" * 100_000}))
            refused(ws, "message_too_large")
            # 200 characters, but 600 bytes of UTF-8
            ws.send_text(json.dumps({"type": "ping", "pad": "€" * 200}, ensure_ascii=False))
            refused(ws, "message_too_large")
            ws.send_bytes(b"x" * 513)
            refused(ws, "message_too_large")
            ws.send_bytes(b"[" * 100_000)
            refused(ws, "message_too_large")
            answers_ping(ws)
        assert client.get(f"/api/games/{game_id}").json() == before


def test_ws_default_size_limit_is_enforced(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            ws.send_text(json.dumps({"type": "ping", "pad": "x" * 5000}))
            refused(ws, "message_too_large")
            answers_ping(ws)


def test_ws_flooding_is_rate_limited(tmp_path: Path) -> None:
    with make_client(tmp_path, messages_per_second=1.0, message_burst=8.0) as client:
        game_id, host = create_table(client)
        before = client.get(f"/api/games/{game_id}").json()
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            greet(ws, host)  # hello spends one of the burst of 8
            for _ in range(12):
                ws.send_json({"type": "ping"})
            replies = [reply(ws) for _ in range(12)]
            pongs = [r for r in replies if r == {"type": "pong"}]
            limited = [r for r in replies if r.get("code") == "rate_limited"]
            assert len(pongs) + len(limited) == 12, replies
            assert 7 <= len(pongs) <= 8, replies
            assert len(limited) >= 4, replies
            assert all(r["type"] == "error" for r in limited)
            time.sleep(1.1)
            answers_ping(ws)  # the connection was not closed, and the bucket refilled
        assert client.get(f"/api/games/{game_id}").json() == before


def test_ws_rate_limited_names_the_dropped_action_id(tmp_path: Path) -> None:
    """A move dropped by the rate limit is answered with its ``action_id``, so the
    client knows which move was not made; a message without one is answered with
    ``null``."""
    with make_client(tmp_path, messages_per_second=0.001, message_burst=7.0) as client:
        game_id, host = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            greet(ws, host)  # hello and six pings spend the whole burst
            for _ in range(6):
                answers_ping(ws)
            move = {"type": "action", "version": 0, "action": {"type": "draw"}}
            ws.send_json({**move, "action_id": "ana-1"})
            refused(ws, "rate_limited", "ana-1")
            ws.send_json({"type": "ping"})
            refused(ws, "rate_limited", None)
            ws.send_json({**move, "action_id": 7})
            refused(ws, "rate_limited", None)
            ws.send_text('{"type": "action", "action_id": "ana-2", ')  # not JSON
            refused(ws, "rate_limited", None)
            ws.send_json({**move, "action_id": "a" * 100})
            refused(ws, "rate_limited", "a" * 64)


def test_ws_a_flood_past_the_limit_closes_the_connection(tmp_path: Path) -> None:
    """A client that goes on sending past its limit is not answered for ever (each
    answer costs the server): once more messages were refused in a row than its burst
    allows, it is sent ``closed`` (``rate_limited``) and closed; the table goes on."""
    with make_client(tmp_path, messages_per_second=0.001, message_burst=3.0) as client:
        game_id, host = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            greet(ws, host)  # hello spends one of the burst of 3
            for _ in range(2 + 3 + 1 + 5):  # 2 answered, 3 refused, 1 more: closed
                ws.send_json({"type": "ping"})
            replies = [reply(ws) for _ in range(2 + 3 + 1)]
            assert [r["type"] for r in replies[:2]] == ["pong", "pong"], replies
            assert [r.get("code") for r in replies[2:5]] == ["rate_limited"] * 3, replies
            assert replies[5]["type"] == "closed" and replies[5]["code"] == "rate_limited"
            assert "past the limit" in replies[5]["message"]
            with pytest.raises(WebSocketDisconnect) as gone:
                reply(ws)
            assert gone.value.code == 1008
        with client.websocket_connect(f"/ws/{game_id}") as again:
            greet(again, host)  # the seat is still the host's


def test_ws_refusals_at_the_limits_pace_are_no_flood(tmp_path: Path) -> None:
    """Refusals have a budget of their own, refilled at the message rate: a client
    that goes over its limit now and then is refused, never closed."""
    with make_client(tmp_path, messages_per_second=20.0, message_burst=3.0) as client:
        game_id, host = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            greet(ws, host)
            # one or two over the limit each time, 5 in all (more than the burst of 3),
            # with pauses between
            for _ in range(4):
                for _ in range(4):
                    ws.send_json({"type": "ping"})
                kinds = [reply(ws)["type"] for _ in range(4)]
                assert "closed" not in kinds and "pong" in kinds, kinds
                time.sleep(0.2)  # (the bucket refills: 20 a second)
            answers_ping(ws)


def test_ws_rate_limit_is_per_connection(tmp_path: Path) -> None:
    with make_client(tmp_path, messages_per_second=1.0, message_burst=2.0) as client:
        game_id, _ = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as first:
            for _ in range(5):
                first.send_json({"type": "ping"})
            assert [reply(first)["type"] for _ in range(5)].count("error") >= 2
            with client.websocket_connect(f"/ws/{game_id}") as second:
                answers_ping(second)


def test_ws_unknown_game_is_closed(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        for game_id in ("nosuchgame", "x" * 40, "bad%20id"):
            with client.websocket_connect(f"/ws/{game_id}") as ws:
                closed = ws.receive_json()
                assert closed["type"] == "closed", closed
                assert closed["code"] == "unknown_game"
                with pytest.raises(WebSocketDisconnect):
                    ws.receive_json()


def test_ws_paths_other_than_a_tables_are_refused(tmp_path: Path) -> None:
    """Only ``/ws/{game_id}`` is a socket; the app hands the rest to FastAPI, which
    refuses them at the handshake."""
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        for path in ("/ws/", "/ws", f"/ws/{game_id}/more", f"/wss/{game_id}", "/api/games"):
            with pytest.raises(WebSocketDisconnect), client.websocket_connect(path) as ws:
                ws.receive_json()


# --- WebSocket: origin -------------------------------------------------------------------


def _refused_origin(client: TestClient, game_id: str, origin: str) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as caught,
        client.websocket_connect(f"/ws/{game_id}", headers={"Origin": origin}) as ws,
    ):
        ws.receive_json()
    assert caught.value.code == 1008


def _accepted_origin(client: TestClient, game_id: str, origin: str | None) -> None:
    headers = {} if origin is None else {"Origin": origin}
    with client.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        welcome, _ = greet(ws, None)
        assert welcome["role"] == "spectator"
        answers_ping(ws)


def test_ws_origin_of_another_site_is_refused(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        for origin in (
            "http://evil.example",
            "https://evil.example",
            "http://testserver.evil.example",
            "http://evil.example/testserver",
            "null",
        ):
            _refused_origin(client, game_id, origin)
        _accepted_origin(client, game_id, "http://testserver")
        _accepted_origin(client, game_id, None)
        assert client.get(f"/api/games/{game_id}").json()["seats"][0]["connected"] is False


def test_ws_allowed_origins_are_configurable(tmp_path: Path) -> None:
    with make_client(tmp_path / "a", allowed_origins=("http://evil.example",)) as client:
        game_id, _ = create_table(client)
        _accepted_origin(client, game_id, "http://evil.example")
        _accepted_origin(client, game_id, None)
        _refused_origin(client, game_id, "http://other.example")
    with make_client(tmp_path / "b", allowed_origins=("*",)) as client:
        game_id, _ = create_table(client)
        _accepted_origin(client, game_id, "http://other.example")


# --- HTTP --------------------------------------------------------------------------------


def http_error(reply: httpx.Response, status: int, code: str) -> str:
    """Assert the documented error shape; returns the message."""
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert code in ERROR_CODES or reply.status_code == 409
    message: str = body["error"]["message"]
    assert isinstance(message, str) and message
    return message


def game_count(client: TestClient) -> int:
    count: int = client.get("/api/health").json()["tables"]
    return count


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"name": "Ana", "options": {"bogus": 1}}, "bogus"),
        ({"name": "Ana", "options": {"deck": 33}}, "deck"),
        ({"name": "Ana", "options": {"deck": "52"}}, "deck"),
        ({"name": "Ana", "options": {"hand_size": 99}}, "hand_size"),
        ({"name": "Ana", "options": {"scoring": "chess"}}, "scoring"),
        ({"name": "Ana", "preset": "nope"}, "nope"),
        ({"name": "Ana", "options": {"preset": "nope"}}, "nope"),
        ({"name": "Ana", "preset": "standard", "options": {"preset": "gamerules"}}, "preset"),
    ],
)
def test_http_create_with_bad_option(tmp_path: Path, body: Message, named: str) -> None:
    with make_client(tmp_path) as client:
        tables = game_count(client)
        message = http_error(client.post("/api/games", json=body), 422, "bad_option")
        assert named in message
        assert game_count(client) == tables


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({}, "name"),
        ({"preset": "standard"}, "name"),
        ({"name": 5}, "name"),
        ({"name": "Ana", "options": [1]}, "options"),
        ({"name": "Ana", "settings": {"bot_delay_ms": "soon"}}, "bot_delay_ms"),
        ({"name": "Ana", "settings": {"grace_seconds": -1}}, "grace_seconds"),
        ({"name": "Ana", "settings": {"grace_seconds": False}}, "grace_seconds"),
        ({"name": "Ana", "settings": {"bot_delay_ms": "900"}}, "bot_delay_ms"),
        ({"name": "Ana", "settings": {"bot_delay_ms": 900.0}}, "bot_delay_ms"),
        ({"name": 7}, "name"),
        ({"name": "Ana", "settings": {"stand_in_level": "god"}}, "stand_in_level"),
        ({"name": "Ana", "settings": {"research_export": "yes"}}, "research_export"),
        ({"name": "Ana", "settings": {"research_export": 1}}, "research_export"),
        ({"name": "Ana", "settings": {"turn": 3}}, "turn"),
        ({"name": "Ana", "seat": 3}, "seat"),
    ],
)
def test_http_create_with_bad_body(tmp_path: Path, body: Message, named: str) -> None:
    with make_client(tmp_path) as client:
        message = http_error(client.post("/api/games", json=body), 400, "bad_message")
        assert named in message
        assert game_count(client) == 0


@pytest.mark.parametrize("name", ["", "x" * 33])
def test_http_create_with_a_bad_name(tmp_path: Path, name: str) -> None:
    """A string that is no display name is ``bad_name`` (see tests/server/test_names.py)."""
    with make_client(tmp_path) as client:
        message = http_error(client.post("/api/games", json={"name": name}), 422, "bad_name")
        assert "name" in message
        assert game_count(client) == 0


LONG = "x" * 60_000


@pytest.mark.parametrize(
    ("body", "status", "code", "named"),
    [
        ({"name": "Ana", "preset": LONG}, 422, "bad_option", "unknown preset 'xxx"),
        ({"name": "Ana", "options": {LONG: 1}}, 422, "bad_option", "unknown option key 'xxx"),
        ({"name": "Ana", "options": {"deck": LONG}}, 422, "bad_option", "deck: must be"),
        ({"name": "Ana", "settings": {LONG: 1}}, 400, "bad_message", "settings.xxx"),
        ({"name": "Ana", "settings": {"bot_delay_ms": LONG}}, 400, "bad_message", "bot_delay"),
        ({"name": LONG}, 422, "bad_name", "name"),
    ],
)
def test_http_a_refused_value_is_not_echoed_whole(
    tmp_path: Path, body: Message, status: int, code: str, named: str
) -> None:
    """A refusal names what was wrong and quotes the start of it, never 60 KB back."""
    with make_client(tmp_path) as client:
        message = http_error(client.post("/api/games", json=body), status, code)
    assert named in message
    assert len(message) <= MESSAGE_CHARS and "x" * (QUOTED_CHARS + 1) not in message


def test_http_bad_bodies_of_other_routes(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client)
        url = f"/api/games/{game_id}"
        assert "name" in http_error(client.post(f"{url}/seats", json={}), 400, "bad_message")
        http_error(client.post(f"{url}/seats", json={"name": 1}), 400, "bad_message")
        http_error(client.post(f"{url}/seats", json=["Bo"]), 400, "bad_message")
        http_error(client.delete(f"{url}/seats/one", headers=auth(host)), 400, "bad_message")
        assert len(client.get(url).json()["seats"]) == 1


def test_http_bot_level_must_be_known(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client)
        url = f"/api/games/{game_id}/bots"
        http_error(client.post(url, json={"level": "genius"}, headers=auth(host)), 422, "bad_level")
        assert len(client.get(f"/api/games/{game_id}").json()["seats"]) == 1


def test_http_body_over_64_kib(tmp_path: Path) -> None:
    big = json.dumps({"name": "Ana", "options": {}, "pad": "x" * 70_000}).encode()
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        for url in ("/api/games", f"/api/games/{game_id}/seats"):
            http_error(client.post(url, content=big, headers=JSON_TYPE), 413, "message_too_large")
        assert len(client.get(f"/api/games/{game_id}").json()["seats"]) == 1


def test_http_body_over_64_kib_without_content_length(tmp_path: Path) -> None:
    """A chunked body declares no length; it must be capped all the same."""
    big = json.dumps({"name": "Ana", "pad": "x" * 70_000}).encode()
    with make_client(tmp_path) as client:
        reply = client.post("/api/games", content=iter([big]), headers=JSON_TYPE)
        assert "content-length" not in {k.lower() for k in reply.request.headers}
        http_error(reply, 413, "message_too_large")


MALFORMED_BODIES = [b"{bad", b'{"name": "Ana"', b"\xff\xfe", b"[" * 4000]


@pytest.mark.parametrize("body", MALFORMED_BODIES, ids=["bad", "unclosed", "binary", "nested"])
def test_http_malformed_json_body_is_400(tmp_path: Path, body: bytes) -> None:
    with make_client(tmp_path) as client:
        reply = client.post("/api/games", content=body, headers=JSON_TYPE)
        assert reply.status_code == 400, reply.text
        error = reply.json().get("error")
        assert isinstance(error, dict) and set(error) == {"code", "message"}, reply.text
        assert error["code"] in ("bad_json", "bad_message")
        assert game_count(client) == 0


@pytest.mark.parametrize("body", MALFORMED_BODIES, ids=["bad", "unclosed", "binary", "nested"])
def test_http_malformed_json_body_is_bad_json(tmp_path: Path, body: bytes) -> None:
    """The same code as on the WebSocket: malformed JSON is ``bad_json``."""
    with make_client(tmp_path) as client:
        reply = client.post("/api/games", content=body, headers=JSON_TYPE)
        http_error(reply, 400, "bad_json")


def host_only(client: TestClient, path: str, headers: dict[str, str]) -> httpx.Response:
    """Add a bot, start, or remove a seat (whichever ``path`` names)."""
    if "/seats/" in path:
        return client.delete(path, headers=headers)
    return client.post(path, json={"level": "easy"}, headers=headers)


def test_http_seat_tokens_are_checked(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client)
        _, guest = join(client, game_id, "Bo")
        _, third = join(client, game_id, "Cy")
        _, stranger = create_table(client)  # a seat at another table
        url = f"/api/games/{game_id}"
        before = client.get(url).json()
        for path in (f"{url}/bots", f"{url}/start", f"{url}/seats/1"):
            for headers in ({}, {"Authorization": f"Basic {host}"}, {"Authorization": "Bearer "}):
                http_error(host_only(client, path, headers), 401, "no_token")
            http_error(host_only(client, path, {"Authorization": host}), 401, "no_token")
            for wrong in ("not-a-token", sha256(host), stranger):
                http_error(host_only(client, path, auth(wrong)), 403, "bad_token")
            http_error(host_only(client, path, auth(third)), 403, "not_host")
        # a player may leave their own seat, but not remove another's or the host's
        http_error(client.delete(f"{url}/seats/1", headers=auth(third)), 403, "not_host")
        http_error(client.delete(f"{url}/seats/0", headers=auth(guest)), 403, "not_host")
        http_error(client.delete(f"{url}/seats/0", headers=auth(host)), 403, "not_host")
        http_error(client.delete(f"{url}/seats/9", headers=auth(host)), 404, "unknown_seat")
        http_error(client.post(f"{url}/rematch"), 401, "no_token")
        http_error(client.post(f"{url}/rematch", headers=auth(stranger)), 403, "bad_token")
        assert client.get(url).json() == before


def test_http_start_with_one_seat(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client)
        url = f"/api/games/{game_id}"
        http_error(client.post(f"{url}/start", headers=auth(host)), 409, "too_few_players")
        assert client.get(url).json()["status"] == "lobby"


def test_http_table_full(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, preset="gamerules")
        url = f"/api/games/{game_id}"
        assert client.get(url).json()["max_seats"] == 4
        join(client, game_id, "Bo")
        join(client, game_id, "Cy")
        add_bot(client, game_id, host)
        before = client.get(url).json()
        http_error(client.post(f"{url}/seats", json={"name": "Di"}), 409, "table_full")
        bot = client.post(f"{url}/bots", json={"level": "easy"}, headers=auth(host))
        http_error(bot, 409, "table_full")
        assert client.get(url).json() == before
        # a token that holds a seat here still gets its own seat back
        again = client.post(f"{url}/seats", json={"name": "Ana"}, headers=auth(host))
        assert again.status_code == 200 and again.json()["seat"] == 0


def test_http_seats_cannot_change_after_start(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, grace_seconds=None)
        _, guest = join(client, game_id, "Bo")
        start(client, game_id, host)
        url = f"/api/games/{game_id}"
        before = client.get(url).json()
        http_error(client.post(f"{url}/seats", json={"name": "Cy"}), 409, "game_started")
        bot = client.post(f"{url}/bots", json={"level": "easy"}, headers=auth(host))
        http_error(bot, 409, "game_started")
        http_error(client.post(f"{url}/start", headers=auth(host)), 409, "game_started")
        http_error(client.delete(f"{url}/seats/1", headers=auth(host)), 409, "game_started")
        http_error(client.delete(f"{url}/seats/1", headers=auth(guest)), 409, "game_started")
        assert client.get(url).json() == before


def test_http_unknown_game(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        _, host = create_table(client)
        for game_id in ("nosuchgame", "x" * 40, "a.b"):
            url = f"/api/games/{game_id}"
            http_error(client.get(url), 404, "unknown_game")
            http_error(client.get(f"{url}/record"), 404, "unknown_game")
            http_error(client.post(f"{url}/seats", json={"name": "Bo"}), 404, "unknown_game")
            for path in ("bots", "start", "rematch"):
                sent = client.post(f"{url}/{path}", json={"level": "easy"}, headers=auth(host))
                http_error(sent, 404, "unknown_game")
            http_error(client.delete(f"{url}/seats/0", headers=auth(host)), 404, "unknown_game")
        assert game_count(client) == 1


def test_http_record_and_rematch_need_a_finished_game(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, grace_seconds=None)
        url = f"/api/games/{game_id}"
        http_error(client.get(f"{url}/record"), 409, "game_not_finished")  # lobby
        http_error(client.post(f"{url}/rematch", headers=auth(host)), 409, "game_not_finished")
        join(client, game_id, "Bo")
        start(client, game_id, host)
        http_error(client.get(f"{url}/record"), 409, "game_not_finished")  # playing
        http_error(client.post(f"{url}/rematch", headers=auth(host)), 409, "game_not_finished")
        info = client.get(url).json()
        assert info["status"] == "playing" and info["rematch_id"] is None
        assert game_count(client) == 1


def test_http_table_creation_is_rate_limited_per_address(tmp_path: Path) -> None:
    with make_client(tmp_path, tables_per_minute=3) as client:
        first, _ = create_table(client)
        for _ in range(2):
            create_table(client)
        body = {"name": "Ana"}
        message = http_error(client.post("/api/games", json=body), 429, "too_many_tables")
        assert message
        # a forwarded-for header the client makes up does not make it another address
        spoofed = client.post("/api/games", json=body, headers={"X-Forwarded-For": "10.1.2.3"})
        http_error(spoofed, 429, "too_many_tables")
        assert game_count(client) == 3
        # the limit is on creating tables only: joining one still works
        join(client, first, "Bo")


# --- tokens ------------------------------------------------------------------------------


def assert_no_secret(texts: list[str], tokens: list[str]) -> None:
    secrets = [*tokens, *(sha256(t) for t in tokens)]
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"a seat token (or its hash) is in {text[:200]!r}"


def test_invite_and_game_info_hold_no_token(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        created = client.post("/api/games", json={"name": "Ana"})
        assert created.status_code == 201
        data = created.json()
        host, game_id = data["token"], data["game_id"]
        assert data["invite"] == f"/g/{game_id}"
        joined = client.post(f"/api/games/{game_id}/seats", json={"name": "Bo"}).json()
        guest = joined["token"]
        assert joined["invite"] == data["invite"]
        assert host != guest and len(host) >= 32
        texts = [data["invite"], data["game_id"], joined["invite"]]
        texts.append(client.get(f"/api/games/{game_id}").text)
        assert_no_secret(texts, [host, guest])


def test_tokens_reach_nobody_through_a_whole_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lobby, welcome, state, round and game end, to players and to a spectator; the
    game info, the record and a rematch; and the database file keeps only hashes."""
    texts: list[str] = []
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, preset="standard", grace_seconds=0)
        url = f"/api/games/{game_id}"
        with client.websocket_connect(f"/ws/{game_id}") as spectator:
            greet(spectator, None)
            _, guest = join(client, game_id, "Bo")
            with client.websocket_connect(f"/ws/{game_id}") as guest_ws:
                welcome, _ = greet(guest_ws, guest)
                texts.append(json.dumps(welcome))
                guest_ws.send_json({"type": "ping"})
                texts += [json.dumps(m) for m in receive_until(guest_ws, lambda m: m == PONG)]
            add_bot(client, game_id, host, "random")
            texts.append(client.get(url).text)
            with client.websocket_connect(f"/ws/{game_id}") as host_ws:
                welcome, _ = greet(host_ws, host)
                texts.append(json.dumps(welcome))
                start(client, game_id, host)
                seen = play_first_legal(host_ws, 0, lambda m: m["type"] == "game_end")
                texts += [json.dumps(m) for m in seen]
                texts.append(client.get(url).text)
                record = client.get(f"{url}/record")
                assert record.status_code == 200, record.text
                texts.append(record.text)
                rematch = client.post(f"{url}/rematch", headers=auth(host))
                assert rematch.status_code == 200, rematch.text
                texts.append(rematch.text)
                seen = receive_until(host_ws, lambda m: m["type"] == "rematch")
                texts += [json.dumps(m) for m in seen]
            seen = receive_until(spectator, lambda m: m["type"] == "rematch")
            texts += [json.dumps(m) for m in seen]
        assert any('"game_end"' in t for t in texts)
        new_id = rematch.json()["game_id"]
        texts.append(client.get(f"/api/games/{new_id}").text)
        with client.websocket_connect(f"/ws/{new_id}") as ws:
            welcome, _ = greet(ws, guest)  # the same token holds its seat in the rematch
            assert welcome["seat"] == 1
            texts.append(json.dumps(welcome))
        assert_no_secret(texts, [host, guest])
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert game_id.encode() in stored  # the database file is the one read here
    for token in (host, guest):
        assert token.encode() not in stored


def test_token_in_the_url_does_nothing(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client)
        join(client, game_id, "Bo")
        url = f"/api/games/{game_id}"
        before = client.get(url).json()
        for query in (f"token={host}", f"access_token={host}", f"authorization=Bearer%20{host}"):
            http_error(client.post(f"{url}/start?{query}"), 401, "no_token")
            bot = client.post(f"{url}/bots?{query}", json={"level": "easy"})
            http_error(bot, 401, "no_token")
            http_error(client.delete(f"{url}/seats/1?{query}"), 401, "no_token")
            with client.websocket_connect(f"/ws/{game_id}?{query}") as ws:
                welcome, _ = greet(ws, None)
                assert welcome["role"] == "spectator" and welcome["seat"] is None
                assert welcome["host"] is False
        assert client.get(url).json() == before
