"""What each person at a table may say: the chat's and the reactions' budgets.

Every line and reaction goes to everyone at the table, so what all may send together is
bounded; and it is bounded per *person*, so that nobody can use up another's share:

- a player's budget is its seat's: all the sockets of one seat (its tabs) share it;
- a spectator's is its address's (:func:`maumau.server.transport.limits.address_key`): all the
  spectators of one address share it, and it is smaller than a player's;
- and all the spectators together share one more budget, so that many addresses
  cannot flood a table either (a player's budget is never taken by a spectator).

So a table gets at most its seats' budgets and the spectators' one, whoever connects.
A full bucket is the same as a new one, so those are forgotten (the budgets of people
long gone take no memory).
"""

from __future__ import annotations

from maumau.server.transport.connection import Connection
from maumau.server.transport.limits import Buckets, TokenBucket
from maumau.server.wire.errors import ServerError

#: a player's (one seat's, all its sockets together) lines: a second, and bursts of
LINES_PER_SECOND = 0.5
LINE_BURST = 5.0
#: a player's reactions: a second, and bursts of
REACTIONS_PER_SECOND = 1.0
REACTION_BURST = 5.0
#: the spectators of one address, together: lines and reactions, a second and bursts
ADDRESS_LINES_PER_SECOND = 0.25
ADDRESS_LINE_BURST = 3.0
ADDRESS_REACTIONS_PER_SECOND = 0.5
ADDRESS_REACTION_BURST = 3.0
#: all the spectators of a table, together: lines and reactions, a second and bursts
SPECTATORS_LINES_PER_SECOND = 0.5
SPECTATORS_LINE_BURST = 5.0
SPECTATORS_REACTIONS_PER_SECOND = 1.0
SPECTATORS_REACTION_BURST = 5.0
#: the most people's buckets a table keeps (the longest unused goes first)
KEPT = 256


class Shares(Buckets):
    """A token bucket per person (a key), at most :data:`KEPT` of them."""

    def __init__(self, rate: float, burst: float) -> None:
        super().__init__(rate, burst, size=KEPT)


class ChatBudget:
    """The budgets of one table's chat."""

    def __init__(self) -> None:
        self._lines = Shares(LINES_PER_SECOND, LINE_BURST)
        self._reactions = Shares(REACTIONS_PER_SECOND, REACTION_BURST)
        self._address_lines = Shares(ADDRESS_LINES_PER_SECOND, ADDRESS_LINE_BURST)
        self._address_reactions = Shares(ADDRESS_REACTIONS_PER_SECOND, ADDRESS_REACTION_BURST)
        self._spectator_lines = TokenBucket(SPECTATORS_LINES_PER_SECOND, SPECTATORS_LINE_BURST)
        self._spectator_reactions = TokenBucket(
            SPECTATORS_REACTIONS_PER_SECOND, SPECTATORS_REACTION_BURST
        )

    def line(self, conn: Connection) -> None:
        """Take a line from ``conn``'s budget, or refuse it (``rate_limited``)."""
        if conn.seat is not None:
            if not self._lines.allow(_seat(conn)):
                raise _refused("chat: too many lines from this seat")
        elif not self._address_lines.allow(conn.address):
            raise _refused("chat: too many lines from this address")
        elif not self._spectator_lines.allow():
            raise _refused("chat: the spectators are chatting fast")

    def reaction(self, conn: Connection) -> None:
        """Take a reaction from ``conn``'s budget, or refuse it (``rate_limited``)."""
        if conn.seat is not None:
            if not self._reactions.allow(_seat(conn)):
                raise _refused("reactions: too many from this seat")
        elif not self._address_reactions.allow(conn.address):
            raise _refused("reactions: too many from this address")
        elif not self._spectator_reactions.allow():
            raise _refused("reactions: the spectators react fast")


def _refused(why: str) -> ServerError:
    return ServerError("rate_limited", f"{why}; wait a moment")


def _seat(conn: Connection) -> str:
    """A seat's key: its identity (the token's hash), which a seat keeps when the
    seats before it change; its position if it has none."""
    return conn.seat_key or f"#{conn.seat}"
