"""Schema migrations: Alembic, run in code from the scripts shipped in ``migrations/``.

Alembic (and the Mako and Pygments it loads) costs about a second at each start, so it is
imported only when a database is behind :data:`HEAD_REVISION` and must be migrated: a database
already at the head is recognised by reading its ``alembic_version`` table directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from maumau.store.connect import writer

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

#: the newest migration's revision: raise it with each new script in ``migrations/versions``
#: (a test checks that it is Alembic's head)
HEAD_REVISION = "0007"

# Alembic's bookkeeping table: one row, the revision the database is at
_VERSION_TABLE = "alembic_version"

# any constant: the PostgreSQL advisory lock that lets one process migrate at a time
_PG_MIGRATION_LOCK = 0x6D61756D6175  # "maumau"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for the shipped migrations (no alembic.ini needed)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """The newest migration's revision id, as Alembic reads it from the scripts."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations have a head"
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision the database on ``connection`` is at (None: never migrated)."""
    if not inspect(connection).has_table(_VERSION_TABLE):
        return None
    rows = connection.execute(text(f"SELECT version_num FROM {_VERSION_TABLE}")).scalars().all()
    if len(rows) > 1:
        raise RuntimeError(f"the database is at several revisions at once: {sorted(rows)}")
    return rows[0] if rows else None


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
    if current_revision(connection) == HEAD_REVISION:
        return
    from alembic import command

    command.upgrade(alembic_config(connection), "head")
