"""``maumau backup`` and ``maumau restore``: the database to a file and back.

SQLite: a consistent copy made while the server runs (SQLite's online backup API).
PostgreSQL: ``pg_dump --format=custom`` and ``pg_restore``, which must be on ``PATH``.
The database is named as for ``maumau serve``: ``--data-dir`` or ``--database-url``.
Exit status 0 done, 2 refused or failed (the message says why).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any


def add_database_arguments(parser: Any) -> None:
    """``--data-dir`` and ``--database-url``, as ``maumau serve`` takes them."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("maumau-data"),
        help="the server's data directory, holding maumau.sqlite3 (default maumau-data)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB instead of the data directory",
    )


def database_of(args: argparse.Namespace) -> str:
    """The database URL ``maumau serve`` would use with these arguments (``ValueError``
    for an unusable ``--database-url``)."""
    from maumau.store import database_url, sqlite_url

    if args.database_url:
        return database_url(args.database_url)
    return sqlite_url(args.data_dir / "maumau.sqlite3")


def complain(command: str, message: str) -> int:
    print(f"maumau {command}: {message}", file=sys.stderr)
    return 2


def add_commands(commands: Any) -> None:
    backup = commands.add_parser(
        "backup",
        help="copy the database into a file, while the server runs",
        description="Write a consistent copy of the database to FILE (mode 0600: it holds "
        "every game's seeds and the seat tokens' hashes), replacing FILE only once the copy "
        "is complete. SQLite: an online copy, safe while the server runs. PostgreSQL: "
        "pg_dump's custom format (pg_dump must be on PATH). Exit status 0 written, 2 failed.",
    )
    backup.add_argument("--to", required=True, type=Path, metavar="FILE", help="the backup file")
    add_database_arguments(backup)
    backup.set_defaults(handler=cmd_backup)

    restore = commands.add_parser(
        "restore",
        help="put a backup back into the database",
        description="Replace the database with the backup FILE. Refused while a server runs "
        "on the database (stop it first), and, unless --force, when the database holds "
        "games. SQLite: the file is replaced. PostgreSQL: pg_restore into the database "
        "given by --database-url, which must exist. Exit status 0 restored, 2 refused.",
    )
    restore.add_argument(
        "--from", dest="source", required=True, type=Path, metavar="FILE", help="the backup"
    )
    restore.add_argument(
        "--force", action="store_true", help="restore over a database that holds games"
    )
    add_database_arguments(restore)
    restore.set_defaults(handler=cmd_restore)


def cmd_backup(args: argparse.Namespace) -> int:
    from maumau.store.backup import BackupError, backup_postgresql, backup_sqlite, is_sqlite
    from maumau.store.urls import redact

    target: Path = args.to.expanduser().resolve()
    if target.is_dir():
        return complain("backup", f"--to {target} is a directory; name the backup file")
    if not target.parent.is_dir():
        return complain("backup", f"--to: there is no directory {target.parent}")
    try:
        url = database_of(args)
        path = is_sqlite(url)
        if path is not None:
            backup_sqlite(path, target)
        else:
            backup_postgresql(url, target)
    except (ValueError, BackupError, OSError) as exc:
        return complain("backup", str(exc))
    shown = str(path) if path is not None else redact(args.database_url)
    print(f"maumau backup: {shown} -> {target}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from maumau.store.backup import BackupError, is_sqlite, restore_postgresql, restore_sqlite
    from maumau.store.urls import redact

    source: Path = args.source.expanduser().resolve()
    if not source.is_file():
        return complain("restore", f"--from: there is no backup file {source}")
    try:
        url = database_of(args)
        path = is_sqlite(url)
        if path is not None:
            games = restore_sqlite(source, path, args.force)
            print(f"maumau restore: {source} -> {path} ({games} game(s))")
            return 0
        held, servers = asyncio.run(postgresql_state(url))
        restore_postgresql(url, source, args.force, held, servers)
    except (ValueError, BackupError, OSError) as exc:
        return complain("restore", str(exc))
    except Exception as exc:  # the database could not be reached
        from maumau.store.admin import reason

        return complain("restore", f"database {redact(url)} unavailable: {reason(exc)}")
    print(f"maumau restore: {source} -> {redact(args.database_url)}")
    return 0


async def postgresql_state(url: str) -> tuple[int, int]:
    """How many games the PostgreSQL database at ``url`` holds (0: it has no games
    table), and how many running servers listen on it."""
    from sqlalchemy import inspect, text

    from maumau.store.backup import LISTENER
    from maumau.store.connect import make_engine

    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
            games = 0
            if "games" in names:
                games = (await conn.execute(text("SELECT count(*) FROM games"))).scalar_one()
            servers = (
                await conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND application_name = :name"
                    ),
                    {"name": LISTENER},
                )
            ).scalar_one()
    finally:
        await engine.dispose()
    return int(games), int(servers)
