"""Late friends: a spectator takes over a seat that a computer plays.

Once a game runs, a friend who opens the invite link watches.  They may ask for a
seat a computer plays (a bot seat, or the seat of a player who left and is played by
a stand-in); the host accepts or declines with one click (the requests are kept by
:mod:`maumau.server.live.seat_requests`).  On accepting, under the table's lock (as every
move: a computer move being made finishes first, one planned is planned again), the
seat is bound to a new token, stored, and handed to the asker's connection, which
plays the seat from the next move on: its hand, its totals, its earlier rounds.

What changes with the seat (docs/protocol.md, "Late friends"):

- its token: the new holder's.  A stand-in seat's old token is given up for good (it
  is kept among the removed seats, so it is answered ``seat_removed``): a seat has one
  holder, and the player who left would otherwise share the newcomer's hand;
- its name: the newcomer's, at the live table and in the game's record, whose
  ``players`` name the seats (the record's rounds, actions and shuffle are the
  seat's, so it replays and verifies as before);
- its kind: ``human`` (a bot's level is dropped; should the newcomer go away, the
  table's stand-in plays the seat after the grace period, as for any player).

Other server processes learn of the new holder from the stored seats, as of any
change of seats (a change notice, then :meth:`Referee.reload`); an asker connected to
another process than the host's is handed the seat there (see
:mod:`maumau.server.live.seat_requests`).
"""

from __future__ import annotations

from maumau.server.live.referee import Referee
from maumau.server.live.seat_requests import SeatRequest
from maumau.server.live.seating import new_token, save_seats, token_hash
from maumau.server.transport.connection import Connection
from maumau.server.wire.errors import ServerError
from maumau.server.wire.names import display_name, distinct_name
from maumau.server.wire.protocol import Closed
from maumau.store import SeatRow


def playing(referee: Referee) -> None:
    """``not_playing`` unless the table's game is being played."""
    table = referee.table
    game = table.game
    if table.status != "playing" or game is None or game.finished:
        what = "has not started: claim a free seat" if table.status == "lobby" else "is over"
        raise ServerError("not_playing", f"the game {what}; seats are taken over during play")


def computer_seat(referee: Referee, seat: int) -> None:
    """``unknown_seat`` or ``seat_not_computer`` unless a computer plays ``seat`` now."""
    table = referee.table
    if not 0 <= seat < len(table.seats):
        raise ServerError("unknown_seat", f"there is no seat {seat}")
    if seat == table.host:  # (a stand-in plays it only while the host is away)
        raise ServerError("seat_not_computer", f"seat {seat} is the host's: ask for another")
    if not referee.stand_in.controlled(seat):
        raise ServerError(
            "seat_not_computer",
            f"seat {seat} is played by a person, not by a computer: ask for another",
        )


def free_name(referee: Referee, name: str, seat: int) -> None:
    """``name_taken`` if a seat other than ``seat`` has ``name``."""
    distinct_name(name, (s.name for s in referee.table.seats if s.position != seat))


async def ask_seat(referee: Referee, conn: Connection, seat: int, raw_name: str) -> None:
    """A spectator asks for ``seat`` under ``raw_name``."""
    if conn.seat is not None:
        raise ServerError("not_spectator", f"this connection holds seat {conn.seat} already")
    name = display_name(raw_name)
    async with referee.table.lock:
        playing(referee)
        computer_seat(referee, seat)
        free_name(referee, name, seat)
        token = new_token()  # (the seat's if the host accepts, wherever the host is)
        referee.seat_requests.add(conn, seat, name, token, token_hash(token))


def withdraw_seat(referee: Referee, conn: Connection) -> None:
    """The spectator withdraws its request."""
    request = referee.seat_requests.of(conn)
    if request is None:
        raise ServerError("unknown_request", "you have no open request for a seat")
    referee.seat_requests.end(request, "withdrawn")


async def answer_seat(referee: Referee, conn: Connection, request_id: int, accept: bool) -> None:
    """The host accepts or declines request ``request_id``."""
    table = referee.table
    requests = referee.seat_requests
    async with table.lock:
        if (
            conn.seat is None
            or conn.seat != table.host
            or not table.holds(conn.seat, conn.seat_key)
        ):
            raise ServerError("not_host", "only the host may answer a request for a seat")
        request = requests.open.get(request_id)
        if request is None:
            raise ServerError("unknown_request", f"request {request_id} is not open (any more)")
        if not accept:
            requests.end(request, "declined")
            return
        if referee.store.shared:  # another process may have changed the seats meanwhile
            await referee.reload()  # (the host's answer: no stranger's request reads here)
        asker = request.conn  # (None: the asker is at another process, which says if it left)
        gone = asker is not None and (asker not in referee.connections or asker.closing)
        if request_id not in requests.open or gone:
            requests.end(request, "gone")
            raise ServerError("unknown_request", f"request {request_id}: its asker has left")
        try:
            playing(referee)
            computer_seat(referee, request.seat)
        except ServerError as exc:
            requests.end(request, "seat_taken")
            raise ServerError("seat_not_computer", exc.message) from None
        try:
            free_name(referee, request.name, request.seat)
        except ServerError:
            requests.end(request, "name_taken")
            raise
        await take_over(referee, request)


async def take_over(referee: Referee, request: SeatRequest) -> None:
    """Bind the request's seat to a new token held by its asker (the caller holds the
    lock and checked that a computer plays the seat)."""
    table = referee.table
    seat, conn, key = request.seat, request.conn, request.key
    old = table.seats[seat]
    seats = [
        SeatRow(seat, request.name, "human", None, key) if s.position == seat else s
        for s in table.seats
    ]
    removed = () if old.token_hash is None else (old.token_hash,)
    await save_seats(referee, seats, table.host, announce=False, removed=removed)
    table.name_seats()
    referee.stand_in.returned(seat)  # (no grace period runs, and no stand-in plays it)
    referee.seat_requests.end(request, "granted")
    for other in list(referee.connections):  # (the old holder, should it be here)
        if old.token_hash is not None and other.seat_key == old.token_hash:
            referee.connections.discard(other)
            other.seat = other.seat_key = None
            other.close(Closed(code="seat_removed", message="the host gave your seat to another"))
    here = conn is not None and conn in referee.connections and not conn.closing
    if here and conn is not None and request.token is not None:  # (else its process does)
        referee.seat_requests.give(conn, seat, key, request.token)
    if seat not in referee.connected():  # the asker left meanwhile, or is elsewhere: a
        referee.stand_in.absent(seat)  # player away, until its process says it is there
    referee.announce()
    referee.broadcast_lobby()
    referee.broadcast_state()
    referee.seat_requests.prune(referee.stand_in.computer_seats())
    referee.presence.changed()
    referee.stand_in.poke()  # a computer move planned for the seat is planned again
