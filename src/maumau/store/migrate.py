"""Schema migrations: Alembic, run in code from the scripts shipped in ``migrations/``."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from maumau.store.connect import writer

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

# any constant: the PostgreSQL advisory lock that lets one process migrate at a time
_PG_MIGRATION_LOCK = 0x6D61756D6175  # "maumau"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for the shipped migrations (no alembic.ini needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """The newest migration's revision id."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations have a head"
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision the database on ``connection`` is at (None: never migrated)."""
    return MigrationContext.configure(connection).get_current_revision()


async def upgrade(engine: AsyncEngine) -> None:
    """Bring the database to the newest revision; a database already there is unchanged.

    The whole upgrade is one transaction that holds the database's write lock (SQLite)
    or an advisory lock (PostgreSQL), so processes starting together migrate in turn.
    """
    async with writer(engine).begin() as conn:
        await conn.run_sync(_upgrade)


def _upgrade(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    if current_revision(connection) == head_revision():
        return
    command.upgrade(alembic_config(connection), "head")
