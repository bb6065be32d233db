"""The game server through its real protocol: HTTP setup and WebSocket play.

Every test runs the app in a TestClient on a fresh SQLite directory.  Sockets are read
with a timeout (never a bare blocking read), and a seat that must keep playing while
another socket is watched is driven by a :class:`Driver` thread.  Waits for things that
take time (a grace period, a turn timer, the idle sweep) poll with generous timeouts;
no test asserts on how long something took.
"""

from __future__ import annotations

import gc
import hashlib
import json
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from maumau.engine.replay import replay, replay_report
from maumau.engine.verify import verify_report
from support.serverkit import add_bot, auth, create_table, hello, join, make_client, start

Message = dict[str, Any]

#: seconds to wait for one message that must come
TIMEOUT = 20.0
#: seconds a whole game may take
GAME_TIMEOUT = 120.0
#: the verbs of an action a seat took itself (penalty draws are automatic)
VERBS = ("play", "draw", "pass", "catch")


# --- sockets -------------------------------------------------------------------------------


def recv(ws: WebSocketTestSession, timeout: float = TIMEOUT) -> Message:
    """The next message on ``ws``; raises TimeoutError if none comes in ``timeout``
    seconds, WebSocketDisconnect if the server closed the socket."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    raw = ws.portal.call(get)
    if raw["type"] == "websocket.close":
        raise WebSocketDisconnect(raw.get("code", 1000), raw.get("reason"))
    message: Message = json.loads(raw["text"])
    return as_client_reads(ws, message)


#: each socket's table as its messages told it, as the browser client keeps it
_TABLES: weakref.WeakKeyDictionary[WebSocketTestSession, Message] = weakref.WeakKeyDictionary()


def as_client_reads(ws: WebSocketTestSession, message: Message) -> Message:
    """A ``presence`` as a client reads it: the last ``lobby``'s table with the seats'
    ``connected`` and ``stand_in`` flags it brings (so that a test can wait for a lobby
    in which someone is connected, however the server said so); other messages as
    they are."""
    if message["type"] == "lobby":
        _TABLES[ws] = message["game"]
    elif message["type"] == "presence" and ws in _TABLES:
        game = dict(_TABLES[ws])
        game["seats"] = [
            {
                **seat,
                "connected": seat["position"] in message["connected"],
                "stand_in": seat["position"] in message["stand_in"],
            }
            for seat in game["seats"]
        ]
        game["spectators"] = message["spectators"]
        _TABLES[ws] = game
        return {"type": "lobby", "game": game, "presence": message}
    return message


def until(
    ws: WebSocketTestSession, done: Callable[[Message], bool], timeout: float = TIMEOUT
) -> list[Message]:
    """Messages up to and including the first one ``done`` accepts."""
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no matching message in {timeout} s; got {_brief(seen)}")
        try:
            message = recv(ws, left)
        except TimeoutError:
            raise AssertionError(
                f"no matching message in {timeout} s; got {_brief(seen)}"
            ) from None
        seen.append(message)
        if done(message):
            return seen


def quiet(ws: WebSocketTestSession, seconds: float) -> list[Message]:
    """Everything ``ws`` receives in the next ``seconds``."""
    deadline = time.monotonic() + seconds
    seen = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            seen.append(recv(ws, left))
        except TimeoutError:
            break
    return seen


def _brief(messages: list[Message]) -> str:
    return ", ".join(
        f"{m['type']}{'@' + str(m['version']) if 'version' in m else ''}" for m in messages[-8:]
    )


def is_state(message: Message) -> bool:
    return message["type"] == "state"


def is_type(kind: str) -> Callable[[Message], bool]:
    return lambda message: message["type"] == kind


def lobby_where(test: Callable[[Message], bool]) -> Callable[[Message], bool]:
    """A lobby message whose ``game`` passes ``test``."""
    return lambda message: message["type"] == "lobby" and test(message["game"])


def acted(message: Message, seat: int) -> bool:
    """A state whose new events include an action ``seat`` took."""
    return is_state(message) and any(
        e.get("seat") == seat and any(v in e for v in VERBS) for e in message["events"]
    )


@contextmanager
def connected(
    client: TestClient, game_id: str, token: str | None
) -> Iterator[WebSocketTestSession]:
    """A socket that has said hello (with ``token``, or as a spectator)."""
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        yield ws


def send_action(ws: WebSocketTestSession, version: int, action_id: str, action: Message) -> None:
    ws.send_json({"type": "action", "version": version, "action_id": action_id, "action": action})


def acks(messages: list[Message]) -> list[Message]:
    """The states among ``messages`` that acknowledge this connection's moves."""
    return [m for m in messages if is_state(m) and m["ack"] is not None]


def settled(message: Message) -> bool:
    """A state the game rests in: not the end of a round that the next deal follows."""
    return is_state(message) and (message["view"]["step"] != "over" or message["view"]["finished"])


def act_and_ack(
    ws: WebSocketTestSession, state: Message, action: Message, action_id: str
) -> list[Message]:
    """Send a move for ``state``; the messages up to the state that acknowledges it and
    the state the game rests in after it, whichever comes last (an error fails)."""
    send_action(ws, state["version"], action_id, action)
    ack: Message | None = None

    def done(message: Message) -> bool:
        nonlocal ack
        if message["type"] in ("ack", "error") and message.get("action_id") == action_id:
            raise AssertionError(message)
        if is_state(message) and message["ack"] == action_id:
            ack = message
        return ack is not None and any(
            settled(m) and m["version"] >= ack["version"] for m in [*seen, message]
        )

    seen: list[Message] = []
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        message = recv(ws, max(0.0, deadline - time.monotonic()))
        finished = done(message)
        seen.append(message)
        if finished:
            return seen
    raise AssertionError(f"no ack and state for {action_id}; got {_brief(seen)}")


class Driver(threading.Thread):
    """Reads one socket in a background thread, keeping every message; with ``seat`` set,
    plays the first legal action each time a new state offers one."""

    def __init__(
        self,
        ws: WebSocketTestSession,
        seat: int | None,
        stop: Callable[[Message], bool] | None = None,
    ) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.seat = seat
        self.stop = stop or is_type("game_end")
        self.messages: list[Message] = []
        self.sent: list[str] = []
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            last = -1
            deadline = time.monotonic() + GAME_TIMEOUT
            while time.monotonic() < deadline:
                message = recv(self.ws)
                self.messages.append(message)
                if self.stop(message):
                    # the ack of the last move comes after the messages it caused
                    self.messages.extend(quiet(self.ws, 0.3))
                    return
                if (
                    self.seat is not None
                    and is_state(message)
                    and message["legal"]
                    and message["version"] > last
                ):
                    last = message["version"]
                    action_id = f"seat{self.seat}-{len(self.sent)}"
                    self.sent.append(action_id)
                    send_action(self.ws, last, action_id, message["legal"][0])
            raise AssertionError("the game did not end in time")
        except BaseException as exc:
            self.failure = exc

    def result(self) -> list[Message]:
        self.join(GAME_TIMEOUT + TIMEOUT)
        assert not self.is_alive(), "the driver is still running"
        if self.failure is not None:
            raise AssertionError(f"seat {self.seat}: {self.failure!r}") from self.failure
        return self.messages


def of_type(messages: list[Message], kind: str) -> list[Message]:
    return [m for m in messages if m["type"] == kind]


def game_info(client: TestClient, game_id: str) -> Message:
    reply = client.get(f"/api/games/{game_id}")
    assert reply.status_code == 200, reply.text
    info: Message = reply.json()
    return info


def wait_for_status(client: TestClient, game_id: str, status: str) -> Message:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        info = game_info(client, game_id)
        if info["status"] == status:
            return info
        time.sleep(0.05)
    raise AssertionError(f"table {game_id} never became {status}")


def commitment(seed: int, salt: str) -> str:
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


# --- checks shared by the game tests ----------------------------------------------------------


def check_states(states: list[Message], strict: bool = True) -> None:
    """Versions go up by one with every state (``strict``), or also repeat a state
    unchanged (a takeover re-sends the state); each state's events are exactly the
    log entries its connection has not been sent yet."""
    versions = [s["version"] for s in states]
    if strict:
        assert versions == list(range(versions[0], versions[0] + len(states))), versions
    round_, log, previous = None, [], None
    for state in states:
        view = state["view"]
        assert "log" not in view  # the events bring each entry once
        if previous is not None and not strict:
            if state["version"] == previous["version"]:
                assert view == previous["view"] and state["events"] == []
            else:
                assert state["version"] == previous["version"] + 1, versions
        if view["round"] != round_:
            round_, log = view["round"], []
        log += state["events"]
        if view["step"] == "over":
            assert "out" in log[-1], log  # the round's log ends with who went out
        previous = state


def check_acks(messages: list[Message], sent: list[str]) -> None:
    """Every move sent was acknowledged exactly once, in order, and nothing was
    refused or acknowledged as a duplicate."""
    assert of_type(messages, "error") == []
    assert of_type(messages, "ack") == []
    acked = acks(messages)
    assert [a["ack"] for a in acked] == sent
    versions = [a["version"] for a in acked]
    assert versions == sorted(set(versions))
    # the mover hears of its move in the first state that shows it
    for index, message in enumerate(messages):
        if is_state(message) and message["ack"] is not None:
            before = [m["version"] for m in messages[:index] if is_state(m)]
            assert max(before) < message["version"], message


def check_penalty_rounds(round_ends: list[Message], game_end: Message, limit: int) -> None:
    """Penalty scoring: each round's hand values add up into the totals; the game ends
    after the round in which someone reaches the limit; the fewest points win."""
    n = len(game_end["totals"])
    totals, won = [0] * n, [0] * n
    for index, end in enumerate(round_ends):
        assert end["round"] == index
        assert end["hand_values"][end["out"]] == 0
        assert end["hands"][end["out"]] == []
        totals = [t + v for t, v in zip(totals, end["hand_values"], strict=True)]
        won[end["out"]] += 1
        assert end["totals"] == totals
        assert end["rounds_won"] == won
        assert end["salt"] is not None
        assert end["commitment"] == commitment(end["seed"], end["salt"])
        over = max(totals) >= limit
        assert over == (index == len(round_ends) - 1), (index, totals)
    assert game_end["totals"] == totals
    assert game_end["rounds_won"] == won
    low = min(totals)
    fewest = [s for s in range(n) if totals[s] == low]
    assert set(game_end["winners"]) <= set(fewest)
    if len(fewest) == 1:
        assert game_end["winners"] == fewest
        assert game_end["decided_by"] == "fewest_points"
    assert game_end["draw"] == (len(game_end["winners"]) > 1)


def check_record(client: TestClient, game_id: str, round_ends: list[Message], end: Message) -> None:
    """The stored record replays to the same rounds and score, and verifies."""
    reply = client.get(f"/api/games/{game_id}/record")
    assert reply.status_code == 200, reply.text
    record = reply.json()
    game = replay(record)
    assert game.finished
    assert list(game.totals) == end["totals"]
    assert list(game.winners or ()) == end["winners"]
    report = replay_report(record)
    assert report["ok"] and report["finished"]
    assert report["rounds"] == [
        {k: m[k] for k in ("out", "hand_values", "totals", "rounds_won")} for m in round_ends
    ]
    assert [(r["seed"], r["salt"], r["commitment"]) for r in record["rounds"]] == [
        (m["seed"], m["salt"], m["commitment"]) for m in round_ends
    ]
    verified = verify_report(record)
    assert verified["ok"], verified
    assert [r["status"] for r in verified["rounds"]] == ["verified"] * len(round_ends)


# --- a whole game ------------------------------------------------------------------------------


def test_full_game_two_humans_two_bots(tmp_path: Path) -> None:
    with make_client(tmp_path) as client, ExitStack() as stack:
        game_id, ana = create_table(client, "Ana", "penalty-100")
        ben_seat, ben = join(client, game_id, "Ben")
        assert ben_seat == 1
        assert [add_bot(client, game_id, ana), add_bot(client, game_id, ana, "easy")] == [2, 3]
        sockets = [stack.enter_context(client.websocket_connect(f"/ws/{game_id}")) for _ in "abc"]
        welcomes = [hello(ws, token) for ws, token in zip(sockets, (ana, ben, None), strict=True)]
        assert [(w["seat"], w["role"], w["host"]) for w in welcomes] == [
            (0, "player", True),
            (1, "player", False),
            (None, "spectator", False),
        ]
        drivers = [Driver(sockets[0], 0), Driver(sockets[1], 1), Driver(sockets[2], None)]
        for driver in drivers:
            driver.start()
        start(client, game_id, ana)
        results = [driver.result() for driver in drivers]

        round_ends = of_type(results[2], "round_end")
        (game_end,) = of_type(results[2], "game_end")
        assert round_ends
        for driver, messages in zip(drivers, results, strict=True):
            states = of_type(messages, "state")
            check_states(states)
            assert of_type(messages, "round_end") == round_ends
            assert of_type(messages, "game_end") == [game_end]
            check_acks(messages, driver.sent)
            # the commitment of each round is the one its round_end opens
            for state in states:
                assert state["commitment"] == round_ends[state["view"]["round"]]["commitment"]
            assert states[-1]["view"]["finished"]
        assert drivers[0].sent and drivers[1].sent
        check_penalty_rounds(round_ends, game_end, 100)
        # the spectator saw the table go from lobby to playing to finished
        statuses = [m["game"]["status"] for m in of_type(results[2], "lobby")]
        assert statuses[0] == "lobby" and "playing" in statuses
        info = game_info(client, game_id)
        assert info["status"] == "finished"
        check_record(client, game_id, round_ends, game_end)
        assert client.get(f"/api/games/{game_id}/record").json()["players"] == [
            "Ana",
            "Ben",
            info["seats"][2]["name"],
            info["seats"][3]["name"],
        ]


def test_resent_move_is_acked_again_not_applied_twice(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=None)
        join(client, game_id, "Ben")
        with connected(client, game_id, ana) as ws:
            start(client, game_id, ana)
            state = until(ws, is_state)[-1]
            assert state["view"]["to_move"] == 0 and state["legal"]
            seen = act_and_ack(ws, state, state["legal"][0], "move-1")
            (ack,) = acks(seen)
            assert (ack["ack"], ack["version"]) == ("move-1", 2)
            send_action(ws, state["version"], "move-1", state["legal"][0])
            again = until(ws, lambda m: m["type"] in ("ack", "error"))
            duplicate = {"type": "ack", "action_id": "move-1", "version": 2, "duplicate": True}
            assert again[-1] == duplicate
            assert of_type(again, "state") == []
            # a different id at the old version is refused as stale
            send_action(ws, state["version"], "move-2", state["legal"][0])
            refused = until(ws, is_type("error"))[-1]
            assert refused["code"] == "stale_version" and refused["action_id"] == "move-2"


def test_ack_of_a_move_that_ends_a_round_comes_before_the_next_deal(tmp_path: Path) -> None:
    """protocol.md, ``state.ack``: the state that acknowledges a move that ends a round
    shows the round over; the deal it caused comes after, one version later."""
    with make_client(tmp_path) as client:
        game_id, ana = create_table(
            client, "Ana", "standard", {"scoring": "deals", "deals": 50}, grace_seconds=None
        )
        add_bot(client, game_id, ana, "random")
        with connected(client, game_id, ana) as ws:
            start(client, game_id, ana)
            state = until(ws, is_state)[-1]
            for count in range(5000):
                if not state["legal"]:
                    state = until(ws, is_state)[-1]
                    continue
                seen = act_and_ack(ws, state, state["legal"][0], f"a{count}")
                state = of_type(seen, "state")[-1]
                ends = of_type(seen, "round_end")
                if ends and ends[0]["out"] == 0 and not of_type(seen, "game_end"):
                    break
            else:
                raise AssertionError("Ana never went out")
            (ack,) = acks(seen)
            dealt = [
                m for m in of_type(seen, "state") if m["view"]["round"] == ends[0]["round"] + 1
            ]
            assert dealt, seen
            assert ack["version"] + 1 == dealt[0]["version"], [
                (m["type"], m.get("version")) for m in seen
            ]
            over = [m for m in of_type(seen, "state") if m["view"]["step"] == "over"]
            assert over and over[0]["version"] == ack["version"]
            assert over[0]["ack"] == f"a{count}"


# --- reconnection, takeover, timers -------------------------------------------------------


def test_reconnect_gets_the_same_seat_and_a_full_state(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=None)
        _, ben = join(client, game_id, "Ben")
        with connected(client, game_id, ana) as wa:
            with connected(client, game_id, ben) as wb:
                start(client, game_id, ana)
                before = until(wb, is_state)[-1]
                assert before["view"]["to_move"] == 0  # Ana leads: nothing moves without her
            until(wa, lobby_where(lambda g: not g["seats"][1]["connected"]))

            with client.websocket_connect(f"/ws/{game_id}") as wb2:
                welcome = hello(wb2, ben)
                assert welcome == {
                    "type": "welcome",
                    "game_id": game_id,
                    "seat": 1,
                    "role": "player",
                    "host": False,
                    "results": [],
                    "end": None,
                }
                seen = until(wb2, is_state)
                assert any(
                    m["type"] == "lobby" and m["game"]["seats"][1]["connected"] for m in seen
                )
                after = seen[-1]
                assert after["version"] == before["version"]
                assert after["view"]["seat"] == 1
                assert after["view"]["hand"] == before["view"]["hand"]
                assert after["view"] == before["view"]
                game = client.app.state.hub.referees[game_id].table.game
                assert after["events"] == game.view(1).log_json()  # a fresh, full state

                # a second tab with the same token holds the same seat
                with connected(client, game_id, ben) as wb3:
                    tab = until(wb3, is_state)[-1]
                    assert tab["view"] == before["view"]
                    # a page refresh claims "a seat" with the token: it gets its own back
                    reply = client.post(
                        f"/api/games/{game_id}/seats", json={"name": "Ben"}, headers=auth(ben)
                    )
                    assert reply.status_code == 200, reply.text
                    assert reply.json()["seat"] == 1 and reply.json()["token"] == ben
                    assert len(game_info(client, game_id)["seats"]) == 2

                    # Ana moves: both of Ben's tabs see it
                    ana_state = until(wa, lambda m: is_state(m) and m["legal"] != [])[-1]
                    act_and_ack(wa, ana_state, ana_state["legal"][0], "a1")
                    version = ana_state["version"] + 1
                    for ws in (wb2, wb3):
                        state = until(ws, lambda m: is_state(m) and m["version"] >= version)[-1]
                        assert state["view"]["seat"] == 1
                    # whichever tab moves for Ben, the move is his and only that tab is acked
                    if state["view"]["to_move"] == 1 and state["legal"]:
                        act_and_ack(wb3, state, state["legal"][0], "b1")
                        moved = until(wb2, lambda m: is_state(m) and acted(m, 1))
                        assert acks(moved) == []


def test_stand_in_takes_over_after_grace_and_gives_the_seat_back(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(
            client,
            "Ana",
            options={"limit": 1000},
            grace_seconds=0.2,
            bot_delay_ms=20,
            stand_in_level="easy",
        )
        _, ben = join(client, game_id, "Ben")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, None) as spectator:
            with connected(client, game_id, ben) as wb:
                start(client, game_id, ana)  # Ana never connects: a stand-in plays for her
                until(spectator, lobby_where(lambda g: g["seats"][0]["stand_in"]))
                # Ben makes one move himself, then leaves
                state = until(wb, lambda m: is_state(m) and m["legal"] != [])[-1]
                act_and_ack(wb, state, state["legal"][0], "b1")
            seen = until(spectator, lobby_where(lambda g: g["seats"][1]["stand_in"]))
            info = seen[-1]["game"]
            assert info["status"] == "playing"
            assert info["seats"][1]["connected"] is False
            # the game goes on for Ben's seat
            until(spectator, lambda m: acted(m, 1))
            assert game_info(client, game_id)["seats"][1]["stand_in"] is True

            with client.websocket_connect(f"/ws/{game_id}") as wb2:
                assert hello(wb2, ben)["seat"] == 1
                back = until(wb2, is_type("lobby"))[-1]["game"]["seats"][1]
                assert back["stand_in"] is False and back["connected"] is True
                # when it is Ben's turn, the game waits for him (no turn timer)
                mine = until(wb2, lambda m: is_state(m) and m["legal"] != [])[-1]
                assert mine["view"]["to_move"] == 1
                assert mine["turn_deadline"] is None
                later = [m for m in quiet(wb2, 0.6) if is_state(m)]
                assert [m["version"] for m in later if m["version"] > mine["version"]] == []
                assert game_info(client, game_id)["seats"][1]["stand_in"] is False
                after = of_type(act_and_ack(wb2, mine, mine["legal"][0], "b2"), "state")[-1]
                if not after["legal"]:  # (a drawn card that fits is Ben's to play or keep)
                    # the others play on
                    until(wb2, lambda m: is_state(m) and m["version"] > after["version"])


def test_closing_one_of_two_tabs_keeps_the_seat(tmp_path: Path) -> None:
    """The grace period starts only when a seat's last connection closes."""
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=0.2)
        _, ben = join(client, game_id, "Ben")
        with connected(client, game_id, ana) as wa, connected(client, game_id, ben) as wb:
            with connected(client, game_id, ben):
                start(client, game_id, ana)
                until(wa, is_state)
            seen = quiet(wa, 0.8)  # one of Ben's tabs has closed
            lobbies = [m["game"]["seats"][1] for m in seen if m["type"] == "lobby"]
            # nothing changed for the others, so they are told nothing
            assert all(s["connected"] and not s["stand_in"] for s in lobbies)
            info = game_info(client, game_id)["seats"][1]
            assert info["connected"] is True and info["stand_in"] is False
            # nobody played for Ben (Ana leads; she has not moved)
            assert [m for m in quiet(wb, 0.1) if is_state(m) and m["version"] > 1] == []


def test_without_grace_period_the_game_waits_for_an_absent_player(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=None)
        _, ben = join(client, game_id, "Ben")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, ana) as wa:
            with connected(client, game_id, ben):
                start(client, game_id, ana)
            # Ben is gone; Ana plays until it is Ben's turn
            last = -1
            for _ in range(500):
                state = until(wa, is_state)[-1]
                if state["view"]["to_move"] == 1 and not state["view"]["finished"]:
                    break
                if state["legal"] and state["version"] > last:
                    last = state["version"]
                    send_action(wa, last, f"a{last}", state["legal"][0])
            else:
                raise AssertionError("it never was Ben's turn")
            later = quiet(wa, 0.8)
            assert [m["version"] for m in later if is_state(m)] == []
            info = game_info(client, game_id)
            assert info["seats"][1]["stand_in"] is False
            assert info["seats"][1]["connected"] is False
            assert info["status"] == "playing"


def test_turn_timer_moves_for_a_connected_player_who_waits(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", turn_seconds=1, stand_in_level="easy")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, ana) as wa:
            before = time.time()
            start(client, game_id, ana)
            first = until(wa, is_state)[-1]
            assert first["version"] == 1 and first["view"]["to_move"] == 0
            deadline = first["turn_deadline"]
            assert isinstance(deadline, float) and deadline > before
            # Ana does nothing; the timer makes her move
            moved = until(wa, is_state, timeout=TIMEOUT)[-1]
            assert moved["version"] == 2
            assert acted(moved, 0), moved["events"]
            # the timer runs only while a human who is not stood in for has to move
            states = [first, moved, *of_type(quiet(wa, 0.3), "state")]
            for state in states:
                view = state["view"]
                timed = view["to_move"] == 0 and view["step"] != "over"
                assert (state["turn_deadline"] is not None) == timed, state
            # each new version starts a new timer
            deadlines = [s["turn_deadline"] for s in states if s["turn_deadline"] is not None]
            assert deadlines == sorted(set(deadlines))
            assert game_info(client, game_id)["seats"][0]["stand_in"] is False


# --- watching -----------------------------------------------------------------------------


def test_spectator_sees_no_hand_and_no_drawn_cards(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=0)
        add_bot(client, game_id, ana)
        add_bot(client, game_id, ana, "random")
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            welcome = hello(ws, None)
            assert welcome == {
                "type": "welcome",
                "game_id": game_id,
                "seat": None,
                "role": "spectator",
                "host": False,
                "results": [],
                "end": None,
            }
            start(client, game_id, ana)
            messages = until(ws, is_type("game_end"), timeout=GAME_TIMEOUT)
            states = of_type(messages, "state")
            check_states(states, strict=False)
            draws = 0
            for state in states:
                view = state["view"]
                assert view["seat"] is None
                assert view["hand"] == []
                assert view["drawn"] is None
                assert state["legal"] == []
                assert (view["hands"] is None) == (view["step"] != "over")
                for entry in state["events"]:
                    assert "cards" not in entry, entry
                    draws += "draw" in entry
            assert draws > 0
            # a spectator cannot act
            send_action(ws, states[-1]["version"], "x", {"draw": 1})
            refused = until(ws, is_type("error"))[-1]
            assert refused["code"] == "not_seated" and refused["action_id"] == "x"


# --- the lobby --------------------------------------------------------------------------------


def seats_of(game: Message) -> list[tuple[int, str, str]]:
    return [(s["position"], s["name"], s["kind"]) for s in game["seats"]]


def test_lobby_join_bots_remove_start(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana")
        with connected(client, game_id, ana) as wa:
            first = until(wa, is_type("lobby"))[-1]["game"]
            assert first["status"] == "lobby" and first["host"] == 0
            assert first["seats"][0]["connected"] is True
            assert first["seats"][0]["kind"] == "human" and first["seats"][0]["level"] is None
            # too few players, and only the host may start
            reply = client.post(f"/api/games/{game_id}/start", headers=auth(ana))
            assert reply.status_code == 409 and reply.json()["error"]["code"] == "too_few_players"

            assert join(client, game_id, "Ben")[0] == 1
            _, cleo = join(client, game_id, "Cleo")
            game = until(wa, lobby_where(lambda g: len(g["seats"]) == 3))[-1]["game"]
            assert seats_of(game)[1:] == [(1, "Ben", "human"), (2, "Cleo", "human")]
            assert [s["connected"] for s in game["seats"]] == [True, False, False]

            bots = [add_bot(client, game_id, ana, level) for level in ("easy", "normal", "easy")]
            assert bots == [3, 4, 5]
            game = until(wa, lobby_where(lambda g: len(g["seats"]) == 6))[-1]["game"]
            names = [s["name"] for s in game["seats"]]
            assert len(set(names)) == len(names)
            assert [s["level"] for s in game["seats"][3:]] == ["easy", "normal", "easy"]
            assert all(s["kind"] == "bot" for s in game["seats"][3:])
            # only the host adds bots
            reply = client.post(
                f"/api/games/{game_id}/bots", json={"level": "easy"}, headers=auth(cleo)
            )
            assert reply.status_code == 403 and reply.json()["error"]["code"] == "not_host"

            # Cleo connects, and the flag follows her socket
            with connected(client, game_id, cleo) as wc:
                game = until(wa, lobby_where(lambda g: g["seats"][2]["connected"]))[-1]["game"]
                # she may not remove another player's seat, nor the host's
                for position in (0, 1):
                    reply = client.delete(
                        f"/api/games/{game_id}/seats/{position}", headers=auth(cleo)
                    )
                    assert reply.status_code == 403, reply.text
                    assert reply.json()["error"]["code"] == "not_host"
                # the host removes Ben: everyone after him moves up one place
                reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(ana))
                assert reply.status_code == 204, reply.text
                until(wa, lobby_where(lambda g: len(g["seats"]) == 5))
                # Cleo is told her new seat before the lobby message
                told = until(wc, lobby_where(lambda g: len(g["seats"]) == 5))
                welcomes = of_type(told, "welcome")
                assert [(w["seat"], w["role"], w["host"]) for w in welcomes] == [
                    (1, "player", False)
                ]
                game = game_info(client, game_id)
                assert [s["position"] for s in game["seats"]] == [0, 1, 2, 3, 4]
                assert seats_of(game)[:2] == [(0, "Ana", "human"), (1, "Cleo", "human")]
                assert [s["name"] for s in game["seats"][2:]] == names[3:]
                assert [s["connected"] for s in game["seats"]] == [True, True, False, False, False]
                # Cleo's token now holds seat 1
                reply = client.post(
                    f"/api/games/{game_id}/seats", json={"name": "x"}, headers=auth(cleo)
                )
                assert reply.json()["seat"] == 1
                # the host's own seat cannot be removed
                reply = client.delete(f"/api/games/{game_id}/seats/0", headers=auth(ana))
                assert reply.status_code == 403 and reply.json()["error"]["code"] == "not_host"
                # Cleo leaves her own seat
                reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(cleo))
                assert reply.status_code == 204, reply.text
                # her tab is told that her seat is gone, and let go
                told = until(wc, is_type("closed"))
                assert told[-1]["code"] == "seat_removed", told[-1]
                assert not of_type(told, "welcome")
                with pytest.raises(WebSocketDisconnect):
                    recv(wc)
                game = game_info(client, game_id)
                assert [s["kind"] for s in game["seats"]] == ["human", "bot", "bot", "bot"]
                assert [s["connected"] for s in game["seats"]] == [True, False, False, False]
                # her token is told why it holds no seat
                reply = client.post(f"/api/games/{game_id}/start", headers=auth(cleo))
                assert reply.status_code == 410, reply.text
                assert reply.json()["error"]["code"] == "seat_removed"
            # the host removes a bot
            reply = client.delete(f"/api/games/{game_id}/seats/3", headers=auth(ana))
            assert reply.status_code == 204, reply.text
            game = until(wa, lobby_where(lambda g: len(g["seats"]) == 3))[-1]["game"]
            assert [s["position"] for s in game["seats"]] == [0, 1, 2]
            reply = client.delete(f"/api/games/{game_id}/seats/7", headers=auth(ana))
            assert reply.status_code == 404 and reply.json()["error"]["code"] == "unknown_seat"

            start(client, game_id, ana)
            game = until(wa, lobby_where(lambda g: g["status"] == "playing"))[-1]["game"]
            assert len(game["seats"]) == 3
            reply = client.post(f"/api/games/{game_id}/seats", json={"name": "Dora"})
            assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_started"
            reply = client.post(f"/api/games/{game_id}/bots", json={}, headers=auth(ana))
            assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_started"
            reply = client.post(f"/api/games/{game_id}/start", headers=auth(ana))
            assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_started"


def test_removing_a_seat_moves_stand_ins_with_their_players(tmp_path: Path) -> None:
    """A player who left the lobby is stood in for after the grace period; when a seat
    before them is removed, the stand-in must follow them to their new position, not
    stay on the old position (where it would play for whoever moved up into it)."""
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=0.1)
        join(client, game_id, "Ben")
        _, cleo = join(client, game_id, "Cleo")
        _, dora = join(client, game_id, "Dora")
        with connected(client, game_id, cleo):
            pass
        quiet_until = time.monotonic() + 0.5  # well past Cleo's grace period
        with connected(client, game_id, dora) as wd:
            time.sleep(max(0.0, quiet_until - time.monotonic()))
            reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(ana))
            assert reply.status_code == 204, reply.text
            seats = game_info(client, game_id)["seats"]
            assert [(s["name"], s["connected"]) for s in seats] == [
                ("Ana", False),
                ("Cleo", False),
                ("Dora", True),
            ]
            problems = []
            if seats[2]["stand_in"]:
                problems.append("connected Dora (seat 2) is marked stand_in in the lobby")
            # Dora is connected: when it is her turn, the game must wait for her
            start(client, game_id, ana)
            mine = until(wd, lambda m: is_state(m) and m["legal"] != [], timeout=GAME_TIMEOUT)
            state = mine[-1]
            later = [m for m in quiet(wd, 0.6) if is_state(m) and acted(m, 2)]
            if later:
                problems.append(
                    f"a computer played for connected Dora at version {state['version']}: "
                    f"{later[0]['events']}"
                )
            assert problems == []


def test_every_lobby_message_after_a_removal_has_the_right_connections(tmp_path: Path) -> None:
    """The lobby messages sent when a seat is removed say who is connected after the
    renumbering: never a bot, never the seat of someone who is not there."""
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana")
        join(client, game_id, "Ben")
        _, cleo = join(client, game_id, "Cleo")
        add_bot(client, game_id, ana)
        with connected(client, game_id, ana) as wa, connected(client, game_id, cleo):
            until(wa, lobby_where(lambda g: g["seats"][2]["connected"]))
            reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(ana))
            assert reply.status_code == 204, reply.text
            lobbies = [m["game"] for m in quiet(wa, 0.3) if m["type"] == "lobby"]
            assert lobbies
            for game in lobbies:
                assert seats_of(game) == [
                    (0, "Ana", "human"),
                    (1, "Cleo", "human"),
                    (2, game["seats"][2]["name"], "bot"),
                ]
                assert [s["connected"] for s in game["seats"]] == [True, True, False], game


# --- rematch ------------------------------------------------------------------------------------


def test_rematch_same_table_same_tokens(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(
            client, "Ana", "standard", {"ace_skips": True}, grace_seconds=0, turn_seconds=30
        )
        _, ben = join(client, game_id, "Ben")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, None) as spectator:
            start(client, game_id, ana)  # both humans absent: stand-ins play
            until(spectator, is_type("game_end"), timeout=GAME_TIMEOUT)
        old = wait_for_status(client, game_id, "finished")
        with connected(client, game_id, ana) as wa, connected(client, game_id, None) as watcher:
            reply = client.post(f"/api/games/{game_id}/rematch", headers=auth(ana))
            assert reply.status_code == 200, reply.text
            new_id = reply.json()["game_id"]
            assert new_id != game_id
            assert reply.json()["invite"].endswith(new_id)
            again = client.post(f"/api/games/{game_id}/rematch", headers=auth(ben))
            assert again.status_code == 200 and again.json()["game_id"] == new_id
            for ws in (wa, watcher):
                told = until(ws, is_type("rematch"))[-1]
                assert told["game_id"] == new_id
                # then a lobby message that names the new table
                lobby = until(ws, is_type("lobby"))[-1]["game"]
                assert lobby["rematch_id"] == new_id and lobby["status"] == "finished"
            assert of_type(quiet(wa, 0.2), "rematch") == []  # told once
        # nobody without a seat may ask for it
        reply = client.post(f"/api/games/{game_id}/rematch")
        assert reply.status_code == 401, reply.text

        new = game_info(client, new_id)
        assert new["status"] == "lobby"
        assert new["rematch_of"] == game_id
        assert game_info(client, game_id)["rematch_id"] == new_id
        assert new["options"] == old["options"] and new["rules"] == old["rules"]
        assert new["settings"] == old["settings"]
        assert new["host"] == old["host"]
        keep = ("position", "name", "kind", "level")
        assert [{k: s[k] for k in keep} for s in new["seats"]] == [
            {k: s[k] for k in keep} for s in old["seats"]
        ]
        assert not any(s["stand_in"] or s["connected"] for s in new["seats"])
        with (
            connected(client, new_id, ana) as wa2,
            client.websocket_connect(f"/ws/{new_id}") as wb2,
        ):
            assert hello(wb2, ben)["seat"] == 1
            reply = client.post(f"/api/games/{new_id}/start", headers=auth(ben))
            assert reply.status_code == 403  # Ben is not the host
            start(client, new_id, ana)
            state = until(wa2, is_state)[-1]
            assert state["view"]["players"] == [s["name"] for s in old["seats"]]
            assert state["view"]["seat"] == 0


def test_rematch_needs_a_finished_game(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=None)
        join(client, game_id, "Ben")
        reply = client.post(f"/api/games/{game_id}/rematch", headers=auth(ana))
        assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_not_finished"
        start(client, game_id, ana)
        reply = client.post(f"/api/games/{game_id}/rematch", headers=auth(ana))
        assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_not_finished"


# --- closing idle tables ------------------------------------------------------------------------


def test_idle_table_closes_and_keeps_its_record(tmp_path: Path) -> None:
    with make_client(tmp_path, sweep_seconds=0.2) as client:
        game_id, ana = create_table(client, "Ana", grace_seconds=None, idle_close_seconds=1)
        join(client, game_id, "Ben")
        with connected(client, game_id, ana) as wa:
            start(client, game_id, ana)
            state = until(wa, is_state)[-1]
            act_and_ack(wa, state, state["legal"][0], "a1")
            # while someone is connected the table stays open
            quiet(wa, 1.5)
            assert game_info(client, game_id)["status"] == "playing"
        info = wait_for_status(client, game_id, "closed")
        assert [s["connected"] for s in info["seats"]] == [False, False]
        # a new connection is told the table is closed
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            ws.send_json({"type": "hello", "token": ana})
            told = recv(ws)
            assert told["type"] in ("closed", "error"), told
            assert told["code"] == "table_closed"
        # its record is kept
        reply = client.get(f"/api/games/{game_id}/record")
        assert reply.status_code == 200, reply.text
        record = reply.json()
        assert record["players"] == ["Ana", "Ben"]
        assert len(record["rounds"]) == 1 and len(record["rounds"][0]["actions"]) == 1
        assert replay(record).version == 2
        # and moves, seats and starts are refused
        reply = client.post(f"/api/games/{game_id}/start", headers=auth(ana))
        assert reply.status_code == 410 and reply.json()["error"]["code"] == "table_closed"


def test_idle_lobby_closes_and_connected_socket_keeps_it_open(tmp_path: Path) -> None:
    with make_client(tmp_path, sweep_seconds=0.2) as client:
        kept, _ = create_table(client, "Ana", idle_close_seconds=1)
        idle, _ = create_table(client, "Ben", idle_close_seconds=1)
        with connected(client, kept, None) as ws:
            wait_for_status(client, idle, "closed")
            quiet(ws, 0.5)
            assert game_info(client, kept)["status"] == "lobby"
        wait_for_status(client, kept, "closed")
        reply = client.post(f"/api/games/{kept}/seats", json={"name": "Cleo"})
        assert reply.status_code == 410 and reply.json()["error"]["code"] == "table_closed"


def test_finished_table_leaves_memory_and_is_served_again_from_the_store(tmp_path: Path) -> None:
    with make_client(tmp_path, sweep_seconds=0.1, unload_seconds=0.5) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        game_id, ana = create_table(client, "Ana", "standard", grace_seconds=0)
        add_bot(client, game_id, ana)
        start(client, game_id, ana)  # Ana never connects: her stand-in plays for her
        wait_for_status(client, game_id, "finished")
        record = client.get(f"/api/games/{game_id}/record").json()
        info = game_info(client, game_id)
        live = weakref.ref(hub.referees[game_id].table)
        gc.collect()
        gc.disable()  # freed by reference counting alone, not by the cycle collector
        try:
            deadline = time.monotonic() + 30
            while live() is not None:
                assert time.monotonic() < deadline, "the finished table stayed in memory"
                time.sleep(0.05)
        finally:
            gc.enable()
        assert game_id not in hub.referees
        # loaded again when asked for, unchanged
        assert client.get(f"/api/games/{game_id}/record").json() == record
        again = game_info(client, game_id)
        for seat in (*info["seats"], *again["seats"]):  # presence is live, not stored
            del seat["stand_in"]
        assert again == info
        with connected(client, game_id, ana) as ws:
            state = until(ws, is_state)[-1]
            assert state["view"]["finished"] and state["legal"] == []
        reply = client.post(f"/api/games/{game_id}/rematch", headers=auth(ana))
        assert reply.status_code == 200, reply.text


# --- catch mode ---------------------------------------------------------------------------------


def test_catch_mode_humans_catch_and_accept(tmp_path: Path) -> None:
    """Two humans under ``gamerules`` (mau_penalty: catch): one forgets "Mau" and the
    other catches; later one forgets "Mau Mau" and the other accepts with a pass."""
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", "gamerules", grace_seconds=None)
        _, ben = join(client, game_id, "Ben")
        with connected(client, game_id, ana) as wa, connected(client, game_id, ben) as wb:
            sockets = {0: wa, 1: wb}
            start(client, game_id, ana)
            latest = {seat: until(ws, is_state)[-1] for seat, ws in sockets.items()}
            caught = accepted = False
            forgot: tuple[int, str] | None = None  # (seat, "mau" or "maumau")
            for count in range(2000):
                if caught and accepted:
                    break
                movers = [s for s in (0, 1) if latest[s]["legal"]]
                assert movers, latest
                seat = movers[0] if forgot is None else 1 - forgot[0]
                other = 1 - seat
                legal = latest[seat]["legal"]
                action = legal[0]
                if forgot is not None:
                    offender, word = forgot
                    assert seat != offender
                    assert {"catch": offender} in legal, legal
                    if word == "mau":
                        action = {"catch": offender}
                    else:
                        assert latest[seat]["view"]["step"] == "wait"
                        assert latest[offender]["legal"] == []
                        assert sorted(legal, key=str) == sorted(
                            [{"pass": True}, {"catch": offender}], key=str
                        )
                        action = {"pass": True}
                elif action.get("call") == "mau" and not caught:
                    action = {k: v for k, v in action.items() if k != "call"}
                    forgot = (seat, "mau")
                elif action.get("call") == "maumau" and caught and not accepted:
                    action = {k: v for k, v in action.items() if k != "call"}
                    forgot = (seat, "maumau")
                seen = act_and_ack(sockets[seat], latest[seat], action, f"m{count}")
                latest[seat] = of_type(seen, "state")[-1]
                version = latest[seat]["version"]
                theirs = until(
                    sockets[other], lambda m, v=version: is_state(m) and m["version"] == v
                )
                latest[other] = theirs[-1]
                if forgot is not None and action.get("catch") is not None:
                    offender = forgot[0]
                    events = latest[offender]["events"]
                    penalty = [e for e in events if "penalty" in e]
                    assert penalty and penalty[0]["seat"] == offender
                    assert len(penalty[0]["cards"]) == penalty[0]["penalty"] == 2
                    for e in latest[1 - offender]["events"]:
                        assert "cards" not in e or e["seat"] == 1 - offender
                    assert {"seat": seat, "catch": offender} in events
                    caught, forgot = True, None
                elif forgot is not None and action.get("pass"):
                    offender = forgot[0]
                    for messages in (seen, theirs):
                        over = [
                            m for m in of_type(messages, "state") if m["view"]["step"] == "over"
                        ]
                        assert over and over[0]["view"]["out"] == offender
                        assert of_type(messages, "round_end")[0]["out"] == offender
                    accepted, forgot = True, None
                elif forgot is not None:
                    # the forgotten call waits to be caught or accepted
                    assert latest[1 - forgot[0]]["view"]["catchable"] == forgot[0]
                if latest[0]["view"]["finished"]:
                    break
            assert caught and accepted


def test_catch_mode_bot_game_finishes(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(
            client, "Ana", "penalty-100", {"mau_penalty": "catch"}, grace_seconds=0
        )
        add_bot(client, game_id, ana, "random")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, None) as ws:
            start(client, game_id, ana)
            messages = until(ws, is_type("game_end"), timeout=GAME_TIMEOUT)
        round_ends = of_type(messages, "round_end")
        check_penalty_rounds(round_ends, of_type(messages, "game_end")[0], 100)
        assert game_info(client, game_id)["rules"]["mau_penalty"] == "catch"
        check_record(client, game_id, round_ends, messages[-1])


@pytest.mark.parametrize("preset", ["standard", "traditional", "gamerules"])
def test_presets_play_to_the_end(tmp_path: Path, preset: str) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", preset, grace_seconds=0)
        add_bot(client, game_id, ana, "random")
        with connected(client, game_id, None) as ws:
            start(client, game_id, ana)
            messages = until(ws, is_type("game_end"), timeout=GAME_TIMEOUT)
        check_states(of_type(messages, "state"), strict=False)
        check_record(client, game_id, of_type(messages, "round_end"), messages[-1])
