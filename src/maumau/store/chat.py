"""A table's chat in the store: its last lines and what the host allows.

The lines of a table are kept in ``chat_lines``, written in batches
(:mod:`maumau.store.chat_buffer`); each batch prunes its tables' lines to the last
``keep``.  They are never part of the game record, and they go with
their table (``ON DELETE CASCADE``: ``maumau admin purge``).  On PostgreSQL each change
is also told to the other server processes (a line as it takes its id, not when it is
written; the settings in the transaction that stores them), as a notice on
:data:`CHANNEL`: ``"<origin> <game id> <message>"``, where ``message`` is the JSON of
the protocol message their players are sent (a chat line, a reaction, the settings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store.connect import upsert_into
from maumau.store.schema import chat_lines, chat_settings

CHANNEL = "maumau_chat"
#: a PostgreSQL notice's payload is at most 8000 bytes; a message is far shorter
MAX_NOTICE_BYTES = 7900

_NOTIFY = text(f"SELECT pg_notify('{CHANNEL}', :payload)")
_NEXT_IDS = text(
    "SELECT nextval(pg_get_serial_sequence('chat_lines', 'id')) FROM generate_series(1, :count)"
)
#: a notice need not be durable: its transaction does not wait for the disk
_NO_SYNC = text("SET LOCAL synchronous_commit TO OFF")


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
    #: spectators may chat too
    spectators: bool = False
    #: spectators may react
    spectator_reactions: bool = True


async def next_ids(conn: AsyncConnection, count: int) -> list[int]:
    """``count`` new line ids from PostgreSQL's sequence of ``chat_lines`` (unique
    across processes, without writing anything)."""
    result = await conn.execute(_NEXT_IDS, {"count": count})
    return [int(i) for i in result.scalars()]


async def last_id(conn: AsyncConnection) -> int:
    """The highest line id stored (0: none)."""
    return int((await conn.execute(select(func.max(chat_lines.c.id)))).scalar_one() or 0)


async def add_lines(conn: AsyncConnection, rows: Sequence[tuple[str, ChatRow]], keep: int) -> None:
    """Store lines (each with its game's id, and its own id already chosen), then
    prune each of their games' lines to the last ``keep``."""
    if not rows:
        return
    await conn.execute(
        insert(chat_lines),
        [
            {
                "id": row.id,
                "game_id": game_id,
                "seat": row.seat,
                "name": row.name,
                "text": row.text,
                "created_at": row.created_at,
            }
            for game_id, row in rows
        ],
    )
    oldest = (
        select(chat_lines.c.id)
        .where(chat_lines.c.game_id == bindparam("game"))
        .order_by(chat_lines.c.id.desc())
        .offset(keep - 1)
        .limit(1)
        .scalar_subquery()
    )
    await conn.execute(
        delete(chat_lines).where(
            chat_lines.c.game_id == bindparam("game"), chat_lines.c.id < oldest
        ),
        [{"game": game_id} for game_id in dict.fromkeys(g for g, _ in rows)],
    )


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
    if row is None:
        return ChatSettingsRow()
    return ChatSettingsRow(row.chat, row.spectators, row.spectator_reactions)


async def set_settings(conn: AsyncConnection, game_id: str, chosen: ChatSettingsRow) -> None:
    """Store the table's settings: one upsert, so two processes storing a table's first
    settings at once both succeed (the later one's values stay)."""
    values = {
        "chat": chosen.chat,
        "spectators": chosen.spectators,
        "spectator_reactions": chosen.spectator_reactions,
    }
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


async def quick(conn: AsyncConnection) -> None:
    """Let ``conn``'s transaction commit without waiting for the disk (PostgreSQL): for
    a transaction that only tells notices and takes ids, nothing of which must last."""
    await conn.execute(_NO_SYNC)
