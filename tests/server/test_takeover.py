"""Late friends: a spectator asks for a computer-played seat, the host accepts, and the
newcomer plays that seat (server/live/takeover.py, server/live/seat_requests.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from maumau.engine.cards import cards_of
from maumau.server.app import create_app
from maumau.server.config import ServerConfig
from maumau.server.live.seat_requests import ASKS_PER_MINUTE, MAX_OPEN
from support.serverkit import (
    ACTION_IDS,
    TEST_LIMITS,
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

#: bots wait this long before a move: with the host to move first, none moves meanwhile
SLOW_BOTS = 10_000


def kind(name: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == name


def error(ws: WebSocketTestSession, code: str) -> Message:
    """Receive until an error; it must have ``code``."""
    seen = receive_until(ws, kind("error"))
    assert seen[-1]["code"] == code, seen[-1]
    return seen[-1]


def bot_table(client: TestClient, bots: int = 1, **settings: Any) -> tuple[str, str]:
    """A started table: Ana (the host, seat 0) and ``bots`` slow bots."""
    game_id, token = create_table(client, bot_delay_ms=SLOW_BOTS, **settings)
    for _ in range(bots):
        add_bot(client, game_id, token)
    start(client, game_id, token)
    return game_id, token


def ben_away(client: TestClient) -> tuple[str, str, str]:
    """A started table of Ana (the host, seat 0) and Ben, who never connects: with no
    grace period a stand-in plays his seat at once.  Its id, Ana's and Ben's tokens."""
    game_id, token = create_table(client, bot_delay_ms=SLOW_BOTS, grace_seconds=0)
    _, ben = join(client, game_id, "Ben")
    start(client, game_id, token)
    return game_id, token, ben


def stood_in(ws: WebSocketTestSession, seat: int) -> None:
    """Read ``ws`` until a lobby message says a stand-in plays ``seat``."""
    receive_until(ws, lambda m: m["type"] == "lobby" and m["game"]["seats"][seat]["stand_in"])


def hand_of(client: TestClient, game_id: str, seat: int) -> list[str]:
    """The truth: the seat's hand as the server's game holds it."""
    game = client.app.state.hub.referees[game_id].table.require_game()
    return [str(c) for c in cards_of(game.round.hands[seat])]


def ask(ws: WebSocketTestSession, seat: int, name: str) -> Message:
    ws.send_json({"type": "ask_seat", "seat": seat, "name": name})
    return receive_until(ws, lambda m: m["type"] in ("seat_asked", "error"))[-1]


def requests_of(host: WebSocketTestSession) -> list[Message]:
    listing: list[Message] = receive_until(host, kind("seat_requests"))[-1]["requests"]
    return listing


def take(
    client: TestClient,
    game_id: str,
    host: WebSocketTestSession,
    friend: WebSocketTestSession,
    seat: int = 1,
    name: str = "Mia",
) -> tuple[str, Message]:
    """The friend asks for ``seat``, the host accepts; returns the new token and the
    friend's first state as the seat."""
    asked = ask(friend, seat, name)
    assert asked["type"] == "seat_asked", asked
    (request,) = requests_of(host)
    assert request == {
        "request": asked["request"],
        "seat": seat,
        "name": name,
        "expires": asked["expires"],
    }
    host.send_json({"type": "answer_seat", "request": asked["request"], "accept": True})
    seen = receive_until(friend, lambda m: m["type"] == "state" and m["view"]["seat"] == seat)
    given = next(m for m in seen if m["type"] == "seat_given")
    assert (given["game_id"], given["seat"]) == (game_id, seat)
    welcome = next(m for m in seen if m["type"] == "welcome")
    assert (welcome["seat"], welcome["role"]) == (seat, "player")
    token: str = given["token"]
    return token, seen[-1]


def proxied_client(tmp_path: Path) -> TestClient:
    """A client behind a trusted proxy, whose sockets each say which client address
    they come from (``headers=address(n)``): limits per address apply to each."""
    config = ServerConfig(data_dir=tmp_path, **(TEST_LIMITS | {"trusted_proxies": ("127.0.0.1",)}))
    return TestClient(create_app(config), client=("127.0.0.1", 50000))


def address(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"203.0.113.{n}"}


def move(ws: WebSocketTestSession, state: Message) -> str:
    action_id = f"t-{next(ACTION_IDS)}"
    ws.send_json(
        {
            "type": "action",
            "version": state["version"],
            "action_id": action_id,
            "action": state["legal"][0],
        }
    )
    return action_id


def test_a_friend_takes_over_a_bot_seat_and_plays_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = bot_table(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}") as friend,
        ):
            hello(host, token)
            first = receive_until(host, kind("state"))[-1]
            assert first["view"]["to_move"] == 0  # the bots wait for the host
            hello(friend, None)
            watching = receive_until(friend, kind("state"))[-1]
            assert watching["view"]["hand"] == [] and watching["legal"] == []
            bot_hand = hand_of(client, game_id, 1)
            _, state = take(client, game_id, host, friend)
            # the seat's hand and totals, and nothing of the other seat's
            assert state["view"]["hand"] == bot_hand
            assert state["view"]["players"] == ["Ana", "Mia"]
            assert state["view"]["totals"] == first["view"]["totals"]
            lobby = receive_until(
                host, lambda m: m["type"] == "lobby" and m["game"]["seats"][1]["name"] == "Mia"
            )[-1]["game"]
            seat = lobby["seats"][1]
            assert (seat["name"], seat["kind"], seat["level"]) == ("Mia", "human", None)
            # the host moves (again while the turn stays: a draw keeps it, so does an
            # Eight that skips the only other seat); then the newcomer moves from the seat
            host_state = receive_until(host, kind("state"))[-1]
            assert host_state["view"]["players"][1] == "Mia"
            move(host, host_state)
            play_first_legal(host, 0, lambda m: m["type"] == "state" and m["view"]["to_move"] == 1)
            mine = receive_until(
                friend,
                lambda m: m["type"] == "state" and m["view"]["to_move"] == 1 and bool(m["legal"]),
            )[-1]
            assert mine["view"]["hand"] == hand_of(client, game_id, 1)
            action_id = move(friend, mine)
            acked = receive_until(friend, lambda m: m["type"] == "state" and m["ack"] is not None)
            assert acked[-1]["ack"] == action_id
            step = client.app.state.hub.referees[game_id].table.steps()[-1]
            assert step.data["seat"] == 1 and "by" not in step.data  # the newcomer's own


def test_a_stand_in_seat_is_taken_and_its_old_token_gives_seat_removed(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token, ben = ben_away(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}") as friend,
        ):
            hello(host, token)
            stood_in(host, 1)
            hello(friend, None)
            new_token, state = take(client, game_id, host, friend, name="Cleo")
            assert state["view"]["players"] == ["Ana", "Cleo"]
            info = client.get(f"/api/games/{game_id}").json()
            assert info["seats"][1]["stand_in"] is False and info["seats"][1]["name"] == "Cleo"
        with client.websocket_connect(f"/ws/{game_id}") as old:
            old.send_json({"type": "hello", "token": ben})
            assert error(old, "seat_removed")
        with client.websocket_connect(f"/ws/{game_id}") as back:
            assert hello(back, new_token)["seat"] == 1


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        lobby_id, lobby_token = create_table(client)
        add_bot(client, lobby_id, lobby_token)
        with client.websocket_connect(f"/ws/{lobby_id}") as early:
            hello(early, None)
            early.send_json({"type": "ask_seat", "seat": 1, "name": "Mia"})
            assert "not started" in error(early, "not_playing")["message"]
        game_id, token = bot_table(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}") as friend,
            client.websocket_connect(f"/ws/{game_id}") as other,
        ):
            hello(host, token)
            hello(friend, None)
            hello(other, None)
            host.send_json({"type": "ask_seat", "seat": 1, "name": "Zed"})
            error(host, "not_spectator")
            assert ask(friend, 0, "Mia")["code"] == "seat_not_computer"  # the host plays
            assert ask(friend, 5, "Mia")["code"] == "unknown_seat"
            assert ask(friend, 1, "ana")["code"] == "name_taken"
            assert ask(friend, 1, "Mia\u202e")["code"] == "bad_name"
            asked = ask(friend, 1, "Mia")
            assert ask(friend, 1, "Mia")["code"] == "already_asked"
            other.send_json({"type": "answer_seat", "request": asked["request"], "accept": True})
            error(other, "not_host")
            host.send_json({"type": "answer_seat", "request": 999, "accept": True})
            error(host, "unknown_request")
            # declined: the asker is told, and may ask again
            host.send_json({"type": "answer_seat", "request": asked["request"], "accept": False})
            ended = receive_until(friend, kind("seat_request_ended"))[-1]
            assert ended == {
                "type": "seat_request_ended",
                "request": asked["request"],
                "reason": "declined",
            }
            receive_until(host, lambda m: m["type"] == "seat_requests" and not m["requests"])
            again = ask(friend, 1, "Mia")
            friend.send_json({"type": "withdraw_seat"})
            assert receive_until(friend, kind("seat_request_ended"))[-1]["reason"] == "withdrawn"
            friend.send_json({"type": "withdraw_seat"})
            error(friend, "unknown_request")
            host.send_json({"type": "answer_seat", "request": again["request"], "accept": True})
            error(host, "unknown_request")


def test_a_seat_taken_meanwhile_ends_the_other_requests(tmp_path: Path) -> None:
    with proxied_client(tmp_path) as client:
        game_id, token = bot_table(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}", headers=address(1)) as first,
            client.websocket_connect(f"/ws/{game_id}", headers=address(2)) as second,
        ):
            hello(host, token)
            hello(first, None)
            hello(second, None)
            late = ask(second, 1, "Ole")
            assert late["type"] == "seat_asked"
            asked = ask(first, 1, "Mia")
            receive_until(host, lambda m: m["type"] == "seat_requests" and len(m["requests"]) == 2)
            host.send_json({"type": "answer_seat", "request": asked["request"], "accept": True})
            receive_until(first, kind("seat_given"))
            ended = receive_until(second, kind("seat_request_ended"))[-1]
            assert ended["reason"] == "seat_taken"
            host.send_json({"type": "answer_seat", "request": late["request"], "accept": True})
            error(host, "unknown_request")
            # the seat is a person's now: nobody may ask for it
            assert ask(second, 1, "Ole")["code"] == "seat_not_computer"


def test_an_asker_who_leaves_takes_the_request_along(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = bot_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as host:
            hello(host, token)
            with client.websocket_connect(f"/ws/{game_id}") as friend:
                hello(friend, None)
                asked = ask(friend, 1, "Mia")
                assert len(requests_of(host)) == 1
            assert requests_of(host) == []
            host.send_json({"type": "answer_seat", "request": asked["request"], "accept": True})
            error(host, "unknown_request")
            info = client.get(f"/api/games/{game_id}").json()
            assert info["seats"][1]["kind"] == "bot"


def test_requests_are_shared_out_by_address(tmp_path: Path) -> None:
    """One stranger's sockets hold one request between them, however many they are;
    the table's requests take as many addresses."""
    with proxied_client(tmp_path) as client:
        game_id, _ = bot_table(client, bots=1)
        path = f"/ws/{game_id}"
        with (
            client.websocket_connect(path, headers=address(1)) as one,
            client.websocket_connect(path, headers=address(1)) as same,
        ):
            hello(one, None)
            hello(same, None)
            assert ask(one, 1, "Mia")["type"] == "seat_asked"
            refused = ask(same, 1, "Ole")
            assert refused["code"] == "already_asked" and "address" in refused["message"]
            one.send_json({"type": "withdraw_seat"})
            receive_until(one, kind("seat_request_ended"))
            assert ask(same, 1, "Ole")["type"] == "seat_asked"  # its turn now
        sockets = [
            client.websocket_connect(path, headers=address(10 + i)) for i in range(MAX_OPEN + 1)
        ]
        opened = [s.__enter__() for s in sockets]
        try:
            for i, ws in enumerate(opened):
                hello(ws, None)
                answer = ask(ws, 1, f"Friend {i}")
                expected = "seat_asked" if i < MAX_OPEN else "error"
                assert answer["type"] == expected, answer
            assert answer["code"] == "too_many_requests"
        finally:
            for s in sockets:
                s.__exit__(None, None, None)


def test_asking_and_withdrawing_is_rate_limited_per_address(tmp_path: Path) -> None:
    with proxied_client(tmp_path) as client:
        game_id, token = bot_table(client, bots=1)
        path = f"/ws/{game_id}"
        with client.websocket_connect(path) as host:
            hello(host, token)
            answers = []
            for _ in range(int(ASKS_PER_MINUTE) + 1):  # a new socket each time, too
                with client.websocket_connect(path, headers=address(1)) as ws:
                    hello(ws, None)
                    answers.append(ask(ws, 1, "Mia"))
                    if answers[-1]["type"] == "seat_asked":
                        ws.send_json({"type": "withdraw_seat"})
                        receive_until(ws, kind("seat_request_ended"))
            assert [a["type"] for a in answers[:-1]] == ["seat_asked"] * int(ASKS_PER_MINUTE)
            assert answers[-1]["code"] == "rate_limited", answers[-1]
            assert "asks a minute" in answers[-1]["message"]
            with client.websocket_connect(path, headers=address(2)) as other:
                hello(other, None)
                asked = ask(other, 1, "Ole")
                assert asked["type"] == "seat_asked"
                # the host's list ends as it is, whatever came and went before
                receive_until(
                    host,
                    lambda m: (
                        m["type"] == "seat_requests"
                        and [r["request"] for r in m["requests"]] == [asked["request"]]
                    ),
                )


def test_a_takeover_outlasts_a_restart(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = bot_table(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}") as friend,
        ):
            hello(host, token)
            hello(friend, None)
            new_token, state = take(client, game_id, host, friend)
            hand = state["view"]["hand"]
    with make_client(tmp_path) as client:
        info = client.get(f"/api/games/{game_id}").json()
        assert (info["seats"][1]["name"], info["seats"][1]["kind"]) == ("Mia", "human")
        with client.websocket_connect(f"/ws/{game_id}") as friend:
            assert hello(friend, new_token)["seat"] == 1
            again = receive_until(friend, kind("state"))[-1]
            assert again["view"]["hand"] == hand
            assert again["view"]["players"] == ["Ana", "Mia"]


def test_a_request_ends_when_the_seats_player_comes_back(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token, ben = ben_away(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as host,
            client.websocket_connect(f"/ws/{game_id}") as friend,
        ):
            hello(host, token)
            stood_in(host, 1)
            hello(friend, None)
            asked = ask(friend, 1, "Mia")
            with client.websocket_connect(f"/ws/{game_id}") as back:
                assert hello(back, ben)["seat"] == 1  # Ben is back: his seat is his again
                ended = receive_until(friend, kind("seat_request_ended"))[-1]
                assert ended == {
                    "type": "seat_request_ended",
                    "request": asked["request"],
                    "reason": "seat_taken",
                }
                receive_until(host, lambda m: m["type"] == "seat_requests" and not m["requests"])
                host.send_json({"type": "answer_seat", "request": asked["request"], "accept": True})
                error(host, "unknown_request")


def test_the_hosts_seat_is_never_offered_even_while_a_stand_in_plays_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = bot_table(client, grace_seconds=0)
        with client.websocket_connect(f"/ws/{game_id}") as friend:
            hello(friend, None)
            stood_in(friend, 0)
            answer = ask(friend, 0, "Mia")
            assert answer["code"] == "seat_not_computer" and "host" in answer["message"]


def test_a_seat_granted_to_an_asker_not_here_gets_its_grace_period(tmp_path: Path) -> None:
    """The asker may be gone by the time the seat is stored (it left meanwhile, or it is
    at another process that never hands the seat over): the seat is then a person's
    with nobody at it, so its grace period runs and a computer plays it after, as for
    any player who left; the game does not wait on it for ever."""
    from maumau.server.live import takeover
    from maumau.server.live.seat_requests import SeatRequest

    with make_client(tmp_path) as client:
        game_id, _ = bot_table(client, grace_seconds=30)
        referee = client.app.state.hub.referees[game_id]
        request = SeatRequest(1, None, 1, "Mia", time.time() + 60, "k" * 43)

        async def accept() -> None:
            async with referee.table.lock:
                await takeover.take_over(referee, request)

        client.portal.call(accept)
        assert referee.table.seats[1].kind == "human"
        assert 1 in referee.stand_in.grace, "nobody at the seat, and no grace period"
