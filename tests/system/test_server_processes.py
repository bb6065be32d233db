"""Two ``maumau serve`` processes sharing one PostgreSQL database act as one server.

The players of one game are connected to different processes: each process hears of
the other's moves through PostgreSQL's change notices, and a move sent to a process
whose copy is behind is decided by the store's unique (game, step) key.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from websockets.sync.client import ClientConnection, connect

from support.live import DEADLINE, Human, Server, check_finished


@pytest.fixture
def servers(tmp_path: Path, pg_db_url: str) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server(tmp_path / name, database_url=pg_db_url)
            server.options = ["--messages-per-second", "1000"]  # four quick players
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


def stored_client_ids(url: str, game_id: str) -> Counter[str]:
    async def query() -> list[str]:
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch(
                "SELECT client_id FROM steps WHERE game_id = $1 AND client_id IS NOT NULL",
                game_id,
            )
        finally:
            await conn.close()
        return [row[0] for row in rows]

    return Counter(asyncio.run(query()))


def test_one_game_played_across_two_processes(servers: list[Server], pg_db_url: str) -> None:
    a, b = servers
    created = a.request(
        "POST",
        "/api/games",
        {"name": "Ana", "preset": "penalty-100", "settings": {"next_round_seconds": 0}},
    )
    game_id, host = created["game_id"], created["token"]
    # seats taken alternately on each process: each sees the other's seats first
    tokens = [host]
    for name, server in (("Ben", b), ("Cem", a), ("Dora", b)):
        granted = server.request("POST", f"/api/games/{game_id}/seats", {"name": name})
        assert granted["seat"] == len(tokens)
        tokens.append(granted["token"])
    for server in (a, b):
        info = server.request("GET", f"/api/games/{game_id}")
        assert [s["name"] for s in info["seats"]] == ["Ana", "Ben", "Cem", "Dora"]
    humans = [Human(a if i % 2 == 0 else b, game_id, t) for i, t in enumerate(tokens)]
    for human in humans:
        human.start()
    deadline = time.monotonic() + 10
    while any(h.welcomes == 0 for h in humans) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [h.seat for h in humans] == [0, 1, 2, 3]
    b.request("POST", f"/api/games/{game_id}/start", None, host)  # the host, on the other one

    record = check_finished(a, game_id, humans)
    assert b.request("GET", f"/api/games/{game_id}/record") == record
    assert b.request("GET", f"/api/games/{game_id}")["status"] == "finished"
    stored = stored_client_ids(pg_db_url, game_id)
    for human in humans:
        assert human.versions == sorted(human.versions)  # each saw the game move forward
        assert all(stored[a] == 1 for a in human.acked)
        assert not [e for e in human.errors if e["code"] != "conflict"], human.errors
    assert all(n == 1 for n in stored.values())
    moves = sum(len(h.acked) for h in humans)
    assert moves > 20 and len(record["rounds"]) >= 1


def test_a_move_on_a_process_that_is_behind_is_refused_or_applied_once(
    servers: list[Server], pg_db_url: str
) -> None:
    """The same seat plays on both processes at once (two tabs, two servers): every
    move is stored once, whichever process accepted it."""
    a, b = servers
    created = a.request("POST", "/api/games", {"name": "Ana", "preset": "standard", "settings": {}})
    game_id, host = created["game_id"], created["token"]
    other = b.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    humans = [Human(a, game_id, host), Human(b, game_id, host, "b")]
    humans += [Human(a, game_id, other), Human(b, game_id, other, "b")]
    for human in humans:
        human.start()
    deadline = time.monotonic() + 10
    while any(h.welcomes == 0 for h in humans) and time.monotonic() < deadline:
        time.sleep(0.05)
    a.request("POST", f"/api/games/{game_id}/start", None, host)
    for human in humans:
        human.join(DEADLINE)
        assert human.game_end is not None, [(h.seat, h.errors[-3:], h.last) for h in humans]
    record = a.request("GET", f"/api/games/{game_id}/record")
    assert b.request("GET", f"/api/games/{game_id}/record") == record
    stored = stored_client_ids(pg_db_url, game_id)
    assert all(n == 1 for n in stored.values())
    acked = [x for h in humans for x in h.acked]
    assert len(acked) == len(set(acked)) and all(stored[x] == 1 for x in acked)
    codes = {e["code"] for h in humans for e in h.errors}
    assert codes <= {"conflict", "stale_version", "not_your_turn"}, codes


def seats_seen(server: Server, game_id: str) -> list[tuple[bool, bool]]:
    info = server.request("GET", f"/api/games/{game_id}")
    return [(s["connected"], s["stand_in"]) for s in info["seats"]]


def wait_for(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_a_player_connected_to_the_other_process_is_not_absent(servers: list[Server]) -> None:
    """Each process knows who is connected to the other: nobody's seat is taken over
    while they are connected anywhere, and it is once they have left everywhere."""
    a, b = servers
    body = {"name": "Ana", "preset": "standard", "settings": {"grace_seconds": 1}}
    created = a.request("POST", "/api/games", body)
    game_id, host = created["game_id"], created["token"]
    other = b.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    with (
        connect(f"ws://127.0.0.1:{a.port}/ws/{game_id}") as ana,
        connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as ben,
    ):
        ana.send(json.dumps({"type": "hello", "token": host}))
        ben.send(json.dumps({"type": "hello", "token": other}))
        assert wait_for(lambda: seats_seen(a, game_id) == [(True, False), (True, False)])
        # (b hears of a's player by a's presence notice: a moment later on a busy machine)
        assert wait_for(lambda: seats_seen(b, game_id) == [(True, False), (True, False)])
        a.request("POST", f"/api/games/{game_id}/start", None, host)
        time.sleep(2.5)  # well past the grace period
        for server in (a, b):
            assert seats_seen(server, game_id) == [(True, False), (True, False)]
        ben.close()
        # gone everywhere: after the grace period a computer player stands in for Ben
        assert wait_for(lambda: seats_seen(a, game_id)[1] == (False, True))
        assert wait_for(lambda: seats_seen(b, game_id)[1] == (False, True))
        assert seats_seen(a, game_id)[0] == (True, False)


def chat_until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (or an ``error``) on a socket."""
    deadline = time.monotonic() + DEADLINE
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=deadline - time.monotonic()))
        if message["type"] in (kind, "error"):
            return message


def test_chat_reaches_the_players_of_the_other_process(servers: list[Server]) -> None:
    """A line, a reaction and the host's chat-off made at one process reach the
    players connected to the other, which enforces the chat-off too."""
    a, b = servers
    created = a.request("POST", "/api/games", {"name": "Ana", "preset": "standard"})
    game_id, host = created["game_id"], created["token"]
    other = b.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    with (
        connect(f"ws://127.0.0.1:{a.port}/ws/{game_id}") as ana,
        connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as ben,
    ):
        ana.send(json.dumps({"type": "hello", "token": host}))
        ben.send(json.dumps({"type": "hello", "token": other}))
        for ws in (ana, ben):  # welcomed (a new table's chat: no chat_history)
            chat_until(ws, "welcome")
        ana.send(json.dumps({"type": "chat", "text": "hi from a"}))
        line = chat_until(ben, "chat_line")["line"]
        assert (line["seat"], line["name"], line["text"]) == (0, "Ana", "hi from a")
        ben.send(json.dumps({"type": "react", "key": "wow"}))
        assert chat_until(ana, "reaction") == {"type": "reaction", "seat": 1, "key": "wow"}
        ana.send(
            json.dumps(
                {
                    "type": "set_chat",
                    "chat": False,
                    "spectators": False,
                    "spectator_reactions": False,
                }
            )
        )
        heard = chat_until(ben, "chat_options")
        assert (heard["chat"], heard["spectator_reactions"]) == (False, False)
        ben.send(json.dumps({"type": "chat", "text": "and from b?"}))
        assert chat_until(ben, "chat_line")["code"] == "chat_off"
    with connect(f"ws://127.0.0.1:{b.port}/ws/{game_id}") as late:
        late.send(json.dumps({"type": "hello"}))
        history = chat_until(late, "chat_history")
        late.send(json.dumps({"type": "react", "key": "wow"}))  # a spectator, here
        assert chat_until(late, "reaction")["code"] == "chat_off"
    assert (history["chat"], history["spectator_reactions"]) == (False, False)
    assert [x["text"] for x in history["lines"]] == ["hi from a"]
