"""Engines: one async SQLAlchemy engine per store, set up for its database.

SQLite runs in WAL mode with full syncing and foreign keys, and its transactions are
begun by the store itself (``BEGIN`` to read, ``BEGIN IMMEDIATE`` to write) so that a
read sees one snapshot and writers queue on the database lock instead of failing.
PostgreSQL uses asyncpg with a modest, pre-pinged pool.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

# execution option naming how an SQLite transaction begins: "BEGIN" or "BEGIN IMMEDIATE"
SQLITE_BEGIN = "maumau_sqlite_begin"

SQLITE_PRAGMAS = (
    "PRAGMA busy_timeout=5000",  # first: switching to WAL may have to wait for the lock
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
)

#: how long a new connection keeps trying to switch a new database to WAL while other
#: connections switch it too (see :func:`execute_while_locked`)
WAL_SWITCH_SECONDS = 5.0

PG_CONNECT_TIMEOUT = 10.0  # seconds to wait for a PostgreSQL server to answer


def upsert_into(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into ``table`` that can say what a conflict does
    (``on_conflict_do_nothing`` / ``on_conflict_do_update``), in ``dialect``'s SQL
    (``"postgresql"``; otherwise SQLite's)."""
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


def make_engine(url: str) -> AsyncEngine:
    """A new engine for the (async driver) ``url``; it connects on first use."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url)
        event.listen(engine.sync_engine, "connect", _sqlite_connect)
        event.listen(engine.sync_engine, "begin", _sqlite_begin)
        return engine
    connect_args: dict[str, Any] = {}
    if url.startswith("postgresql+asyncpg"):
        connect_args["timeout"] = PG_CONNECT_TIMEOUT
    return create_async_engine(
        url,
        pool_size=10,
        max_overflow=10,
        pool_pre_ping=True,
        connect_args=connect_args,
    )


# execution options of write transactions: on SQLite they take the write lock up front
_WRITES = {SQLITE_BEGIN: "BEGIN IMMEDIATE"}


def writer(engine: AsyncEngine) -> AsyncEngine:
    """``engine`` for write transactions (on SQLite they take the write lock up front)."""
    return engine.execution_options(**_WRITES)


def sqlite_writer(path: Path) -> Engine:
    """A synchronous engine for write transactions on the SQLite file at ``path``,
    set up as :func:`make_engine` does; for the store's writer thread only."""
    engine = create_engine(URL.create("sqlite", database=str(path)))
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine.execution_options(**_WRITES)


def _sqlite_connect(dbapi_connection: Any, connection_record: Any) -> None:
    # the driver must not begin transactions on its own: _sqlite_begin does
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        set_pragmas(cursor)
    finally:
        cursor.close()


def set_pragmas(cursor: Any) -> None:
    """Every connection's :data:`SQLITE_PRAGMAS`, through ``cursor`` (a DB-API cursor or
    a ``sqlite3.Connection``), each tried again while a new database is locked."""
    for pragma in SQLITE_PRAGMAS:
        execute_while_locked(cursor, pragma)


def execute_while_locked(cursor: Any, sql: str, seconds: float = WAL_SWITCH_SECONDS) -> None:
    """Execute ``sql``, again and again for up to ``seconds`` while SQLite says the
    database is locked.

    When several connections switch a new database to WAL at once, SQLite answers
    ``journal_mode=WAL`` with "database is locked" at once instead of waiting for
    ``busy_timeout``.  Only a new database's first connections meet this (once the file
    is in WAL mode the switch changes nothing), so the wait, which blocks because it
    runs inside the driver's connect, lasts milliseconds."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            cursor.execute(sql)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(0.01)


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql(conn.get_execution_options().get(SQLITE_BEGIN, "BEGIN"))
