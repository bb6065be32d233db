"""Hidden information and late friends: a spectator who takes over a bot seat mid-game
gets the public view until then and that seat's view from then on, never anything of
another seat (and nobody else ever sees its token).

A whole game is played through the server: the host at a socket, two bots, and a
spectator who asks for a bot seat at once; the host accepts as soon as the request
comes, and the newcomer plays random legal moves from then on.  After the game the
record is replayed version by version (as in ``test_server_leak``) and every message
the newcomer received is checked against the seat it held when it came."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

from starlette.testclient import WebSocketTestSession
from test_server_leak import CARD, GAME_TIMEOUT, Truth, recv_text, replay_versions

from support.serverkit import add_bot, create_table, hello, make_client, start

Message = dict[str, Any]

#: the seat the friend takes over
SEAT = 1


class Player(threading.Thread):
    """One socket: keeps every message it receives until the game ends, and plays a
    random legal action on each new state that offers one.  The host accepts every
    request for a seat; a friend asks for :data:`SEAT` first and plays once given it."""

    def __init__(self, ws: WebSocketTestSession, seat: int | None, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.ws, self.seat, self.rng = ws, seat, rng
        self.texts: list[str] = []
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            last, count, asked = -1, 0, self.seat is not None
            deadline = time.monotonic() + GAME_TIMEOUT
            while time.monotonic() < deadline:
                text = recv_text(self.ws)
                self.texts.append(text)
                message = json.loads(text)
                kind = message["type"]
                if kind == "game_end":
                    return
                if kind == "state" and not asked:  # (the game is on: ask now)
                    asked = True
                    self.ws.send_json({"type": "ask_seat", "seat": SEAT, "name": "Mia"})
                if kind == "seat_given":
                    self.seat = message["seat"]
                if kind == "seat_requests":
                    for request in message["requests"]:
                        answer = {"request": request["request"], "accept": True}
                        self.ws.send_json({"type": "answer_seat", **answer})
                if kind != "state" or not message["legal"] or message["version"] <= last:
                    continue
                last, count = message["version"], count + 1
                self.ws.send_json(
                    {
                        "type": "action",
                        "version": last,
                        "action_id": f"{self.seat}-{count}",
                        "action": self.rng.choice(message["legal"]),
                    }
                )
            raise AssertionError("the game did not end in time")
        except BaseException as exc:
            self.failure = exc

    def result(self) -> list[str]:
        self.join(GAME_TIMEOUT + 20)
        assert not self.is_alive() and self.failure is None, self.failure
        return self.texts


def check_friend(texts: list[str], truths: dict[int, Truth], host_token: str) -> tuple[int, int]:
    """Every message to the friend against the seat it held then; returns how many
    states it saw as a spectator and as the seat."""
    seat: int | None = None
    token: str | None = None
    counts = [0, 0]
    for number, text in enumerate(texts):
        message = json.loads(text)
        kind = message["type"]
        where = f"message {number} ({kind}) as {seat}"
        assert host_token not in text, where
        if kind == "seat_given":
            assert seat is None and message["seat"] == SEAT, where
            seat, token = SEAT, message["token"]
            continue
        if token is not None:
            assert token not in text, f"{where}: its token again"
        if kind == "state":
            truth = truths[message["version"]]
            view = message["view"]
            # (the record names the seat for its last holder; the live table for its holder then)
            assert view["players"][SEAT] == ("Ada (bot)" if seat is None else "Mia"), where
            expected = {**truth.views[seat], "players": view["players"]}
            assert view == expected, where
            assert message["legal"] == ([] if seat is None else truth.legal[seat]), where
            for entry in message["events"]:
                if "cards" in entry:
                    assert seat is not None and entry["seat"] == seat, f"{where}: {entry}"
            seen = set(CARD.findall(text))
            assert seen <= truth.visible(seat), f"{where}: {seen - truth.visible(seat)}"
            counts[seat is not None] += 1
        elif kind in ("seat_asked", "seat_request_ended", "seat_requests", "lobby"):
            assert CARD.findall(text) == [], where
    assert seat == SEAT, "the seat was never given"
    return counts[0], counts[1]


def test_a_friend_who_takes_a_seat_sees_that_seat_only(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host_token = create_table(client, "Ana", "gamerules", {"limit": 60})
        add_bot(client, game_id, host_token, "random")
        add_bot(client, game_id, host_token, "random")
        with (
            client.websocket_connect(f"/ws/{game_id}") as host_ws,
            client.websocket_connect(f"/ws/{game_id}") as friend_ws,
        ):
            hello(host_ws, host_token)
            hello(friend_ws, None)
            host = Player(host_ws, 0, random.Random(1))
            friend = Player(friend_ws, None, random.Random(2))
            host.start()
            friend.start()
            start(client, game_id, host_token)
            host_texts, friend_texts = host.result(), friend.result()
        reply = client.get(f"/api/games/{game_id}/record")
        assert reply.status_code == 200, reply.text
        record = reply.json()
        assert record["players"] == ["Ana", "Mia", "Bruno (bot)"]
        truths, _ = replay_versions(record)
        given = next(json.loads(t) for t in friend_texts if '"seat_given"' in t)
        assert not any(given["token"] in t for t in host_texts)
        _, played = check_friend(friend_texts, truths, host_token)
        assert played > 0
        moves = [a for r in record["rounds"] for a in r["actions"] if a["seat"] == SEAT]
        assert moves, "the newcomer never moved"
