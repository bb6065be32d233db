"""Who is at a table: the ``presence`` message, coalesced.

Every connect and disconnect changes who is at a table.  Each used to send the whole
table (``lobby``, about 1.5 KiB) to every connection at once, so a client that opened
and closed sockets in a loop drove hundreds of messages a second to every player.  Now
a change only marks the table's presence as changed; at most once every
:data:`PRESENCE_SECONDS` the seats connected, the seats played by stand-ins and the
number of spectators go out in one small message, and only if they differ from what
the connections were last told (by a ``presence`` or a ``lobby``).

A seat whose last connection dropped is in the next presence at once (``away``), with
the time a computer player takes it over, so that every client can count down to it
(docs/protocol.md, "Lost signal").  A ``lobby`` does not say who is away: a presence
follows it whenever somebody is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from maumau.server.wire.protocol import Away, Presence

#: the most often a table's presence is sent
PRESENCE_SECONDS = 0.25

#: a seat nobody is connected to: (seat, since, when a stand-in takes over)
Absence = tuple[int, float, float | None]

#: (connected seats, seats played by stand-ins, spectators, absences)
Facts = tuple[tuple[int, ...], tuple[int, ...], int, tuple[Absence, ...]]


class PresenceNotices:
    """A table's presence notices.  ``facts()`` says who is at the table now;
    ``send(text)`` sends a message to every connection there."""

    def __init__(
        self,
        facts: Callable[[], Facts],
        send: Callable[[str], None],
        clock: Callable[[], float],
        seconds: float = PRESENCE_SECONDS,
    ) -> None:
        self._facts = facts
        self._send = send
        self._clock = clock
        self._seconds = seconds
        self._timer: asyncio.TimerHandle | None = None
        #: what the connections were last told
        self.told: Facts | None = None

    def changed(self) -> None:
        """Who is at the table may have changed: tell everyone soon (once)."""
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._seconds, self.flush)

    def flush(self) -> None:
        """Send the presence now if it differs from what was last told."""
        self._timer = None
        try:
            facts = self._facts()
        except ReferenceError:  # the table left memory meanwhile: nobody to tell
            return
        if facts == self.told:
            return
        self.told = facts
        self._send(self.message(facts))

    def message(self, facts: Facts) -> str:
        """The ``presence`` message of ``facts``, as sent."""
        connected, stand_in, spectators, away = facts
        return Presence(
            connected=list(connected),
            stand_in=list(stand_in),
            spectators=spectators,
            away=[Away(seat=s, since=since, stand_in_at=at) for s, since, at in away],
            server_time=self._clock(),
        ).model_dump_json()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
