"""How the ``hard`` bot's workers are shared: by what each table and each address
uses of them, not by whether anybody is watching.

A hard decision keeps a worker busy for tens of milliseconds, and a table whose
computer players move at ``bot_delay_ms`` 0 asks for the next one as soon as the last
is made.  Two such tables, kept "attended" by one scripted player, would keep a small
pool busy and make every other table's hard players wait.  So, per server process:

- **A meter** (:class:`Meter`).  The worker time of every hard decision (measured in
  the worker: waiting for a worker costs nothing) is charged to a token bucket of
  worker-seconds of its table and one of the address that created it.  A bucket
  refills at its *share*, the part of one worker it may keep busy on average
  (``worker_share_per_table``, ``worker_share_per_address``), up to
  :data:`BURST_SECONDS` of it.  A decision may take a bucket below zero; then the
  table's next computer move waits until both of its buckets are back at zero
  (:meth:`maumau.server.live.budget.Budget.admit`).  So a table's hard players move as
  their table's pace allows until they have used their burst, then no faster than
  their share allows, and the tables of one address together no faster than its own.
- **Turns** (:class:`Turns`).  The workers are handed out one decision at a time,
  round-robin among the keys (the creating address; a table whose creator is unknown
  is a key of its own) that have decisions waiting, and one key holds at most half
  the workers (at least one) at once.  A table has at most one decision in flight
  (its stand-in makes one move at a time).  So a decision waits for those being made
  when it came and then, with one worker, for at most one more of each other key that
  had one waiting: never for a queue that one address's tables filled.

A bucket that has filled up again is the same as none and is forgotten.  A debt is
bounded (a table waits before each move while it owes, so an address owes at most
one decision per table of its, besides its burst), and so is the number of buckets:
at most those charged while the oldest debt is paid off.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

#: a bucket holds this many seconds of its share: the worker time a table (an address)
#: may use at once, at full speed, before its share paces it
BURST_SECONDS = 4.0


class Meter:
    """A token bucket of worker-seconds for each key, refilled at ``share`` per
    second up to ``share * BURST_SECONDS``; spending may take it below zero."""

    def __init__(self, share: float, clock: Callable[[], float]) -> None:
        if not share > 0:
            raise ValueError(f"a worker share must be above 0, not {share}")
        self.share = share
        self.capacity = share * BURST_SECONDS
        self.clock = clock
        #: key -> (level, when it was that), in the order of their last charge
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def level(self, key: str) -> float:
        """The worker-seconds left in ``key``'s bucket now (below zero: owed)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            return self.capacity
        level, at = bucket
        return min(self.capacity, level + (self.clock() - at) * self.share)

    def charge(self, key: str, seconds: float) -> bool:
        """``key`` used ``seconds`` of a worker; whether it owes now."""
        now = self.clock()
        level = self.level(key) - seconds
        self.buckets[key] = (level, now)
        self.buckets.move_to_end(key)
        self._forget(now)
        return level < 0

    def wait(self, key: str) -> float:
        """Seconds until ``key`` owes nothing (0: it owes nothing now)."""
        return max(0.0, -self.level(key) / self.share)

    def _forget(self, now: float) -> None:
        """Drop the buckets that have filled up again, oldest charge first."""
        buckets = self.buckets
        while buckets:
            key, (level, at) = next(iter(buckets.items()))
            if level + (now - at) * self.share < self.capacity:
                return
            del buckets[key]


class Turns:
    """Hands out ``slots`` (a pool's workers) one at a time, round-robin among the
    keys that wait for one, at most ``per_key`` to one key at once."""

    def __init__(self, slots: int, per_key: int) -> None:
        self.free = slots
        self.per_key = per_key
        #: key -> the slots it holds
        self.held: dict[str, int] = {}
        #: key -> its waiters, first come first; the keys in the order they are served
        self.waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def queued(self) -> int:
        """Turns being waited for now."""
        return sum(len(waiters) for waiters in self.waiting.values())

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold a slot for ``key`` (waiting for its turn if need be)."""
        await self.take(key)
        try:
            yield
        finally:
            self.give_back(key)

    async def take(self, key: str) -> None:
        if self.free and key not in self.waiting and self.held.get(key, 0) < self.per_key:
            self._grant(key)
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(key, deque()).append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # given its turn, then cancelled
                self.give_back(key)
            else:
                self._unqueue(key, waiter)
            raise

    def give_back(self, key: str) -> None:
        held = self.held[key] - 1
        if held:
            self.held[key] = held
        else:
            del self.held[key]
        self.free += 1
        self._hand_on()

    def _grant(self, key: str) -> None:
        self.free -= 1
        self.held[key] = self.held.get(key, 0) + 1

    def _hand_on(self) -> None:
        """Give the free slots to the next keys in turn (a key served goes last)."""
        while self.free:
            key = next((k for k in self.waiting if self.held.get(k, 0) < self.per_key), None)
            if key is None:
                return
            waiters = self.waiting[key]
            waiter = waiters.popleft()
            if waiters:
                self.waiting.move_to_end(key)
            else:
                del self.waiting[key]
            if not waiter.done():  # (one cancelled while waiting is skipped)
                self._grant(key)
                waiter.set_result(None)

    def _unqueue(self, key: str, waiter: asyncio.Future[None]) -> None:
        waiters = self.waiting.get(key)
        if waiters is not None and waiter in waiters:
            waiters.remove(waiter)
            if not waiters:
                del self.waiting[key]
