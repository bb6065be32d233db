"""A finished game's record and replay (maumau.server.live.archive): made once, in a worker
process, kept in the store, sent gzip-compressed to clients that accept it, and rate
limited per address; a long game is never rebuilt on the event loop to answer them."""

from __future__ import annotations

import asyncio
import gzip
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from maumau.bots import make_bot
from maumau.engine import Game, Rules, replay
from maumau.engine.verify import commitment_of
from maumau.server.config import ServerConfig
from maumau.server.live.archive import accepts_gzip
from maumau.server.live.hub import LOAD_INLINE_STEPS, Hub
from maumau.server.live.replays import frames_of
from maumau.server.live.table import Table
from maumau.server.live.workers import Workers
from maumau.server.wire.protocol import TableSettings
from maumau.store import GameRow, SeatRow, StepRow, Store
from support.serverkit import add_bot, create_table, make_client, start, wait_for_status

pytestmark = pytest.mark.anyio


def finished_table(client: TestClient) -> str:
    game_id, token = create_table(client, grace_seconds=0)
    add_bot(client, game_id, token, "easy")
    start(client, game_id, token)
    wait_for_status(client, game_id, "finished")
    return game_id


def test_a_replay_is_made_once_and_kept_in_the_store(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id = finished_table(client)
        archive = client.app.state.hub.archive
        first = client.get(f"/api/games/{game_id}/replay")
        again = client.get(f"/api/games/{game_id}/replay")
        record = client.get(f"/api/games/{game_id}/record").json()
        assert first.status_code == again.status_code == 200
        assert archive.builds == 1  # the record was made with the replay, both once
        assert archive.workers.pids and os.getpid() not in archive.workers.pids
    assert first.json() == again.json() == frames_of(replay(record))
    with make_client(tmp_path) as client:  # restarted: made by nobody, read from the store
        hub = client.app.state.hub
        kept = client.get(f"/api/games/{game_id}/replay")
        assert client.get(f"/api/games/{game_id}/record").json() == record
        assert hub.archive.builds == 0
        assert game_id not in hub.referees  # the game was not loaded to answer
    assert kept.json() == first.json()


def test_documents_are_gzip_encoded_for_clients_that_accept_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id = finished_table(client)
        for kind in ("replay", "record"):
            url = f"/api/games/{game_id}/{kind}"
            packed = client.get(url, headers={"Accept-Encoding": "gzip"})
            plain = client.get(url, headers={"Accept-Encoding": "identity"})
            assert packed.headers["content-encoding"] == "gzip"
            assert packed.headers["content-type"] == "application/json"
            assert "content-encoding" not in plain.headers
            assert int(packed.headers["content-length"]) < int(plain.headers["content-length"])
            assert packed.json() == plain.json() == orjson.loads(plain.content)


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert accepts_gzip("gzip, deflate, br")
    assert accepts_gzip("br;q=1.0, gzip;q=0.5")
    assert accepts_gzip("*")
    assert not accepts_gzip(None) and not accepts_gzip("") and not accepts_gzip("identity")
    assert not accepts_gzip("gzip;q=0") and not accepts_gzip("gzip;q=0, *")
    assert not accepts_gzip("deflate, br")


def test_records_and_replays_are_rate_limited_per_address(tmp_path: Path) -> None:
    with make_client(tmp_path, replays_per_minute=3) as client:
        game_id = finished_table(client)
        answers = [
            client.get(f"/api/games/{game_id}/{kind}")
            for kind in ("replay", "record", "replay", "record")
        ]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["error"]["code"] == "rate_limited"


def test_no_replay_of_a_game_being_played_and_no_record_of_an_unknown_one(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, grace_seconds=None)
        add_bot(client, game_id, token)
        start(client, game_id, token)
        playing = [client.get(f"/api/games/{game_id}/{k}") for k in ("replay", "record")]
        unknown = [client.get(f"/api/games/{g}/record") for g in ("nope", "x" * 40)]
    assert [a.json()["error"]["code"] for a in playing] == ["game_not_finished"] * 2
    assert [a.json()["error"]["code"] for a in unknown] == ["unknown_game"] * 2


# --- off the event loop -------------------------------------------------------------------


async def stored_game(store: Store, deals: int, players: int = 4) -> GameRow:
    """A finished game of random bots, stored as a server would have stored it (the
    same game every time: its shuffles are seeded)."""
    shuffles = random.Random(deals * 100 + players)
    rules = Rules.from_dict({"scoring": "deals", "deals": deals})
    names = [f"Bot {i}" for i in range(players)]
    game = Game(rules, names)
    bots = [make_bot("random", i) for i in range(players)]
    steps: list[StepRow] = []
    while not game.finished:
        seed, salt = shuffles.getrandbits(63), f"{shuffles.getrandbits(256):064x}"
        deal = {"seed": seed, "salt": salt, "commitment": commitment_of(seed, salt)}
        game.deal(deal["seed"], commitment=deal["commitment"], salt=deal["salt"])
        steps.append(StepRow(len(steps), "deal", deal))
        while not game.round_over:
            seat = game.to_move
            game.apply(bots[seat].choose(game.view(seat), game.legal_actions(seat)), seat)
            acted, done = game.round.actions[-1]
            steps.append(StepRow(len(steps), "action", done.to_json(acted)))
    row = GameRow(
        id="long-game",
        status="playing",
        options={"scoring": "deals", "deals": deals},
        settings=TableSettings().model_dump(),
        host=0,
        seats=tuple(SeatRow(i, n, "bot", "random", None) for i, n in enumerate(names)),
        created_at=1.0,
        last_active_at=1.0,
    )
    await store.create_game(row)
    await store.append(row.id, steps, 2.0)
    await store.set_status(row.id, "finished", 3.0)
    return row


class GatedWorkers(Workers):
    """Workers whose work starts only once the test lets it."""

    def __init__(self) -> None:
        super().__init__(1)
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def run(self, work: Callable[..., tuple[Any, int]], *args: Any) -> Any:
        self.started.set()
        await self.go.wait()
        return await super().run(work, *args)


async def test_the_loop_serves_while_a_replay_is_made_and_it_is_made_once(
    tmp_path: Path,
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    hub = Hub(store, ServerConfig(data_dir=tmp_path, bot_workers=1))
    gated = hub.archive.workers = GatedWorkers()
    try:
        row = await stored_game(store, deals=2)
        replay_asked = asyncio.ensure_future(hub.archive.document(row.id, "replay"))
        record_asked = asyncio.ensure_future(hub.archive.document(row.id, "record"))
        await gated.started.wait()  # the replay is being made...
        assert await store.game_ids(("finished",)) == [row.id]  # ...the loop serves
        assert not replay_asked.done() and not record_asked.done()
        gated.go.set()
        replay_json = orjson.loads(gzip.decompress(await replay_asked))
        record_json = orjson.loads(gzip.decompress(await record_asked))
        assert hub.archive.builds == 1  # both waited for the same making
        assert gated.pids and os.getpid() not in gated.pids
        assert replay_json == frames_of(replay(record_json))
        assert await store.export(row.id, "replay") == await replay_asked
    finally:
        await hub.stop()
        await store.close()


async def test_a_long_game_is_loaded_into_memory_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    hub = Hub(store, ServerConfig(data_dir=tmp_path, bot_workers=1))
    threads: list[int] = []
    load = Table.load.__func__  # type: ignore[attr-defined]

    def recorded(cls: type[Table], row: GameRow, steps: list[StepRow]) -> Table:
        threads.append(threading.get_ident())
        table: Table = load(cls, row, steps)
        return table

    monkeypatch.setattr(Table, "load", classmethod(recorded))
    try:
        row = await stored_game(store, deals=12)
        assert len(await store.steps(row.id)) > LOAD_INLINE_STEPS
        referee = await hub.referee(row.id)
        assert referee.table.status == "finished" and referee.table.game is not None
        assert threads and threading.get_ident() not in threads
    finally:
        await hub.stop()
        await store.close()


async def test_a_games_documents_are_stored_once(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        game = GameRow(
            id="g1",
            status="finished",
            options={"preset": "standard"},
            settings={},
            host=0,
            seats=(SeatRow(0, "Ana", "human", None, None),),
            created_at=1.0,
            last_active_at=1.0,
        )
        await store.create_game(game)
        assert await store.export("g1", "replay") is None
        await store.save_exports("g1", {"record": b"first record", "replay": b"first replay"})
        await store.save_exports("g1", {"replay": b"made again elsewhere"})  # kept as it was
        assert await store.export("g1", "replay") == b"first replay"
        assert await store.export("g1", "record") == b"first record"
    finally:
        await store.close()
