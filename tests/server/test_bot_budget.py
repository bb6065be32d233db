"""The budget of computer play (maumau.server.live.budget): the hard bot thinks in a worker
process, a table with no human player connected moves no faster than the floor and is
paused after a while or past its creator's share, one address has a bounded number of
tables open, and a restarted server does not play bot-only tables on."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, cast

import pytest

from maumau.bots import make_bot
from maumau.engine import Game, Rules
from maumau.server.config import ServerConfig
from maumau.server.live.budget import Budget
from maumau.server.live.referee import Referee
from maumau.server.live.table import Table, new_deal
from maumau.server.live.workers import Workers
from maumau.server.wire.protocol import TableSettings
from maumau.store import GameRow, SeatRow, Store
from support.serverkit import (
    add_bot,
    auth,
    create_table,
    hello,
    make_client,
    play_first_legal,
    start,
)

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def budget_of(clock: Clock, **limits: Any) -> tuple[Budget, dict[str, Referee]]:
    config = {
        "unattended_bot_delay_ms": 500,
        "unattended_seconds": 60.0,
        "unattended_tables_per_address": 1,
        "bot_workers": 1,
        **limits,
    }
    referees: dict[str, Referee] = {}
    return Budget(ServerConfig(**config), referees, clock), referees


def playing_table(budget: Budget, referees: dict[str, Referee], game_id: str) -> Referee:
    """A table being played, its one human (seat 0) away and taken over by a stand-in,
    with a computer player at bot_delay_ms 0 (nothing here runs a move)."""
    row = GameRow(
        id=game_id,
        status="playing",
        options={"preset": "standard"},
        settings=TableSettings(bot_delay_ms=0).model_dump(),
        host=0,
        seats=(
            SeatRow(0, "Ana", "human", None, "a" * 64),
            SeatRow(1, "Ada (bot)", "bot", "easy", None),
        ),
        created_at=0.0,
        last_active_at=0.0,
    )
    table = Table.load(row, [])
    referee = Referee(table, cast(Store, None))
    referee.stand_in.budget = budget
    referees[game_id] = referee
    table.committed(table.try_deal(new_deal()))
    table.stand_in.add(0)  # every move is the computer's
    return referee


def connect_human(referee: Referee) -> None:
    """Seat 0's player is connected (as another server process would say it)."""
    referee.remote["elsewhere"] = (frozenset({0}), time.monotonic() + 3600)


def leave(referee: Referee) -> None:
    referee.remote.clear()


def bot_moved(message: dict[str, Any]) -> bool:
    """A state in which the computer player (seat 1) has made a move."""
    events = message.get("events", []) if message["type"] == "state" else []
    return any(e.get("seat") == 1 and "reshuffle" not in e for e in events)


def test_an_unattended_table_moves_no_faster_than_the_floor() -> None:
    clock = Clock()
    budget, referees = budget_of(clock)
    referee = playing_table(budget, referees, "t1")
    budget.created("t1", "198.51.100.7")
    assert referee.stand_in.due() == 0.0  # the table's own bot_delay_ms
    assert referee.stand_in.plan() == 0.5  # nobody is there: the server's floor
    connect_human(referee)
    assert referee.stand_in.plan() == 0.0  # a player is there: the table's own pace
    leave(referee)
    assert referee.stand_in.plan() == 0.5


def test_an_unattended_table_is_paused_after_a_while_and_goes_on_when_a_player_returns() -> None:
    clock = Clock()
    budget, referees = budget_of(clock)
    referee = playing_table(budget, referees, "t1")
    budget.created("t1", "198.51.100.7")
    assert referee.stand_in.plan() == 0.5
    clock.now += 59.0
    assert referee.stand_in.plan() == 0.5 and not referee.table.paused
    clock.now += 1.0
    assert referee.stand_in.plan() is None
    assert referee.table.paused and referee.table.info(set()).paused
    connect_human(referee)
    assert referee.stand_in.plan() == 0.0 and not referee.table.paused
    clock.now += 1000.0
    leave(referee)  # the unattended time counts again from the player's leaving
    assert referee.stand_in.plan() == 0.5
    clock.now += 60.0
    assert referee.stand_in.plan() is None and referee.table.paused


def test_one_address_plays_only_its_share_of_tables_unattended() -> None:
    clock = Clock()
    budget, referees = budget_of(clock, unattended_tables_per_address=1)
    first, second, other = (playing_table(budget, referees, g) for g in ("a", "b", "c"))
    budget.created("a", "198.51.100.7")
    budget.created("b", "198.51.100.7")
    budget.created("c", "203.0.113.9")
    assert first.stand_in.plan() == 0.5
    assert second.stand_in.plan() is None and second.table.paused
    assert other.stand_in.plan() == 0.5 and not other.table.paused
    assert first.stand_in.plan() == 0.5  # its own share stays its own
    assert budget.unattended_tables("198.51.100.7") == 1
    connect_human(second)  # a player at the paused table: it goes on, and is not counted
    assert second.stand_in.plan() == 0.0 and not second.table.paused
    assert budget.unattended_tables("198.51.100.7") == 1


def test_a_table_this_process_did_not_create_is_paused_while_nobody_is_there() -> None:
    clock = Clock()
    budget, referees = budget_of(clock, unattended_seconds=1e9)
    referee = playing_table(budget, referees, "resumed")  # loaded, as after a restart
    assert referee.stand_in.plan() is None and referee.table.paused
    connect_human(referee)
    assert referee.stand_in.plan() == 0.0 and not referee.table.paused
    leave(referee)  # a player was here since: it may play on unattended for a while
    assert referee.stand_in.plan() == 0.5


def test_live_tables_per_address_are_capped(tmp_path: Path) -> None:
    with make_client(tmp_path, live_tables_per_address=2) as client:
        game_id, token = create_table(client, grace_seconds=0)
        create_table(client)
        refused = client.post("/api/games", json={"name": "Ana"})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_live_tables"
        add_bot(client, game_id, token, "random")
        start(client, game_id, token)
        deadline = time.monotonic() + 60
        while client.get(f"/api/games/{game_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # a finished table is no longer open: the address may open another one
        assert client.post("/api/games", json={"name": "Ana"}).status_code == 201


def test_a_table_past_its_creators_share_is_paused_until_a_player_connects(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path, unattended_tables_per_address=1) as client:
        # the first plays unattended (its next computer move is 10 s away), the second
        # would too, but it is its creator's second: it is paused
        first, first_token = create_table(client, grace_seconds=0, bot_delay_ms=10_000)
        second, second_token = create_table(client, grace_seconds=0, bot_delay_ms=0)
        for game_id, token in ((first, first_token), (second, second_token)):
            add_bot(client, game_id, token, "random")
            start(client, game_id, token)
        assert client.get(f"/api/games/{first}").json()["paused"] is False
        info = client.get(f"/api/games/{second}").json()
        assert info["status"] == "playing" and info["paused"] is True
        referee = client.app.state.hub.referees[second]
        assert referee.table.version == 1 and referee.stand_in.plan() is None  # only dealt
        with client.websocket_connect(f"/ws/{second}") as ws:
            hello(ws, second_token)
            seen = play_first_legal(ws, 0, bot_moved)  # the computer player plays on
        assert any(m["type"] == "lobby" and m["game"]["paused"] is False for m in seen)


def test_a_restarted_server_does_not_play_bot_only_tables_on(tmp_path: Path) -> None:
    # a bot table nobody is at, its moves held back by a long floor when it stops
    with make_client(tmp_path, unattended_bot_delay_ms=10_000) as client:
        game_id, token = create_table(client, grace_seconds=0)
        add_bot(client, game_id, token, "random")
        start(client, game_id, token)
        assert client.app.state.hub.referees[game_id].table.version == 1  # dealt, no move
    with make_client(tmp_path) as client:  # the floor 0 and no time limit of the tests
        info = client.get(f"/api/games/{game_id}").json()
        assert info["status"] == "playing" and info["paused"] is True
        referee = client.app.state.hub.referees[game_id]
        assert referee.stand_in.plan() is None and referee.table.version == 1
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            seen = play_first_legal(ws, 0, bot_moved)  # its player is back: it goes on
        assert any(m["type"] == "lobby" and m["game"]["paused"] is False for m in seen)


async def test_a_hard_decision_is_made_in_a_worker_process() -> None:
    game = Game(Rules.from_preset("standard"), ["Ana", "Ben", "Cleo"])
    game.deal(7)
    helper = make_bot("normal", 1)
    while len(game.legal_actions(game.to_move)) < 2:
        seat = game.to_move
        game.apply(helper.choose(game.view(seat), game.legal_actions(seat)), seat)
    seat = game.to_move
    view, legal = game.view(seat), game.legal_actions(seat)
    workers = Workers(1)
    try:
        action, seconds = await workers.decide("hard", view, legal)
    finally:
        await workers.close()
    assert action in legal and seconds > 0  # the worker's own time
    assert workers.pids and os.getpid() not in workers.pids


def test_a_hard_stand_in_thinks_in_a_worker_process(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(
            client, preset="standard", grace_seconds=0, stand_in_level="hard"
        )
        add_bot(client, game_id, token, "random")
        start(client, game_id, token)
        hub = client.app.state.hub
        deadline = time.monotonic() + 120
        while not hub.budget.workers.pids:
            assert time.monotonic() < deadline, "no hard decision was made in a worker"
            time.sleep(0.05)
        assert os.getpid() not in hub.budget.workers.pids
        assert client.get(f"/api/games/{game_id}", headers=auth(token)).status_code == 200
