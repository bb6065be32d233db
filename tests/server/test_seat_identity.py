"""A seat is its token's: no interleaving of claims, removals, hellos, reconnects,
second tabs and the start gives a connection another seat's view.

The races are made deterministic: the store's seat write is held open from the test
while a ``hello`` comes in (the attack: a stranger with two seats removes the first and
says hello with the second's token; the accident: the host removes a seat while
another player's tab reconnects).  A property test then runs random interleavings
against the real hub, referee and store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocket

from maumau.server.config import ServerConfig
from maumau.server.http.sockets import receive
from maumau.server.live import seating
from maumau.server.live.hub import Hub
from maumau.server.transport.connection import Connection
from maumau.server.transport.limits import TokenBucket
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import CreateGame
from maumau.store import Store
from support.serverkit import auth, create_table, join, make_client

Message = dict[str, Any]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- a store write held open from the test ---------------------------------------------------


class Held:
    """Holds the store's next seat writes open until :meth:`release`."""

    def __init__(self, client: TestClient) -> None:
        self.hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
        store = self.hub.store
        self.original = store.replace_seats
        self.entered = threading.Event()
        self.released = threading.Event()

        async def held(*args: Any, **kwargs: Any) -> None:
            self.entered.set()
            while not self.released.is_set():
                await asyncio.sleep(0.002)
            await self.original(*args, **kwargs)

        store.replace_seats = held

    def release(self) -> None:
        self.released.set()
        self.hub.store.replace_seats = self.original  # type: ignore[method-assign]


@contextmanager
def removing_while_held(
    client: TestClient, game_id: str, position: int, token: str
) -> Iterator[Held]:
    """``DELETE`` seat ``position`` in a thread; inside the block its store write (made
    under the table's lock) is held open.  The reply must be 204."""
    held = Held(client)
    replies: list[int] = []
    thread = threading.Thread(
        target=lambda: replies.append(
            client.delete(f"/api/games/{game_id}/seats/{position}", headers=auth(token)).status_code
        )
    )
    thread.start()
    assert held.entered.wait(10), "the removal never reached the store"
    try:
        yield held
    finally:
        held.release()
        thread.join(10)
    assert replies == [204]


def wait_for_lock_waiter(held: Held, game_id: str) -> None:
    """Until a task waits for the table's lock (the hello just sent)."""
    lock = held.hub.referees[game_id].table.lock
    deadline = time.monotonic() + 10
    while not getattr(lock, "_waiters", None):
        assert time.monotonic() < deadline, "the hello never waited for the table"
        time.sleep(0.002)


def first(ws: WebSocketTestSession, kind: str) -> Message:
    for _ in range(100):
        message: Message = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind}")


def own_state(client: TestClient, ws: WebSocketTestSession) -> Message:
    """The first state on ``ws`` after the start."""
    return first(ws, "state")


# --- the attack and the accident ---------------------------------------------------------------


def test_a_hello_during_a_removal_gets_the_tokens_own_seat(tmp_path: Path) -> None:
    """A stranger with seats 1 and 2 removes seat 1 and says hello with seat 2's token
    while the removal is being stored: they get their own seat (now 1), never Dora's."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        _, first_token = join(client, game_id, "Mallory")
        _, second_token = join(client, game_id, "Mallory 2")
        _, dora = join(client, game_id, "Dora")
        with client.websocket_connect(f"/ws/{game_id}") as wd:
            wd.send_json({"type": "hello", "token": dora})
            assert first(wd, "welcome")["seat"] == 3
            with client.websocket_connect(f"/ws/{game_id}") as wm:
                with removing_while_held(client, game_id, 1, first_token) as held:
                    wm.send_json({"type": "hello", "token": second_token})
                    wait_for_lock_waiter(held, game_id)
                welcome = first(wm, "welcome")
                assert welcome["seat"] == 1
                assert first(wd, "welcome")["seat"] == 2  # Dora moved up, and is told so
                reply = client.post(f"/api/games/{game_id}/start", headers=auth(host))
                assert reply.status_code == 204, reply.text
                mine, dora_state = own_state(client, wm), own_state(client, wd)
                assert mine["view"]["seat"] == 1
                assert dora_state["view"]["seat"] == 2
                assert mine["view"]["hand"] != dora_state["view"]["hand"]
                info = client.get(f"/api/games/{game_id}").json()
                assert [s["name"] for s in info["seats"]] == ["Ana", "Mallory 2", "Dora"]


def test_a_stale_position_past_the_last_seat_cannot_break_the_start(tmp_path: Path) -> None:
    """The same race with the stranger's seats last: the stale position would be past
    the end (``POST /start`` answered 500, and no move was told afterwards)."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        _, first_token = join(client, game_id, "Mallory")
        _, second_token = join(client, game_id, "Mallory 2")
        with client.websocket_connect(f"/ws/{game_id}") as wm:
            with removing_while_held(client, game_id, 1, first_token) as held:
                wm.send_json({"type": "hello", "token": second_token})
                wait_for_lock_waiter(held, game_id)
            assert first(wm, "welcome")["seat"] == 1
            reply = client.post(f"/api/games/{game_id}/start", headers=auth(host))
            assert reply.status_code == 204, reply.text
            state = own_state(client, wm)
            assert state["view"]["seat"] == 1
            assert len(state["view"]["players"]) == 2


def test_a_tab_reconnecting_while_the_host_removes_a_seat(tmp_path: Path) -> None:
    """The accident: the host removes Ben while Dora's tab reconnects; Dora is shown
    her own seat and cards, not Cleo's."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        join(client, game_id, "Ben")
        _, cleo = join(client, game_id, "Cleo")
        _, dora = join(client, game_id, "Dora")
        with client.websocket_connect(f"/ws/{game_id}") as wc:
            wc.send_json({"type": "hello", "token": cleo})
            assert first(wc, "welcome")["seat"] == 2
            with client.websocket_connect(f"/ws/{game_id}") as wd:
                with removing_while_held(client, game_id, 1, host) as held:
                    wd.send_json({"type": "hello", "token": dora})
                    wait_for_lock_waiter(held, game_id)
                assert first(wd, "welcome")["seat"] == 2
                assert first(wc, "welcome")["seat"] == 1
                start_reply = client.post(f"/api/games/{game_id}/start", headers=auth(host))
                assert start_reply.status_code == 204
                assert own_state(client, wd)["view"]["seat"] == 2
                assert own_state(client, wc)["view"]["seat"] == 1


def test_a_removed_seat_is_told_so(tmp_path: Path) -> None:
    """The removed player's tab gets ``closed`` with ``seat_removed``; their token is
    answered ``seat_removed`` (not ``bad_token``) over HTTP and in ``hello``."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        _, ben = join(client, game_id, "Ben")
        with client.websocket_connect(f"/ws/{game_id}") as wb:
            wb.send_json({"type": "hello", "token": ben})
            assert first(wb, "welcome")["seat"] == 1
            reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(host))
            assert reply.status_code == 204
            closed = first(wb, "closed")
            assert closed["code"] == "seat_removed"
        with client.websocket_connect(f"/ws/{game_id}") as again:
            again.send_json({"type": "hello", "token": ben})
            error = again.receive_json()
            assert error["type"] == "error" and error["code"] == "seat_removed", error
        reply = client.delete(f"/api/games/{game_id}/seats/1", headers=auth(ben))
        assert reply.status_code == 410 and reply.json()["error"]["code"] == "seat_removed"
        # a made-up token is still just a bad one
        reply = client.delete(f"/api/games/{game_id}/seats/0", headers=auth("made-up"))
        assert reply.json()["error"]["code"] == "bad_token"


def test_a_removal_through_another_process_moves_the_connections(tmp_path: Path) -> None:
    """When the seats change in the store (as another server process changes them),
    catching up finds each connection's seat again from its token."""
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        _, ben = join(client, game_id, "Ben")
        _, cleo = join(client, game_id, "Cleo")
        with (
            client.websocket_connect(f"/ws/{game_id}") as wb,
            client.websocket_connect(f"/ws/{game_id}") as wc,
        ):
            wb.send_json({"type": "hello", "token": ben})
            wc.send_json({"type": "hello", "token": cleo})
            assert first(wb, "welcome")["seat"] == 1
            assert first(wc, "welcome")["seat"] == 2
            hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
            referee = hub.referees[game_id]
            seats = referee.table.seats
            kept = [seats[0], seats[2]]
            renumbered = [
                type(s)(i, s.name, s.kind, s.level, s.token_hash) for i, s in enumerate(kept)
            ]

            async def elsewhere() -> None:
                await hub.store.replace_seats(game_id, renumbered, 0, removed=(token_hash(ben),))
                async with referee.table.lock:
                    await referee.reload()

            client.portal.call(elsewhere)  # type: ignore[union-attr]
            assert first(wb, "closed")["code"] == "seat_removed"
            assert first(wc, "welcome")["seat"] == 1
            start_reply = client.post(f"/api/games/{game_id}/start", headers=auth(host))
            assert start_reply.status_code == 204
            assert own_state(client, wc)["view"]["seat"] == 1


# --- the property: random interleavings ------------------------------------------------------


class Wire:
    """One client's socket as the server writes to it: every message it was sent."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.closed = False

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(json.loads(message["text"]))

    async def close(self, code: int = 1000) -> None:
        self.closed = True


class Client:
    """A connection that presented ``token`` (``None``: a spectator)."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self.wire = Wire()
        ws = cast(WebSocket, self.wire)
        self.conn = Connection(ws, TokenBucket(1e9, 1e9), 512, self.wire.send)  # type: ignore[arg-type]
        self.writer = asyncio.get_running_loop().create_task(self.conn.writer())


def yields(n: int) -> Callable[[], Awaitable[None]]:
    async def wait() -> None:
        for _ in range(n):
            await asyncio.sleep(0)

    return wait


OP = st.tuples(
    st.sampled_from(["claim", "remove", "hello", "reconnect", "tab", "spectate", "start"]),
    st.integers(0, 7),  # which seat, token or connection
    st.integers(0, 6),  # turns of the loop before the operation begins
)
#: groups of operations: the groups one after the other, each group's at the same time
OPS = st.lists(st.lists(OP, min_size=1, max_size=3), min_size=2, max_size=8)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose database is migrated already (opening it is quick)."""
    data = tmp_path_factory.mktemp("identity")

    async def make() -> None:
        store = await Store.open(ServerConfig(data_dir=data).url)
        await store.close()

    asyncio.run(make())
    return data


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS, store_turns=st.integers(0, 5))
def test_no_interleaving_gives_a_connection_another_seat(
    migrated: Path, ops: list[list[tuple[str, int, int]]], store_turns: int
) -> None:
    asyncio.run(_interleave(migrated, ops, store_turns))


async def _interleave(data: Path, ops: list[list[tuple[str, int, int]]], store_turns: int) -> None:
    config = ServerConfig(data_dir=data)
    store = await Store.open(config.url)
    hub = Hub(store, config)
    real_replace, real_status = store.replace_seats, store.set_status

    async def slow_replace(*args: Any, **kwargs: Any) -> None:
        await yields(store_turns)()
        await real_replace(*args, **kwargs)

    async def slow_status(*args: Any, **kwargs: Any) -> None:
        await yields(store_turns)()
        await real_status(*args, **kwargs)

    store.replace_seats = slow_replace  # type: ignore[method-assign]
    store.set_status = slow_status  # type: ignore[method-assign]
    try:
        granted = await seating.create_table(
            hub,
            CreateGame.model_validate({"name": "Host", "settings": {"bot_delay_ms": 0}}),
        )
        game_id, host = granted.game_id, granted.token
        tokens = [host]
        clients: list[Client] = []

        async def hello(token: str | None) -> Client:
            client = Client(token)
            clients.append(client)
            referee = await hub.referee(game_id)
            await receive(
                client.conn, referee, hub, config, json.dumps({"type": "hello", "token": token})
            )
            return client

        async def run(op: str, which: int, turns: int) -> None:
            await yields(turns)()
            referee = await hub.referee(game_id)
            if op == "claim":
                seat = await seating.claim_seat(hub, game_id, f"P{len(tokens)}", None)
                tokens.append(seat.token)
            elif op == "remove":
                seats = referee.table.seats
                if len(seats) > 1:
                    position = 1 + which % (len(seats) - 1)
                    await seating.remove_seat(hub, game_id, position, host)
            elif op in ("hello", "tab"):
                await hello(tokens[which % len(tokens)])
            elif op == "spectate":
                await hello(None)
            elif op == "reconnect":
                if clients:
                    old = clients[which % len(clients)]
                    if old.conn.greeted:
                        referee.leave(old.conn)
                    old.conn.close()
                    await hello(old.token)
            elif op == "start":
                await seating.start_game(hub, game_id, host)

        async def attempt(op: str, which: int, turns: int) -> None:
            # a refusal (table_full, game_started, seat_removed...) is fine
            with contextlib.suppress(ServerError):
                await run(op, which, turns)

        for group in ops:
            await asyncio.gather(*(attempt(*op) for op in group))
        await asyncio.sleep(0.01)
        referee = await hub.referee(game_id)
        table = referee.table
        for client in clients:
            key = None if client.token is None else token_hash(client.token)
            held = None if key is None else table.seat_of(key)
            for message in client.wire.sent:
                if message["type"] == "state":
                    # seats never change once a game is on: the state is the token's own
                    assert message["view"]["seat"] == held, (client.token, message["view"]["seat"])
            welcomes = [m for m in client.wire.sent if m["type"] == "welcome"]
            closed = [m for m in client.wire.sent if m["type"] == "closed"]
            if client.conn in referee.connections:
                assert client.conn.seat == held
                if welcomes:
                    assert welcomes[-1]["seat"] == held
                assert table.holds(client.conn.seat, client.conn.seat_key)
            elif key is not None and held is None and welcomes:
                # greeted, then its seat went: it was told why
                assert key in table.removed
                assert [c["code"] for c in closed] == ["seat_removed"] or client.conn.closing
    finally:
        await hub.stop()
        await store.close()
