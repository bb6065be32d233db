"""Backups of the database, and restoring one.

SQLite: a consistent copy made while the server runs, with SQLite's online backup API
(one read transaction: a snapshot, which in WAL mode never holds up the server's
writes), checked with ``PRAGMA quick_check``.  PostgreSQL: ``pg_dump`` in its custom
format, restored with ``pg_restore``; both must be on ``PATH``.

A backup holds every round's seed and the seat tokens' hashes, so it is written as a
temporary file of mode 0600 beside its target, made durable, then renamed onto it: a
failed backup never leaves a half-written file under the target's name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO
from urllib.parse import quote

from sqlalchemy.engine import URL, make_url

from maumau.store.files import COMPANIONS, FILE_MODE, check_owner, private_database
from maumau.store.notify import APPLICATION
from maumau.store.urls import database_url, redact, sqlite_file

#: a PostgreSQL database with a connection of this application_name is served by a
#: running server (its change-notice listener)
LISTENER = APPLICATION


class BackupError(Exception):
    """The backup or the restore could not be made; the message says why."""


@contextlib.contextmanager
def private_temporary(target: Path) -> Iterator[Path]:
    """A new, empty file of mode 0600 beside ``target``, removed unless the body
    renamed it away."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.partial")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    os.close(fd)
    try:
        yield temporary
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def publish(temporary: Path, target: Path) -> None:
    """Make ``temporary`` durable and rename it onto ``target``."""
    with open(temporary, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, target)
    with contextlib.suppress(OSError):  # the rename itself, durable
        fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# --- SQLite ------------------------------------------------------------------------------


def read_only(path: Path) -> str:
    """The URI that opens the SQLite file ``path`` read-only (``?``, ``#`` or ``%`` in
    the path quoted, not read as the URI's own)."""
    return f"file:{quote(str(path))}?mode=ro"


def _sqlite_copy(source: Path, target: Path) -> None:
    """Copy the SQLite database ``source`` into the (empty) file ``target`` through
    the backup API, and check the copy."""
    src = sqlite3.connect(read_only(source), uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            (verdict,) = dst.execute("PRAGMA quick_check").fetchone()
        finally:
            dst.close()
    finally:
        src.close()
    if verdict != "ok":
        raise BackupError(f"the copy of {source} failed its check: {verdict}")


def backup_sqlite(source: Path, target: Path) -> None:
    if not source.is_file():
        raise BackupError(f"there is no database file {source}")
    own = {source.resolve(), *(source.resolve().with_name(source.name + s) for s in COMPANIONS)}
    if target.resolve() in own:
        raise BackupError(f"--to {target} is the database itself; name another file")
    with private_temporary(target) as temporary:
        try:
            _sqlite_copy(source, temporary)
        except sqlite3.Error as exc:
            raise BackupError(f"{source} could not be copied: {exc}") from exc
        publish(temporary, target)


def sqlite_in_use(path: Path) -> bool:
    """Whether another connection has the SQLite database ``path`` open (a running
    server keeps its connections open).  In WAL mode every open connection holds a
    shared lock on the file, so an exclusive lock is refused at once."""
    if not path.is_file():
        return False
    conn = sqlite3.connect(path, timeout=0)
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.rollback()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        raise BackupError(f"{path} could not be opened: {exc}") from exc
    finally:
        conn.close()
    return False


def check_backup(path: Path) -> int:
    """Check that ``path`` is a maumau SQLite backup; the number of games it holds."""
    try:
        conn = sqlite3.connect(read_only(path), uri=True)
        try:
            (verdict,) = conn.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise BackupError(f"{path} is damaged: {verdict}")
            (count,) = conn.execute("SELECT count(*) FROM games").fetchone()
            (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        finally:
            conn.close()
    except (sqlite3.DatabaseError, TypeError) as exc:
        raise BackupError(f"{path} is not a maumau SQLite backup: {exc}") from exc
    if not known_revision(revision):
        raise BackupError(
            f"{path} was made by a newer maumau (schema revision {revision}): "
            "restore it with that version"
        )
    return int(count)


def known_revision(revision: str) -> bool:
    """Whether this version's migrations know the schema revision ``revision``."""
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    from maumau.store.migrate import alembic_config

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def games_in(path: Path) -> int:
    """How many games the SQLite database ``path`` holds (0: none, or no such file)."""
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    conn = sqlite3.connect(read_only(path), uri=True)
    try:
        (count,) = conn.execute("SELECT count(*) FROM games").fetchone()
    except sqlite3.OperationalError:  # no games table: an empty database
        return 0
    finally:
        conn.close()
    return int(count)


def restore_sqlite(source: Path, target: Path, force: bool) -> int:
    """Replace the SQLite database ``target`` with the backup ``source``; the number
    of games restored.  Refused while a server has ``target`` open, and (unless
    ``force``) when it holds games."""
    restored = check_backup(source)
    check_owner(target)
    if sqlite_in_use(target):
        raise BackupError(f"{target} is open in a running server: stop it first")
    held = games_in(target)
    if held and not force:
        raise BackupError(
            f"{target} holds {held} game(s): restore over it with --force "
            "(its games are lost), or restore into another --data-dir"
        )
    private_database(target)  # the directory (0700), as the server makes it
    with private_temporary(target) as temporary:
        try:
            _sqlite_copy(source, temporary)
        except sqlite3.Error as exc:
            raise BackupError(f"{source} could not be read: {exc}") from exc
        for suffix in COMPANIONS:  # the old database's journal must not meet the new one
            with contextlib.suppress(FileNotFoundError):
                target.with_name(target.name + suffix).unlink()
        publish(temporary, target)
    return restored


# --- PostgreSQL --------------------------------------------------------------------------


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """The libpq URI of ``url`` without its password, and the environment that gives
    the password (never on a command line, which every user can read)."""
    parsed: URL = make_url(database_url(url))
    env = dict(os.environ)
    if parsed.password is not None:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not on PATH: install PostgreSQL's client programs "
            "(Debian: apt-get install postgresql-client), of the server's version or newer"
        )
    return found


def _run(
    command: list[str], env: dict[str, str], what: str, url: str, stdout: IO[bytes] | None = None
) -> None:
    done = subprocess.run(
        command, env=env, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        detail = message[-1] if message else f"exit status {done.returncode}"
        raise BackupError(f"{what} of {redact(url)} failed: {detail}")


def backup_postgresql(url: str, target: Path) -> None:
    """``pg_dump --format=custom`` of the database at ``url`` into ``target``."""
    program = _program("pg_dump")
    dsn, env = libpq(url)
    with private_temporary(target) as temporary:
        with open(temporary, "wb") as out:
            _run([program, "--format=custom", "--no-owner", dsn], env, "pg_dump", url, stdout=out)
        publish(temporary, target)


def restore_postgresql(url: str, source: Path, force: bool, games: int, servers: int) -> None:
    """``pg_restore`` of the dump ``source`` into the database at ``url``, which holds
    ``games`` games and is served by ``servers`` running servers."""
    program = _program("pg_restore")
    if not source.is_file():
        raise BackupError(f"there is no backup file {source}")
    if servers:
        raise BackupError(f"{servers} server(s) are running on {redact(url)}: stop them first")
    if games and not force:
        raise BackupError(
            f"{redact(url)} holds {games} game(s): restore over it with --force "
            "(its games are lost), or into an empty database"
        )
    dsn, env = libpq(url)
    # --clean: the tables a server made (empty, or --force) give way to the backup's
    command = [program, "--no-owner", "--single-transaction", "--exit-on-error"]
    command += ["--clean", "--if-exists", "--dbname", dsn, str(source)]
    _run(command, env, "pg_restore", url)


def is_sqlite(url: str) -> Path | None:
    """The file of an SQLite ``url`` (None: PostgreSQL)."""
    path = sqlite_file(database_url(url))
    if path is None and database_url(url).startswith("sqlite"):
        raise BackupError("an in-memory SQLite database has nothing to back up")
    return path
