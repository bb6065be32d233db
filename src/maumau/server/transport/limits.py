"""Rate limits and caps: a token bucket per connection, table creation per client
address, and how many connections a key (an address, a table) holds at once.

Every per-address limit keys its client by :func:`address_key`: an IPv6 client counts by
its /56 (:data:`IPV6_PREFIX`), since whoever holds a block may use as many of its
addresses as it likes.  A /64 is the least any host or home is given, but providers
give a home a /56 (RIPE-690's advice, and the most common delegation) or a /48: counted
by /64, one home had 256 (or 65,536) times every limit.  By /56 a home given a /48 still
has 256 times them, but a shorter prefix would make neighbours whose provider gives
each a /56 (or each phone a /64 out of one pool) share one set of limits; the caps are
sized for a few people behind one address, as behind an IPv4 NAT."""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable

#: the IPv6 prefix one client counts by: a home's usual block (see above)
IPV6_PREFIX = 56


def address_key(host: str) -> str:
    """The key per-address limits count ``host`` (a client's address as the server
    sees it) by: an IPv4 address as it is, an IPv4-mapped IPv6 address
    (``::ffff:192.0.2.1``) as its IPv4 address, any other IPv6 address as its /56
    (``2001:db8:1:200::/56``), and anything that is no IP address (``"testclient"``, a
    Unix socket's name) as it is."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))


class TokenBucket:
    """Allows ``rate`` events per second on average and bursts of up to ``burst``."""

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.stamp = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Buckets:
    """A token bucket per key (``rate`` a second, bursts of ``burst``).

    The buckets are kept in the order of their last use.  A bucket unused for as long
    as it takes to fill up again is the same as a new one, and is forgotten; and at most
    ``size`` are kept (the longest unused goes first), so that a stream of new keys
    cannot grow the memory without bound.  Each request costs O(1)."""

    def __init__(
        self,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        size: int = 10_000,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.size = size
        #: how long an unused bucket takes to fill up
        self.refill = self.burst / self.rate
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, key: str) -> bool:
        buckets = self.buckets
        bucket = buckets.get(key)
        if bucket is None:
            self._forget(self.clock())
            bucket = buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        else:
            buckets.move_to_end(key)
        return bucket.allow()

    def give_back(self, key: str) -> None:
        """Undo one :meth:`allow` of ``key`` that was let through (what it was for
        turned out to cost nothing); a bucket forgotten meanwhile is full anyway."""
        bucket = self.buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(self.burst, bucket.tokens + 1)

    def _forget(self, now: float) -> None:
        """Drop the buckets that have filled up again, and the longest unused ones
        beyond ``size - 1``, from the least recently used end (a new one follows)."""
        buckets = self.buckets
        while buckets:
            oldest = next(iter(buckets.values()))
            if len(buckets) < self.size and now - oldest.stamp < self.refill:
                return
            buckets.popitem(last=False)


class AddressLimiter(Buckets):
    """:class:`Buckets` per client address, ``per_minute`` a minute in bursts of as
    many, keyed by :func:`address_key` (for creating tables, replays, QR codes...)."""

    def __init__(
        self, per_minute: float, clock: Callable[[], float] = time.monotonic, size: int = 10_000
    ) -> None:
        super().__init__(per_minute / 60.0, max(1.0, per_minute), clock, size)

    def allow(self, address: str) -> bool:
        return super().allow(address_key(address))

    def give_back(self, address: str) -> None:
        super().give_back(address_key(address))


class Quota:
    """How many of something (connections) each key holds at once, at most ``cap``."""

    __slots__ = ("cap", "held")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.held: dict[str, int] = {}

    def take(self, key: str) -> bool:
        """One more for ``key``, if it holds fewer than ``cap``; whether it may."""
        count = self.held.get(key, 0)
        if count >= self.cap:
            return False
        self.held[key] = count + 1
        return True

    def give_back(self, key: str) -> None:
        """One less for ``key`` (one it took)."""
        count = self.held[key] - 1
        if count:
            self.held[key] = count
        else:
            del self.held[key]

    def __getitem__(self, key: str) -> int:
        return self.held.get(key, 0)
