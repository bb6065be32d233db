"""``maumau admin``: the operator's commands against a server's database, while it runs.

``tables`` lists the live tables; ``close`` closes one and ``announce`` shows a message
to every connected client: both leave a notice in the database that every running
server reads within seconds (:mod:`maumau.server.live.notices`).  ``export`` writes the
records of ended games (``docs/record.md``: ``maumau verify`` and ``maumau record
replay`` take them); ``purge`` deletes ended games, after exporting them;
``research-export`` writes the finished games of the tables that allowed it as
research data without names (:mod:`maumau.cli.research_export`).  The database
is named as for ``maumau serve``.  Exit status 0 done, 2 a wrong database, id or
argument (the message names it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from maumau.cli.backup import add_database_arguments, complain, database_of
from maumau.cli.research_export import add_research_export
from maumau.cli.types import count

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from maumau.store.admin import EndedGame

#: games exported and deleted per transaction by ``purge``
BATCH = 50


def add_commands(commands: Any) -> None:
    admin = commands.add_parser(
        "admin",
        help="administer a server's tables and games",
        description="Commands for the operator, against the database of a running server "
        "(or of a stopped one).",
    )
    sub = admin.add_subparsers(dest="admin_command", metavar="SUBCOMMAND")
    admin.set_defaults(handler=lambda args: _help(admin))

    tables = sub.add_parser("tables", help="list the live tables")
    tables.add_argument("--json", action="store_true", help="print JSON instead of a table")
    tables.add_argument("--limit", type=count, default=200, metavar="N", help="at most N")
    tables.set_defaults(handler=cmd_tables)

    close = sub.add_parser(
        "close",
        help="close a live table",
        description="Close the table ID; the clients connected to every running server "
        "are told so, with REASON, within a few seconds.",
    )
    close.add_argument(
        "game_id",
        metavar="ID",
        help="the table's id (as in its link; one that starts with '-' goes after '--': "
        "close -- -Ab3...)",
    )
    close.add_argument("--reason", default="closed by the operator", help="told to its players")
    close.set_defaults(handler=cmd_close)

    announce = sub.add_parser(
        "announce",
        help="show a message to every connected client",
        description="Show MESSAGE (plain text) to every client of every running server, and "
        "to each that connects while it lasts; a new one replaces the last.",
    )
    announce.add_argument("message", nargs="?", metavar="MESSAGE")
    announce.add_argument(
        "--expires-in", type=_minutes, metavar="MINUTES", help="stop showing it after this long"
    )
    announce.add_argument("--clear", action="store_true", help="withdraw the announcement")
    announce.set_defaults(handler=cmd_announce)

    export = sub.add_parser(
        "export",
        help="write the records of ended games",
        description="Write the record (docs/record.md) of every finished or closed game as "
        "DIR/ID.json. A game still being played is never exported: its record would "
        "reveal the current round's seed.",
    )
    export.add_argument("--out", required=True, type=Path, metavar="DIR")
    export.add_argument("--finished-before", metavar="DATE", help="only games ended before")
    export.set_defaults(handler=cmd_export)

    purge = sub.add_parser(
        "purge",
        help="delete ended games, after exporting their records",
        description="Delete the finished and closed games last active before DATE (an ISO "
        "date or time; UTC unless it names its offset), with their seats, steps and "
        "documents, writing their records into --export DIR first.",
    )
    purge.add_argument("--finished-before", required=True, metavar="DATE")
    purge.add_argument("--export", type=Path, metavar="DIR", help="write the records here first")
    purge.add_argument(
        "--no-export", action="store_true", help="delete without exporting the records"
    )
    purge.add_argument("--dry-run", action="store_true", help="only count what would go")
    purge.set_defaults(handler=cmd_purge)

    research = add_research_export(sub)

    for parser in (tables, close, announce, export, purge, research):
        add_database_arguments(parser)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not 0 < value <= 60 * 24 * 365:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most a year, not {text}")
    return value


def parse_date(text: str) -> float:
    """Unix seconds of an ISO date or time (UTC unless it gives its offset)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"--finished-before: not a date: {text!r} (write 2026-11-01 or 2026-11-01T12:00+01:00)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _run(
    command: str, args: argparse.Namespace, body: Callable[[AsyncEngine], Awaitable[int]]
) -> int:
    """Open the database of ``args`` and run ``body`` on it; a wrong database or id, or
    bad input, is a message and exit status 2."""
    from sqlalchemy.exc import DBAPIError

    from maumau.store import StoreError
    from maumau.store.admin import open_admin, reason

    async def main() -> int:
        engine = await open_admin(database_of(args))
        try:
            return await body(engine)
        finally:
            await engine.dispose()

    try:
        return asyncio.run(main())
    except (StoreError, ValueError, OSError) as exc:
        return complain(f"admin {command}", str(exc))
    except DBAPIError as exc:  # the database failed midway
        return complain(f"admin {command}", f"the database failed: {reason(exc)}")


# --- tables, close, announce --------------------------------------------------------------


def cmd_tables(args: argparse.Namespace) -> int:
    from maumau.store import admin as sql

    async def body(engine: AsyncEngine) -> int:
        async with engine.begin() as conn:
            tables, total = await sql.live_tables(conn, args.limit)
        if args.json:
            print(json.dumps({"total": total, "tables": [t.to_json() for t in tables]}, indent=2))
        else:
            _print_tables(tables, total)
        return 0

    return _run("tables", args, body)


def _print_tables(tables: list[Any], total: int) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    shown = Table(title=f"{total} live table(s)", title_justify="left")
    for column in ("id", "status", "players", "preset", "steps", "last activity (UTC)"):
        shown.add_column(
            column,
            justify="right" if column == "steps" else "left",
            no_wrap=column == "id",
            min_width=16 if column == "players" else None,
        )
    for table in tables:
        players = "\n".join(
            f"{p.name} ({p.kind if p.kind == 'human' else f'bot {p.level}'})" for p in table.players
        )
        when = datetime.fromtimestamp(table.last_active_at, UTC).strftime("%Y-%m-%d %H:%M")
        cells = (table.id, table.status, players, table.preset or "-", str(table.steps), when)
        shown.add_row(*(Text(cell) for cell in cells))  # names are text, not rich markup
    # (piped into a file or another program: wide enough that no row is cut)
    console = Console(width=None if sys.stdout.isatty() else 132)
    console.print(shown)
    if total > len(tables):
        console.print(f"... and {total - len(tables)} more (--limit)")


def cmd_close(args: argparse.Namespace) -> int:
    from maumau.store import admin as sql
    from maumau.store.connect import writer

    try:
        reason = sql.check_text(args.reason, "reason")
    except ValueError as exc:
        return complain("admin close", f"--reason: {exc}")

    async def body(engine: AsyncEngine) -> int:
        async with writer(engine).begin() as conn:
            before = await sql.close_table(conn, args.game_id, reason, time.time())
        print(f"maumau admin close: table {args.game_id} closed (it was {before})")
        return 0

    return _run("close", args, body)


def cmd_announce(args: argparse.Namespace) -> int:
    from maumau.store import admin as sql
    from maumau.store.connect import writer

    if args.clear == (args.message is not None):
        return complain("admin announce", "give a MESSAGE, or --clear (not both)")
    try:
        words = "" if args.clear else sql.check_text(args.message, "message")
    except ValueError as exc:
        return complain("admin announce", str(exc))
    now = time.time()
    expires = None if args.expires_in is None else now + args.expires_in * 60

    async def body(engine: AsyncEngine) -> int:
        async with writer(engine).begin() as conn:
            await sql.add_notice(conn, "announce", words, now, expires=expires)
        print("maumau admin announce: " + ("withdrawn" if args.clear else "announced"))
        return 0

    return _run("announce", args, body)


# --- export, purge -------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    from maumau.store import admin as sql

    try:
        before = None if args.finished_before is None else parse_date(args.finished_before)
        out = _out_dir(args.out)
    except (ValueError, OSError) as exc:
        return complain("admin export", str(exc))

    async def body(engine: AsyncEngine) -> int:
        written = failed = 0
        after = ""
        while True:
            async with engine.begin() as conn:
                batch = await sql.ended_games(conn, before, BATCH, after)
            if not batch:
                break
            files, bad = await write_records(engine, batch, out)
            written, failed = written + len(files), failed + len(bad)
            after = batch[-1].id
        print(f"maumau admin export: {written} record(s) written to {out}")
        if failed:
            return complain("admin export", f"{failed} game(s) had no record (see above)")
        return 0

    return _run("export", args, body)


def cmd_purge(args: argparse.Namespace) -> int:
    from maumau.store import admin as sql
    from maumau.store.connect import writer

    try:
        before = parse_date(args.finished_before)
        if args.no_export and args.export is not None:
            raise ValueError("give --export DIR or --no-export, not both")
        if not args.no_export and args.export is None:
            raise ValueError(
                "--export DIR is needed (the records are written first), "
                "or --no-export to delete them unexported"
            )
        out = None if args.export is None or args.dry_run else _out_dir(args.export)
    except (ValueError, OSError) as exc:
        return complain("admin purge", str(exc))

    async def body(engine: AsyncEngine) -> int:
        purged = exported = 0
        kept: list[str] = []  # games whose record could not be made: not deleted
        after = ""
        while True:
            async with engine.begin() as conn:
                batch = await sql.ended_games(conn, before, BATCH, after)
            if not batch:
                break
            after = batch[-1].id
            if args.dry_run:
                purged += len(batch)
                continue
            doomed = [game.id for game in batch]
            if out is not None:
                files, bad = await write_records(engine, batch, out)
                exported += len(files)
                kept += bad
                doomed = [game_id for game_id in doomed if game_id not in bad]
            async with writer(engine).begin() as conn:
                purged += await sql.delete_games(conn, doomed)
        verb = "would be purged" if args.dry_run else "purged"
        where = f"; {exported} record(s) written to {out}" if out is not None else ""
        print(f"maumau admin purge: {purged} game(s) {verb}{where}")
        if kept:
            return complain("admin purge", f"{len(kept)} game(s) kept: no record (see above)")
        return 0

    return _run("purge", args, body)


def _out_dir(path: Path) -> Path:
    from maumau.store.files import private_directory

    path = path.expanduser().resolve()
    private_directory(path)
    return path


async def write_records(
    engine: AsyncEngine, batch: list[EndedGame], out: Path
) -> tuple[list[Path], list[str]]:
    """Write the record of each game of ``batch`` that had started as ``out/ID.json``
    (a closed table whose game never started has none); the files written, and the ids
    of the games whose record could not be made (each said on standard error)."""
    from maumau.engine import EngineError
    from maumau.store import exports, queries

    written, failed = [], []
    for game in batch:
        async with engine.begin() as conn:
            stored = await exports.export(conn, game.id, "record")
            steps = None if stored is not None else await queries.steps_json(conn, game.id)
        try:
            document = record_document(game, stored, steps)
        except (EngineError, ValueError, KeyError, TypeError) as exc:
            print(f"maumau admin: game {game.id}: no record: {exc}", file=sys.stderr)
            failed.append(game.id)
            continue
        if document is not None:
            written.append(_write_private(out / f"{game.id}.json", document))
    return written, failed


def record_document(game: EndedGame, stored: bytes | None, steps: str | None) -> bytes | None:
    """A game's record as JSON: the one the server stored (gzip), or made from its
    steps; ``None`` for a game that never started."""
    import gzip

    import orjson

    from maumau.engine import record_of
    from maumau.server.live.replays import game_of

    if stored is not None:
        return gzip.decompress(stored)
    if steps is None or steps == "[]":
        return None
    made = game_of(game.options, game.players, orjson.loads(steps))
    return orjson.dumps(record_of(made).to_json())


def _write_private(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file (mode 0600) and a rename."""
    from maumau.store.backup import private_temporary, publish

    with private_temporary(path) as temporary:
        temporary.write_bytes(data)
        publish(temporary, path)
    return path
