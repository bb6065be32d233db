"""The SQL of exports: documents made once from a finished game's steps (its record and
its replay, gzip-compressed JSON), kept so that they are never made again."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store.connect import upsert_into
from maumau.store.schema import exports


async def export(conn: AsyncConnection, game_id: str, kind: str) -> bytes | None:
    row = (
        await conn.execute(
            select(exports.c.body).where(exports.c.game_id == game_id, exports.c.kind == kind)
        )
    ).one_or_none()
    return None if row is None else bytes(row.body)


async def insert_exports(
    conn: AsyncConnection, dialect: str, game_id: str, documents: Mapping[str, bytes]
) -> None:
    """Insert the documents; one already stored (by another process) is kept as it is:
    a game's documents never change."""
    if not documents:
        return
    statement = upsert_into(dialect, exports).on_conflict_do_nothing()
    rows = [{"game_id": game_id, "kind": k, "body": body} for k, body in documents.items()]
    await conn.execute(statement, rows)
