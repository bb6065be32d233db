"""Tables by link: creating one, claiming seats, computer players, starting, rematch.

Nobody has an account.  A seat is bound to a random token (256 bits) that only its
holder knows; the store keeps its SHA-256, never the token.  The table's id (its
invite link) holds no token, so it is safe to share and to watch with.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import replace

from maumau.engine import BadOption, Rules
from maumau.engine.replay import options_of
from maumau.server.live.hub import Hub
from maumau.server.live.referee import Referee
from maumau.server.live.table import invite_of, max_seats
from maumau.server.transport.limits import AddressLimiter
from maumau.server.wire.errors import ServerError, store_unavailable
from maumau.server.wire.names import display_name, distinct_name
from maumau.server.wire.protocol import (
    BOT_LEVELS,
    BotAdded,
    CreateGame,
    Rematch,
    RematchCreated,
    SeatGranted,
)
from maumau.store import GameRow, SeatRow, SeatsChanged, StoreError

log = logging.getLogger("maumau.server")

BOT_NAMES = ("Ada", "Bruno", "Cleo", "Dario", "Edda", "Finn", "Greta", "Hugo")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_game_id() -> str:
    """A new table's id: 16 URL-safe characters, never starting with ``-`` (a command
    line, such as ``maumau admin close ID``, would read it as an option)."""
    while True:
        game_id = secrets.token_urlsafe(12)
        if not game_id.startswith("-"):
            return game_id


def rules_of(preset: str | None, options: dict[str, object]) -> Rules:
    """The engine's reading of a create request; errors name the key."""
    merged = dict(options)
    if preset is not None:
        if merged.get("preset", preset) != preset:
            raise ServerError("bad_option", "preset: given twice with different values")
        merged["preset"] = preset
    try:
        rules = Rules.from_dict(merged)
        max_seats(rules)
    except BadOption as exc:
        raise ServerError("bad_option", exc.message) from None
    return rules


async def create_table(hub: Hub, body: CreateGame) -> SeatGranted:
    name = display_name(body.name)
    rules = rules_of(body.preset, body.options)
    token = new_token()
    now = hub.clock()
    row = GameRow(
        id=new_game_id(),
        status="lobby",
        options=options_of(rules),
        settings=body.settings.model_dump(),
        host=0,
        seats=(SeatRow(0, name, "human", None, token_hash(token)),),
        created_at=now,
        last_active_at=now,
    )
    await hub.create(row)
    return SeatGranted(game_id=row.id, invite=invite_of(row.id), seat=0, token=token)


async def fresh(referee: Referee) -> None:
    """Before a lobby change: when other server processes share the database, catch up
    with their changes first (before taking the table's lock: the reads are made
    outside it, and shared with other requests meanwhile; a change made elsewhere
    after them is caught by the store's compare-and-set)."""
    await referee.caught_up()


def seat_of(referee: Referee, token: str | None) -> int:
    """The seat ``token`` holds at this table now, or an error (``seat_removed`` for
    a token whose seat was removed).  Seats change only under the table's lock: the
    position found is valid while the caller holds it."""
    if not token:
        raise ServerError("no_token", "this needs your seat token: Authorization: Bearer ...")
    key = token_hash(token)
    table = referee.table
    seat = table.seat_of(key)
    if seat is None:
        if key in table.removed:
            raise ServerError("seat_removed", "the seat this token held was removed from the table")
        raise ServerError("bad_token", "that token holds no seat at this table")
    return seat


async def look_for(referee: Referee, token: str, lookups: AddressLimiter, address: str) -> None:
    """Before a connection's ``hello`` (outside the table's lock): when other server
    processes share the database, a token this process does not know may have just
    claimed its seat (or had it removed) through another one.  The store is asked
    about that token alone (one indexed read), and only a token it knows at this
    table makes this one catch up: a made-up token costs the table nothing.  Each
    look is taken from the client ``address``'s ``lookups`` (a token found gives it
    back); past them the hello is refused with ``rate_limited``, unread (not
    ``bad_token``: the token may be good, and a client forgets a bad one)."""
    key = token_hash(token)
    table = referee.table
    if table.seat_of(key) is not None or key in table.removed or not referee.store.shared:
        return
    if not lookups.allow(address):
        raise ServerError(
            "rate_limited",
            "too many tokens this table does not know from this address: try again in a minute",
        )
    try:
        known = await referee.store.knows_token(table.id, key)
    except StoreError as exc:
        lookups.give_back(address)
        raise store_unavailable(f"table {table.id}: the token cannot be looked up", exc) from None
    if known:
        lookups.give_back(address)
        await referee.caught_up()


def hello_seat(referee: Referee, token: str) -> tuple[int, str]:
    """The seat ``token`` holds and its identity (the token's hash), for a
    connection's ``hello`` (after :func:`look_for`); the caller holds the table's
    lock, and joins the connection to the seat before letting it go."""
    return seat_of(referee, token), token_hash(token)


def host_of(referee: Referee, token: str | None) -> int:
    seat = seat_of(referee, token)
    if seat != referee.table.host:
        raise ServerError("not_host", "only the host may do this")
    return seat


def in_lobby(referee: Referee) -> None:
    status = referee.table.status
    if status == "closed":
        raise ServerError("table_closed", "the table was closed")
    if status != "lobby":
        raise ServerError("game_started", "the game has started: seats cannot change now")


async def save_seats(
    referee: Referee,
    seats: list[SeatRow],
    host: int,
    announce: bool = True,
    removed: tuple[str, ...] = (),
) -> None:
    """Store the table's new seats (the caller holds the lock); ``removed``: the token
    hashes of the seats this change removes."""
    table = referee.table
    try:
        await referee.store.replace_seats(
            table.id, seats, host, expected=table.seats, removed=removed
        )
    except SeatsChanged:
        await referee.reload()
        raise ServerError(
            "conflict", "the seats were changed meanwhile (by another server process); try again"
        ) from None
    except StoreError as exc:
        raise store_unavailable(f"table {table.id}: the seats cannot be stored", exc) from None
    table.seats, table.host = seats, host
    table.removed.update(removed)
    if announce:
        referee.broadcast_lobby()


async def claim_seat(hub: Hub, game_id: str, name: str, token: str | None) -> SeatGranted:
    """A free seat for a new player; a token that already holds a seat gets it back."""
    referee = await hub.referee(game_id)
    table = referee.table
    await fresh(referee)
    async with table.lock:
        if token:
            seat = table.seat_of(token_hash(token))
            if seat is not None:
                return SeatGranted(
                    game_id=table.id, invite=invite_of(table.id), seat=seat, token=token
                )
        in_lobby(referee)
        if len(table.seats) >= table.max_seats:
            raise ServerError("table_full", f"all {table.max_seats} seats are taken")
        name = display_name(name)
        distinct_name(name, (s.name for s in table.seats))
        token = new_token()
        seat = len(table.seats)
        row = SeatRow(seat, name, "human", None, token_hash(token))
        await save_seats(referee, [*table.seats, row], table.host)
    return SeatGranted(game_id=table.id, invite=invite_of(table.id), seat=seat, token=token)


async def add_bot(hub: Hub, game_id: str, level: str, token: str | None) -> BotAdded:
    if level not in BOT_LEVELS:
        raise ServerError("bad_level", f"level: {level!r} is not one of {', '.join(BOT_LEVELS)}")
    referee = await hub.referee(game_id)
    table = referee.table
    await fresh(referee)
    async with table.lock:
        host_of(referee, token)
        in_lobby(referee)
        if len(table.seats) >= table.max_seats:
            raise ServerError("table_full", f"all {table.max_seats} seats are taken")
        used = {s.name for s in table.seats}
        name = next(
            (f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used),
            f"Bot {len(table.seats) + 1}",
        )
        seat = len(table.seats)
        await save_seats(
            referee, [*table.seats, SeatRow(seat, name, "bot", level, None)], table.host
        )
    return BotAdded(seat=seat)


async def remove_seat(hub: Hub, game_id: str, position: int, token: str | None) -> None:
    """The host removes a seat, or a player leaves their own (not the host's)."""
    referee = await hub.referee(game_id)
    table = referee.table
    await fresh(referee)
    async with table.lock:
        seat = seat_of(referee, token)
        in_lobby(referee)
        if not 0 <= position < len(table.seats):
            raise ServerError("unknown_seat", f"there is no seat {position}")
        if seat != table.host and position != seat:
            raise ServerError("not_host", "only the host may remove another player's seat")
        if position == table.host:
            raise ServerError("not_host", "the host's own seat cannot be removed")
        gone = table.seats[position].token_hash
        kept = [s for s in table.seats if s.position != position]
        host = table.host - (1 if position < table.host else 0)
        renumbered = [replace(s, position=i) for i, s in enumerate(kept)]
        removed = () if gone is None else (gone,)
        await save_seats(referee, renumbered, host, announce=False, removed=removed)
        referee.seats_changed()


async def start_game(hub: Hub, game_id: str, token: str | None) -> None:
    referee = await hub.referee(game_id)
    table = referee.table
    await fresh(referee)
    async with table.lock:
        host_of(referee, token)
        in_lobby(referee)
        if len(table.seats) < 2:
            raise ServerError("too_few_players", "a game needs at least two seats")
        try:
            await referee.store.set_status(table.id, "playing", hub.clock())
        except StoreError as exc:
            raise store_unavailable(f"table {table.id}: the game cannot start", exc) from None
        table.status = "playing"
        referee.broadcast_lobby()
        referee.stand_in.start_absences()
        try:
            await referee.deal_if_due()
        except ServerError as exc:  # the game has started; the deal is tried again
            log.warning(
                "table %s: the first deal was not stored: %s",
                table.id,
                exc.message,
                extra={"table": table.id},
            )
        referee.stand_in.poke()


async def rematch(hub: Hub, game_id: str, token: str | None) -> RematchCreated:
    """A new table with the same options and seats; each player's token holds their
    seat there too, and every connection at the old table is told."""
    referee = await hub.referee(game_id)
    table = referee.table
    await fresh(referee)
    async with table.lock:
        seat_of(referee, token)
        if table.status != "finished":
            raise ServerError("game_not_finished", "a rematch follows a finished game")
        if table.rematch_id is None:
            now = hub.clock()
            row = GameRow(
                id=new_game_id(),
                status="lobby",
                options=table.options,
                settings=table.settings.model_dump(),
                host=table.host,
                seats=tuple(table.seats),
                created_at=now,
                last_active_at=now,
                rematch_of=table.id,
            )
            await hub.create(row)
            try:
                table.rematch_id = await referee.store.set_rematch(table.id, row.id)
            except StoreError as exc:
                raise store_unavailable(
                    f"table {table.id}: the rematch was not stored", exc
                ) from None
            referee.broadcast(Rematch(game_id=table.rematch_id, invite=invite_of(table.rematch_id)))
            referee.broadcast_lobby()
        new_id = table.rematch_id
    return RematchCreated(game_id=new_id, invite=invite_of(new_id))
