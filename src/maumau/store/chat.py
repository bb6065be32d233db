"""A table's chat in the store: its last lines and what the host allows.

The lines of a table are kept in ``chat_lines``; each new one prunes the table's
lines to the last ``keep``.  They are never part of the game record, and they go with
their table (``ON DELETE CASCADE``: ``maumau admin purge``).  On PostgreSQL each change
is also told to the other server processes, in the same transaction, as a notice on
:data:`CHANNEL`: ``"<origin> <game id> <message>"``, where ``message`` is the JSON of
the protocol message their players are sent (a chat line, a reaction, the settings).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store.connect import upsert_into
from maumau.store.schema import chat_lines, chat_settings

CHANNEL = "maumau_chat"
#: a PostgreSQL notice's payload is at most 8000 bytes; a message is far shorter
MAX_NOTICE_BYTES = 7900

_NOTIFY = text(f"SELECT pg_notify('{CHANNEL}', :payload)")


@dataclass(frozen=True)
class ChatRow:
    id: int
    seat: int | None
    name: str | None
    text: str
    created_at: float


@dataclass(frozen=True)
class ChatSettingsRow:
    #: chat is on at the table
    chat: bool = True
    #: spectators may chat too (reactions they may always send)
    spectators: bool = False


async def add_line(
    conn: AsyncConnection,
    game_id: str,
    seat: int | None,
    name: str | None,
    words: str,
    now: float,
    keep: int,
) -> ChatRow:
    """Store a line of ``game_id``'s chat and prune its lines to the last ``keep``."""
    result = await conn.execute(
        insert(chat_lines)
        .values(game_id=game_id, seat=seat, name=name, text=words, created_at=now)
        .returning(chat_lines.c.id)
    )
    line_id = int(result.scalar_one())
    oldest = (
        select(chat_lines.c.id)
        .where(chat_lines.c.game_id == game_id)
        .order_by(chat_lines.c.id.desc())
        .offset(keep - 1)
        .limit(1)
        .scalar_subquery()
    )
    await conn.execute(
        delete(chat_lines).where(chat_lines.c.game_id == game_id, chat_lines.c.id < oldest)
    )
    return ChatRow(line_id, seat, name, words, now)


async def lines(conn: AsyncConnection, game_id: str, keep: int) -> list[ChatRow]:
    """The last ``keep`` lines of ``game_id``'s chat, oldest first."""
    rows = (
        await conn.execute(
            select(chat_lines)
            .where(chat_lines.c.game_id == game_id)
            .order_by(chat_lines.c.id.desc())
            .limit(keep)
        )
    ).all()
    return [ChatRow(r.id, r.seat, r.name, r.text, r.created_at) for r in reversed(rows)]


async def count(conn: AsyncConnection, game_id: str) -> int:
    """How many lines of ``game_id``'s chat are stored."""
    query = select(func.count()).select_from(chat_lines).where(chat_lines.c.game_id == game_id)
    return int((await conn.execute(query)).scalar_one())


async def settings(conn: AsyncConnection, game_id: str) -> ChatSettingsRow:
    """What the host allows in ``game_id``'s chat (the defaults if never changed)."""
    row = (
        await conn.execute(select(chat_settings).where(chat_settings.c.game_id == game_id))
    ).one_or_none()
    return ChatSettingsRow() if row is None else ChatSettingsRow(row.chat, row.spectators)


async def set_settings(conn: AsyncConnection, game_id: str, chosen: ChatSettingsRow) -> None:
    """Store the table's settings: one upsert, so two processes storing a table's first
    settings at once both succeed (the later one's values stay)."""
    values = {"chat": chosen.chat, "spectators": chosen.spectators}
    statement = upsert_into(conn.dialect.name, chat_settings).values(game_id=game_id, **values)
    await conn.execute(
        statement.on_conflict_do_update(index_elements=[chat_settings.c.game_id], set_=values)
    )


async def notify(conn: AsyncConnection, origin: str, game_id: str, message: str) -> None:
    """Tell the other server processes (PostgreSQL) ``message`` for ``game_id``'s
    players, when ``conn``'s transaction commits."""
    payload = f"{origin} {game_id} {message}"
    if len(payload.encode()) <= MAX_NOTICE_BYTES:
        await conn.execute(_NOTIFY, {"payload": payload})
