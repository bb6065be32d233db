"""A table's invite link, and its QR code (``GET /api/games/{id}/qr.svg``), made once.

The link is built at ``--public-url``, else at the request's ``Host``, which the client
writes: :func:`maumau.server.transport.clients.base_url` refuses a ``Host`` that is no host name
or address with a port (``bad_host``), so a link is at most :data:`MAX_LINK` characters
and its QR code always fits (segno's largest code holds 2,331 bytes at level M).

A QR code is the same for the same link, so each is made once and kept: at most
:data:`CACHE_SIZE` of them, the longest unused going first.  Only making one costs
(about 5 ms for an ordinary link, 19 ms for the longest): that happens off the event
loop, one at a time, at most :data:`QUEUE` waiting, and each client address may ask
for ``qr_codes_per_minute`` codes that are not kept yet (then ``rate_limited``).
Requests for a link whose code is being made wait for it.  Whether the table exists is
asked only for a code not kept yet, once the address's limit let the request through
(so a stream of made-up ids costs the store no more than the limit): of the live
table, else of the store's row of it (its steps are never read).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import segno

from maumau.server.live.hub import Hub
from maumau.server.live.replays import qr_svg
from maumau.server.live.table import MAX_ID, plausible_id
from maumau.server.transport.clients import MAX_HOST
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError, store_unavailable
from maumau.store import StoreError

#: QR codes kept (a few kilobytes each)
CACHE_SIZE = 256
#: links whose QR codes may wait to be made at once; beyond, ``rate_limited``
QUEUE = 8
#: the longest link: ``https://``, the longest ``Host``, ``/g/`` and the longest id
MAX_LINK = len("https://") + MAX_HOST + len("/g/") + MAX_ID


class Invites:
    """The QR codes of invite links, kept and made as the module says."""

    def __init__(
        self, per_minute: float, make: Callable[[str], bytes] = qr_svg, size: int = CACHE_SIZE
    ) -> None:
        self.limiter = AddressLimiter(per_minute)
        self.make = make
        self.size = size
        self.codes: OrderedDict[str, bytes] = OrderedDict()
        self.making: dict[str, asyncio.Future[bytes]] = {}
        self.turn = asyncio.Semaphore(1)
        #: how many codes this process has made (tests count them)
        self.made = 0

    async def qr(
        self, link: str, address: str, exists: Callable[[], Awaitable[None]] | None = None
    ) -> bytes:
        """The QR code (SVG) of ``link``, asked for by the client at ``address``;
        ``exists`` raises unless the table exists, and is awaited only when the code is
        not kept yet, after the address's limit let the request through (so that a
        stream of requests for tables that are not in memory, or do not exist, costs
        the store no more than the limit allows)."""
        code = self._kept(link)
        if code is not None:
            return code
        future = self.making.get(link)
        if future is None:
            if len(link) > MAX_LINK:  # (never: the Host and the id are checked first)
                raise ServerError("bad_host", "the invite link is too long for a QR code")
            if not self.limiter.allow(address):
                raise ServerError("rate_limited", "too many QR codes asked for from this address")
            if len(self.making) >= QUEUE:
                raise ServerError("rate_limited", "many QR codes are being made; try again soon")
            if exists is not None:
                await exists()
                code = self._kept(link)  # (made meanwhile?)
                if code is not None:
                    return code
            future = self.making.get(link) or self._start(link)
        return await asyncio.shield(future)

    def _kept(self, link: str) -> bytes | None:
        code = self.codes.get(link)
        if code is not None:
            self.codes.move_to_end(link)
        return code

    def _start(self, link: str) -> asyncio.Future[bytes]:
        future = asyncio.ensure_future(self._made(link))
        self.making[link] = future
        future.add_done_callback(lambda _: self.making.pop(link, None))
        return future

    async def _made(self, link: str) -> bytes:
        async with self.turn:
            try:
                code = await asyncio.to_thread(self.make, link)
            except segno.DataOverflowError:  # (never: MAX_LINK fits; a refusal all the same)
                raise ServerError("bad_host", "the invite link is too long for a QR code") from None
        self.made += 1
        self.codes[link] = code
        while len(self.codes) > self.size:
            self.codes.popitem(last=False)
        return code


async def check_exists(hub: Hub, game_id: str) -> None:
    """``unknown_game`` unless the table ``game_id`` exists: in memory, else in the
    store (its row and seats are read, never its steps; nothing is loaded)."""
    if game_id in hub.referees:
        return
    if not plausible_id(game_id):
        raise ServerError("unknown_game", f"there is no table {game_id[:MAX_ID]!r}")
    try:
        row = await hub.store.game(game_id)
    except StoreError as exc:
        raise store_unavailable(f"table {game_id!r} cannot be read", exc) from None
    if row is None:
        raise ServerError("unknown_game", f"there is no table {game_id!r}")
