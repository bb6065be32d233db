"""Who may hold a table's WebSocket: at most so many per client address and per table,
and how many have not said ``hello`` yet.

Every open socket holds a file descriptor, a task and its buffers, and every move at a
table is sent to each of the table's sockets.  Without caps, one client opening
sockets and never greeting could use up the process's open files (``GET /`` then fails
for everyone); the ``hello`` deadline (in :func:`maumau.server.http.sockets.play`) and these
caps bound what one address or one table can hold.  And an address may open only so
many sockets a minute: a client closed for a flood (of messages, of pings) would
otherwise come straight back, and every new socket costs a handshake, a hello and the
table's whole state."""

from __future__ import annotations

from maumau.server.transport.limits import AddressLimiter, Quota, address_key
from maumau.server.wire.errors import ServerError


class Admission:
    """The caps, and what is held against them (``per_address``: sockets of one
    :func:`address_key`; ``per_table``: sockets of one table, players and spectators
    alike, greeted or not)."""

    def __init__(self, per_address: int, per_table: int, per_minute: float = 120.0) -> None:
        self.addresses = Quota(per_address)
        self.tables = Quota(per_table)
        #: new sockets per address and minute
        self.opening = AddressLimiter(per_minute)
        #: sockets let in that have not said hello (yet)
        self.pending = 0

    def enter(self, host: str) -> Place:
        """A socket from the client address ``host`` comes in: its place, pending until
        :meth:`Place.greet`; its :attr:`Place.too_soon` when the address opened as many
        this minute as it may (the caller holds the place a while, then refuses it:
        :data:`maumau.server.http.sockets.TOO_SOON_SECONDS`).  ``too_many_connections`` when
        the address holds as many as it may."""
        key = address_key(host)
        if not self.addresses.take(key):
            raise ServerError(
                "too_many_connections",
                f"this address has {self.addresses.cap} connections open, the most it may; "
                "close some (other tabs?) and try again",
            )
        self.pending += 1
        place = Place(self, key)
        if not self.opening.allow(key):
            place.too_soon = ServerError(
                "rate_limited",
                f"this address opened more than {self.opening.burst:g} connections in a "
                "minute; wait a little before connecting again",
            )
        return place

    @property
    def greeted(self) -> int:
        """Sockets open that have said hello (a draining server waits for them to go)."""
        return sum(self.addresses.held.values()) - self.pending


class Place:
    """One socket's share of the caps, from :meth:`Admission.enter` to :meth:`leave`."""

    __slots__ = ("address", "admission", "pending", "table", "too_soon")

    def __init__(self, admission: Admission, address: str) -> None:
        self.admission = admission
        self.address: str | None = address
        self.table: str | None = None
        self.pending = True
        #: the refusal, when its address opened as many sockets this minute as it may
        self.too_soon: ServerError | None = None

    def join(self, table_id: str) -> None:
        """The socket is at the table ``table_id``; ``too_many_connections`` when the
        table holds as many as it may."""
        tables = self.admission.tables
        if not tables.take(table_id):
            raise ServerError(
                "too_many_connections",
                f"this table has {tables.cap} connections open, the most it may "
                "(players and spectators); try again later",
            )
        self.table = table_id

    def greet(self) -> None:
        """The socket said hello: no longer pending."""
        if self.pending:
            self.pending = False
            self.admission.pending -= 1

    def leave(self) -> None:
        """The socket is gone: give back what it held (once)."""
        self.greet()  # (pending no longer, either way)
        if self.address is not None:
            self.admission.addresses.give_back(self.address)
            self.address = None
        if self.table is not None:
            self.admission.tables.give_back(self.table)
            self.table = None
