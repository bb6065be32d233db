"""A sample of the hostile input campaign (``bench/hostile.py``, its code in
``bench/lab/hostile/``), in-process.

The same probes as the campaign, fewer of them and derandomized: hypothesis-generated
hostile WebSocket messages (random JSON, wrong types, unknown types, text that is not
JSON, binary frames, oversized messages, real moves with one field changed, hello with
wrong tokens, messages before hello, moves from spectators), and HTTP requests
(schemathesis cases from the app's own OpenAPI document, and raw malformed ones).  Every
message must be answered with an ``error`` carrying a documented code (or, for a resent
``action_id``, its ``ack``), a ``ping`` after it must still get its ``pong``, no HTTP reply
may be a 5xx, every 4xx must carry the documented error body, nothing may be logged as an
error, and every game must be exactly as before.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from lab.hostile.builder import Builder
from lab.hostile.examples import draw_examples
from lab.hostile.games import Context, GameCtx, seat_of
from lab.hostile.probes import outcome
from lab.hostile.protocol import DOCUMENTED
from lab.hostile.raw_http import raw_requests
from lab.hostile.schema import case_json, prepare_case, schema_cases
from lab.hostile.snapshot import database_rows, differences
from lab.hostile.verdicts import Tally, judge, judge_reply
from maumau.engine import Rules
from support.serverkit import add_bot, auth, create_table, join, make_client, start

Message = dict[str, Any]

WS_PROBES = 300
SCHEMA_CASES = 100
RAW_REQUESTS = 100


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Nothing may be logged at ERROR or above (a crash is logged so)."""
    caplog.set_level(logging.INFO)
    yield
    records = [r for when in ("setup", "call", "teardown") for r in caplog.get_records(when)]
    crashes = [f"{r.name}: {r.getMessage()}" for r in records if r.levelno >= logging.ERROR]
    assert not crashes, crashes


# --- the games ------------------------------------------------------------------------------


def receive(ws: WebSocketTestSession) -> Message:
    message: Message = ws.receive_json()
    return message


def answer(ws: WebSocketTestSession) -> Message:
    """The next message that answers the client: ``presence`` is the table's news (a
    connection of an earlier test leaving, told a moment later) and may come first."""
    while (message := receive(ws))["type"] == "presence":
        pass
    return message


def greet(ws: WebSocketTestSession, game: Any, who: str) -> Message | None:
    """hello as ``who`` ("seatN" or "spectator"; nothing for "fresh"); the first state."""
    if who == "fresh":
        return None
    token = None if who == "spectator" else game.tokens[seat_of(who)]
    ws.send_json({"type": "hello", "token": token})
    assert receive(ws)["type"] == "welcome"
    while True:
        message = receive(ws)
        if message["type"] == "state":
            return message
        if message["type"] == "lobby" and message["game"]["status"] == "lobby":
            return None


def latest_state(ws: WebSocketTestSession, done: Any) -> Message:
    """Read states until one satisfies ``done``."""
    for _ in range(10_000):
        message = receive(ws)
        if message["type"] == "state" and done(message):
            return message
    raise AssertionError("no such state")


def running_game(client: TestClient, key: str, preset: str, layout: str) -> Any:
    """A game in progress, a held human seat to move, after one accepted move (so that
    a resent action_id has something to be a duplicate of).  ``layout``: ``h`` a human
    seat the test holds, ``b`` a computer player."""
    for attempt in range(20):
        game = try_running_game(client, key, preset, layout, f"setup-{key}-{attempt}")
        if game is not None:
            return game
    raise AssertionError(f"no deal of {preset} left a human to move")


def try_running_game(
    client: TestClient, key: str, preset: str, layout: str, action_id: str
) -> Any | None:
    game_id, host = create_table(client, preset=preset, grace_seconds=None, next_round_seconds=600)
    tokens = {0: host}
    for seat, kind in enumerate(layout[1:], 1):
        if kind == "b":
            add_bot(client, game_id, host, "random")
        else:
            tokens[seat] = join(client, game_id, f"Human {seat}")[1]
    game = GameCtx(key, game_id, "playing", Rules.from_dict({"preset": preset}), tokens)

    def human_turn(state: Message) -> bool:
        view = state["view"]
        return view["step"] == "over" or (
            view["to_move"] in tokens
            and view["step"] in ("play", "drawn")
            and view["catchable"] is None
        )

    last: dict[int, Message] = {}

    def until(seat: int, done: Any) -> Message:
        """The first state on ``seat``'s connection (from the last one read) that is
        ``done``."""
        while seat not in last or not done(last[seat]):
            last[seat] = latest_state(peers[seat], lambda s: True)
        return last[seat]

    with contextlib.ExitStack() as stack:
        peers = {}
        for seat in tokens:
            peers[seat] = stack.enter_context(client.websocket_connect(f"/ws/{game_id}"))
            greet(peers[seat], game, f"seat{seat}")
        start(client, game_id, host)
        state = until(0, human_turn)
        mover = state["view"]["to_move"]
        if state["view"]["step"] == "over":
            return None
        mine = until(mover, lambda s: s["version"] >= state["version"])
        peers[mover].send_json(
            {"type": "action", "version": mine["version"], "action_id": action_id,
             "action": mine["legal"][0]}
        )  # fmt: skip
        state = until(0, lambda s: s["version"] > mine["version"] and human_turn(s))
        view = state["view"]
        if view["step"] == "over" or view["round"] != 0:
            return None
        game.version = state["version"]
        game.accepted_ids[mover] = [action_id]
        for seat in peers:
            seen = until(seat, lambda s: s["version"] >= state["version"])
            game.legal[seat] = seen["legal"]
            game.hands[seat] = seen["view"]["hand"]
        return game if game.legal[view["to_move"]] else None


def finished_game(client: TestClient) -> Any:
    """A single deal against a computer player, played to its end."""
    game_id, host = create_table(client, preset="standard", grace_seconds=None)
    add_bot(client, game_id, host, "random")
    game = GameCtx(
        "finished", game_id, "finished", Rules.from_dict({"preset": "standard"}), {0: host}
    )
    ids: list[str] = []
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        greet(ws, game, "seat0")
        start(client, game_id, host)
        while (message := receive(ws))["type"] != "game_end":
            if message["type"] == "state" and message["legal"] and not message["view"]["finished"]:
                ids.append(f"fin-{len(ids)}")
                ws.send_json(
                    {"type": "action", "version": message["version"], "action_id": ids[-1],
                     "action": message["legal"][0]}
                )  # fmt: skip
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        state = greet(ws, game, "seat0")
    assert state is not None and state["view"]["finished"]
    game.version = state["version"]
    game.legal[0], game.hands[0] = state["legal"], state["view"]["hand"]
    game.accepted_ids[0] = ids[-200:]
    return game


@dataclass
class Arena:
    client: TestClient
    ctx: Any
    db: Path


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    data = tmp_path_factory.mktemp("hostile")
    with make_client(data) as client:
        stranger_id, stranger = create_table(client, preset="standard")
        strangers = [stranger, join(client, stranger_id, "Stranger")[1]]
        games = {
            "four-humans": running_game(client, "four-humans", "penalty-100", "hhhh"),
            "humans-and-bots": running_game(client, "humans-and-bots", "gamerules", "hbhb"),
            "finished": finished_game(client),
        }
        lobby_id, host = create_table(client)
        guest = join(client, lobby_id, "Guest")[1]
        games["lobby"] = GameCtx(
            "lobby", lobby_id, "lobby", Rules.from_dict({"preset": "penalty-100"}),
            {0: host, 1: guest},
        )  # fmt: skip
        yield Arena(client, Context(games, strangers), data / "maumau.sqlite3")


def snapshot(arena: Arena) -> dict[str, Any]:
    """Each game's info (without who is connected), record reply, every held seat's and
    a spectator's view, and its database rows."""
    shot: dict[str, Any] = {}
    client = arena.client
    for key, game in arena.ctx.games.items():
        info = client.get(f"/api/games/{game.id}").json()
        for seat in info["seats"]:
            seat.pop("connected")
        record = client.get(f"/api/games/{game.id}/record")
        views = {}
        for who in ["spectator", *(f"seat{s}" for s in sorted(game.tokens))]:
            with client.websocket_connect(f"/ws/{game.id}") as ws:
                state = greet(ws, game, who)
            if state is not None:
                views[who] = {k: state[k] for k in ("version", "view", "legal", "commitment")}
        shot[key] = {
            "info": info,
            "record": [record.status_code, record.json()],
            "views": views,
            "rows": database_rows(arena.db, game.id),
        }
    return shot


@contextlib.contextmanager
def unchanged(arena: Arena) -> Iterator[None]:
    before = snapshot(arena)
    assert before["four-humans"]["rows"]["steps"], "the running game has steps"
    yield
    after = snapshot(arena)
    assert differences(before, after) == []


def failures(tally: Any) -> str:
    return json.dumps(tally.failures[:10], indent=1, default=str)


# --- WebSocket -----------------------------------------------------------------------------


def exchange(ws: WebSocketTestSession, probe: Any) -> tuple[list[Message], str]:
    """Send ``probe`` and a ping: the replies before the pong (lobby updates left out)."""
    if probe.frame == "binary":
        ws.send_bytes(probe.data if isinstance(probe.data, bytes) else probe.data.encode())
    else:
        ws.send_text(probe.text())
    ws.send_text('{"type": "ping"}')
    replies: list[Message] = []
    try:
        while (message := receive(ws))["type"] != "pong":
            if message["type"] not in ("lobby", "presence"):
                replies.append(message)
    except WebSocketDisconnect as exc:
        return replies, f"closed:{exc.code}"
    return replies, "pong"


def run_probes(arena: Arena, probes: list[Any]) -> Any:
    tally = Tally()
    ctx = arena.ctx
    with contextlib.ExitStack() as stack:
        peers: dict[tuple[str, str], WebSocketTestSession] = {}
        for probe in probes:
            game = ctx.games[probe.game]
            key = (probe.game, probe.who)
            if key not in peers:
                peers[key] = stack.enter_context(arena.client.websocket_connect(f"/ws/{game.id}"))
                greet(peers[key], game, probe.who)
            replies, end = exchange(peers[key], probe)
            if end != "pong":
                verdict, answer = "dropped", end
                del peers[key]
            elif len(replies) != 1:
                verdict = "unanswered" if not replies else "extra-replies"
                answer = "+".join(r["type"] for r in replies) or "nothing"
            else:
                verdict, answer = judge(ctx, probe, replies[0])
            tally.add(probe.category, verdict, answer, probe.describe())
    return tally


def test_hostile_websocket_messages(arena: Arena) -> None:
    builder = Builder(arena.ctx, live=False)
    probes = builder.draw_probes(WS_PROBES)  # derandomized: the same every run
    assert len(probes) == WS_PROBES
    assert {p.category for p in probes} == set(builder.weights())
    with unchanged(arena):
        tally = run_probes(arena, probes)
    assert tally.total == WS_PROBES
    assert tally.failed == 0, failures(tally)
    answers = set(tally.answers)
    assert answers <= set(DOCUMENTED) | {"ack-duplicate"}
    # the sample reaches deep into the checks, not only the parser
    assert {"bad_json", "bad_message", "unknown_type", "message_too_large", "bad_action",
            "bad_card", "not_your_seat", "hello_required", "not_seated", "bad_token",
            "already_greeted"} <= answers, answers  # fmt: skip


def test_moves_of_the_right_shape_at_every_table(arena: Arena) -> None:
    """Moves that read fine (a card not in hand, a wrong draw count, a resent id, an old
    version...) get past the message checks at every table and every held seat: the
    rules refuse them at the running games, the finished game says ``game_over``, the
    table in the lobby ``game_not_started``, a resent id its ``ack``."""
    builder = Builder(arena.ctx, live=False)
    kinds = ("card-not-in-hand", "suit-on-non-jack", "draw-count", "catch-range",
             "duplicate-id", "stale-version", "version-lax")  # fmt: skip
    probes = []
    for game in arena.ctx.games.values():
        for seat in game.tokens:
            strategy = builder.near_valid_at(game, seat, kinds).filter(
                lambda p: outcome(arena.ctx, p) != "accepted"
            )
            probes += draw_examples(strategy, 15)
            # and always a few moves made at an old version
            stale = builder.near_valid_at(game, seat, ("stale-version",)).filter(
                lambda p: outcome(arena.ctx, p) != "accepted"
            )
            probes += draw_examples(stale, 2)
    with unchanged(arena):
        tally = run_probes(arena, probes)
    assert tally.failed == 0, failures(tally)
    answers = {key: Counter[str]() for key in arena.ctx.games}
    for probe, answer in zip(probes, tally.answer_log, strict=True):
        answers[probe.game][answer] += 1
    server_codes = {c for c, status in DOCUMENTED.items() if status is not None}
    for key in ("four-humans", "humans-and-bots"):
        assert answers[key]["stale_version"], answers[key]
        assert set(answers[key]) - server_codes - {"ack-duplicate"}, answers[key]  # the rules
    assert answers["finished"]["game_over"] and answers["finished"]["ack-duplicate"]
    # (a resent id needs an accepted move: in the lobby that kind sends a bad action object)
    assert answers["lobby"]["game_not_started"], answers["lobby"]
    assert set(answers["lobby"]) <= {"game_not_started", "bad_message"}, answers["lobby"]
    assert sum(a["ack-duplicate"] for a in answers.values()) >= 3


def test_lone_surrogate_action_id_is_answered(arena: Arena) -> None:
    """Regression: a lone surrogate ("\\ud800") is valid JSON but no UTF-8 text; echoed
    back as the error's action_id it made the reply unserializable, and the server
    dropped the connection with a traceback instead of answering."""
    game = arena.ctx.games["four-humans"]
    mover = next(s for s, legal in game.legal.items() if legal)
    with unchanged(arena), arena.client.websocket_connect(f"/ws/{game.id}") as ws:
        greet(ws, game, f"seat{mover}")
        version = game.version
        for text in (
            f'{{"type": "action", "version": {version}, "action_id": "\\ud800", '
            '"action": {"draw": 1}}',
            '{"type": "shout", "action_id": "\\udfff"}',
            '{"type": "ping", "action_id": "\\ud83d"}',
            '{"type": "action", "version": -1, "action_id": "ok\\udc00", "action": {}}',
        ):
            ws.send_text(text)
            error = answer(ws)
            assert error["type"] == "error", error
            assert error["code"] in ("bad_message", "unknown_type"), error
            assert error["action_id"] is None
            ws.send_json({"type": "ping"})
            assert answer(ws) == {"type": "pong"}


# --- HTTP ---------------------------------------------------------------------------------


def send_case(client: TestClient, case: Any) -> Any:
    """Send a schemathesis case through the TestClient (httpx); ``None`` if it cannot
    be sent at all (a header no HTTP client can carry)."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    headers = {str(k): str(v) for k, v in (kwargs.get("headers") or {}).items()}
    content: bytes | None = None
    if "json" in kwargs:
        try:
            content = json.dumps(kwargs["json"], allow_nan=False).encode()
        except ValueError:
            return None
        headers.setdefault("Content-Type", "application/json")
    elif "data" in kwargs:
        data = kwargs["data"]
        content = data if isinstance(data, bytes) else str(data).encode()
    try:
        return client.request(
            kwargs["method"],
            kwargs["url"],
            headers=headers,
            params=kwargs.get("params") or None,
            content=content,
        )
    except (UnicodeEncodeError, ValueError, TypeError):
        return None


def test_schemathesis_cases_get_documented_errors(arena: Arena) -> None:
    schemathesis = pytest.importorskip("schemathesis")
    client = arena.client
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    operations = {r.ok().label for r in schema.get_all_operations()}
    assert len(operations) >= 11
    cases = draw_examples(schema_cases(schema, arena.ctx), SCHEMA_CASES)
    tally = Tally()
    with unchanged(arena):
        for case, game_id, authorization in cases:
            case = prepare_case(case, game_id, authorization)
            reply = send_case(client, case)
            if reply is None:
                continue
            verdict, answer = judge_reply(reply)
            tally.add(case.operation.label, verdict, answer, case_json(case))
    assert tally.total >= SCHEMA_CASES * 0.9
    assert tally.failed == 0, failures(tally)
    assert len(tally.sent) >= 8, tally.sent  # most operations were tried
    assert any(a in DOCUMENTED for a in tally.answers), tally.answers


def test_raw_malformed_requests_get_documented_errors(arena: Arena) -> None:
    client = arena.client
    requests = draw_examples(raw_requests(arena.ctx), RAW_REQUESTS)
    tally = Tally()
    with unchanged(arena):
        for request in requests:
            try:
                reply = client.request(
                    request.method,
                    request.path,
                    headers=dict(request.headers),
                    content=request.content(),
                )
            except (UnicodeEncodeError, ValueError):
                continue
            verdict, answer = judge_reply(reply, request)
            tally.add(request.category, verdict, answer, request.describe())
    assert tally.total >= RAW_REQUESTS * 0.8
    assert tally.failed == 0, failures(tally)
    for code in ("bad_json", "message_too_large", "method_not_allowed", "no_token", "bad_token"):
        assert tally.answers[code], (code, tally.answers)


def test_tokens_of_running_games_change_nothing_over_http(arena: Arena) -> None:
    """The real tokens the HTTP probes use are safe at a running game: every seat
    change is refused, and claiming a seat with one's own token gives it back."""
    game = arena.ctx.games["four-humans"]
    client = arena.client
    with unchanged(arena):
        for seat, token in game.tokens.items():
            reply = client.post(
                f"/api/games/{game.id}/seats", json={"name": "X"}, headers=auth(token)
            )
            assert reply.status_code == 200 and reply.json()["seat"] == seat
            for path in ("start", "bots"):
                reply = client.post(f"/api/games/{game.id}/{path}", headers=auth(token))
                assert reply.status_code in (403, 409), reply.text
            reply = client.delete(f"/api/games/{game.id}/seats/1", headers=auth(token))
            assert reply.status_code in (403, 409), reply.text
