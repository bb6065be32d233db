"""The SQL the store runs inside its transactions: reading and writing rows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Text, cast, exists, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store.errors import UnknownGame
from maumau.store.rows import GameRow, SeatRow, StepRow
from maumau.store.schema import games, removed_seats
from maumau.store.schema import seats as seats_table
from maumau.store.schema import steps as steps_table


async def game(conn: AsyncConnection, game_id: str) -> GameRow | None:
    row = (await conn.execute(select(games).where(games.c.id == game_id))).one_or_none()
    if row is None:
        return None
    return GameRow(
        id=row.id,
        status=row.status,
        options=row.options,
        settings=row.settings,
        host=row.host,
        seats=await seats(conn, game_id),
        created_at=row.created_at,
        last_active_at=row.last_active_at,
        rematch_of=row.rematch_of,
        rematch_id=row.rematch_id,
        removed=await removed(conn, game_id),
    )


async def game_ids(conn: AsyncConnection, statuses: Sequence[str]) -> list[str]:
    """The ids of the games in one of ``statuses``, oldest first."""
    query = select(games.c.id).where(games.c.status.in_(list(statuses)))
    query = query.order_by(games.c.created_at, games.c.id)
    return list((await conn.execute(query)).scalars())


async def set_rematch(conn: AsyncConnection, game_id: str, rematch_id: str) -> str | None:
    """Link ``game_id`` to ``rematch_id`` unless it has a rematch; the one it has now
    (``None``: no such game)."""
    await conn.execute(
        update(games)
        .where(games.c.id == game_id, games.c.rematch_id.is_(None))
        .values(rematch_id=rematch_id)
    )
    stored = (
        await conn.execute(select(games.c.rematch_id).where(games.c.id == game_id))
    ).one_or_none()
    return None if stored is None else str(stored.rematch_id)


async def removed(conn: AsyncConnection, game_id: str) -> tuple[str, ...]:
    """The token hashes of the seats removed from ``game_id``, in order."""
    rows = await conn.execute(
        select(removed_seats.c.token_hash)
        .where(removed_seats.c.game_id == game_id)
        .order_by(removed_seats.c.token_hash)
    )
    return tuple(rows.scalars())


async def knows_token(conn: AsyncConnection, game_id: str, token_hash: str) -> bool:
    """Whether ``token_hash`` holds a seat at ``game_id`` or held one removed from it."""
    held = select(seats_table.c.position).where(
        seats_table.c.game_id == game_id, seats_table.c.token_hash == token_hash
    )
    gone = select(removed_seats.c.token_hash).where(
        removed_seats.c.game_id == game_id, removed_seats.c.token_hash == token_hash
    )
    found = await conn.execute(select(exists(held) | exists(gone)))
    return bool(found.scalar())


async def insert_removed(conn: AsyncConnection, game_id: str, token_hashes: Sequence[str]) -> None:
    if token_hashes:
        await conn.execute(
            insert(removed_seats),
            [{"game_id": game_id, "token_hash": h} for h in token_hashes],
        )


async def seats(conn: AsyncConnection, game_id: str) -> tuple[SeatRow, ...]:
    seat_rows = await conn.execute(
        select(seats_table).where(seats_table.c.game_id == game_id).order_by(seats_table.c.position)
    )
    return tuple(
        SeatRow(
            position=seat.position,
            name=seat.name,
            kind=seat.kind,
            level=seat.level,
            token_hash=seat.token_hash,
        )
        for seat in seat_rows
    )


#: a read of more steps than this decodes their JSON off the event loop (a long game's
#: 17,000 steps take about 0.1 s to decode: every table would wait meanwhile)
DECODE_INLINE_STEPS = 500

#: the steps' columns, ``data`` as the JSON text it is stored as (decoded by
#: :func:`decoded_steps`, not by SQLAlchemy's result processing on the event loop)
_STEP_COLUMNS = (
    steps_table.c.seq,
    steps_table.c.kind,
    cast(steps_table.c.data, Text).label("data"),
    steps_table.c.client_id,
    steps_table.c.created_at,
)


async def steps(conn: AsyncConnection, game_id: str, after: int) -> list[StepRow]:
    result = await conn.execute(
        select(*_STEP_COLUMNS)
        .where(steps_table.c.game_id == game_id, steps_table.c.seq > after)
        .order_by(steps_table.c.seq)
    )
    first = decoded_steps(result.fetchmany(DECODE_INLINE_STEPS))
    if len(first) < DECODE_INLINE_STEPS:
        return first
    # (the driver has fetched every row; making and decoding them is what takes long)
    return first + await asyncio.to_thread(lambda: decoded_steps(result.all()))


async def steps_json(conn: AsyncConnection, game_id: str) -> str:
    """Every step of ``game_id`` as one JSON array of ``[kind, data]`` pairs, in order,
    its JSON not decoded (for a worker process to decode)."""
    result = await conn.execute(
        select(steps_table.c.kind, cast(steps_table.c.data, Text))
        .where(steps_table.c.game_id == game_id)
        .order_by(steps_table.c.seq)
    )
    dumps = json.dumps
    return "[" + ",".join(f"[{dumps(kind)},{data}]" for kind, data in result) + "]"


def decoded_steps(rows: Sequence[Row[Any]]) -> list[StepRow]:
    """Steps from rows of :data:`_STEP_COLUMNS`."""
    loads = json.loads
    return [
        StepRow(
            seq=row.seq,
            kind=row.kind,
            data=loads(row.data),
            client_id=row.client_id,
            created_at=row.created_at,
        )
        for row in rows
    ]


def step_rows(game_id: str, steps: Sequence[StepRow], now: float) -> list[dict[str, Any]]:
    return [
        {
            "game_id": game_id,
            "seq": step.seq,
            "kind": step.kind,
            "data": step.data,
            "client_id": step.client_id,
            "created_at": step.created_at or now,
        }
        for step in steps
    ]


async def insert_seats(conn: AsyncConnection, game_id: str, seat_rows: Sequence[SeatRow]) -> None:
    if not seat_rows:
        return
    await conn.execute(
        insert(seats_table),
        [
            {
                "game_id": game_id,
                "position": seat.position,
                "name": seat.name,
                "kind": seat.kind,
                "level": seat.level,
                "token_hash": seat.token_hash,
            }
            for seat in seat_rows
        ],
    )


async def update_game(conn: AsyncConnection, game_id: str, **values: Any) -> None:
    result = await conn.execute(update(games).where(games.c.id == game_id).values(**values))
    if result.rowcount == 0:
        raise UnknownGame(f"no game {game_id!r}")


async def close_unchanged(
    conn: AsyncConnection, game_id: str, status: str, step_count: int, now: float
) -> bool:
    """Close ``game_id`` if it is in ``status`` with ``step_count`` steps.  Its row is
    locked first (PostgreSQL): an append, which updates that row too, has then either
    committed (its steps are counted) or waits until this transaction ends."""
    locked = select(games.c.status).where(games.c.id == game_id).with_for_update()
    stored = (await conn.execute(locked)).scalar_one_or_none()
    if stored != status:
        return False
    counted = select(func.count()).where(steps_table.c.game_id == game_id)
    if (await conn.execute(counted)).scalar_one() != step_count:
        return False
    await update_game(conn, game_id, status="closed", last_active_at=now)
    return True
