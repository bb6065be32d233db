"""The per-address key, the table-creation limiter's memory, and the connection quota."""

from __future__ import annotations

import pytest

from maumau.server.transport.limits import AddressLimiter, Quota, address_key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # IPv4-mapped: the IPv4 client it is
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1::/56"),
        ("2001:db8:1:ff:ffff:ffff:ffff:ffff", "2001:db8:1::/56"),  # the home's last /64
        ("2001:DB8:1:2::9", "2001:db8:1::/56"),
        ("2001:db8:1:100::1", "2001:db8:1:100::/56"),  # the next home
        ("fe80::1%eth0", "fe80::/56"),
        ("::1", "::/56"),
        ("testclient", "testclient"),  # no IP address: as it is
        ("", ""),
        ("001.2.3.4", "001.2.3.4"),
        ("2001:db8:1::/56", "2001:db8:1::/56"),  # a key is its own key
    ],
)
def test_address_key(host: str, key: str) -> None:
    assert address_key(host) == key
    assert address_key(key) == key


def test_an_ipv6_client_counts_by_its_56() -> None:
    """A home is given a /56 (256 /64s): its addresses in every /64 are one client."""
    clock = Clock()
    limiter = AddressLimiter(per_minute=3, clock=clock)
    hosts = [f"2001:db8:0:{n:x}::1" for n in (0x1, 0x2, 0xFF, 0x42)]
    assert [limiter.allow(h) for h in hosts] == [True, True, True, False]
    assert limiter.allow("2001:db8:0:100::1")  # the next /56 is another client
    assert limiter.allow("::ffff:192.0.2.1") and len(limiter.buckets) == 3
    assert "192.0.2.1" in limiter.buckets


def test_buckets_that_filled_up_again_are_forgotten() -> None:
    """Every bucket that was used once stays below its burst until it is refilled; the
    old limiter kept them all.  A bucket unused for as long as refilling takes is
    dropped, since a new one is the same."""
    clock = Clock()
    limiter = AddressLimiter(per_minute=10, clock=clock)
    for n in range(500):
        limiter.allow(f"10.0.{n // 256}.{n % 256}")
    assert len(limiter.buckets) == 500
    clock.now += 61  # 10 tokens at 10 a minute: full again after 60 s
    limiter.allow("10.9.9.9")
    assert list(limiter.buckets) == ["10.9.9.9"]


def test_the_limiter_keeps_at_most_size_buckets_and_drops_the_longest_unused() -> None:
    clock = Clock()
    limiter = AddressLimiter(per_minute=1, clock=clock, size=100)
    for n in range(100):
        assert limiter.allow(f"10.0.0.{n}")
    assert not limiter.allow("10.0.0.0")  # used again: now the most recently used
    for n in range(100, 1000):
        limiter.allow(f"10.0.{n // 256}.{n % 256}")
        assert len(limiter.buckets) <= 100
    assert len(limiter.buckets) == 100
    assert "10.0.0.1" not in limiter.buckets
    assert list(limiter.buckets)[-1] == "10.0.3.231"  # 999


def test_a_bucket_in_use_is_not_forgotten_while_the_limiter_has_room() -> None:
    clock = Clock()
    limiter = AddressLimiter(per_minute=1, clock=clock)
    assert limiter.allow("192.0.2.1")
    for n in range(50):
        clock.now += 1
        limiter.allow(f"198.51.100.{n}")
    assert not limiter.allow("192.0.2.1")  # 50 s at 1 a minute: not a token yet
    assert len(limiter.buckets) == 51


def test_a_take_given_back_is_as_if_it_was_never_taken() -> None:
    clock = Clock()
    limiter = AddressLimiter(per_minute=2, clock=clock)
    assert limiter.allow("::ffff:192.0.2.7") and limiter.allow("192.0.2.7")
    limiter.give_back("192.0.2.7")  # (the same client: keyed alike)
    assert limiter.allow("192.0.2.7")
    assert not limiter.allow("192.0.2.7")
    limiter.give_back("192.0.2.8")  # a client with no bucket: nothing to give back
    assert "192.0.2.8" not in limiter.buckets
    for _ in range(5):
        limiter.give_back("192.0.2.7")
    assert limiter.buckets["192.0.2.7"].tokens == 2  # (never past the burst)


def test_quota() -> None:
    quota = Quota(2)
    assert quota.take("a") and quota.take("a") and not quota.take("a")
    assert quota.take("b") and quota["a"] == 2 and quota["c"] == 0
    quota.give_back("a")
    assert quota.take("a") and not quota.take("a")
    for _ in range(2):
        quota.give_back("a")
    quota.give_back("b")
    assert quota.held == {}  # nothing kept for keys that hold nothing
