"""A sample of the hostile campaign's attacks (``bench/hostile.py``; the attacks in
``bench/lab/hostile/attacks*.py``): every attack of the security issue, smaller, against
a real ``maumau serve`` of this tree started with the campaign's short deadlines.

Each attack has its own gate (what the server must come to: no hijacked seat, floods
refused as documented, idle and slow connections closed, hostile names refused, the
headers sent, presence coalesced, bot tables capped); here every gate must pass, and
the figures that say the attack really ran must be there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from lab.hostile.arena import setup_games
from lab.hostile.attacks import Part, Plan, run_attacks
from lab.hostile.server import (
    HEADER_SECONDS,
    HELLO_SECONDS,
    LIVE_TABLES_PER_ADDRESS,
    Server,
    start_server,
)

pytestmark = pytest.mark.system  # (a real maumau serve)

SAMPLE = Plan(
    hijack_rounds=8,
    replay_clients=4,
    replay_seconds=1.0,
    socket_attempts=300,
    presence_connects=40,
    bot_tables=LIVE_TABLES_PER_ADDRESS + 2,
    bot_level="random",
    bot_seconds=1.0,
    hello_seconds=HELLO_SECONDS,
    header_seconds=HEADER_SECONDS,
)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, Part]]]:
    server = start_server(tmp_path_factory.mktemp("hostile-attacks"))
    try:

        async def attack() -> list[Part]:
            ctx = await setup_games(server)
            return await run_attacks(server, ctx, SAMPLE)

        parts = asyncio.run(attack())
        yield server, {part.name: part for part in parts}
    finally:
        server.stop()


def test_every_attack_meets_its_gate(attacked: tuple[Server, dict[str, Part]]) -> None:
    server, parts = attacked
    assert set(parts) == {
        "seat hijack",
        "replay flood",
        "idle sockets",
        "slowloris",
        "display names",
        "security headers",
        "presence amplification",
        "bot tables",
    }
    failed = {name: (p.headline, p.failures[:3]) for name, p in parts.items() if not p.passed}
    assert not failed
    assert sum(part.http_5xx for part in parts.values()) == 0
    assert server.alive()
    utf8, other = server.bad_records()
    assert utf8 == [] and other == [], other


def test_the_attacks_really_ran(attacked: tuple[Server, dict[str, Part]]) -> None:
    """The gates pass because the server held, not because nothing was tried."""
    _, parts = attacked
    hijack = parts["seat hijack"].figures
    assert hijack["seats removed"] == SAMPLE.hijack_rounds
    assert hijack["removed tabs told seat_removed"] == SAMPLE.hijack_rounds
    assert hijack["states checked"] > 0 and hijack.get("hijacks", 0) == 0
    replay = parts["replay flood"].figures
    assert replay["replies"]["200"] > 0 and replay["replies"]["rate_limited"] > 0
    phases = parts["idle sockets"].figures["phases"]
    assert [p["said"].split(":")[0] for p in phases] == ["too_many_connections"] * 2
    assert "this address" in phases[0]["said"] and "this table" in phases[1]["said"]
    assert parts["idle sockets"].figures["hello deadline"]["message"] == "closed hello_timeout"
    names = parts["display names"].figures
    assert names["refused as documented"] == names["names sent"] > 50
    presence = parts["presence amplification"].figures
    assert presence["failed"] == 0 and presence["player's messages"] < SAMPLE.presence_connects
    bots = parts["bot tables"].figures
    assert bots["refused with"] == "too_many_live_tables"
    assert 0 < bots["tables started"] <= LIVE_TABLES_PER_ADDRESS


def test_a_tab_shown_another_seat_is_a_hijack() -> None:
    """The gate's own check: a tab welcomed to a seat its name does not hold, or sent
    another seat's state, is seen."""
    from lab.hostile.attacks_seats import seat_problems

    welcome = {"type": "welcome", "role": "player", "seat": 1}
    lobby = {"type": "lobby", "game": {"seats": [{"name": "A"}, {"name": "B"}]}}
    state = {"type": "state", "view": {"seat": 0}}
    assert seat_problems([welcome, lobby], "A")
    assert not seat_problems([welcome, lobby], "B")
    assert seat_problems([welcome, lobby, state], "B")
