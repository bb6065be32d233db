"""Change notices between server processes sharing one PostgreSQL database.

Every write that changes a game sends ``NOTIFY maumau_games`` with ``"<origin> <game
id> steps <time>"`` (steps were appended) or ``"... table <time>"`` (seats or status
changed) in the same transaction, so the notice is delivered when (and only if) the
change is committed; ``<time>`` is the writer's Unix time just before the commit, so
that the listener can tell how long the notice took (the metrics' NOTIFY lag).  A
process of an older version reads such a notice as a change of the table (it reloads
the whole table: slower, never wrong).  ``origin`` is the writing store's id: a
process skips its own notices.  A :class:`Listener` holds one connection that
``LISTEN``\\s and hands every other process's notice to a callback, and likewise the
notices in which each process says which seats of a game are connected to it; when its
connection is lost it connects again (with backoff) and calls ``on_connect``, so that
its owner can catch up with what it may have missed meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from maumau.store.chat import CHANNEL as CHAT_CHANNEL

log = logging.getLogger("maumau.store")

CHANNEL = "maumau_games"
#: which seats are connected to which process: ``"<origin> <game id> <seat>,<seat>"``,
#: or the question ``"<origin> <game id> ?"`` (a process that just loaded the game asks
#: the others to say so now rather than at their next heartbeat)
PRESENCE = "maumau_presence"
QUESTION = "?"
#: late friends' requests for a seat (server/live/seat_requests.py), opened or ended at one
#: process, for the others: ``"<origin> <game id> <JSON object>"``
REQUESTS = "maumau_seat_requests"
#: the listening connection's application_name (as pg_stat_activity shows it)
APPLICATION = "maumau-listener"

#: seconds between checks that the listening connection still answers
KEEPALIVE_SECONDS = 5.0
#: the longest wait before connecting again
MAX_BACKOFF_SECONDS = 5.0

_NOTIFY = text(
    f"SELECT pg_notify('{CHANNEL}', :origin || ' ' || g || :what) "
    "FROM unnest(CAST(:games AS text[])) AS g"
)


async def notify(
    conn: AsyncConnection, origin: str, game_ids: Sequence[str], steps_only: bool = False
) -> None:
    """Send a change notice for each of ``game_ids`` when ``conn``'s transaction commits
    (``steps_only``: only steps were appended, the rest of the table is as it was)."""
    what = f" {'steps' if steps_only else 'table'} {time.time():.4f}"
    await conn.execute(_NOTIFY, {"origin": origin, "games": list(game_ids), "what": what})


_ANNOUNCE = text(
    f"SELECT pg_notify('{PRESENCE}', :origin || ' ' || p) FROM unnest(CAST(:items AS text[])) AS p"
)


async def announce(
    conn: AsyncConnection, origin: str, presence: Sequence[tuple[str, Sequence[int]]]
) -> None:
    """Tell the other processes which seats of which games are connected here."""
    items = [f"{game_id} {','.join(map(str, sorted(seats)))}" for game_id, seats in presence]
    await conn.execute(_ANNOUNCE, {"origin": origin, "items": items})


async def ask(conn: AsyncConnection, origin: str, game_id: str) -> None:
    """Ask the other processes which seats of ``game_id`` are connected to them."""
    await conn.execute(_ANNOUNCE, {"origin": origin, "items": [f"{game_id} {QUESTION}"]})


_TELL = text("SELECT pg_notify(:channel, :payload)")


async def tell_request(conn: AsyncConnection, origin: str, game_id: str, data: str) -> None:
    """Tell the other processes of a request for a seat at ``game_id`` (``data``: JSON)."""
    await conn.execute(_TELL, {"channel": REQUESTS, "payload": f"{origin} {game_id} {data}"})


def listen_dsn(url: str) -> str:
    """The plain PostgreSQL DSN (for asyncpg) of a SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """Hands other processes' change notices to ``on_change(game_id, steps_only)``."""

    def __init__(
        self,
        dsn: str,
        origin: str,
        on_change: Callable[[str, bool], None],
        on_connect: Callable[[], None],
        on_presence: Callable[[str, str, frozenset[int]], None] | None = None,
        on_question: Callable[[str], None] | None = None,
        on_chat: Callable[[str, str], None] | None = None,
    ) -> None:
        self._dsn = dsn
        #: given (game id, message) of every other process's chat notice
        self._on_chat = on_chat
        self._on_presence = on_presence
        self._on_question = on_question
        self._origin = origin
        self._on_change = on_change
        self._on_connect = on_connect
        self._task: asyncio.Task[None] | None = None
        #: given the seconds each change notice took from its commit to here
        self.on_lag: Callable[[float], None] | None = None
        #: given (origin, game id, JSON text) of each other process's request notice
        self.on_request: Callable[[str, str, str], None] | None = None
        #: True while a listening connection is up
        self.connected = False
        self.ready = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        import asyncpg

        backoff = 0.1
        while True:
            conn: Any = None
            try:
                conn = await asyncpg.connect(
                    self._dsn, timeout=10, server_settings={"application_name": APPLICATION}
                )
                lost = asyncio.Event()
                conn.add_termination_listener(_setter(lost))
                await conn.add_listener(CHANNEL, self._notice)
                await conn.add_listener(PRESENCE, self._presence)
                await conn.add_listener(REQUESTS, self._request)
                if self._on_chat is not None:
                    await conn.add_listener(CHAT_CHANNEL, self._chat)
                self.connected = True
                self.ready.set()
                backoff = 0.1
                self._on_connect()
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), KEEPALIVE_SECONDS)
                    if not lost.is_set():
                        await conn.fetchval("SELECT 1", timeout=KEEPALIVE_SECONDS)
                log.warning("change notices: the connection was closed; connecting again")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.connected:
                    log.warning("change notices: connection lost (%s); connecting again", exc)
            finally:
                self.connected = False
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.terminate()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)

    def _notice(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, game_id, what = _parts(payload)
        if origin != self._origin and game_id:
            what, _, sent = what.partition(" ")
            self._on_change(game_id, what == "steps")
            if sent and self.on_lag is not None:
                with contextlib.suppress(ValueError):
                    self.on_lag(max(0.0, time.time() - float(sent)))

    def _presence(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, game_id, seats = _parts(payload)
        if origin == self._origin or not game_id:
            return
        if seats == QUESTION:
            if self._on_question is not None:
                self._on_question(game_id)
            return
        if self._on_presence is None:
            return
        try:
            connected = frozenset(int(seat) for seat in seats.split(",") if seat)
        except ValueError:
            log.warning("change notices: an unreadable presence notice was ignored")
            return
        self._on_presence(origin, game_id, connected)

    def _request(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, game_id, data = _parts(payload)
        if origin != self._origin and game_id and data and self.on_request is not None:
            self.on_request(origin, game_id, data)

    def _chat(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, game_id, message = _parts(payload)
        if origin != self._origin and game_id and message and self._on_chat is not None:
            self._on_chat(game_id, message)


def _parts(payload: str) -> tuple[str, str, str]:
    """A notice's sending process, its table and the rest: every channel's payload is
    ``ORIGIN GAME_ID REST``."""
    origin, _, rest = payload.partition(" ")
    game_id, _, body = rest.partition(" ")
    return origin, game_id, body


def _setter(event: asyncio.Event) -> Callable[[Any], None]:
    return lambda _conn: event.set()
