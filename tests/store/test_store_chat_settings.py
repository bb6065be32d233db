"""A table's chat settings: one row per table, stored by whichever process the host is
connected to, so two processes may store the first row at the same time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text
from test_store import game_row

from maumau.store import Store
from maumau.store import chat as chat_store
from maumau.store.chat import ChatSettingsRow
from maumau.store.connect import make_engine
from maumau.store.urls import database_url

pytestmark = pytest.mark.anyio

WAITING = text(
    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
    "AND datname = current_database()"
)


async def test_two_first_settings_at_once_both_land(pg_db_url: str) -> None:
    """Two transactions store a table's first settings at once (each found no row to
    update): the second waits for the first, then its values stay; neither fails."""
    async with await Store.open(pg_db_url) as store:
        await store.create_game(game_row())
    engine = make_engine(database_url(pg_db_url))
    try:
        async with engine.connect() as first, engine.connect() as second:
            await first.begin()
            await second.begin()
            await chat_store.set_settings(first, "g1", ChatSettingsRow(chat=False))
            later = asyncio.create_task(
                chat_store.set_settings(second, "g1", ChatSettingsRow(spectators=True))
            )
            async with engine.connect() as watcher:  # until the second waits for the row
                for _ in range(200):
                    if (await watcher.execute(WAITING)).scalar_one() or later.done():
                        break
                    await asyncio.sleep(0.02)
            await first.commit()
            await later
            await second.commit()
        async with engine.connect() as reader:
            stored = await chat_store.settings(reader, "g1")
        assert stored == ChatSettingsRow(chat=True, spectators=True)
    finally:
        await engine.dispose()


async def test_settings_are_stored_and_changed_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    async with await Store.open(url) as store:
        await store.create_game(game_row())
    engine = make_engine(database_url(url))
    try:
        for chosen in (ChatSettingsRow(chat=False), ChatSettingsRow(spectators=True)):
            async with engine.begin() as conn:
                await chat_store.set_settings(conn, "g1", chosen)
            async with engine.connect() as conn:
                assert await chat_store.settings(conn, "g1") == chosen
    finally:
        await engine.dispose()
