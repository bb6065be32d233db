"""``maumau backup``, ``restore`` and ``admin`` against a real ``maumau serve`` process,
on SQLite and on PostgreSQL.

Each test plays a short game to its end (two humans, two bots) and leaves a second one
running (a human's turn that nobody takes), then works on the database as an operator
would: a backup while the server runs, a wipe, a restore; records exported and checked
by ``maumau verify`` and ``maumau record replay``; a purge; the live tables listed, an
announcement and a close seen by a connected WebSocket client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from websockets.sync.client import ClientConnection, connect

from maumau.cli.main import main
from maumau.store import Store, database_url, sqlite_url
from maumau.store.connect import make_engine
from maumau.store.urls import sqlite_file
from support.live import DEADLINE, Human, Server
from support.pg import pg_admin, run_sync

TABLES = (
    "games",
    "seats",
    "steps",
    "removed_seats",
    "exports",
    "admin_notices",
    "chat_lines",
    "chat_settings",
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def snapshot(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the store's tables, in a stable order."""

    async def read() -> dict[str, list[tuple[Any, ...]]]:
        engine = make_engine(database_url(url))
        try:
            async with engine.connect() as conn:
                rows = {}
                for table in TABLES:
                    result = await conn.execute(text(f"SELECT * FROM {table}"))
                    rows[table] = sorted((tuple(map(repr, row)) for row in result), key=str)
                return rows
        finally:
            await engine.dispose()

    return asyncio.run(read())


def wipe(url: str) -> None:
    path = sqlite_file(database_url(url))
    if path is not None:
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        return
    run_sync(pg_admin(url, "DROP SCHEMA public CASCADE", "CREATE SCHEMA public"))


def finished_game(server: Server) -> str:
    """A standard game of two humans and two bots, played to its end."""
    created = server.request(
        "POST",
        "/api/games",
        {"name": "Ana", "settings": {"bot_delay_ms": 0, "next_round_seconds": 0}},
    )
    game_id, host = created["game_id"], created["token"]
    other = server.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    for level in ("normal", "easy"):
        server.request("POST", f"/api/games/{game_id}/bots", {"level": level}, host)
    humans = [Human(server, game_id, host), Human(server, game_id, other)]
    for human in humans:
        human.start()
    deadline = time.monotonic() + 30
    while any(h.welcomes == 0 for h in humans) and time.monotonic() < deadline:
        time.sleep(0.05)
    server.request("POST", f"/api/games/{game_id}/start", None, host)
    for human in humans:
        human.join(DEADLINE)
        assert human.game_end is not None, "the game did not end"
    assert server.request("GET", f"/api/games/{game_id}")["status"] == "finished"
    return game_id


def running_game(server: Server) -> str:
    """Two humans, started; the host moves once and leaves, and the game waits for the
    other, who never comes (no stand-in: grace_seconds is null)."""
    settings = {"grace_seconds": None, "bot_delay_ms": 0}
    created = server.request("POST", "/api/games", {"name": "Cleo", "settings": settings})
    game_id, host = created["game_id"], created["token"]
    server.request("POST", f"/api/games/{game_id}/seats", {"name": "Dan"})
    server.request("POST", f"/api/games/{game_id}/start", None, host)
    human = Human(server, game_id, host)
    human.start()
    deadline = time.monotonic() + DEADLINE
    while not human.acked and time.monotonic() < deadline:
        time.sleep(0.05)
    human.quit.set()
    assert human.acked, "the host's first move was never acknowledged"
    assert server.request("GET", f"/api/games/{game_id}")["status"] == "playing"
    return game_id


def chatting_table(server: Server, database: str, words: str) -> str:
    """A new table whose host said ``words`` in its chat and let spectators chat, once
    the line is in the store at ``database`` (lines are written in batches, within a
    second: maumau.store.chat_buffer)."""
    created = server.request("POST", "/api/games", {"name": "Hal"})
    url = f"ws://127.0.0.1:{server.port}/ws/{created['game_id']}"
    with connect(url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": created["token"]}))
        ws.send(json.dumps({"type": "chat", "text": words}))
        assert receive(ws, "chat_line")["line"]["text"] == words
        ws.send(json.dumps({"type": "set_chat", "chat": True, "spectators": True}))
        receive(ws, "chat_options")
    deadline = time.monotonic() + DEADLINE
    while not any(repr(words) in row for row in snapshot(database)["chat_lines"]):
        assert time.monotonic() < deadline, f"the line {words!r} was never written"
        time.sleep(0.1)
    return str(created["game_id"])


@pytest.fixture
def served(tmp_path: Path, db_url: str) -> Iterator[tuple[Server, str]]:
    """A server on a fresh database of each kind."""
    if db_url.startswith("sqlite"):
        Path(db_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    server = Server(tmp_path / "data", database_url=db_url)
    server.options = ["--messages-per-second", "1000"]
    server.start()
    try:
        yield server, db_url
    finally:
        server.stop()


def receive(ws: ClientConnection, kind: str, seconds: float = 60) -> dict[str, Any]:
    """The next message of type ``kind`` (others are skipped)."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {kind} message came"
        message = json.loads(ws.recv(timeout=left))
        if message["type"] == kind:
            return message  # type: ignore[no-any-return]


@contextlib.contextmanager
def watch(server: Server, game_id: str) -> Iterator[ClientConnection]:
    """A spectator's socket at ``game_id``, welcomed."""
    with connect(f"ws://127.0.0.1:{server.port}/ws/{game_id}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": None}))
        receive(ws, "welcome")
        yield ws


# --- backup and restore ------------------------------------------------------------------


def test_backup_wipe_restore_gives_back_every_game(
    served: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, url = served
    finished, playing = finished_game(server), running_game(server)
    chatting = chatting_table(server, url, "kept in the backup")
    record = server.request("GET", f"/api/games/{finished}/record")
    backup = tmp_path / "backup.db"
    status, out, err = run(capsys, "backup", "--to", str(backup), "--database-url", url)
    assert status == 0, err
    assert str(backup) in out
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600  # seeds and token hashes
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    before = snapshot(url)
    assert {row[0] for row in before["games"]} >= {repr(finished), repr(playing)}
    assert len(before["chat_lines"]) == 1 and len(before["chat_settings"]) == 1

    # a server running on the database: refused
    status, _, err = run(capsys, "restore", "--from", str(backup), "--database-url", url)
    assert status == 2 and "running" in err, err
    server.stop()
    # a database holding games: refused without --force
    status, _, err = run(capsys, "restore", "--from", str(backup), "--database-url", url)
    assert status == 2 and "--force" in err and "game(s)" in err, err

    wipe(url)
    status, out, err = run(capsys, "restore", "--from", str(backup), "--database-url", url)
    assert status == 0, err
    assert snapshot(url) == before

    # and over the games, with --force
    status, _, err = run(capsys, "restore", "--from", str(backup), "--database-url", url, "--force")
    assert status == 0, err
    assert snapshot(url) == before

    server.start()  # the restored database serves both games as they were
    assert server.request("GET", f"/api/games/{finished}/record") == record
    assert server.request("GET", f"/api/games/{playing}")["status"] == "playing"
    with watch(server, chatting) as ws:
        history = receive(ws, "chat_history")
    assert [line["text"] for line in history["lines"]] == ["kept in the backup"]


def test_restore_refuses_what_is_not_a_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    status, _, err = run(capsys, "restore", "--from", str(junk), "--data-dir", str(tmp_path))
    assert status == 2 and "not a maumau SQLite backup" in err, err
    status, _, err = run(
        capsys, "restore", "--from", str(tmp_path / "missing.db"), "--data-dir", str(tmp_path)
    )
    assert status == 2 and "missing.db" in err, err
    status, _, err = run(capsys, "backup", "--to", str(junk), "--data-dir", str(tmp_path / "x"))
    assert status == 2 and "maumau.sqlite3" in err, err
    database = tmp_path / "maumau.sqlite3"
    database.write_bytes(b"")
    status, _, err = run(capsys, "backup", "--to", str(database), "--data-dir", str(tmp_path))
    assert status == 2 and "the database itself" in err, err
    database.unlink()
    assert junk.read_bytes().startswith(b"not a database")  # a failed backup left it

    # a data directory whose name holds what a URI reads as its own
    weird = tmp_path / "we?ird#dir%20"

    async def make() -> None:
        await (await Store.open(sqlite_url(weird / "maumau.sqlite3"))).close()

    asyncio.run(make())
    copy = tmp_path / "copy.db"
    status, _, err = run(capsys, "backup", "--to", str(copy), "--data-dir", str(weird))
    assert status == 0, err
    other = tmp_path / "other"
    status, _, err = run(capsys, "restore", "--from", str(copy), "--data-dir", str(other))
    assert status == 0, err
    assert (other / "maumau.sqlite3").is_file()

    newer = tmp_path / "newer.db"
    with contextlib.closing(sqlite3.connect(newer)) as db, db:
        db.execute("CREATE TABLE games (id TEXT)")
        db.execute("CREATE TABLE alembic_version (version_num TEXT)")
        db.execute("INSERT INTO alembic_version VALUES ('9999')")
    status, _, err = run(capsys, "restore", "--from", str(newer), "--data-dir", str(tmp_path))
    assert status == 2 and "newer maumau" in err and "9999" in err, err
    assert not (tmp_path / "maumau.sqlite3").exists()


# --- export and purge --------------------------------------------------------------------


def test_export_and_purge_write_records_that_verify_and_replay(
    served: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, url = served
    finished, playing = finished_game(server), running_game(server)
    served_record = server.request("GET", f"/api/games/{finished}/record")
    unstarted = chatting_table(server, url, "gone with the table")
    status, _, err = run(capsys, "admin", "close", unstarted, "--database-url", url)
    assert status == 0, err

    out = tmp_path / "records"
    status, text_out, err = run(capsys, "admin", "export", "--out", str(out), "--database-url", url)
    assert status == 0, err
    # the finished game only: a running game's record would reveal its seed, and the
    # closed table never started
    assert sorted(p.name for p in out.iterdir()) == [f"{finished}.json"]
    assert "1 record(s)" in text_out
    exported = out / f"{finished}.json"
    assert json.loads(exported.read_text()) == served_record
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    assert run(capsys, "verify", str(exported))[0] == 0
    assert run(capsys, "record", "replay", str(exported))[0] == 0

    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    purge = ("admin", "purge", "--database-url", url, "--finished-before")
    status, _, err = run(capsys, *purge, tomorrow)
    assert status == 2 and "--export" in err and "--no-export" in err, err
    status, _, err = run(capsys, *purge, "last week", "--no-export")
    assert status == 2 and "'last week'" in err, err
    status, said, err = run(capsys, *purge, tomorrow, "--no-export", "--dry-run")
    assert status == 0 and "2 game(s) would be purged" in said, (said, err)
    status, said, err = run(capsys, *purge, yesterday, "--export", str(tmp_path / "none"))
    assert status == 0 and "0 game(s) purged" in said, (said, err)
    assert len(snapshot(url)["games"]) == 3

    kept = tmp_path / "kept"
    status, said, err = run(capsys, *purge, tomorrow, "--export", str(kept))
    assert status == 0 and "2 game(s) purged; 1 record(s) written" in said, (said, err)
    assert (kept / f"{finished}.json").read_bytes() == exported.read_bytes()
    rows = snapshot(url)
    assert [row[0] for row in rows["games"]] == [repr(playing)]  # the live game is kept
    assert rows["chat_lines"] == [] and rows["chat_settings"] == []  # the closed table's
    assert {row[0] for row in rows["steps"]} == {repr(playing)}
    assert rows["exports"] == []
    assert server.request("GET", f"/api/games/{playing}")["status"] == "playing"


# --- tables, announce, close -------------------------------------------------------------


def test_tables_announce_and_close_reach_the_running_server(
    served: tuple[Server, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, url = served
    playing = running_game(server)
    lobby = server.request("POST", "/api/games", {"name": "Fay"})["game_id"]
    server.request("POST", f"/api/games/{lobby}/seats", {"name": "[/]Gus[bold]"})

    status, out, err = run(capsys, "admin", "tables", "--json", "--database-url", url)
    assert status == 0, err
    listed = {table["id"]: table for table in json.loads(out)["tables"]}
    assert set(listed) == {playing, lobby}
    assert listed[playing]["status"] == "playing" and listed[playing]["steps"] >= 2
    assert [(p["name"], p["kind"]) for p in listed[lobby]["players"]] == [
        ("Fay", "human"),
        ("[/]Gus[bold]", "human"),
    ]
    status, out, err = run(capsys, "admin", "tables", "--database-url", url)
    assert status == 0 and playing in out and "Cleo (human)" in out, err
    assert "[/]Gus[bold] (human)" in out  # a name is shown as it is, not as markup

    with watch(server, playing) as watcher:
        announced = announce_and_close(server, url, playing, lobby, watcher, capsys)
    assert server.request("GET", f"/api/games/{playing}")["status"] == "closed"
    status, out, _ = run(capsys, "admin", "tables", "--json", "--database-url", url)
    assert [t["id"] for t in json.loads(out)["tables"]] == [lobby]

    # the closed game's record is exported (its round's seed is revealed now), and checks
    out = tmp_path / "records"
    assert run(capsys, "admin", "export", "--out", str(out), "--database-url", url)[0] == 0
    assert run(capsys, "verify", str(out / f"{playing}.json"))[0] == 0
    assert run(capsys, "record", "replay", str(out / f"{playing}.json"))[0] == 0

    server.stop()  # a server started later shows the announcement that lasts
    server.start()
    with watch(server, lobby) as late:  # and so does a client that comes later
        assert receive(late, "announcement")["text"] == announced
        status, _, err = run(capsys, "admin", "announce", "--clear", "--database-url", url)
        assert status == 0, err
        assert receive(late, "announcement")["text"] == ""
    assert server.request("GET", "/api/announcement")["text"] == ""

    # wrong ids and input: exit status 2, naming what was wrong
    status, _, err = run(capsys, "admin", "close", "nosuchtable", "--database-url", url)
    assert status == 2 and "nosuchtable" in err, err
    status, _, err = run(capsys, "admin", "close", playing, "--database-url", url)
    assert status == 2 and "ended already" in err, err
    status, _, err = run(capsys, "admin", "announce", "x" * 501, "--database-url", url)
    assert status == 2 and "at most 500" in err, err
    status, _, err = run(capsys, "admin", "close", lobby, "--reason", " ", "--database-url", url)
    assert status == 2 and "--reason: the reason is empty" in err, err


def test_a_wrong_database_is_named_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, err = run(capsys, "admin", "tables", "--data-dir", str(tmp_path / "nothing"))
    assert status == 2 and str(tmp_path / "nothing" / "maumau.sqlite3") in err, err
    assert not (tmp_path / "nothing").exists()
    status, _, err = run(capsys, "admin", "tables", "--database-url", "mysql://h/db")
    assert status == 2 and "mysql" in err, err
    wrong = pg_url.rsplit("/", 1)[0] + "/no_such_database"
    status, _, err = run(capsys, "admin", "announce", "hi", "--database-url", wrong)
    assert status == 2 and "no_such_database" in err, err
    # a PostgreSQL database that is not maumau's is left as it is
    status, _, err = run(capsys, "admin", "tables", "--database-url", pg_url)
    assert status == 2 and "no games table" in err, err
    assert os.environ.get("PGPASSWORD") is None or "PGPASSWORD" not in err
    # the database may come from the environment, as serve's does (maumau.cli.env)
    monkeypatch.setenv("MAUMAU_DATA_DIR", str(tmp_path / "elsewhere"))
    status, _, err = run(capsys, "admin", "tables")
    assert status == 2 and str(tmp_path / "elsewhere" / "maumau.sqlite3") in err, err
    monkeypatch.setenv("MAUMAU_DATABASE_URL", wrong)
    status, _, err = run(capsys, "backup", "--to", str(tmp_path / "b.dump"))
    assert status == 2 and "no_such_database" in err, err
    assert not (tmp_path / "b.dump").exists()


def announce_and_close(
    server: Server,
    url: str,
    playing: str,
    lobby: str,
    watcher: ClientConnection,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """Announce, and close the table ``watcher`` watches: it sees both."""
    words = "Maintenance <b>at 10:00</b>"
    status, _, err = run(
        capsys, "admin", "announce", words, "--expires-in", "30", "--database-url", url
    )
    assert status == 0, err
    seen = receive(watcher, "announcement")
    assert seen["text"] == words  # as it was written: the client shows it as text
    assert seen["expires"] == pytest.approx(time.time() + 30 * 60, abs=120)
    assert server.request("GET", "/api/announcement") == seen

    status, out, err = run(
        capsys, "admin", "close", playing, "--reason", "cheating reported", "--database-url", url
    )
    assert status == 0 and "was playing" in out, err
    closed = receive(watcher, "closed")
    assert closed == {"type": "closed", "code": "table_closed", "message": "cheating reported"}
    return words


def test_every_process_on_postgresql_tells_its_clients(
    tmp_path: Path, pg_db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two processes on one PostgreSQL database: a spectator on each sees the
    announcement and the close."""
    servers = [Server(tmp_path / name, database_url=pg_db_url) for name in ("a", "b")]
    try:
        for server in servers:
            server.start()
        playing = running_game(servers[0])
        with watch(servers[0], playing) as first, watch(servers[1], playing) as second:
            status, _, err = run(
                capsys, "admin", "announce", "Back soon", "--database-url", pg_db_url
            )
            assert status == 0, err
            for ws in (first, second):
                assert receive(ws, "announcement") == {
                    "type": "announcement",
                    "text": "Back soon",
                    "expires": None,
                }
            status, _, err = run(capsys, "admin", "close", playing, "--database-url", pg_db_url)
            assert status == 0, err
            for ws in (first, second):
                assert receive(ws, "closed")["code"] == "table_closed"
    finally:
        for server in servers:
            server.stop()


@pytest.mark.anyio
async def test_an_expired_or_withdrawn_announcement_is_not_current(tmp_path: Path) -> None:
    from maumau.store import admin as sql

    (tmp_path / "db").mkdir()
    url = f"sqlite:///{tmp_path / 'db' / 'maumau.sqlite3'}"
    store = await Store.open(url)
    await store.close()
    engine = await sql.open_admin(url)
    try:
        async with engine.begin() as conn:
            assert await sql.announcement(conn, 1000.0) is None
            await sql.add_notice(conn, "announce", "until 1060", 1000.0, expires=1060.0)
            shown = await sql.announcement(conn, 1059.0)
            assert shown is not None and shown.text == "until 1060"
            assert await sql.announcement(conn, 1060.0) is None  # expired
            await sql.add_notice(conn, "announce", "open-ended", 1100.0)
            await sql.add_notice(conn, "close", "a reason", 1101.0, game_id="g")
            shown = await sql.announcement(conn, 10**9)
            assert shown is not None and shown.text == "open-ended"
            await sql.add_notice(conn, "announce", "", 1200.0)  # --clear
            assert await sql.announcement(conn, 1201.0) is None
            assert [n.kind for n in await sql.notices_after(conn, 1)] == [
                "announce",
                "close",
                "announce",
            ]
            assert await sql.last_notice(conn) == 4
    finally:
        await engine.dispose()


@pytest.mark.anyio
async def test_old_notices_are_pruned_but_the_current_announcement_stays(
    tmp_path: Path,
) -> None:
    """Every admin command leaves a row; rows older than ``NOTICE_DAYS`` go when the next
    one is written, except the newest announcement (still shown until it expires or is
    replaced) and the newest row (its id is where a running server reads on from)."""
    from maumau.store import admin as sql

    (tmp_path / "db").mkdir()
    url = f"sqlite:///{tmp_path / 'db' / 'maumau.sqlite3'}"
    await (await Store.open(url)).close()
    engine = await sql.open_admin(url)
    day = 86_400.0
    try:
        async with engine.begin() as conn:
            await sql.add_notice(conn, "announce", "old news", 0.0, expires=day)
            await sql.add_notice(conn, "announce", "kept: the newest announcement", 1.0)
            for n in range(50):
                await sql.add_notice(conn, "close", f"reason {n}", 2.0 + n, game_id=f"g{n}")
            later = (sql.NOTICE_DAYS + 1) * day
            await sql.add_notice(conn, "close", "now", later, game_id="g")
            left = await sql.notices_after(conn, 0)
            assert [n.text for n in left] == ["kept: the newest announcement", "now"]
            shown = await sql.announcement(conn, later)
            assert shown is not None and shown.text == "kept: the newest announcement"
            assert await sql.last_notice(conn) == 53  # ids go on: none is used twice
            await sql.add_notice(conn, "announce", "", later + 1)  # --clear
            assert await sql.announcement(conn, later + 2) is None
            assert await sql.last_notice(conn) == 54
    finally:
        await engine.dispose()


@pytest.mark.anyio
async def test_purge_keeps_a_game_whose_record_cannot_be_made(tmp_path: Path) -> None:
    from maumau.store import GameRow, SeatRow, StepRow

    (tmp_path / "db").mkdir()
    url = f"sqlite:///{tmp_path / 'db' / 'maumau.sqlite3'}"
    seats = tuple(SeatRow(i, name, "human", None, None) for i, name in enumerate(("A", "B")))
    store = await Store.open(url)
    try:
        await store.create_game(GameRow("broken", "finished", {}, {}, 0, seats, 1.0, 1.0))
        await store.append("broken", [StepRow(0, "action", {"seat": 0, "type": "fly"})], 1.0)
    finally:
        await store.close()
    out = tmp_path / "records"
    argv = ["admin", "purge", "--finished-before", "2001-01-01", "--export", str(out)]
    status = await asyncio.to_thread(main, [*argv, "--database-url", url])
    assert status == 2
    rows = await asyncio.to_thread(snapshot, url)
    assert [row[0] for row in rows["games"]] == [repr("broken")]  # kept
    assert not list(out.iterdir())


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
def test_another_users_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run as root against the server user's SQLite file, a command would leave files
    the server cannot open (a -wal of root's, a restored file of root's): refused."""
    data = tmp_path / "data"

    async def make() -> None:
        await (await Store.open(sqlite_url(data / "maumau.sqlite3"))).close()

    asyncio.run(make())
    backup = tmp_path / "backup.db"
    assert run(capsys, "backup", "--to", str(backup), "--data-dir", str(data))[0] == 0
    for path in (data, *data.iterdir()):
        os.chown(path, 65534, 65534)
    status, _, err = run(capsys, "admin", "tables", "--data-dir", str(data))
    assert status == 2 and "belongs to the user" in err and "runuser -u" in err, err
    status, _, err = run(capsys, "restore", "--from", str(backup), "--data-dir", str(data))
    assert status == 2 and "belongs to the user" in err, err
    assert {p.stat().st_uid for p in (data, *data.iterdir())} == {65534}
