"""The store: game records in a SQL database (SQLite by default, PostgreSQL by URL).

A game record is one ``games`` row, its ``seats`` and its append-only ``steps``.  Every
method is one transaction, committed when the method returns.  Database failures raise
:class:`StoreUnavailable`; an append whose step number is taken raises
:class:`SeqConflict`, so two writers can never record the same step.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar, cast

from sqlalchemy import bindparam, delete, insert, literal, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from maumau.store import exports, queries
from maumau.store.appender import SqliteAppender
from maumau.store.chat_buffer import ChatBuffer
from maumau.store.connect import make_engine, writer
from maumau.store.errors import (
    GameExists,
    SeatsChanged,
    SeqConflict,
    StoreUnavailable,
    UnknownGame,
    driver_message,
)
from maumau.store.files import private_database
from maumau.store.group import Append, Committer, GroupCommit, latest_times
from maumau.store.migrate import current_revision, upgrade
from maumau.store.notify import Listener, announce, ask, listen_dsn, notify, tell_request
from maumau.store.rows import (
    GameRow,
    SeatRow,
    StepRow,
    check_seats,
    check_status,
    check_steps,
)
from maumau.store.schema import games
from maumau.store.schema import seats as seats_table
from maumau.store.schema import steps as steps_table
from maumau.store.urls import database_url, redact, sqlite_file
from maumau.store.writer_thread import Immediate, on_writer_thread

T = TypeVar("T")

# what a database that cannot be reached (or breaks mid-way) raises
_UNAVAILABLE = (OperationalError, DBAPIError, OSError, ConnectionError, TimeoutError)


class Store:
    """Game records in one database.  Open with ``await Store.open(url)``; close when done."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self._engine = engine
        self._writer = writer(engine)
        self._url = redact(url)
        self._password = make_url(url).password
        path = sqlite_file(url)
        #: SQLite's writer thread (see :mod:`maumau.store.appender` and
        #: :mod:`maumau.store.writer_thread`)
        self._appender = None if path is None else SqliteAppender(path, self._url)
        #: group commit: on SQLite the writer thread runs it
        self._group: Committer = self._appender or GroupCommit(
            self._append_batch,
            lambda item: self._append_one(item.game_id, item.steps, item.now),
        )
        #: this store's id in change notices, so a process can skip its own
        self.origin = secrets.token_hex(8)
        #: transactions that failed because the database was unavailable (see errors)
        self.failures = 0
        #: chat lines waiting to be written in a batch (maumau.store.chat_buffer)
        self.chat = ChatBuffer(self)

    @classmethod
    async def open(cls, url: str) -> Store:
        """Connect to the database at ``url`` and migrate it to the newest schema.

        ``url`` is mapped by :func:`database_url` (``ValueError`` for unsupported ones);
        the folder of an SQLite file is created if missing (0700), the file 0600.
        """
        url = database_url(url)
        try:
            engine = make_engine(url)
        except ArgumentError:
            raise ValueError(f"bad database URL {redact(url)!r}") from None
        store = cls(engine, url)
        try:
            async with store._guard():
                path = sqlite_file(url)
                if path is not None:  # the server user's alone (see files.py)
                    private_database(path)
                await upgrade(store._engine)
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        """Write the chat lines that wait, finish queued appends, then close every
        connection (the store cannot be used afterwards)."""
        await self.chat.close()
        await self._group.close()
        if self._appender is not None:
            await self._appender.stop()
        await self._engine.dispose()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"Store({self._url!r})"

    @property
    def dialect(self) -> str:
        """The database kind: ``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    @property
    def shared(self) -> bool:
        """Whether other server processes may write this database at the same time
        (PostgreSQL: they tell each other through change notices)."""
        return self.dialect == "postgresql"

    def listener(
        self,
        on_change: Callable[[str, bool], None],
        on_connect: Callable[[], None],
        on_presence: Callable[[str, str, frozenset[int]], None] | None = None,
        on_question: Callable[[str], None] | None = None,
        on_chat: Callable[[str, str], None] | None = None,
    ) -> Listener | None:
        """A listener for other processes' changes (``None`` for SQLite, which one
        process serves); call its ``start()`` from the event loop."""
        if not self.shared:
            return None
        url = self._engine.url.render_as_string(hide_password=False)
        return Listener(
            listen_dsn(url), self.origin, on_change, on_connect, on_presence, on_question, on_chat
        )

    async def announce(self, presence: Sequence[tuple[str, Sequence[int]]]) -> None:
        """Tell the other processes which seats of which games are connected to this
        one (PostgreSQL only; see :mod:`maumau.store.notify`)."""
        if self.shared and presence:
            async with self._read() as conn:
                await announce(conn, self.origin, presence)

    async def ask_presence(self, game_id: str) -> None:
        """Ask the other processes to say now which seats of ``game_id`` are connected
        to them (PostgreSQL only): a process that just loaded a game learns it at once."""
        if self.shared:
            async with self._read() as conn:
                await ask(conn, self.origin, game_id)

    async def tell_request(self, game_id: str, data: str) -> None:
        """Tell the other processes of a late friend's request for a seat at ``game_id``
        (PostgreSQL only; ``data``: a JSON object, see :mod:`maumau.server.live.seat_requests`)."""
        if self.shared:
            async with self._read() as conn:
                await tell_request(conn, self.origin, game_id, data)

    @property
    def errors(self) -> int:
        """How many transactions failed so far because the database was unavailable
        (for the metrics)."""
        return self.failures + (0 if self._appender is None else self._appender.failures)

    # --- reading ---------------------------------------------------------------------

    async def revision(self) -> str | None:
        """The schema revision the database is at (``None``: never migrated)."""
        async with self._read() as conn:
            return await conn.run_sync(current_revision)

    async def check(self) -> None:
        """Ask the database something trivial: :class:`StoreError` if it cannot answer
        (the health check; its cost does not grow with the tables kept)."""
        async with self._read() as conn:
            await conn.execute(select(literal(1)))

    async def read(self, query: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``query(conn)`` in one read transaction (for the SQL of other modules, such
        as :mod:`maumau.store.admin`'s notices)."""
        async with self._read() as conn:
            return await query(conn)

    @on_writer_thread
    async def write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``work(conn)`` in one write transaction (for the SQL of other modules, such
        as :mod:`maumau.store.chat`): on SQLite on the writer thread, so ``work`` may
        only wait for the statements it executes."""
        async with self._write() as conn:
            return await work(conn)

    async def game(self, game_id: str) -> GameRow | None:
        """The game ``game_id`` with its seats, or None."""
        async with self._read() as conn:
            return await queries.game(conn, game_id)

    async def knows_token(self, game_id: str, token_hash: str) -> bool:
        """Whether the token hash ``token_hash`` holds a seat at ``game_id``, or held
        one that was removed (indexed reads: nothing else of the game is read)."""
        async with self._read() as conn:
            return await queries.knows_token(conn, game_id, token_hash)

    async def load(self, game_id: str) -> tuple[GameRow, list[StepRow]] | None:
        """The game ``game_id`` and all its steps in order (one snapshot), or None."""
        async with self._read() as conn:
            game = await queries.game(conn, game_id)
            if game is None:
                return None
            return game, await queries.steps(conn, game_id, -1)

    async def steps(self, game_id: str, after: int = -1) -> list[StepRow]:
        """The steps of ``game_id`` numbered above ``after``, in order."""
        async with self._read() as conn:
            return await queries.steps(conn, game_id, after)

    async def steps_json(self, game_id: str) -> str:
        """Every step of ``game_id`` as one JSON array of ``[kind, data]`` pairs, in
        order: the text as stored, not decoded here (a worker process decodes it)."""
        async with self._read() as conn:
            return await queries.steps_json(conn, game_id)

    async def game_ids(self, statuses: Sequence[str]) -> list[str]:
        """The ids of the games in one of ``statuses``, oldest first."""
        async with self._read() as conn:
            return await queries.game_ids(conn, statuses)

    # --- writing ---------------------------------------------------------------------

    @on_writer_thread
    async def create_game(self, game: GameRow) -> None:
        """Store a new game and its seats (``GameExists`` if the id is taken)."""
        check_status(game.status)
        check_seats(game.seats)
        try:
            async with self._write() as conn:
                await conn.execute(
                    insert(games),
                    {
                        "id": game.id,
                        "status": game.status,
                        "options": game.options,
                        "settings": game.settings,
                        "host": game.host,
                        "created_at": game.created_at,
                        "last_active_at": game.last_active_at,
                        "rematch_of": game.rematch_of,
                        "rematch_id": game.rematch_id,
                    },
                )
                await queries.insert_seats(conn, game.id, game.seats)
        except IntegrityError as exc:
            raise GameExists(f"game {game.id!r} already exists") from exc

    @on_writer_thread
    async def replace_seats(
        self,
        game_id: str,
        seats: Sequence[SeatRow],
        host: int,
        expected: Sequence[SeatRow] | None = None,
        removed: Sequence[str] = (),
    ) -> None:
        """Replace all seats of ``game_id`` and set its host (lobby edits).

        With ``expected``, only if the stored seats are still those (compare-and-set
        against another process's edit): otherwise :class:`SeatsChanged`.  ``removed``:
        the token hashes of seats this edit removes (kept, so that their tokens are
        told their seat was removed).
        """
        check_seats(seats)
        async with self._write() as conn:
            # first, so that on PostgreSQL the game's row is locked against other editors
            await queries.update_game(conn, game_id, host=host)
            kept = 0  # how many stored seats stay as they are
            if expected is not None:
                stored = await queries.seats(conn, game_id)
                if stored != tuple(expected):
                    raise SeatsChanged(f"game {game_id!r}: the seats changed meanwhile")
                if tuple(seats[: len(stored)]) == stored:  # seats added at the end
                    kept = len(stored)
            if kept == 0:
                await conn.execute(delete(seats_table).where(seats_table.c.game_id == game_id))
            await queries.insert_seats(conn, game_id, seats[kept:])
            await queries.insert_removed(conn, game_id, removed)
            await self._notify(conn, [game_id])

    @on_writer_thread
    async def set_status(self, game_id: str, status: str, now: float) -> None:
        """Set the status of ``game_id``; it counts as activity at ``now``."""
        check_status(status)
        async with self._write() as conn:
            await queries.update_game(conn, game_id, status=status, last_active_at=now)
            await self._notify(conn, [game_id])

    @on_writer_thread
    async def close_unchanged(self, game_id: str, status: str, steps: int, now: float) -> bool:
        """Close ``game_id`` (an idle table) only if it is still in ``status`` with
        ``steps`` steps, as the caller has it (another process may have played on);
        return whether it was closed."""
        async with self._write() as conn:
            closed = await queries.close_unchanged(conn, game_id, status, steps, now)
            if closed:
                await self._notify(conn, [game_id])
        return closed

    @on_writer_thread
    async def set_rematch(self, game_id: str, rematch_id: str) -> str:
        """Link ``game_id`` to its rematch unless it has one; return the rematch now stored.

        Compare-and-set: of callers racing to start a rematch, the first wins and every
        caller gets the winner's id back.
        """
        async with self._write() as conn:
            stored = await queries.set_rematch(conn, game_id, rematch_id)
            await self._notify(conn, [game_id])
        if stored is None:
            raise UnknownGame(f"no game {game_id!r}")
        return stored

    async def append(self, game_id: str, steps: Sequence[StepRow], now: float) -> None:
        """Append ``steps`` to ``game_id`` in one transaction, durable on return.

        A step with ``created_at`` 0.0 is stamped ``now``, and the game counts as active
        at ``now`` (on SQLite: as of its last step's time, which is ``now`` unless that
        step brings a time of its own).  If any step number is already taken
        nothing is appended and :class:`SeqConflict` is raised.  Appends made at the
        same time, to any games, share one commit (see :mod:`maumau.store.group`).
        """
        check_steps(steps)
        if not steps:
            await self._append_one(game_id, steps, now)
            return
        await self._group.append(game_id, steps, now)

    @property
    def group_commit(self) -> Committer:
        """The group committer (its counters tell rows per commit)."""
        return self._group

    @on_writer_thread
    async def _append_one(self, game_id: str, steps: Sequence[StepRow], now: float) -> None:
        try:
            async with self._write() as conn:
                await queries.update_game(conn, game_id, last_active_at=now)
                if steps:
                    await conn.execute(insert(steps_table), queries.step_rows(game_id, steps, now))
                await self._notify(conn, [game_id], steps_only=True)
        except IntegrityError as exc:
            numbers = ", ".join(str(step.seq) for step in steps)
            raise SeqConflict(
                f"game {game_id!r}: a step among {numbers} is already stored"
            ) from exc

    async def _append_batch(self, batch: Sequence[Append]) -> None:
        """Every append of ``batch`` in one transaction (an integrity error: none)."""
        latest = latest_times(batch)
        rows = [r for item in batch for r in queries.step_rows(item.game_id, item.steps, item.now)]
        async with self._write() as conn:
            await conn.execute(
                update(games)
                .where(games.c.id == bindparam("game"))
                .values(last_active_at=bindparam("now")),
                [{"game": game, "now": now} for game, now in latest.items()],
            )
            await conn.execute(insert(steps_table), rows)
            await self._notify(conn, list(latest), steps_only=True)

    async def _notify(
        self, conn: AsyncConnection, game_ids: Sequence[str], steps_only: bool = False
    ) -> None:
        """Tell the other server processes on this database that these games changed
        (PostgreSQL only; delivered when the transaction commits)."""
        if self.shared and game_ids:
            await notify(conn, self.origin, game_ids, steps_only)

    # --- transactions ----------------------------------------------------------------

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self._guard(), self._engine.begin() as conn:
            yield conn

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction.  On SQLite this runs on the writer thread (every
        method using it is :func:`on_writer_thread`), which writes one transaction at
        a time, so none waits in SQLite's busy handler."""
        if self._appender is None:
            async with self._guard(), self._writer.begin() as conn:
                yield conn
            return
        async with self._guard():
            with self._appender.engine.begin() as sync_conn:
                yield cast(AsyncConnection, Immediate(sync_conn))

    @asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        """Turn a database failure into ``StoreUnavailable`` (integrity errors pass)."""
        try:
            yield
        except IntegrityError:
            raise
        except _UNAVAILABLE as exc:
            self.failures += 1
            reason = driver_message(exc)
            if self._password:
                reason = reason.replace(str(self._password), "***")
            raise StoreUnavailable(f"database {self._url} unavailable: {reason}") from exc

    # --- exports -----------------------------------------------------------------------

    async def export(self, game_id: str, kind: str) -> bytes | None:
        """The stored document ``kind`` (``record``, ``replay``) of ``game_id``, or None."""
        async with self._read() as conn:
            return await exports.export(conn, game_id, kind)

    @on_writer_thread
    async def save_exports(self, game_id: str, documents: Mapping[str, bytes]) -> None:
        """Keep documents made from ``game_id``'s steps (kind -> body); one that is
        stored already stays as it is."""
        async with self._write() as conn:
            await exports.insert_exports(conn, self.dialect, game_id, documents)
