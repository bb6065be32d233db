"""Chat lines are written in batches (maumau.store.chat_buffer): many lines from many
tables cost a few transactions, not one each; none is lost by a flush or a server's
stop; and while the database cannot be written, the lines that wait are bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_store import game_row

from maumau.server.live import chat, chat_budget
from maumau.store import Store, StoreUnavailable, chat_buffer, sqlite_url
from maumau.store import chat as chat_store
from support.serverkit import create_table, hello, make_client, receive_until

pytestmark = pytest.mark.anyio

TABLES = 30
LINES = 300


def count_writes(store: Store) -> list[int]:
    """Count the store's write transactions from now on (one element each)."""
    writes: list[int] = []
    write = store.write

    async def counted(work: Callable[[Any], Awaitable[Any]]) -> Any:
        writes.append(1)
        return await write(work)

    store.write = counted  # type: ignore[method-assign]
    return writes


async def stored(store: Store, game_id: str) -> list[chat_store.ChatRow]:
    return await store.read(lambda conn: chat_store.lines(conn, game_id, chat.KEEP))


async def test_many_lines_from_many_tables_are_a_few_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 3600.0)  # (only full batches)
    async with await Store.open(sqlite_url(tmp_path / "db.sqlite3")) as store:
        games = [f"g{n}" for n in range(TABLES)]
        for game_id in games:
            await store.create_game(game_row(game_id))
        writes = count_writes(store)
        rows = [
            await store.chat.add(games[n % TABLES], 0, "Ana", f"line {n}", 1.0 + n, chat.KEEP)
            for n in range(LINES)
        ]
        assert len({row.id for row in rows}) == LINES  # ids given at once, unique
        assert [row.id for row in rows] == sorted(row.id for row in rows)
        await store.chat.flush()
        assert len(writes) <= LINES // chat_buffer.FLUSH_LINES + 1
        assert store.chat.size == 0
        for n, game_id in enumerate(games):
            texts = [row.text for row in await stored(store, game_id)]
            assert texts == [f"line {i}" for i in range(n, LINES, TABLES)]


async def test_lines_are_written_within_the_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 0.01)
    async with await Store.open(sqlite_url(tmp_path / "db.sqlite3")) as store:
        await store.create_game(game_row("g1"))
        row = await store.chat.add("g1", None, None, "from the rail", 1.0, chat.KEEP)
        assert store.chat.waiting("g1") == [row]
        timer = store.chat.timer
        assert timer is not None
        await asyncio.wait_for(timer, 30)  # it ends once nothing waits; no flush asked
        assert await stored(store, "g1") == [row]
        assert store.chat.waiting("g1") == []


async def test_the_lines_that_wait_are_bounded_while_the_database_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 3600.0)
    monkeypatch.setattr(chat_buffer, "FLUSH_LINES", 1000)
    monkeypatch.setattr(chat_buffer, "MAX_LINES", 8)
    async with await Store.open(sqlite_url(tmp_path / "db.sqlite3")) as store:
        await store.create_game(game_row("g1"))
        write = store.write

        async def down(work: Callable[[Any], Awaitable[Any]]) -> Any:
            raise StoreUnavailable("database down")

        store.write = down  # type: ignore[method-assign]
        for n in range(8):
            await store.chat.add("g1", 0, "Ana", f"line {n}", 1.0, chat.KEEP)
        with pytest.raises(StoreUnavailable):
            await store.chat.flush()  # the lines wait on
        with pytest.raises(StoreUnavailable, match="8 chat lines wait"):
            await store.chat.add("g1", 0, "Ana", "one too many", 1.0, chat.KEEP)
        assert store.chat.size == 8
        store.write = write  # type: ignore[method-assign]
        await store.chat.flush()
        assert [r.text for r in await stored(store, "g1")] == [f"line {n}" for n in range(8)]


async def test_the_lines_of_a_table_that_is_gone_are_dropped_alone(tmp_path: Path) -> None:
    async with await Store.open(sqlite_url(tmp_path / "db.sqlite3")) as store:
        await store.create_game(game_row("g1"))
        await store.chat.add("g1", 0, "Ana", "kept", 1.0, chat.KEEP)
        await store.chat.add("gone", 0, "Ana", "no table", 1.0, chat.KEEP)
        await store.chat.flush()
        assert [r.text for r in await stored(store, "g1")] == ["kept"]
        assert (store.chat.size, store.chat.dropped) == (0, 1)


def test_a_server_stop_writes_the_lines_that_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 3600.0)
    client: TestClient
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, "Ana")
        with client.websocket_connect(f"/ws/{game_id}") as ana:
            hello(ana, host)
            ana.send_json({"type": "chat", "text": "last words"})
            receive_until(ana, lambda m: m["type"] == "chat_line")
        assert client.app.state.hub.store.chat.size == 1  # type: ignore[attr-defined]

    async def kept() -> list[str]:
        async with await Store.open(sqlite_url(tmp_path / "maumau.sqlite3")) as store:
            return [row.text for row in await stored(store, game_id)]

    assert asyncio.run(kept()) == ["last words"]


def test_lines_said_at_many_tables_share_one_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the server: each line reaches its table at once, and the lines of
    every table are written together, at the flush (they were one write each)."""
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 3600.0)
    with make_client(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        tables = [create_table(client, "Ana") for _ in range(5)]
        writes = count_writes(hub.store)
        for game_id, host in tables:
            with client.websocket_connect(f"/ws/{game_id}") as ana:
                hello(ana, host)
                for n in range(int(chat_budget.LINE_BURST)):
                    ana.send_json({"type": "chat", "text": f"line {n}"})
                    said = receive_until(ana, lambda m: m["type"] in ("chat_line", "error"))
                    assert said[-1]["type"] == "chat_line", said[-1]
        assert writes == []  # shown, not written yet
        client.portal.call(hub.store.chat.flush)
        assert len(writes) == 1
        for game_id, _ in tables:
            rows = client.portal.call(stored, hub.store, game_id)
            assert [r.text for r in rows] == [
                f"line {n}" for n in range(int(chat_budget.LINE_BURST))
            ]


async def test_on_postgresql_two_processes_lines_get_distinct_ids(pg_db_url: str) -> None:
    """Two stores (two server processes) on one PostgreSQL database: their lines'
    ids come from the database's sequence, so none is given twice; both batches land."""
    async with await Store.open(pg_db_url) as one, await Store.open(pg_db_url) as two:
        await one.create_game(game_row("g1"))
        rows = []
        for n in range(6):
            store = (one, two)[n % 2]
            rows.append(await store.chat.add("g1", n % 2, None, f"line {n}", 1.0, chat.KEEP))
        assert len({row.id for row in rows}) == 6
        await one.chat.flush()
        await two.chat.flush()
        kept = await stored(one, "g1")
    assert sorted(row.text for row in kept) == [f"line {n}" for n in range(6)]


def test_a_table_loaded_again_shows_the_lines_that_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that left memory and is loaded again before the flush reads its chat
    from the store and from the lines that wait: nothing said is missing."""
    monkeypatch.setattr(chat_buffer, "FLUSH_SECONDS", 3600.0)
    with make_client(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        game_id, host = create_table(client, "Ana")
        with client.websocket_connect(f"/ws/{game_id}") as ana:
            hello(ana, host)
            ana.send_json({"type": "chat", "text": "not written yet"})
            receive_until(ana, lambda m: m["type"] == "chat_line")
        hub.unload(hub.referees[game_id])
        with client.websocket_connect(f"/ws/{game_id}") as again:
            hello(again, host)
            again.send_json({"type": "ping"})  # (the history comes before the pong)
            got = receive_until(again, lambda m: m["type"] == "pong")
        assert hub.store.chat.size == 1
    histories = [m for m in got if m["type"] == "chat_history"]
    assert [[line["text"] for line in h["lines"]] for h in histories] == [["not written yet"]]
