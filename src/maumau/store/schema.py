"""The database schema (SQLAlchemy Core): games, their seats, their append-only steps,
the tokens of seats removed from them, finished games' documents, and the notices
``maumau admin`` leaves for the running servers, and each table's chat.

``migrations/versions`` creates exactly these tables; a test keeps the two in step.
Constraint names follow ``NAMING`` so that every database names them alike.  On SQLite
the migrations also add a trigger that sets a game's ``last_active_at`` from each step
appended to it (revision 0002; :mod:`maumau.store.appender` relies on it).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    true,
)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("status", String(16), nullable=False),  # lobby | playing | finished | closed
    Column("options", JSON, nullable=False),  # the record's options object
    Column("settings", JSON, nullable=False),  # table settings
    Column("host", Integer, nullable=False),  # the host's seat position
    Column("created_at", Float, nullable=False),  # unix seconds
    Column("last_active_at", Float, nullable=False),
    Column("rematch_of", String(32), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Index(None, "status", "last_active_at"),
)

seats = Table(
    "seats",
    metadata,
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("position", Integer, primary_key=True, autoincrement=False),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # human | bot
    Column("level", String(32), nullable=True),  # bot level; None for humans
    Column("token_hash", String(64), nullable=True),  # hex SHA-256 of the seat token
    Index(None, "token_hash"),
)

steps = Table(
    "steps",
    metadata,
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # the primary key (game_id, seq) is what lets only one writer append a given step
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),  # deal | action
    Column("data", JSON, nullable=False),
    Column("client_id", String(64), nullable=True),
    Column("created_at", Float, nullable=False),
)

#: token hashes of seats removed from a game's lobby (their tokens get ``seat_removed``)
removed_seats = Table(
    "removed_seats",
    metadata,
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("token_hash", String(64), primary_key=True),
)

#: documents made once from a finished (or closed) game's steps, kept so that they are
#: never made again: ``kind`` ``record`` or ``replay``, ``body`` gzip-compressed JSON
exports = Table(
    "exports",
    metadata,
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("kind", String(16), primary_key=True),
    Column("body", LargeBinary, nullable=False),
)

#: what ``maumau admin`` asks of every running server, read by id (each server keeps the
#: last id it has seen): ``kind`` ``announce`` (``text`` shown to every client until
#: ``expires``, unix seconds; ``None``: until the next one) or ``close`` (the table
#: ``game_id`` was closed; ``text`` is the reason its players are told)
admin_notices = Table(
    "admin_notices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("game_id", String(32), nullable=True),
    Column("text", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=True),
)

#: a table's chat (:mod:`maumau.store.chat`): its last lines (at most ``KEEP`` of
#: them, older ones are pruned as new ones come), never part of the game record.
#: ``seat`` is the writer's seat (``None``: a spectator), ``name`` its name then.
chat_lines = Table(
    "chat_lines",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("name", String(64), nullable=True),
    Column("text", String(1000), nullable=False),
    Column("created_at", Float, nullable=False),
    Index(None, "game_id", "id"),
)

#: what the host allows in a table's chat; a table without a row has the defaults
#: (chat on for players, off for spectators; spectators may react)
chat_settings = Table(
    "chat_settings",
    metadata,
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("chat", Boolean, nullable=False),
    Column("spectators", Boolean, nullable=False),
    Column("spectator_reactions", Boolean, nullable=False, server_default=true()),
)
