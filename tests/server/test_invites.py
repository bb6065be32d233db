"""The QR code of a table's invite link (maumau.server.http.invites): built only from a
``Host`` the server checked, made once per link, new ones limited per address, and
the table looked up without loading it."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from maumau.server.app import create_app
from maumau.server.config import ServerConfig
from maumau.server.http.invites import MAX_LINK, Invites
from maumau.server.live.replays import qr_svg
from maumau.server.transport.clients import MAX_HOST, valid_host
from maumau.server.wire.errors import ServerError
from support.serverkit import TEST_LIMITS, create_table

#: the longest Host the server accepts: four labels of 63, 63, 63 and 61 characters
LONGEST = ".".join(("a" * 63, "b" * 63, "c" * 63, "d" * 61)) + ":65535"


def _client(tmp_path: Path, **settings: Any) -> TestClient:
    config = ServerConfig(data_dir=tmp_path, **(TEST_LIMITS | settings))
    return TestClient(create_app(config), raise_server_exceptions=False)


def _invites(client: TestClient) -> Invites:
    invites: Invites = client.app.state.invites  # type: ignore[attr-defined]
    return invites


@pytest.mark.parametrize(
    "host",
    [
        "a" * 2300,  # made the QR code cost 116 ms
        "a" * 2400,  # overflowed segno's largest QR code: a 500 and a traceback
        "a" * 64,  # one label too long
        ".".join(["a" * 63] * 4) + ":80",  # a name of 255 characters
        "cards.example.org/../x",
        "cards example.org",
        "cards.example.org:0",
        "cards.example.org:65536",
        "cards.example.org:+80",
        "[fe80::1%eth0]",
        "[::1",
        "user@cards.example.org",
    ],
)
def test_a_host_that_is_no_host_is_refused_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, host: str
) -> None:
    caplog.set_level(logging.INFO)
    with _client(tmp_path) as client:
        game_id, _ = create_table(client)
        reply = client.get(f"/api/games/{game_id}/qr.svg", headers={"Host": host})
        assert _invites(client).made == 0
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["code"] == "bad_host" and "Host header" in error["message"]
    assert host not in error["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_the_longest_host_makes_a_qr_code() -> None:
    assert len(LONGEST) == MAX_HOST and valid_host(LONGEST)
    assert not valid_host(LONGEST + "0") and not valid_host("e" + LONGEST)
    assert not valid_host("cards.example.org:\uff18\uff10")  # (digits, but not ASCII ones)
    assert qr_svg("https://" + LONGEST + "/g/" + "x" * 32).startswith(b"<?xml")
    assert len("https://" + LONGEST + "/g/" + "x" * 32) == MAX_LINK


@pytest.mark.parametrize(
    "host", ["testserver", "cards.example.org:8000", "192.0.2.1:80", "[2001:db8::1]:443", "my_app"]
)
def test_ordinary_hosts_are_links(tmp_path: Path, host: str) -> None:
    with _client(tmp_path) as client:
        game_id, _ = create_table(client)
        reply = client.get(f"/api/games/{game_id}/qr.svg", headers={"Host": host})
    assert reply.status_code == 200
    assert reply.content == qr_svg(f"http://{host}/g/{game_id}")


def test_a_tables_qr_code_is_made_once(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        game_id, _ = create_table(client)
        other, _ = create_table(client)
        replies = [client.get(f"/api/games/{game_id}/qr.svg") for _ in range(5)]
        assert _invites(client).made == 1
        client.get(f"/api/games/{other}/qr.svg")
        client.get(f"/api/games/{game_id}/qr.svg", headers={"Host": "cards.example.org"})
        assert _invites(client).made == 3  # another table, another link
    assert {r.content for r in replies} == {qr_svg(f"http://testserver/g/{game_id}")}


def test_new_qr_codes_are_limited_per_address(tmp_path: Path) -> None:
    with _client(tmp_path, qr_codes_per_minute=3.0) as client:
        game_id, _ = create_table(client)
        path = f"/api/games/{game_id}/qr.svg"
        made = [client.get(path, headers={"Host": f"h{n}.example"}) for n in range(3)]
        refused = client.get(path, headers={"Host": "h3.example"})
        kept = client.get(path, headers={"Host": "h0.example"})
        assert _invites(client).made == 3
    assert [r.status_code for r in made] == [200, 200, 200]
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert kept.status_code == 200  # a code made already costs nothing: never limited


def test_the_cache_keeps_the_latest_codes() -> None:
    made: list[str] = []

    def make(link: str) -> bytes:
        made.append(link)
        return link.encode()

    async def ask(invites: Invites, link: str) -> bytes:
        return await invites.qr(link, "192.0.2.1")

    async def run() -> None:
        invites = Invites(1000.0, make, size=2)
        for link in ("a", "b", "a", "c", "a", "b"):
            assert await ask(invites, link) == link.encode()
        # a and b were kept, c pushed b out (a was used after b), b made again
        assert made == ["a", "b", "c", "b"]
        # asked for at once: made once
        both = await asyncio.gather(ask(invites, "d"), ask(invites, "d"))
        assert both == [b"d", b"d"] and made.count("d") == 1

    asyncio.run(run())


def test_a_link_too_long_for_a_qr_code_is_a_refusal() -> None:
    async def run() -> None:
        invites = Invites(1000.0)
        with pytest.raises(ServerError) as refused:
            await invites.qr("https://x.example/g/" + "x" * 2400, "192.0.2.1")
        assert refused.value.code == "bad_host"
        invites.make = lambda link: qr_svg(link + "x" * 2400)  # past segno's largest code
        with pytest.raises(ServerError) as refused:
            await invites.qr("https://x.example/g/abc", "192.0.2.1")
        assert refused.value.code == "bad_host" and not invites.codes

    asyncio.run(run())


def test_a_table_not_in_memory_is_not_loaded(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        game_id, _ = create_table(client)
        hub = client.app.state.hub  # type: ignore[attr-defined]
        hub.unload(hub.referees[game_id])

        def no_steps(*args: Any) -> Any:
            raise AssertionError("the steps were read")

        hub.store.load = hub.store.steps = hub.store.steps_json = no_steps
        reply = client.get(f"/api/games/{game_id}/qr.svg")
        missing = client.get("/api/games/nope/qr.svg")
        assert game_id not in hub.referees
    assert reply.status_code == 200
    assert reply.content == qr_svg(f"http://testserver/g/{game_id}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_game"


def test_maumau_serve_sets_the_limit() -> None:
    from maumau.cli.main import build_parser
    from maumau.cli.serve_options import budget_settings

    args = build_parser().parse_args(["serve", "--qr-codes-per-minute", "5"])
    assert budget_settings(args)["qr_codes_per_minute"] == 5.0
    assert budget_settings(build_parser().parse_args(["serve"]))["qr_codes_per_minute"] == (
        ServerConfig().qr_codes_per_minute
    )


def test_the_store_is_asked_only_within_the_limit(tmp_path: Path) -> None:
    """A kept code is served without asking the store; asking for tables that are not
    in memory (or do not exist) costs the store one read per request the address's
    limit lets through, and no more."""
    with _client(tmp_path, qr_codes_per_minute=3.0) as client:
        game_id, _ = create_table(client)
        hub = client.app.state.hub  # type: ignore[attr-defined]
        hub.unload(hub.referees[game_id])
        asked: list[str] = []
        read = hub.store.game

        async def game(wanted: str) -> Any:
            asked.append(wanted)
            return await read(wanted)

        hub.store.game = game
        kept = [client.get(f"/api/games/{game_id}/qr.svg") for _ in range(4)]
        assert asked == [game_id]
        unknown = [client.get(f"/api/games/nope{n}/qr.svg") for n in range(6)]
        assert asked == [game_id, "nope0", "nope1"]
    assert [r.status_code for r in kept] == [200] * 4
    assert [r.status_code for r in unknown] == [404, 404] + [429] * 4
