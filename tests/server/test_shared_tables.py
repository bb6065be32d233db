"""Two hubs on one PostgreSQL database, in one event loop: what a stranger's requests
to one process cost a table, and when a process may close a table that is played at
the other.

Hub ``a`` is where the table is played; hub ``b`` is another process that a stranger
reaches with the table's invite link.  Neither hub's sweeper runs by itself (the tests
call ``sweep``), and ``b`` reads its time from a clock the test moves.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_seat_identity import Client

from maumau.server.config import ServerConfig
from maumau.server.http.sockets import receive
from maumau.server.live import seating
from maumau.server.live.hub import Hub
from maumau.server.live.referee import Referee
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.protocol import CreateGame
from maumau.store import Store

pytestmark = pytest.mark.anyio

#: seconds a condition that another process brings about may take on a loaded machine
DEADLINE = 30.0
IDLE = 60.0


@dataclass
class Shared:
    a: Hub
    b: Hub
    config: ServerConfig
    #: hub b's clock
    now: list[float] = field(default_factory=lambda: [time.time()])

    def later(self, seconds: float) -> None:
        self.now[0] += seconds


@asynccontextmanager
async def two_hubs(tmp_path: Path, url: str, b_listens: bool = True) -> AsyncIterator[Shared]:
    """Hubs ``a`` and ``b`` on one database; ``b`` hears ``a``'s change notices unless
    ``b_listens`` is false (then it knows only what it reads)."""
    config = ServerConfig(data_dir=tmp_path, database_url=url, sweep_seconds=3600)
    store_a, store_b = await Store.open(url), await Store.open(url)
    shared = Shared(Hub(store_a, config), Hub(store_b, config), config)
    shared.b.clock = lambda: shared.now[0]
    shared.a.start()
    if b_listens:
        shared.b.start()
    try:
        yield shared
    finally:
        for hub, store in ((shared.a, store_a), (shared.b, store_b)):
            await hub.stop()
            await store.close()


async def until(check: Callable[[], bool]) -> None:
    """Wait for a condition another process (or task) brings about."""
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, "the other process never got there"
        await asyncio.sleep(0.01)


async def new_table(hub: Hub, **settings: Any) -> tuple[str, str]:
    body = {"name": "Ana", "settings": {"grace_seconds": None, **settings}}
    granted = await seating.create_table(hub, CreateGame.model_validate(body))
    return granted.game_id, granted.token


async def hello(hub: Hub, game_id: str, token: str | None, address: str = "") -> Client:
    client = Client(token)
    client.conn.address = address
    referee = await hub.referee(game_id)
    text = json.dumps({"type": "hello", "token": token})
    await receive(client.conn, referee, hub, hub.config, text)
    await until(lambda: any(m["type"] in ("welcome", "error") for m in client.wire.sent))
    return client


def first(client: Client, kind: str) -> dict[str, Any]:
    return next(m for m in client.wire.sent if m["type"] in (kind, "error"))


@dataclass
class Costs:
    """What one referee's store reads cost its table."""

    reloads: int = 0
    loads: int = 0
    #: store reads made while the table's lock was held
    under_lock: int = 0
    #: reads of the table's stored row (seats, status)
    rows: int = 0


def count_costs(hub: Hub, referee: Referee) -> Costs:
    costs = Costs()
    store, lock = hub.store, referee.table.lock
    reload = referee.reload

    async def counted_reload(table_too: bool = True) -> None:
        costs.reloads += 1
        await reload(table_too)

    def watched(read: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            costs.under_lock += lock.locked()
            costs.rows += read.__name__ == "game"
            return await read(*args, **kwargs)

        return call

    def counted_load(read: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            costs.loads += 1
            return await read(*args, **kwargs)

        return call

    referee.reload = counted_reload  # type: ignore[method-assign]
    for name in ("game", "steps", "knows_token"):
        if hasattr(store, name):  # (knows_token: since made-up tokens cost no reload)
            setattr(store, name, watched(getattr(store, name)))
    store.load = counted_load(store.load)  # type: ignore[method-assign]
    return costs


# --- what a stranger's requests cost --------------------------------------------------------


async def test_made_up_hellos_and_info_requests_cost_the_table_no_reload(
    tmp_path: Path, pg_db_url: str
) -> None:
    """Process b does not hear a's notices here: all it knows is what it reads when
    asked, so every answer below that shows a's changes was read on demand."""
    async with two_hubs(tmp_path, pg_db_url, b_listens=False) as hubs:
        game_id, host = await new_table(hubs.a)
        referee = await hubs.b.referee(game_id)  # a stranger looked at it at b
        ben = await seating.claim_seat(hubs.a, game_id, "Ben", None)
        info = (await hubs.b.current(game_id)).table.info(set())
        assert [s.name for s in info.seats] == ["Ana", "Ben"]  # claimed at a, shown at b

        costs = count_costs(hubs.b, referee)
        strangers = [
            hello(hubs.b, game_id, secrets.token_urlsafe(32), f"192.0.2.{i}") for i in range(32)
        ]
        lookers = [hubs.b.current(game_id) for _ in range(32)]
        results = await asyncio.gather(*strangers, *lookers)
        for client in results[:32]:
            assert first(client, "welcome")["code"] == "bad_token"
        assert (costs.reloads, costs.loads, costs.under_lock) == (0, 0, 0), costs
        assert costs.rows <= 2, costs  # (the 32 info requests shared a catch-up or two)

        # a token that claimed its seat at a gets in at b, which has not heard of it
        cem = await seating.claim_seat(hubs.a, game_id, "Cem", None)
        for token, seat in ((cem.token, 2), (ben.token, 1)):
            welcome = first(await hello(hubs.b, game_id, token), "welcome")
            assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
        assert (costs.reloads, costs.loads) == (1, 0), costs  # (Cem's, when b learnt of him)

        # and the start at a shows at b
        await seating.start_game(hubs.a, game_id, host)
        assert (await hubs.b.current(game_id)).table.status == "playing"


# --- when a table is idle -------------------------------------------------------------------


async def played_at_a(hubs: Shared) -> tuple[str, str, Referee]:
    """A table being played at process a (Ana and Ben; nobody's seat is taken over)."""
    game_id, host = await new_table(hubs.a, idle_close_seconds=IDLE)
    await seating.claim_seat(hubs.a, game_id, "Ben", None)
    await seating.start_game(hubs.a, game_id, host)
    return game_id, host, await hubs.a.referee(game_id)


async def move(referee: Referee) -> None:
    async with referee.table.lock:
        game = referee.table.require_game()
        await referee.apply(game.to_move, game.legal_actions()[0])


async def stored_status(hub: Hub, game_id: str) -> str:
    row = await hub.store.game(game_id)
    assert row is not None
    return row.status


async def test_a_table_with_a_player_at_another_process_is_not_idle(
    tmp_path: Path, pg_db_url: str
) -> None:
    async with two_hubs(tmp_path, pg_db_url) as hubs:
        game_id, host, _ = await played_at_a(hubs)
        await hello(hubs.a, game_id, host)  # Ana plays at a
        looked_at = await hubs.b.current(game_id)  # a stranger's GET at b
        await until(lambda: looked_at.connected() == {0})  # (a says so when b loads it)
        hubs.later(IDLE + 1)
        await hubs.b.sweep()
        assert await stored_status(hubs.b, game_id) == "playing"
        assert looked_at.table.status == "playing"


async def test_play_heard_from_another_process_keeps_a_table_open_until_it_is_idle(
    tmp_path: Path, pg_db_url: str
) -> None:
    """Nobody is connected anywhere, but the game goes on at a (its moves made there):
    b counts them as activity; once nothing happens for the idle time, b closes the
    table, and a hears so."""
    async with two_hubs(tmp_path, pg_db_url) as hubs:
        game_id, _, playing = await played_at_a(hubs)
        looked_at = await hubs.b.current(game_id)
        hubs.later(IDLE + 1)
        await move(playing)
        await until(lambda: looked_at.table.step_count == playing.table.step_count)
        await hubs.b.sweep()
        assert await stored_status(hubs.b, game_id) == "playing"

        hubs.later(IDLE + 1)  # and now nothing happens anywhere
        await hubs.b.sweep()
        assert await stored_status(hubs.b, game_id) == "closed"
        assert game_id not in hubs.b.referees
        await until(lambda: playing.table.status == "closed")


async def test_a_process_that_is_behind_does_not_close_a_table_played_elsewhere(
    tmp_path: Path, pg_db_url: str
) -> None:
    """b hears nothing from a here (a notice late or lost): its copy looks idle, but
    the store closes a table only as the closing process has it, so b catches up."""
    async with two_hubs(tmp_path, pg_db_url, b_listens=False) as hubs:
        game_id, _, playing = await played_at_a(hubs)
        looked_at = await hubs.b.current(game_id)
        await move(playing)
        hubs.later(IDLE + 1)
        await hubs.b.sweep()
        assert await stored_status(hubs.b, game_id) == "playing"
        assert looked_at.table.status == "playing"
        await until(lambda: looked_at.table.step_count == playing.table.step_count)

        hubs.later(IDLE + 1)  # b has caught up, and nothing happens any more
        await hubs.b.sweep()
        assert await stored_status(hubs.b, game_id) == "closed"


async def test_an_address_that_keeps_making_up_tokens_stops_costing_store_reads(
    tmp_path: Path, pg_db_url: str
) -> None:
    """Each made-up token costs one indexed read at a process that does not know it;
    an address gets ``token_lookups_per_minute`` of those (a token the store knows
    costs it none), then its unknown tokens are refused with ``rate_limited`` unread
    (never ``bad_token``, which makes a client forget a token that may be good)."""
    async with two_hubs(tmp_path, pg_db_url, b_listens=False) as hubs:
        game_id, _ = await new_table(hubs.a)
        referee = await hubs.b.referee(game_id)
        costs = count_costs(hubs.b, referee)
        lookups: list[str] = []
        knows = hubs.b.store.knows_token

        async def counted(game: str, key: str) -> bool:
            lookups.append(key)
            return await knows(game, key)

        hubs.b.store.knows_token = counted  # type: ignore[method-assign]
        budget = int(hubs.b.config.token_lookups_per_minute)
        hubs.b.token_lookups = AddressLimiter(budget, clock=lambda: 0.0)  # (time stands)
        replies = []
        for _ in range(budget + 20):
            client = await hello(hubs.b, game_id, secrets.token_urlsafe(32))
            replies.append(first(client, "welcome")["code"])
        assert len(lookups) == budget, (len(lookups), budget)
        assert replies == ["bad_token"] * budget + ["rate_limited"] * 20
        assert costs.reloads == 0

        # a real token seated elsewhere still gets in at b, from another address: the
        # budget is the address's; and a known token gives its look back
        ben = await seating.claim_seat(hubs.a, game_id, "Ben", None)
        client = await hello(hubs.b, game_id, ben.token, "192.0.2.7")
        assert first(client, "welcome")["seat"] == 1
        assert hubs.b.token_lookups.buckets["192.0.2.7"].tokens == budget  # (given back)
        assert lookups[-1] == seating.token_hash(ben.token)


async def test_an_address_past_its_fresh_reads_is_answered_from_memory(
    tmp_path: Path, pg_db_url: str
) -> None:
    """Table info must show what other processes committed (each request catches up
    with the store), but one address gets ``fresh_reads_per_minute`` catch-ups; past
    them it is answered with the table as this process knows it (kept current by the
    change notices), which costs the store nothing."""
    async with two_hubs(tmp_path, pg_db_url, b_listens=False) as hubs:
        game_id, _ = await new_table(hubs.a)
        referee = await hubs.b.referee(game_id)
        costs = count_costs(hubs.b, referee)
        budget = int(hubs.b.config.fresh_reads_per_minute)
        hubs.b.fresh_reads = AddressLimiter(budget, clock=lambda: 0.0)  # (time stands)
        for _ in range(budget):
            await hubs.b.current(game_id, "192.0.2.1")
        rows = costs.rows
        assert rows >= budget  # (each caught up: its own read of the table's row)
        await seating.claim_seat(hubs.a, game_id, "Ben", None)
        stale = (await hubs.b.current(game_id, "192.0.2.1")).table.info(set())
        assert costs.rows == rows and [s.name for s in stale.seats] == ["Ana"]
        fresh = (await hubs.b.current(game_id, "192.0.2.2")).table.info(set())
        assert [s.name for s in fresh.seats] == ["Ana", "Ben"]
