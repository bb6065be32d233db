"""The store: game records in SQLite and PostgreSQL (each test runs on both)."""

from __future__ import annotations

import ast
import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, text
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from maumau.store import (
    GameExists,
    GameRow,
    SeatRow,
    SeatsChanged,
    SeqConflict,
    StepRow,
    Store,
    StoreError,
    StoreUnavailable,
    UnknownGame,
    database_url,
    queries,
    sqlite_url,
)
from maumau.store.connect import execute_while_locked, make_engine, set_pragmas
from maumau.store.migrate import HEAD_REVISION, alembic_config, current_revision, head_revision
from maumau.store.queries import DECODE_INLINE_STEPS
from maumau.store.schema import metadata
from maumau.store.urls import sqlite_file
from support.paths import ROOT
from support.pg import pg_admin

pytestmark = pytest.mark.anyio

STORE = ROOT / "src" / "maumau" / "store"

OPTIONS: dict[str, Any] = {
    "deck": 32,
    "sevens": {"stack": True, "draw": 2},
    "scoring": {"mode": "penalty", "limit": 100, "values": [1.5, -2, None, True]},
    "names": ["Jürgen", "Zoë", "日本"],
}
SEATS = (
    SeatRow(position=0, name="Jürgen 🃏", kind="human", level=None, token_hash="a" * 64),
    SeatRow(position=1, name="Bot Zoë", kind="bot", level="normal", token_hash=None),
    SeatRow(position=2, name="Ann", kind="human", level=None, token_hash="b" * 64),
)


def game_row(game_id: str = "g1", **changes: Any) -> GameRow:
    fields: dict[str, Any] = {
        "id": game_id,
        "status": "lobby",
        "options": OPTIONS,
        "settings": {"public": False, "turn_seconds": 30, "nested": {"x": [1, {"y": "ß"}]}},
        "host": 0,
        "seats": SEATS,
        "created_at": 1_700_000_000.25,
        "last_active_at": 1_700_000_000.25,
        "rematch_of": None,
        "rematch_id": None,
    }
    fields.update(changes)
    return GameRow(**fields)


def step(seq: int, kind: str = "action", **data: Any) -> StepRow:
    return StepRow(seq=seq, kind=kind, data={"seq": seq, **data})


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    opened = await Store.open(db_url)
    try:
        yield opened
    finally:
        await opened.close()


# --- reading back what was written ----------------------------------------------------


async def test_create_and_load_round_trip_every_field(store: Store) -> None:
    game = game_row(rematch_of="g0", status="playing", host=2)
    await store.create_game(game)
    assert await store.game("g1") == game
    loaded = await store.load("g1")
    assert loaded == (game, [])
    assert loaded is not None and loaded[0].options["names"] == ["Jürgen", "Zoë", "日本"]
    assert store.dialect in ("sqlite", "postgresql")


async def test_unknown_game_reads_as_none_and_changes_raise(store: Store) -> None:
    assert await store.game("nope") is None
    assert await store.load("nope") is None
    assert await store.steps("nope") == []
    with pytest.raises(UnknownGame):
        await store.append("nope", [step(0, "deal")], now=1.0)
    with pytest.raises(UnknownGame):
        await store.set_status("nope", "closed", now=1.0)
    with pytest.raises(UnknownGame):
        await store.set_rematch("nope", "r1")
    with pytest.raises(UnknownGame):
        await store.replace_seats("nope", SEATS, host=0)
    assert await store.steps("nope") == []


async def test_create_game_twice_raises_game_exists_and_keeps_the_first(store: Store) -> None:
    await store.create_game(game_row())
    with pytest.raises(GameExists):
        await store.create_game(game_row(status="playing", seats=SEATS[:1]))
    assert await store.game("g1") == game_row()


async def test_bad_values_are_refused_before_the_database(store: Store) -> None:
    with pytest.raises(ValueError, match="status"):
        await store.create_game(game_row(status="running"))
    with pytest.raises(ValueError, match="kind"):
        await store.create_game(game_row(seats=(SeatRow(0, "x", "alien", None, None),)))
    with pytest.raises(ValueError, match="repeat"):
        await store.create_game(game_row(seats=(SEATS[0], SEATS[0])))
    assert await store.game("g1") is None
    await store.create_game(game_row())
    with pytest.raises(ValueError, match="kind"):
        await store.append("g1", [StepRow(0, "shuffle", {})], now=1.0)
    with pytest.raises(ValueError, match="status"):
        await store.set_status("g1", "paused", now=1.0)
    assert await store.steps("g1") == []


# --- steps ------------------------------------------------------------------------------


async def test_a_long_game_reads_back_whole_and_in_order(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More steps than are decoded inline: the rest are decoded off the event loop,
    and nothing is lost, doubled or reordered at the seam."""
    count = 2 * DECODE_INLINE_STEPS + 7
    await store.create_game(game_row())
    written = [step(i, card="ä7H", nested={"n": [i, None]}) for i in range(count)]
    await store.append("g1", written, now=5.0)
    decoders: list[tuple[bool, int]] = []
    decode = queries.decoded_steps

    def watched(rows: Any) -> list[StepRow]:
        decoders.append((threading.current_thread() is threading.main_thread(), len(rows)))
        return decode(rows)

    monkeypatch.setattr(queries, "decoded_steps", watched)
    read = await store.steps("g1")
    assert decoders == [(True, DECODE_INLINE_STEPS), (False, count - DECODE_INLINE_STEPS)]
    assert [s.data for s in read] == [s.data for s in written]
    assert [s.seq for s in read] == list(range(count))
    seam = await store.steps("g1", after=DECODE_INLINE_STEPS - 2)
    assert [s.seq for s in seam] == list(range(DECODE_INLINE_STEPS - 1, count))
    loaded = await store.load("g1")
    assert loaded is not None and loaded[1] == read


async def test_steps_json_is_every_step_undecoded_in_order(store: Store) -> None:
    """What a worker process decodes: one JSON array of [kind, data], as stored."""
    await store.create_game(game_row())
    assert await store.steps_json("g1") == "[]"
    written = [StepRow(0, "deal", {"seed": 'ä"\\', "hands": [["7H"]]})]
    written += [step(i, card="JC", n=[i, None, 1.5]) for i in range(1, 40)]
    await store.append("g1", written[::-1], now=5.0)
    assert json.loads(await store.steps_json("g1")) == [[s.kind, s.data] for s in written]


async def test_steps_are_ordered_and_filtered_by_after(store: Store) -> None:
    await store.create_game(game_row())
    deal = StepRow(seq=0, kind="deal", data={"hands": [["7H", "JC"], []], "seed": "ä"})
    await store.append("g1", [deal], now=10.0)
    await store.append(
        "g1",
        [
            StepRow(2, "action", {"type": "draw"}, client_id="c-2", created_at=11.5),
            StepRow(1, "action", {"type": "play", "card": "7H"}, client_id="c-1"),
        ],
        now=12.0,
    )
    await store.append("g1", [step(3)], now=13.0)

    all_steps = await store.steps("g1")
    assert [s.seq for s in all_steps] == [0, 1, 2, 3]
    assert all_steps[0] == StepRow(0, "deal", deal.data, None, 10.0)  # stamped with now
    assert all_steps[1] == StepRow(1, "action", {"type": "play", "card": "7H"}, "c-1", 12.0)
    assert all_steps[2].created_at == 11.5  # a given time is kept
    assert [s.seq for s in await store.steps("g1", after=0)] == [1, 2, 3]
    assert [s.seq for s in await store.steps("g1", after=2)] == [3]
    assert await store.steps("g1", after=3) == []
    loaded = await store.load("g1")
    assert loaded is not None
    assert loaded[1] == all_steps
    assert loaded[0].last_active_at == 13.0


async def test_steps_of_one_game_do_not_mix_with_another(store: Store) -> None:
    await store.create_game(game_row("g1"))
    await store.create_game(game_row("g2"))
    await store.append("g1", [step(0, "deal", game="g1")], now=5.0)
    await store.append("g2", [step(0, "deal", game="g2"), step(1, game="g2")], now=5.0)
    assert [s.data["game"] for s in await store.steps("g1")] == ["g1"]
    assert [s.data["game"] for s in await store.steps("g2")] == ["g2", "g2"]


async def test_append_batch_with_a_taken_seq_appends_nothing(store: Store) -> None:
    await store.create_game(game_row())
    await store.append("g1", [step(0, "deal"), step(1)], now=10.0)
    with pytest.raises(SeqConflict) as raised:
        await store.append("g1", [step(2), step(1, other=True), step(3)], now=20.0)
    assert isinstance(raised.value, StoreError)
    assert [s.seq for s in await store.steps("g1")] == [0, 1]
    assert (await store.steps("g1"))[1].data == {"seq": 1}
    game = await store.game("g1")
    assert game is not None and game.last_active_at == 10.0  # rolled back as well
    await store.append("g1", [step(2), step(3)], now=30.0)  # the store is fine afterwards
    assert [s.seq for s in await store.steps("g1")] == [0, 1, 2, 3]


async def test_two_writers_of_the_same_step_one_wins(db_url: str) -> None:
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        await first.create_game(game_row())
        for seq in range(4):
            results = await asyncio.gather(
                first.append("g1", [step(seq, writer="first")], now=float(seq)),
                second.append("g1", [step(seq, writer="second")], now=float(seq)),
                return_exceptions=True,
            )
            failed = [r for r in results if isinstance(r, BaseException)]
            assert len(failed) == 1, results
            assert isinstance(failed[0], SeqConflict), failed
            winner = "second" if results[0] is failed[0] else "first"
            stored = await second.steps("g1", after=seq - 1)
            assert [(s.seq, s.data["writer"]) for s in stored] == [(seq, winner)]
    finally:
        await first.close()
        await second.close()


# --- game metadata ------------------------------------------------------------------


async def test_replace_seats_replaces_all_seats_and_the_host(store: Store) -> None:
    await store.create_game(game_row())
    await store.append("g1", [step(0, "deal")], now=2.0)
    new_seats = (
        SeatRow(0, "Ann", "human", None, "b" * 64),
        SeatRow(1, "Bot", "bot", "hard", None),
    )
    await store.replace_seats("g1", new_seats, host=0)
    game = await store.game("g1")
    assert game is not None
    assert game.seats == new_seats
    assert game.host == 0
    await store.replace_seats("g1", [], host=1)
    game = await store.game("g1")
    assert game is not None and game.seats == () and game.host == 1
    with pytest.raises(ValueError, match="repeat"):
        await store.replace_seats("g1", [new_seats[0], new_seats[0]], host=0)
    assert [s.seq for s in await store.steps("g1")] == [0]  # steps untouched


async def test_replace_seats_with_expected_seats_is_compare_and_set(store: Store) -> None:
    await store.create_game(game_row(seats=SEATS[:1]))
    await store.replace_seats("g1", SEATS[:2], host=0, expected=SEATS[:1])  # one added
    await store.replace_seats("g1", SEATS, host=0, expected=SEATS[:2])
    game = await store.game("g1")
    assert game is not None and game.seats == SEATS
    with pytest.raises(SeatsChanged):  # the caller had not seen the third seat
        await store.replace_seats("g1", [*SEATS[:2], SEATS[2]], host=1, expected=SEATS[:2])
    game = await store.game("g1")
    assert game is not None and (game.seats, game.host) == (SEATS, 0)  # nothing changed
    renamed = (SeatRow(0, "Jo", "human", None, "c" * 64), replace(SEATS[2], position=1))
    await store.replace_seats("g1", renamed, host=1, expected=SEATS)  # seats removed
    game = await store.game("g1")
    assert game is not None and (game.seats, game.host) == (renamed, 1)
    with pytest.raises(UnknownGame):
        await store.replace_seats("nope", SEATS, host=0, expected=())


async def test_status_activity_and_ids(store: Store) -> None:
    for n, created in enumerate([300.0, 100.0, 200.0, 400.0]):
        await store.create_game(game_row(f"g{n}", created_at=created, last_active_at=created))
    await store.set_status("g3", "playing", now=450.0)
    await store.set_status("g2", "finished", now=250.0)

    g3 = await store.game("g3")
    assert g3 is not None and (g3.status, g3.last_active_at) == ("playing", 450.0)
    g0 = await store.game("g0")
    assert g0 is not None and (g0.status, g0.last_active_at) == ("lobby", 300.0)

    assert await store.game_ids(["lobby"]) == ["g1", "g0"]  # oldest first
    assert await store.game_ids(["lobby", "playing", "finished"]) == ["g1", "g2", "g0", "g3"]
    assert await store.game_ids(["closed"]) == []
    assert await store.game_ids([]) == []
    await store.append("g1", [step(0, "deal")], now=470.0)  # an append is activity too
    g1 = await store.game("g1")
    assert g1 is not None and g1.last_active_at == 470.0


async def test_an_idle_game_is_closed_only_as_the_closer_has_it(store: Store) -> None:
    """``close_unchanged``: a process closes a game only if its status and step count
    are still what that process has (another may have played on)."""
    await store.create_game(game_row(status="playing"))
    await store.append("g1", [step(0, "deal"), step(1)], now=10.0)
    assert not await store.close_unchanged("g1", "playing", 1, now=20.0)  # behind
    assert not await store.close_unchanged("g1", "lobby", 2, now=20.0)  # started since
    game = await store.game("g1")
    assert game is not None and (game.status, game.last_active_at) == ("playing", 10.0)
    assert await store.close_unchanged("g1", "playing", 2, now=20.0)
    game = await store.game("g1")
    assert game is not None and (game.status, game.last_active_at) == ("closed", 20.0)
    assert not await store.close_unchanged("g1", "playing", 2, now=30.0)  # closed already
    assert not await store.close_unchanged("nope", "playing", 0, now=30.0)


async def test_knows_token_looks_up_one_token_of_one_game(store: Store) -> None:
    await store.create_game(game_row())
    await store.create_game(game_row("g2", seats=SEATS[:1]))
    held = SEATS[2].token_hash
    assert held is not None and SEATS[0].token_hash is not None
    assert await store.knows_token("g1", held)
    assert not await store.knows_token("g2", held)  # another game's seat
    assert not await store.knows_token("g1", "c" * 64)
    await store.replace_seats("g1", SEATS[:2], host=0, removed=(held,))
    assert await store.knows_token("g1", held)  # removed: its holder is told so
    assert await store.knows_token("g2", SEATS[0].token_hash)


async def test_set_rematch_is_compare_and_set(store: Store) -> None:
    await store.create_game(game_row())
    assert await store.set_rematch("g1", "r1") == "r1"
    assert await store.set_rematch("g1", "r2") == "r1"
    game = await store.game("g1")
    assert game is not None and game.rematch_id == "r1"


async def test_concurrent_rematches_agree_on_one(db_url: str) -> None:
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        await first.create_game(game_row())
        got = await asyncio.gather(
            first.set_rematch("g1", "from-first"), second.set_rematch("g1", "from-second")
        )
        assert got[0] == got[1] and got[0] in ("from-first", "from-second")
        game = await first.game("g1")
        assert game is not None and game.rematch_id == got[0]
    finally:
        await first.close()
        await second.close()


# --- opening, migrations, durability ---------------------------------------------------


async def test_open_twice_is_a_no_op_and_data_survives_reopen(db_url: str) -> None:
    first = await Store.open(db_url)
    await first.create_game(game_row())
    await first.append("g1", [step(0, "deal"), step(1)], now=9.0)
    expected = await first.load("g1")

    # a second store on the same database sees the committed steps while the first is open
    async with await Store.open(db_url) as second:
        assert await second.load("g1") == expected
    await first.close()

    async with await Store.open(db_url) as third:
        assert await third.load("g1") == expected
        assert await _revisions(db_url) == [head_revision()]


async def test_stores_opening_a_new_database_together_migrate_once(db_url: str) -> None:
    stores = await asyncio.gather(*(Store.open(db_url) for _ in range(3)))
    try:
        await stores[0].create_game(game_row())
        assert await stores[2].game("g1") == game_row()
        assert await _revisions(db_url) == [head_revision()]
    finally:
        for opened in stores:
            await opened.close()


class _LockedCursor:
    """A cursor whose first ``locked`` executions fail as SQLite's do."""

    def __init__(self, locked: int, message: str = "database is locked") -> None:
        self.locked = locked
        self.message = message
        self.calls = 0

    def execute(self, sql: str) -> None:
        self.calls += 1
        if self.calls <= self.locked:
            raise sqlite3.OperationalError(self.message)


def test_a_locked_database_is_tried_again_other_errors_are_not() -> None:
    cursor = _LockedCursor(locked=3)
    execute_while_locked(cursor, "PRAGMA journal_mode=WAL")
    assert cursor.calls == 4
    with pytest.raises(sqlite3.OperationalError, match="locked"):  # not for ever
        execute_while_locked(_LockedCursor(locked=1_000), "PRAGMA journal_mode=WAL", 0.05)
    other = _LockedCursor(locked=1, message="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        execute_while_locked(other, "PRAGMA journal_mode=WAL")
    assert other.calls == 1


def test_connections_switching_a_new_database_to_wal_together_all_succeed(
    tmp_path: Path,
) -> None:
    """Three connections at once on a new file, many times: without trying again, SQLite
    refuses a few per cent of them with "database is locked"."""
    failures: list[BaseException] = []

    def connect(path: Path, start: threading.Barrier) -> None:
        start.wait()
        db = sqlite3.connect(path, isolation_level=None)
        try:
            set_pragmas(db.cursor())
        except BaseException as exc:
            failures.append(exc)
        finally:
            db.close()

    for n in range(60):
        path = tmp_path / f"new{n}.sqlite3"
        start = threading.Barrier(3)
        threads = [threading.Thread(target=connect, args=(path, start)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert failures == []


async def test_migration_head_creates_exactly_the_schema(db_url: str) -> None:
    await (await Store.open(db_url)).close()

    def inspect(conn: Connection) -> tuple[list[Any], dict[str, set[str]], list[Any]]:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
        reflected = MetaData()
        reflected.reflect(conn)
        columns = {name: set(table.columns.keys()) for name, table in reflected.tables.items()}
        keys = [
            (name, key["constrained_columns"], key["referred_table"], key["options"])
            for name in ("seats", "steps")
            for key in sa_inspect(conn).get_foreign_keys(name)
        ]
        return diff, columns, keys

    engine = create_async_engine(database_url(db_url))
    try:
        async with engine.connect() as conn:
            diff, columns, keys = await conn.run_sync(inspect)
    finally:
        await engine.dispose()
    assert diff == []
    assert keys == [
        ("seats", ["game_id"], "games", {"ondelete": "CASCADE"}),
        ("steps", ["game_id"], "games", {"ondelete": "CASCADE"}),
    ]
    expected = {name: set(table.columns.keys()) for name, table in metadata.tables.items()}
    assert columns == {**expected, "alembic_version": {"version_num"}}


async def _revisions(url: str) -> list[str]:
    engine = create_async_engine(database_url(url))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
            return [str(row[0]) for row in rows]
    finally:
        await engine.dispose()


def test_the_head_revision_the_store_expects_is_alembics_head() -> None:
    # (raise HEAD_REVISION in store/migrate.py with each new migration script)
    assert head_revision() == HEAD_REVISION


async def test_the_revision_read_without_alembic_is_alembics(db_url: str) -> None:
    path = sqlite_file(database_url(db_url))
    if path is not None:
        path.parent.mkdir()
    engine = make_engine(database_url(db_url))

    def both(c: Connection) -> tuple[str | None, str | None]:
        return current_revision(c), MigrationContext.configure(c).get_current_revision()

    try:
        async with engine.begin() as conn:
            assert await conn.run_sync(both) == (None, None)  # never migrated
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0001"))
            assert await conn.run_sync(both) == ("0001", "0001")
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "head"))
            assert await conn.run_sync(both) == (HEAD_REVISION, HEAD_REVISION)
    finally:
        await engine.dispose()


@pytest.mark.system
async def test_opening_a_database_at_the_head_does_not_load_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'current.db'}"
    async with await Store.open(url):  # migrated here, in this process
        pass
    script = (
        "import asyncio, sys\n"
        "from maumau.store import Store\n"
        "async def main() -> None:\n"
        f"    async with await Store.open({url!r}):\n"
        "        pass\n"
        "asyncio.run(main())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'mako')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


async def test_a_sqlite_database_of_the_first_revision_is_upgraded(tmp_path: Path) -> None:
    # a database made by the first release: its games' activity was kept by the store;
    # since revision 0002 a trigger keeps it as steps are appended
    path = tmp_path / "old.db"
    engine = make_engine(sqlite_url(path))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0001"))
    finally:
        await engine.dispose()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall() == []
    async with await Store.open(f"sqlite:///{path}") as opened:
        await opened.create_game(game_row(last_active_at=1.0))
        await opened.append("g1", [step(0, "deal"), step(1)], now=5.0)
        row = await opened.game("g1")
        assert row is not None and row.last_active_at == 5.0
    assert await _revisions(f"sqlite:///{path}") == [head_revision()]


async def test_sqlite_file_settings_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "games.db"
    async with await Store.open(f"sqlite:///{path}") as opened:
        assert opened.dialect == "sqlite"
        await opened.create_game(game_row())
        await opened.append("g1", [step(0, "deal")], now=3.0)
        # committed on return: a plain sqlite3 connection reads it while the store is open
        with sqlite3.connect(path) as raw:
            assert raw.execute("SELECT seq FROM steps WHERE game_id = 'g1'").fetchall() == [(0,)]
            assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    engine = make_engine(sqlite_url(path))
    try:
        async with engine.connect() as conn:
            pragmas = {
                name: (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            }
    finally:
        await engine.dispose()
    assert pragmas == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 5000,
    }


async def test_postgresql_store(pg_db_url: str) -> None:
    async with await Store.open(pg_db_url) as opened:
        assert opened.dialect == "postgresql"


# --- failures ------------------------------------------------------------------------


async def test_unreachable_postgresql_is_unavailable_without_the_password() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(f"postgresql://maumau:s3cr3t-pw@127.0.0.1:{port}/maumau")
    message = str(raised.value)
    assert "s3cr3t-pw" not in message
    assert f"127.0.0.1:{port}" in message and "***" in message


async def test_sqlite_in_an_unwritable_place_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreUnavailable, match="unavailable"):
        await Store.open(f"sqlite:///{blocker / 'sub' / 'games.db'}")
    with pytest.raises(StoreUnavailable):
        await Store.open(f"sqlite:///{blocker / 'games.db'}")


async def test_a_database_gone_while_open_is_unavailable(pg_url: str, pg_db_url: str) -> None:
    async with await Store.open(pg_db_url) as opened:
        await opened.create_game(game_row())
        name = pg_db_url.rsplit("/", 1)[1]
        await pg_admin(pg_url, f'DROP DATABASE "{name}" WITH (FORCE)')
        with pytest.raises(StoreUnavailable):
            await opened.game("g1")
        with pytest.raises(StoreUnavailable):
            await opened.append("g1", [step(0, "deal")], now=1.0)


async def test_unsupported_url_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="mysql"):
        await Store.open("mysql://root:pw@localhost/db")


# --- URLs and layering ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:///games.db", "sqlite+aiosqlite:///games.db"),
        ("sqlite:////var/lib/maumau/games.db", "sqlite+aiosqlite:////var/lib/maumau/games.db"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite:///x.db"),
        ("postgresql://u:p@db:5432/maumau", "postgresql+asyncpg://u:p@db:5432/maumau"),
        (
            "postgres://u@db/maumau?sslmode=require",
            "postgresql+asyncpg://u@db/maumau?sslmode=require",
        ),
        ("postgresql+asyncpg://u@db/maumau", "postgresql+asyncpg://u@db/maumau"),
        ("postgresql+psycopg://u@db/maumau", "postgresql+psycopg://u@db/maumau"),
    ],
)
def test_database_url_picks_the_async_driver(given: str, expected: str) -> None:
    assert database_url(given) == expected


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("mysql://u:p@db/maumau", "mysql"),
        ("redis://localhost", "redis"),
        ("games.db", "://"),
        ("sqlite+://x", "driver"),
    ],
)
def test_database_url_refuses_other_databases(given: str, named: str) -> None:
    with pytest.raises(ValueError, match=named) as raised:
        database_url(given)
    assert ":p@" not in str(raised.value)


def test_sqlite_url_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sqlite_url(Path("data/games.db")) == f"sqlite+aiosqlite:///{tmp_path}/data/games.db"
    assert sqlite_url(tmp_path / "x.db") == f"sqlite+aiosqlite:///{tmp_path}/x.db"


async def test_a_data_folder_with_url_characters_in_its_name(tmp_path: Path) -> None:
    folder = tmp_path / "games?x=1#top"
    path = folder / "maumau.sqlite3"
    assert sqlite_file(sqlite_url(path)) == path
    async with await Store.open(sqlite_url(path)) as opened:
        await opened.create_game(game_row())
        await opened.append("g1", [step(0, "deal")], now=3.0)
    with sqlite3.connect(path) as raw:  # the file is where it was asked to be
        assert raw.execute("SELECT seq FROM steps WHERE game_id = 'g1'").fetchall() == [(0,)]
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]


def test_store_imports_nothing_else_of_maumau() -> None:
    files = sorted(STORE.rglob("*.py"))
    assert len(files) >= 8
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] == "maumau":
                    assert name.startswith("maumau.store"), f"{path.name} imports {name}"


# --- group commit and change notices --------------------------------------------------


async def test_a_steps_data_reads_back_exactly_as_appended(store: Store) -> None:
    """Moves are written on a fast path (orjson on SQLite): the data must come back
    as it went in, whatever its text, numbers and nesting."""
    await store.create_game(game_row("g1"))
    data = {
        "seed": 2**63 + 12345,  # a deal's seed: unsigned 64-bit
        "salt": "7a57" * 16,
        "names": ["Jürgen 🃏", "日本", 'quote " and \\ backslash', "\u2028 line"],
        "nested": {"hands": [["7H", "JC"], []], "none": None, "yes": True, "x": -1.5},
    }
    await store.append("g1", [StepRow(seq=0, kind="deal", data=data)], now=1.0)
    await store.append(
        "g1", [StepRow(seq=1, kind="action", data={"seat": 0, "play": "7H"})], now=2.0
    )
    stored = await store.steps("g1")
    assert [s.data for s in stored] == [data, {"seat": 0, "play": "7H"}]


async def test_appends_made_together_share_commits(store: Store) -> None:
    ids = [f"g{n}" for n in range(30)]
    for game_id in ids:
        await store.create_game(game_row(game_id))
    before = store.group_commit.commits, store.group_commit.appends
    for seq in range(3):
        await asyncio.gather(*(store.append(g, [step(seq, game=g)], now=100.0 + seq) for g in ids))
    commits = store.group_commit.commits - before[0]
    appends = store.group_commit.appends - before[1]
    assert appends == 90
    assert commits < appends / 2, (commits, appends)  # grouped, not one commit each
    for game_id in ids:
        stored = await store.steps(game_id)
        assert [(s.seq, s.data["game"]) for s in stored] == [
            (0, game_id),
            (1, game_id),
            (2, game_id),
        ]
        row = await store.game(game_id)
        assert row is not None and row.last_active_at == 102.0


async def test_groups_larger_than_one_statement_are_written_whole(store: Store) -> None:
    # SQLite binds at most 999 values per statement: 166 steps, or 333 games touched
    await store.create_game(game_row("long"))
    await store.append("long", [step(seq, n=seq) for seq in range(400)], now=5.0)
    assert [s.data["n"] for s in await store.steps("long")] == list(range(400))
    ids = [f"g{n}" for n in range(400)]
    for game_id in ids:
        await store.create_game(game_row(game_id))
    await asyncio.gather(*(store.append(g, [step(0, game=g)], now=7.0) for g in ids))
    for game_id in ids:
        assert [s.data["game"] for s in await store.steps(game_id)] == [game_id]
        row = await store.game(game_id)
        assert row is not None and row.last_active_at == 7.0


async def test_a_refused_append_in_a_group_fails_alone(store: Store) -> None:
    for game_id in ("g1", "g2", "g3"):
        await store.create_game(game_row(game_id))
    await store.append("g2", [step(0, "deal", first=True)], now=1.0)
    results = await asyncio.gather(
        store.append("g1", [step(0, "deal")], now=2.0),
        store.append("g2", [step(0, "deal", first=False)], now=2.0),  # step 0 is taken
        store.append("nope", [step(0, "deal")], now=2.0),  # no such game
        store.append("g3", [step(0, "deal"), step(1)], now=2.0),
        return_exceptions=True,
    )
    assert results[0] is None and results[3] is None
    assert isinstance(results[1], SeqConflict)
    assert isinstance(results[2], UnknownGame)
    assert [s.seq for s in await store.steps("g1")] == [0]
    assert [s.data["first"] for s in await store.steps("g2")] == [True]
    assert [s.seq for s in await store.steps("g3")] == [0, 1]


async def test_a_cancelled_caller_does_not_cancel_its_append(store: Store) -> None:
    await store.create_game(game_row("g1"))
    await store.create_game(game_row("g2"))
    first = asyncio.ensure_future(store.append("g1", [step(0, "deal")], now=1.0))
    second = asyncio.ensure_future(store.append("g2", [step(0, "deal")], now=1.0))
    await asyncio.sleep(0)
    second.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    await store.group_commit.close()
    assert [s.seq for s in await store.steps("g2")] == [0]


async def test_only_postgresql_stores_have_a_listener(store: Store) -> None:
    listener = store.listener(lambda game_id, steps_only: None, lambda: None)
    assert (listener is not None) == (store.dialect == "postgresql") == store.shared


async def test_other_processes_hear_of_every_change(pg_db_url: str) -> None:
    first, second = await Store.open(pg_db_url), await Store.open(pg_db_url)
    heard: asyncio.Queue[str] = asyncio.Queue()
    kinds: dict[str, list[bool]] = {}
    own: list[str] = []
    connects: list[int] = []

    def hear(game_id: str, steps_only: bool) -> None:
        kinds.setdefault(game_id, []).append(steps_only)
        heard.put_nowait(game_id)

    listener = second.listener(hear, lambda: connects.append(1))
    mine = first.listener(lambda game_id, _: own.append(game_id), lambda: None)
    assert listener is not None and mine is not None
    listener.start()
    mine.start()
    try:
        await asyncio.wait_for(listener.ready.wait(), 10)
        await asyncio.wait_for(mine.ready.wait(), 10)
        assert connects == [1]
        await first.create_game(game_row("g1"))
        await first.create_game(game_row("g2"))
        await first.replace_seats("g1", SEATS[:2], host=1)
        assert await asyncio.wait_for(heard.get(), 5) == "g1"
        await asyncio.gather(
            first.append("g1", [step(0, "deal")], now=2.0),
            first.append("g2", [step(0, "deal")], now=2.0),
        )
        assert {await asyncio.wait_for(heard.get(), 5) for _ in range(2)} == {"g1", "g2"}
        await first.set_status("g2", "playing", now=3.0)
        assert await asyncio.wait_for(heard.get(), 5) == "g2"
        await second.append("g2", [step(1)], now=4.0)  # its own change: not heard...
        assert await asyncio.wait_for(_next(own), 5) == "g2"  # ...but first hears it
        with pytest.raises(SeqConflict):  # nothing committed: nothing to hear
            await first.append("g2", [step(1)], now=4.0)
        await first.set_rematch("g1", "g9")
        assert await asyncio.wait_for(heard.get(), 5) == "g1"
        assert heard.empty()
        assert own == []  # first's own changes are not announced to itself
        # appends say that only steps were added; seat, status and rematch changes do not
        assert kinds == {"g1": [False, True, False], "g2": [True, False]}
    finally:
        await listener.stop()
        await mine.stop()
        await first.close()
        await second.close()


async def test_processes_say_who_is_connected_and_answer_when_asked(pg_db_url: str) -> None:
    """A process that has just loaded a game asks the others who is connected to them;
    they hear the question (not their own), and presence notices carry the seats."""
    first, second = await Store.open(pg_db_url), await Store.open(pg_db_url)
    presence: list[tuple[str, frozenset[int]]] = []
    questions: list[str] = []
    own: list[str] = []

    def nothing(game_id: str, steps_only: bool) -> None:
        pass

    listener = second.listener(
        nothing,
        lambda: None,
        lambda origin, game_id, seats: presence.append((game_id, seats)),
        questions.append,
    )
    mine = first.listener(nothing, lambda: None, None, own.append)
    assert listener is not None and mine is not None
    listener.start()
    mine.start()
    try:
        await asyncio.wait_for(listener.ready.wait(), 10)
        await asyncio.wait_for(mine.ready.wait(), 10)
        await first.ask_presence("g1")
        assert await asyncio.wait_for(_next(questions), 5) == "g1"
        await first.announce([("g1", [2, 0]), ("g2", [])])
        async with asyncio.timeout(5):
            while len(presence) < 2:
                await asyncio.sleep(0.01)
        assert presence == [("g1", frozenset({0, 2})), ("g2", frozenset())]
        assert questions == [] and own == []  # a question is not heard by its asker
    finally:
        await listener.stop()
        await mine.stop()
        await first.close()
        await second.close()


async def _next(items: list[str]) -> str:
    while not items:
        await asyncio.sleep(0.01)
    return items.pop(0)


async def test_a_listener_whose_connection_dies_connects_again(pg_db_url: str) -> None:
    first, second = await Store.open(pg_db_url), await Store.open(pg_db_url)
    heard: list[str] = []
    connects: list[int] = []
    listener = second.listener(lambda game_id, _: heard.append(game_id), lambda: connects.append(1))
    assert listener is not None
    listener.start()
    try:
        await asyncio.wait_for(listener.ready.wait(), 10)
        await first.create_game(game_row("g1"))
        async with first._engine.connect() as conn:  # end every LISTENing backend
            await conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'maumau-listener'"
                )
            )
        async with asyncio.timeout(10):  # the listener is back, and says so
            while len(connects) < 2 or not listener.connected:
                await asyncio.sleep(0.05)
        await first.append("g1", [step(0, "deal")], now=1.0)
        assert await asyncio.wait_for(_next(heard), 5) == "g1"
    finally:
        await listener.stop()
        await first.close()
        await second.close()


async def test_sqlite_writes_run_whole_on_the_writer_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every statement of a lobby write runs on the writer thread, with the pragmas and
    the immediate begin of the async engine, and waits for nothing on the way."""
    from maumau.store import writer_thread

    threads: list[str] = []
    execute = writer_thread.Immediate.execute

    async def recording(self: writer_thread.Immediate, *args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return await execute(self, *args)

    monkeypatch.setattr(writer_thread.Immediate, "execute", recording)
    path = tmp_path / "games.db"
    async with await Store.open(f"sqlite:///{path}") as opened:
        await opened.create_game(game_row())
        await opened.replace_seats("g1", [SeatRow(0, "Ana", "human", None, "h")], host=0)
        await opened.set_status("g1", "playing", now=5.0)
        assert (await opened.set_rematch("g1", "g2")) == "g2"
        await opened.append("g1", [step(0, "deal")], now=6.0)
        loaded = await opened.load("g1")
        assert loaded is not None and loaded[0].status == "playing"
        assert [s.name for s in loaded[0].seats] == ["Ana"] and len(loaded[1]) == 1
    assert threads and {name.split("_")[0] for name in threads} == {"maumau-appender"}


def test_a_write_transaction_that_would_wait_is_refused() -> None:
    from maumau.store.writer_thread import finish

    async def plain() -> int:
        return 7

    async def waits() -> None:
        await asyncio.sleep(0)

    assert finish(plain()) == 7
    with pytest.raises(RuntimeError, match="waited"):
        finish(waits())
