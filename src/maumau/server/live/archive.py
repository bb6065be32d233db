"""A finished game's documents: its record and its replay, made once, kept, sent
compressed.

A finished (or closed) game never changes, so its documents are made once: in a worker
process (:func:`maumau.server.live.replays.documents_of`, never on the event loop), from
its stored steps (never by loading the table into memory), one game at a time, and at
most :data:`QUEUE` games waiting.  They are kept in the store's ``exports`` table as
gzip-compressed JSON, so they survive a restart and serve every server process on the
database; a request for a game whose documents are being made waits for them.  A
client that accepts gzip gets the stored bytes as they are (``Content-Encoding:
gzip``); another gets them decompressed.  Every request counts against its address's
rate limit (``replays_per_minute``).
"""

from __future__ import annotations

import asyncio
import gzip
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.responses import Response

from maumau.server.live.replays import documents_of
from maumau.server.live.table import Table, plausible_id
from maumau.server.live.workers import Workers
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError
from maumau.store import Store, StoreError

log = logging.getLogger("maumau.server")

#: games whose documents may wait to be made at once; beyond, ``rate_limited``
QUEUE = 8
#: a stored document larger than this is decompressed off the event loop
INLINE_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Source:
    """What a game's documents are made from."""

    status: str
    options: dict[str, Any]
    players: list[str]
    #: the table, if it is in memory (else the steps are read from the store)
    table: Table | None


class Archive:
    """The documents of finished games, for one hub: ``live(game_id)`` gives a table
    that is in memory (caught up with other processes), else ``None``."""

    def __init__(
        self,
        store: Store,
        replays_per_minute: float,
        live: Callable[[str], Awaitable[Table | None]],
    ) -> None:
        self.store = store
        self.live = live
        self.limiter = AddressLimiter(replays_per_minute)
        #: one worker makes documents, apart from the bots' workers (a long replay
        #: takes seconds; no bot decision waits behind it)
        self.workers = Workers(1)
        self.turn = asyncio.Semaphore(1)
        self.building: dict[str, asyncio.Future[dict[str, bytes]]] = {}
        #: how many games' documents this process has made (tests count them)
        self.builds = 0

    def allow(self, address: str) -> None:
        if not self.limiter.allow(address):
            raise ServerError(
                "rate_limited", "too many records and replays asked for from this address"
            )

    async def document(self, game_id: str, kind: str) -> bytes:
        """The gzip-compressed JSON of ``kind`` (``record``: a finished or closed game
        that had started; ``replay``: a finished game), made if it was not yet."""
        source = await self.source(game_id)
        wanted = ("finished",) if kind == "replay" else ("finished", "closed")
        if source.status not in wanted:
            raise ServerError("game_not_finished", f"the {kind} is shown once the game has ended")
        try:
            stored = await self.store.export(game_id, kind)
        except StoreError as exc:
            raise _unavailable(game_id, exc) from None
        if stored is not None:
            return stored
        documents = await self.built(game_id, source)
        document = documents.get(kind)
        if document is None:  # a closed table whose game never started
            raise ServerError("game_not_finished", f"the {kind} is shown once the game has ended")
        return document

    async def source(self, game_id: str) -> Source:
        """The game's status, options, players, and its steps if it is in memory."""
        table = await self.live(game_id)
        if table is not None:
            return Source(table.status, table.options, [s.name for s in table.seats], table)
        if not plausible_id(game_id):
            raise ServerError("unknown_game", f"there is no table {game_id!r}")
        try:
            row = await self.store.game(game_id)
        except StoreError as exc:
            raise _unavailable(game_id, exc) from None
        if row is None:
            raise ServerError("unknown_game", f"there is no table {game_id!r}")
        return Source(row.status, dict(row.options), [s.name for s in row.seats], None)

    async def built(self, game_id: str, source: Source) -> dict[str, bytes]:
        """The game's documents, made once however many ask at the same time."""
        future = self.building.get(game_id)
        if future is None:
            if len(self.building) >= QUEUE:
                raise ServerError(
                    "rate_limited", "many records and replays are being made; try again soon"
                )
            future = asyncio.ensure_future(self.build(game_id, source))
            self.building[game_id] = future
            future.add_done_callback(lambda _: self.building.pop(game_id, None))
        return await asyncio.shield(future)

    async def build(self, game_id: str, source: Source) -> dict[str, bytes]:
        # the steps go to the worker as JSON text and are decoded there: decoding a
        # long game's in this process (even in a thread) held the GIL against the loop
        if source.table is not None:
            if not source.table.step_count:
                return {}
            steps = source.table.steps_json()
        else:
            try:
                steps = await self.store.steps_json(game_id)
            except StoreError as exc:
                raise _unavailable(game_id, exc) from None
            if steps == "[]":
                return {}
        async with self.turn:
            documents = await self.workers.run(documents_of, source.options, source.players, steps)
        self.builds += 1
        try:
            await self.store.save_exports(game_id, documents)
        except StoreError as exc:  # served all the same; made again when next asked for
            log.warning(
                "table %s: its documents could not be stored: %s",
                game_id,
                exc,
                extra={"table": game_id},
            )
        return documents

    async def close(self) -> None:
        await self.workers.close()


async def reply(document: bytes, accept_encoding: str | None) -> Response:
    """A document for a client: gzip as stored if it accepts that, else plain JSON."""
    headers = {"Vary": "Accept-Encoding", "Cache-Control": "public, max-age=3600"}
    if accepts_gzip(accept_encoding):
        headers["Content-Encoding"] = "gzip"
        return Response(document, media_type="application/json", headers=headers)
    if len(document) > INLINE_BYTES:  # (zlib lets go of the GIL meanwhile)
        plain = await asyncio.to_thread(gzip.decompress, document)
    else:
        plain = gzip.decompress(document)
    return Response(plain, media_type="application/json", headers=headers)


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header accepts gzip: ``gzip`` with a weight
    above 0, or else ``*`` with one."""
    weights: dict[str, float] = {}
    for part in (header or "").split(","):
        coding, *params = part.split(";")
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[coding.strip().lower()] = weight
    weight = weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0)))
    return weight > 0


def _unavailable(game_id: str, exc: StoreError) -> ServerError:
    log.warning("table %s: the store failed: %s", game_id, exc, extra={"table": game_id})
    return ServerError("store_unavailable", "the database cannot be reached right now")
