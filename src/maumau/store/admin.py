"""The SQL of ``maumau admin``: the notices it leaves for the running servers, the live
tables it lists, closing a table, and the ended games it exports and purges.

The command opens the database with :func:`open_admin` (which refuses a database that
holds no games: a wrong URL must not create an empty one), and runs these functions in
its own transactions; each server reads the notices with :func:`notices_after`, one
indexed query for the ids above the last one it saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, func, insert, inspect, select, text, update
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from maumau.store.connect import make_engine
from maumau.store.errors import StoreUnavailable, UnknownGame
from maumau.store.files import check_owner
from maumau.store.migrate import upgrade
from maumau.store.schema import admin_notices, games, seats, steps
from maumau.store.urls import database_url, redact, sqlite_file

#: the longest announcement or reason (characters)
MAX_TEXT = 500
#: notices one read returns at most (a server reads again at once when it got this many)
NOTICE_BATCH = 100
#: notices older than this many days are removed when the next one is written (the
#: servers read them within seconds; the newest announcement stays while it is shown)
NOTICE_DAYS = 7
LIVE = ("lobby", "playing")
ENDED = ("finished", "closed")

_UNAVAILABLE = (OperationalError, DBAPIError, OSError, ConnectionError, TimeoutError)


class NoDatabase(StoreUnavailable):
    """The URL names no maumau database (a missing SQLite file, a database without its
    tables)."""


@dataclass(frozen=True, slots=True)
class Notice:
    id: int
    kind: str  # "announce" | "close"
    game_id: str | None
    text: str
    created: float
    expires: float | None


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    name: str
    kind: str  # "human" | "bot"
    level: str | None


@dataclass(frozen=True, slots=True)
class TableSummary:
    id: str
    status: str
    preset: str | None
    players: tuple[PlayerSummary, ...]
    steps: int
    created_at: float
    last_active_at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "preset": self.preset,
            "players": [{"name": p.name, "kind": p.kind, "level": p.level} for p in self.players],
            "steps": self.steps,
            "created_at": self.created_at,
            "last_active_at": self.last_active_at,
        }


@dataclass(frozen=True, slots=True)
class EndedGame:
    id: str
    status: str
    options: dict[str, Any]
    players: tuple[str, ...]
    last_active_at: float
    #: the table settings (``research_export``: its games may be exported as data)
    settings: dict[str, Any] = field(default_factory=dict)
    #: each seat's kind, ``human`` or ``bot``, in seat order
    kinds: tuple[str, ...] = ()


# --- opening ---------------------------------------------------------------------------


async def open_admin(url: str) -> AsyncEngine:
    """An engine for the maumau database at ``url``, migrated to the newest schema.

    ``ValueError``: not a database URL; :class:`NoDatabase`: no maumau database there
    (nothing is created); :class:`StoreUnavailable`: it cannot be reached."""
    url = database_url(url)
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise NoDatabase(f"there is no database file {path}")
    if path is not None:
        check_owner(path)
    try:
        engine = make_engine(url)
    except ArgumentError:
        raise ValueError(f"bad database URL {redact(url)!r}") from None
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        if "games" not in names:
            raise NoDatabase(f"{redact(url)} holds no maumau games (no games table)")
        await upgrade(engine)
    except _UNAVAILABLE as exc:
        await engine.dispose()
        raise StoreUnavailable(f"database {redact(url)} unavailable: {reason(exc)}") from exc
    except BaseException:
        await engine.dispose()
        raise
    return engine


def reason(exc: BaseException) -> str:
    """The driver's own message (without SQLAlchemy's statement and parameters)."""
    orig = getattr(exc, "orig", None)
    cause = orig if isinstance(orig, BaseException) else exc
    words = str(cause).strip() or type(cause).__name__
    return f"{type(cause).__name__}: {words.splitlines()[0]}"


# --- notices ---------------------------------------------------------------------------


def check_text(words: str, what: str) -> str:
    """``words`` stripped; ``ValueError`` if empty or longer than :data:`MAX_TEXT`."""
    words = words.strip()
    if not words:
        raise ValueError(f"the {what} is empty")
    if len(words) > MAX_TEXT:
        raise ValueError(f"the {what} is {len(words)} characters long; at most {MAX_TEXT}")
    return words


async def add_notice(
    conn: AsyncConnection,
    kind: str,
    words: str,
    now: float,
    game_id: str | None = None,
    expires: float | None = None,
) -> int:
    """Leave a notice for the running servers; its id."""
    if conn.dialect.name == "postgresql":
        # notices commit in the order of their ids, so a server that has read id n
        # never meets a smaller one later (plain reads are not blocked by this lock)
        await conn.execute(text("LOCK TABLE admin_notices IN EXCLUSIVE MODE"))
    result = await conn.execute(
        insert(admin_notices).returning(admin_notices.c.id),
        {"kind": kind, "game_id": game_id, "text": words, "created": now, "expires": expires},
    )
    number = int(result.scalar_one())
    # the old ones go, but not the newest announcement (shown until it expires or is
    # replaced), nor this one: the newest id is where servers read on from, and SQLite
    # would give a removed newest id to the next row
    newest = (
        select(func.max(admin_notices.c.id))
        .where(admin_notices.c.kind == "announce")
        .scalar_subquery()
    )
    await conn.execute(
        delete(admin_notices).where(
            admin_notices.c.created < now - NOTICE_DAYS * 86_400.0,
            admin_notices.c.id != number,
            admin_notices.c.id != func.coalesce(newest, 0),
        )
    )
    return number


def _notice(row: Any) -> Notice:
    return Notice(row.id, row.kind, row.game_id, row.text, row.created, row.expires)


async def notices_after(
    conn: AsyncConnection, after: int, limit: int = NOTICE_BATCH
) -> list[Notice]:
    """The notices whose id is above ``after``, in order, at most ``limit``."""
    rows = await conn.execute(
        select(admin_notices)
        .where(admin_notices.c.id > after)
        .order_by(admin_notices.c.id)
        .limit(limit)
    )
    return [_notice(row) for row in rows]


async def last_notice(conn: AsyncConnection) -> int:
    """The id of the newest notice (0: none)."""
    value = (await conn.execute(select(func.max(admin_notices.c.id)))).scalar_one_or_none()
    return int(value or 0)


async def announcement(conn: AsyncConnection, now: float) -> Notice | None:
    """The newest announcement, if it has not expired by ``now`` (a newer one replaces
    an older one; an empty text withdraws it)."""
    row = (
        await conn.execute(
            select(admin_notices)
            .where(admin_notices.c.kind == "announce")
            .order_by(admin_notices.c.id.desc())
            .limit(1)
        )
    ).one_or_none()
    if row is None or not row.text or (row.expires is not None and row.expires <= now):
        return None
    return _notice(row)


# --- tables ----------------------------------------------------------------------------


async def live_tables(conn: AsyncConnection, limit: int) -> tuple[list[TableSummary], int]:
    """The live tables (lobby or playing), most recently active first, at most
    ``limit``; and how many there are in all."""
    total = (
        await conn.execute(select(func.count()).select_from(games).where(games.c.status.in_(LIVE)))
    ).scalar_one()
    rows = list(
        await conn.execute(
            select(games.c.id, games.c.status, games.c.options)
            .add_columns(games.c.created_at, games.c.last_active_at)
            .where(games.c.status.in_(LIVE))
            .order_by(games.c.last_active_at.desc(), games.c.id)
            .limit(limit)
        )
    )
    ids = [row.id for row in rows]
    players: dict[str, list[PlayerSummary]] = {game_id: [] for game_id in ids}
    counts: dict[str, int] = {}
    if ids:
        for seat in await conn.execute(
            select(seats.c.game_id, seats.c.name, seats.c.kind, seats.c.level)
            .where(seats.c.game_id.in_(ids))
            .order_by(seats.c.game_id, seats.c.position)
        ):
            players[seat.game_id].append(PlayerSummary(seat.name, seat.kind, seat.level))
        for game_id, count in await conn.execute(
            select(steps.c.game_id, func.count())
            .where(steps.c.game_id.in_(ids))
            .group_by(steps.c.game_id)
        ):
            counts[game_id] = int(count)
    summaries = [
        TableSummary(
            id=row.id,
            status=row.status,
            preset=(row.options or {}).get("preset"),
            players=tuple(players[row.id]),
            steps=counts.get(row.id, 0),
            created_at=row.created_at,
            last_active_at=row.last_active_at,
        )
        for row in rows
    ]
    return summaries, int(total)


async def close_table(conn: AsyncConnection, game_id: str, words: str, now: float) -> str:
    """Close the live table ``game_id`` and leave a ``close`` notice with the reason
    ``words``; the table's status before.  :class:`UnknownGame` if there is no such
    table; ``ValueError`` if it has ended already."""
    row = (await conn.execute(select(games.c.status).where(games.c.id == game_id))).one_or_none()
    if row is None:
        raise UnknownGame(f"there is no table {game_id!r}")
    if row.status not in LIVE:
        raise ValueError(f"table {game_id!r} has ended already ({row.status})")
    await conn.execute(
        update(games).where(games.c.id == game_id).values(status="closed", last_active_at=now)
    )
    await add_notice(conn, "close", words, now, game_id=game_id)
    return str(row.status)


# --- ended games -------------------------------------------------------------------------


async def ended_games(
    conn: AsyncConnection,
    before: float | None,
    limit: int,
    after_id: str = "",
) -> list[EndedGame]:
    """Finished and closed games (last active before ``before``, if given), by id
    above ``after_id``, at most ``limit``."""
    query = (
        select(
            games.c.id, games.c.status, games.c.options, games.c.settings, games.c.last_active_at
        )
        .where(games.c.status.in_(ENDED), games.c.id > after_id)
        .order_by(games.c.id)
        .limit(limit)
    )
    if before is not None:
        query = query.where(games.c.last_active_at < before)
    rows = list(await conn.execute(query))
    names: dict[str, list[str]] = {row.id: [] for row in rows}
    kinds: dict[str, list[str]] = {row.id: [] for row in rows}
    if rows:
        for seat in await conn.execute(
            select(seats.c.game_id, seats.c.name, seats.c.kind)
            .where(seats.c.game_id.in_(list(names)))
            .order_by(seats.c.game_id, seats.c.position)
        ):
            names[seat.game_id].append(seat.name)
            kinds[seat.game_id].append(seat.kind)
    return [
        EndedGame(
            row.id,
            row.status,
            dict(row.options),
            tuple(names[row.id]),
            row.last_active_at,
            dict(row.settings or {}),
            tuple(kinds[row.id]),
        )
        for row in rows
    ]


async def delete_games(conn: AsyncConnection, game_ids: Sequence[str]) -> int:
    """Delete these games if they are still ended (their seats, steps and documents go
    with them); how many were deleted."""
    if not game_ids:
        return 0
    result = await conn.execute(
        delete(games).where(games.c.id.in_(list(game_ids)), games.c.status.in_(ENDED))
    )
    return int(result.rowcount)
