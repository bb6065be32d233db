"""Sharing the ``hard`` bot's workers (maumau.server.live.pool_share): the worker time of a
table's hard decisions is metered per table and per creating address, attended or
not, and a table over its share waits; the workers are handed out round-robin among
the addresses, so that tables of one address cannot make another's decisions wait
behind a queue they filled."""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from test_bot_budget import Clock, budget_of, connect_human, playing_table

from maumau.cli.main import build_parser
from maumau.cli.serve_options import budget_settings
from maumau.engine import Action, SeatView
from maumau.server.config import ServerConfig
from maumau.server.live.pool_share import BURST_SECONDS, Meter, Turns
from maumau.server.live.referee import Referee
from maumau.server.live.workers import Workers
from support.prometheus import parse, value
from support.serverkit import add_bot, create_table, make_client, start

pytestmark = pytest.mark.anyio

#: the worker time of one hard decision in these simulations
COST = 0.05
ATTACKER, OTHER = "198.51.100.7", "203.0.113.9"


class FakeWorkers:
    """Decides at once (the first legal action), as if a worker had spent ``COST``."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    async def decide(
        self, level: str, view: SeatView, legal: Sequence[Action], key: str = ""
    ) -> tuple[Action, float]:
        self.keys.append(key)
        return legal[0], COST


async def think(referee: Referee) -> None:
    """The computer player to move at ``referee``'s table makes a hard decision."""
    game = referee.table.game
    assert game is not None
    seat = game.to_move
    await referee.stand_in.think(seat, game.view(seat), game.legal_actions(seat))


async def test_attended_tables_of_hard_bots_at_full_speed_keep_to_their_share() -> None:
    """One address keeps two tables of hard bots at bot_delay_ms 0 attended (a scripted
    player is connected); a third table, another address's, is played by a person at a
    move a second.  Over two simulated minutes, the two take no more of the workers
    than their address's share (and each no more than a table's), and the third is
    never held back."""
    clock = Clock()
    budget, referees = budget_of(clock, worker_share_per_table=0.4, worker_share_per_address=0.5)
    fake = FakeWorkers()
    budget.workers = fake  # type: ignore[assignment]
    tables = {name: playing_table(budget, referees, name) for name in ("a", "b", "c")}
    for name, creator in (("a", ATTACKER), ("b", ATTACKER), ("c", OTHER)):
        budget.created(name, creator)
        connect_human(tables[name])
    start, duration = clock.now, 120.0
    used = dict.fromkeys(tables, 0.0)
    queue = [(start, name) for name in tables]
    while queue:
        at, name = heapq.heappop(queue)
        if at >= start + duration:
            continue
        clock.now = at
        referee = tables[name]
        if name == "c":
            assert referee.stand_in.plan() == 0.0  # its own pace: never held back
            await think(referee)
            heapq.heappush(queue, (at + 1.0, name))  # its player moves a second later
        else:
            await think(referee)
            # the decision took its time; then the next one is planned as the table's
            # pace and the budget allow
            delay = referee.stand_in.plan()
            assert delay is not None
            heapq.heappush(queue, (at + COST + delay, name))
        used[name] += COST
    burst = 0.5 * BURST_SECONDS
    assert used["a"] + used["b"] <= 0.5 * duration + burst + 2 * COST
    for name in ("a", "b"):
        assert used[name] <= 0.4 * duration + 0.4 * BURST_SECONDS + COST
    # held to their share, not paused: together they get about all of it
    assert used["a"] + used["b"] >= 0.5 * duration * 0.95
    assert used["c"] == pytest.approx(duration * COST)
    assert budget.worker_seconds == pytest.approx(sum(used.values()))
    assert budget.overdrawn > 0
    # their decisions were handed to the workers as their creators' (the turns' keys)
    assert set(fake.keys) == {ATTACKER, OTHER}


async def test_a_table_whose_creator_is_unknown_is_metered_on_its_own() -> None:
    clock = Clock()
    budget, referees = budget_of(clock, worker_share_per_table=0.1)
    fake = FakeWorkers()
    budget.workers = fake  # type: ignore[assignment]
    referee = playing_table(budget, referees, "resumed")
    connect_human(referee)  # it is attended, so it plays (no creator: after a restart)
    for _ in range(round(0.1 * BURST_SECONDS / COST)):  # its burst, at full speed
        assert referee.stand_in.plan() == 0.0
        await think(referee)
    await think(referee)  # one more: it owes one decision's time
    assert referee.stand_in.plan() == pytest.approx(COST / 0.1)
    clock.now += COST / 0.1
    assert referee.stand_in.plan() == 0.0
    assert fake.keys[-1] == "table resumed"


def test_a_meter_refills_at_its_share_and_forgets_full_buckets() -> None:
    clock = Clock()
    meter = Meter(0.5, clock)
    assert meter.level("x") == 0.5 * BURST_SECONDS and meter.wait("x") == 0.0
    assert not meter.charge("x", 1.5)  # within its burst
    assert meter.charge("x", 1.0)  # 0.5 owed
    assert meter.wait("x") == pytest.approx(1.0)
    clock.now += 1.0
    assert meter.wait("x") == 0.0 and meter.level("x") == pytest.approx(0.0)
    clock.now += BURST_SECONDS  # full again: forgotten at the next charge
    meter.charge("y", 0.1)
    assert list(meter.buckets) == ["y"]
    with pytest.raises(ValueError, match="above 0"):
        Meter(0.0, clock)


async def test_turns_go_round_robin_among_the_keys_that_wait() -> None:
    turns = Turns(1, 1)
    served: list[str] = []

    async def decision(key: str) -> None:
        async with turns.turn(key):
            served.append(key)
            await asyncio.sleep(0)

    await turns.take("a")  # a decision of the address's first table is being made
    # ... while five more of its own and two of another address's wait, in that order
    waiting = [asyncio.create_task(decision(k)) for k in ("a", "a", "a", "a", "a", "b", "b")]
    await asyncio.sleep(0)
    assert turns.queued() == 7
    turns.give_back("a")
    await asyncio.gather(*waiting)
    assert served == ["a", "b", "a", "b", "a", "a", "a"]
    assert turns.free == 1 and not turns.held and not turns.waiting


async def test_one_key_holds_at_most_its_share_of_the_slots() -> None:
    turns = Turns(4, 2)
    await turns.take("a")
    await turns.take("a")
    third = asyncio.create_task(turns.take("a"))
    await asyncio.sleep(0)
    assert not third.done() and turns.free == 2  # two slots free, none for "a"
    await turns.take("b")  # another key is served at once
    turns.give_back("b")
    turns.give_back("a")
    await third
    assert turns.held == {"a": 2}


async def test_a_cancelled_wait_gives_its_turn_to_the_next() -> None:
    turns = Turns(1, 1)
    await turns.take("a")
    gone = asyncio.create_task(turns.take("b"))
    later = asyncio.create_task(turns.take("c"))
    await asyncio.sleep(0)
    gone.cancel()
    turns.give_back("a")  # before the cancelled task ran: it is passed over
    with pytest.raises(asyncio.CancelledError):
        await gone
    await later
    assert turns.held == {"c": 1} and not turns.waiting
    granted_then_cancelled = asyncio.create_task(turns.take("d"))
    await asyncio.sleep(0)
    turns.give_back("c")  # "d" is given the slot, and cancelled before it runs
    granted_then_cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await granted_then_cancelled
    assert turns.free == 1 and not turns.held


async def test_busy_tables_cannot_queue_ahead_of_another_addresss_decision(
    decisions: tuple[SeatView, tuple[Action, ...]],
) -> None:
    """One worker; four tables of one address ask for hard decisions back to back
    (one in flight each, as a table has); another address's table makes five.  Each of
    those waits for the decision being made and at most one more of theirs (first
    come, first served, it would wait for one of each of their tables)."""
    view, legal = decisions
    workers = Workers(1)
    done: list[str] = []
    waited: list[int] = []
    finished = asyncio.Event()

    async def busy_table() -> None:
        while not finished.is_set():
            await workers.decide("hard", view, legal, ATTACKER)
            done.append(ATTACKER)

    async def other_table() -> None:
        for _ in range(5):
            asked = len(done)
            await workers.decide("hard", view, legal, OTHER)
            waited.append(done[asked:].count(ATTACKER))
            done.append(OTHER)
            await asyncio.sleep(0.01)  # its player's move; then the next decision

    try:
        await workers.decide("hard", view, legal)  # the pool is up
        busy = [asyncio.create_task(busy_table()) for _ in range(4)]
        while len(done) < 8:  # they are all going
            await asyncio.sleep(0.01)
        await other_table()
        finished.set()
        await asyncio.gather(*busy)
    finally:
        await workers.close()
    assert len(waited) == 5 and max(waited) <= 2, (waited, done)


@pytest.fixture
def decisions() -> tuple[SeatView, tuple[Action, ...]]:
    """A seat's view where it has a choice (a hard decision goes to a worker)."""
    from maumau.bots import make_bot
    from maumau.engine import Game, Rules

    game = Game(Rules.from_preset("standard"), ["Ana", "Ben", "Cleo"])
    game.deal(7)
    helper = make_bot("normal", 1)
    while len(game.legal_actions(game.to_move)) < 2:
        seat = game.to_move
        game.apply(helper.choose(game.view(seat), game.legal_actions(seat)), seat)
    seat = game.to_move
    return game.view(seat), game.legal_actions(seat)


def test_a_served_tables_hard_decisions_are_metered_and_shown(tmp_path: Path) -> None:
    """The whole way: a table's hard players decide in a worker, the worker's time is
    charged to the table, its next move waits for the debt, and /metrics says so."""
    with make_client(tmp_path, worker_share_per_table=1e-6) as client:
        game_id, token = create_table(
            client, preset="standard", grace_seconds=0, stand_in_level="hard"
        )
        add_bot(client, game_id, token, "hard")
        start(client, game_id, token)
        budget = client.app.state.hub.budget
        deadline = time.monotonic() + 120
        while not budget.overdrawn:
            assert time.monotonic() < deadline, "no hard decision was metered"
            time.sleep(0.05)
        # a millisecond of a worker is a thousand seconds of this table's share
        assert budget.owed(game_id) > 60
        families = parse(generate_latest(client.app.state.registry).decode())
        assert value(families, "maumau_bot_worker_seconds_total") == budget.worker_seconds > 0
        assert value(families, "maumau_bot_worker_overdrawn_total") == budget.overdrawn == 1
        assert "maumau_bot_decisions_waiting" in families


def test_serve_takes_the_worker_shares() -> None:
    parser = build_parser()
    given = budget_settings(
        parser.parse_args(
            ["serve", "--worker-share-per-table", "0.1", "--worker-share-per-address", "0.3"]
        )
    )
    assert (given["worker_share_per_table"], given["worker_share_per_address"]) == (0.1, 0.3)
    defaults = budget_settings(parser.parse_args(["serve"]))
    config = ServerConfig()
    assert defaults["worker_share_per_table"] == config.worker_share_per_table
    assert defaults["worker_share_per_address"] == config.worker_share_per_address
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--worker-share-per-table", "0"])
