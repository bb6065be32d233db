"""Rate limits: a token bucket per connection, and table creation per client address."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """Allows ``rate`` events per second on average and bursts of up to ``burst``."""

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


class AddressLimiter:
    """A token bucket per client address (for creating tables), forgetting idle ones."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = max(1.0, per_minute)
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def allow(self, address: str) -> bool:
        if len(self.buckets) > 10_000:
            self.buckets = {a: b for a, b in self.buckets.items() if b.tokens < b.burst}
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket.allow()
