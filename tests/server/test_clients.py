"""The client's address behind a reverse proxy (maumau.server.transport.clients), and the links
the server builds at ``--public-url``.

``X-Forwarded-For`` counts only from a trusted peer, walked from the right past every
trusted proxy; whatever a client wrote itself is never reached.  The live tests through
nginx and Caddy are in test_deploy_proxy.py."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from maumau.cli.env import apply_to_commands
from maumau.cli.main import build_parser
from maumau.cli.serve_options import proxy_settings
from maumau.server.app import create_app
from maumau.server.config import ServerConfig
from maumau.server.live.replays import qr_svg
from maumau.server.transport.clients import PEER, Proxies, networks, public_url
from maumau.server.transport.http_protocol import http_protocol
from support.serverkit import TEST_LIMITS, create_table

LOCAL = Proxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])


# --- the address algorithm ----------------------------------------------------------------


def test_an_untrusted_peer_is_the_client_whatever_it_forwards() -> None:
    assert LOCAL.client("198.51.100.7", ["203.0.113.9"]) == "198.51.100.7"
    assert LOCAL.client("2001:db8::5", ["203.0.113.9"]) == "2001:db8::5"
    assert Proxies([]).client("127.0.0.1", ["203.0.113.9"]) == "127.0.0.1"


def test_a_trusted_peer_names_the_client() -> None:
    assert LOCAL.client("127.0.0.1", ["203.0.113.9"]) == "203.0.113.9"
    assert LOCAL.client("127.0.0.1", []) == "127.0.0.1"  # it forwarded nobody
    assert LOCAL.client("127.0.0.1", ["2001:db8::1"]) == "2001:db8::1"
    assert LOCAL.client("fd00::2", ["203.0.113.9"]) == "203.0.113.9"
    assert LOCAL.client("::ffff:127.0.0.1", ["203.0.113.9"]) == "203.0.113.9"


def test_what_a_client_wrote_left_of_its_own_address_is_never_reached() -> None:
    # the client sent "X-Forwarded-For: 192.0.2.66" and a proxy appended its address
    assert LOCAL.client("127.0.0.1", ["192.0.2.66, 203.0.113.9"]) == "203.0.113.9"
    assert LOCAL.client("127.0.0.1", ["192.0.2.66", "203.0.113.9"]) == "203.0.113.9"
    assert LOCAL.client("127.0.0.1", ["10.0.0.1, 203.0.113.9"]) == "203.0.113.9"


def test_a_chain_of_trusted_proxies_is_walked_from_the_right() -> None:
    # client -> 10.1.1.1 (a load balancer) -> 10.2.2.2 (nginx) -> the server
    assert LOCAL.client("127.0.0.1", ["203.0.113.9, 10.1.1.1, 10.2.2.2"]) == "203.0.113.9"
    assert LOCAL.client("10.2.2.2", ["192.0.2.66, 203.0.113.9, 10.1.1.1"]) == "203.0.113.9"
    assert LOCAL.client("127.0.0.1", ["2001:db8::9, fd00::1"]) == "2001:db8::9"
    # nothing but trusted proxies: the furthest of them
    assert LOCAL.client("127.0.0.1", ["10.1.1.1, 10.2.2.2"]) == "10.1.1.1"


def test_entries_with_ports_and_brackets() -> None:
    assert LOCAL.client("127.0.0.1", ["203.0.113.9:5123"]) == "203.0.113.9"
    assert LOCAL.client("127.0.0.1", ["[2001:db8::9]:443"]) == "2001:db8::9"
    assert LOCAL.client("127.0.0.1", ["[2001:db8::9]"]) == "2001:db8::9"


@pytest.mark.parametrize(
    "header",
    ["garbage", "203.0.113.9, garbage", "", " , ", "1.2.3.4.5", "unknown", "\x00", "[::1"],
)
def test_garbage_from_a_trusted_peer_is_no_client(header: str) -> None:
    """Something that is no address stops the walk: the client is the nearest that
    can be told (here the proxy itself), never the text."""
    assert LOCAL.client("127.0.0.1", [header]) == "127.0.0.1"
    assert LOCAL.client("127.0.0.1", [f"{header}, 10.9.9.9"]) == "10.9.9.9"


def test_a_long_header_is_looked_at_from_the_right_only() -> None:
    header = ", ".join(["192.0.2.1"] * 10_000 + ["10.0.0.1"] * 20)
    assert LOCAL.client("127.0.0.1", [header]) == "10.0.0.1"  # (the furthest looked at)


def test_forwarded_scheme_only_from_a_trusted_peer() -> None:
    assert LOCAL.scheme("127.0.0.1", "https", "http") == "https"
    assert LOCAL.scheme("127.0.0.1", "http, https", "http") == "https"
    assert LOCAL.scheme("127.0.0.1", "gopher", "http") == "http"
    assert LOCAL.scheme("127.0.0.1", None, "http") == "http"
    assert LOCAL.scheme("198.51.100.7", "https", "http") == "http"


def test_resolve_puts_the_client_into_the_scope() -> None:
    headers = [(b"x-forwarded-for", b"203.0.113.9"), (b"x-forwarded-proto", b"https")]
    scope: dict[str, Any] = {"type": "http", "client": ("127.0.0.1", 5), "headers": headers}
    LOCAL.resolve(scope)
    assert scope["client"] == ("203.0.113.9", 0) and scope["scheme"] == "https"
    assert scope[PEER] == ("127.0.0.1", 5)
    socket: dict[str, Any] = {"type": "websocket", "client": ("127.0.0.1", 5), "headers": headers}
    LOCAL.resolve(socket)
    assert socket["scheme"] == "wss"
    untrusted: dict[str, Any] = {"type": "http", "client": ("192.0.2.1", 5), "headers": headers}
    LOCAL.resolve(untrusted)
    assert untrusted == {"type": "http", "client": ("192.0.2.1", 5), "headers": headers}


# --- settings -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["10.0.0.0/33", "localhost", "1.2.3", "::g", "10.0.0.1/abc"])
def test_a_bad_trusted_proxy_is_named(bad: str) -> None:
    with pytest.raises(ValueError, match="is no IP address or network"):
        networks(["127.0.0.1", bad])
    with pytest.raises(ValueError, match="is no IP address"):
        create_app(ServerConfig(trusted_proxies=(bad,)))


def test_networks_are_read_from_lists() -> None:
    found = networks(["127.0.0.1, 10.0.0.0/8", "::1", " "])
    assert [str(n) for n in found] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://cards.example.org", "https://cards.example.org"),
        ("https://Cards.Example.org/", "https://cards.example.org"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://[2001:db8::1]:8443/", "https://[2001:db8::1]:8443"),
    ],
)
def test_public_url(text: str, url: str) -> None:
    assert public_url(text) == url


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("cards.example.org", "https://"),
        ("ftp://cards.example.org", "https://"),
        ("https://", "must name a host"),
        ("https://me@cards.example.org", "no user"),
        ("https://cards.example.org/play", "no path"),
        ("https://cards.example.org/?a=1", "no path, query"),
        ("https://cards.example.org/#x", "fragment"),
        ("https://cards.example.org:99999", "bad port"),
    ],
)
def test_a_bad_public_url_says_what_is_wrong(bad: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        public_url(bad)


def _serve_args(*argv: str) -> argparse.Namespace:
    """``maumau serve`` parsed as the command line parses it, the environment's
    ``MAUMAU_*`` variables included (maumau.cli.env)."""
    parser = build_parser()
    apply_to_commands(parser)
    return parser.parse_args(["serve", *argv])


def test_settings_from_options_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAUMAU_TRUSTED_PROXY", "127.0.0.1,10.0.0.0/8")
    monkeypatch.setenv("MAUMAU_PUBLIC_URL", "https://cards.example.org/")
    assert proxy_settings(_serve_args()) == {
        "trusted_proxies": ("127.0.0.1/32", "10.0.0.0/8"),
        "public_url": "https://cards.example.org",
    }
    options = _serve_args(
        "--trusted-proxy", "::1", "--trusted-proxy", "192.0.2.0/24,192.0.2.1",
        "--public-url", "http://localhost:8080",
    )  # fmt: skip
    assert proxy_settings(options) == {
        "trusted_proxies": ("::1/128", "192.0.2.0/24", "192.0.2.1/32"),
        "public_url": "http://localhost:8080",
    }
    monkeypatch.setenv("MAUMAU_TRUSTED_PROXY", "10.0.0.0/8,nope")
    with pytest.raises(ValueError, match=r"\$MAUMAU_TRUSTED_PROXY\): 'nope'"):
        proxy_settings(_serve_args())
    monkeypatch.delenv("MAUMAU_TRUSTED_PROXY")
    with pytest.raises(
        ValueError, match=re.escape("--public-url (or $MAUMAU_PUBLIC_URL): 'https://x.org/a'")
    ):
        proxy_settings(_serve_args("--public-url", "https://x.org/a"))
    monkeypatch.delenv("MAUMAU_PUBLIC_URL")
    assert proxy_settings(_serve_args()) == {"trusted_proxies": (), "public_url": None}


def test_trusted_proxies_connections_are_not_capped_per_peer() -> None:
    """A proxy carries many clients over its connections (nginx caps each client's)."""
    protocol = http_protocol(10.0, 2, ("127.0.0.1",))
    assert protocol.proxies.trusts_peer("127.0.0.1")
    assert not protocol.proxies.trusts_peer("127.0.0.2")
    assert not http_protocol(10.0, 2).proxies


# --- in the app ---------------------------------------------------------------------------


def _client(tmp_path: Path, peer: str = "127.0.0.1", **settings: Any) -> TestClient:
    config = ServerConfig(data_dir=tmp_path, **(TEST_LIMITS | settings))
    return TestClient(create_app(config), client=(peer, 50000))


def _create(client: TestClient, forwarded: str | None = None) -> int:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    body = {"name": "Ana", "preset": "standard"}
    return client.post("/api/games", json=body, headers=headers).status_code


def test_table_creation_is_limited_per_forwarded_client(tmp_path: Path) -> None:
    limits = {"tables_per_minute": 1.0, "trusted_proxies": ("127.0.0.1",)}
    with _client(tmp_path, **limits) as client:
        assert _create(client, "203.0.113.1") == 201
        assert _create(client, "203.0.113.1") == 429
        assert _create(client, "192.0.2.66, 203.0.113.1") == 429  # (a forged left part)
        assert _create(client, "203.0.113.2") == 201


def test_a_forged_forwarded_for_from_an_untrusted_peer_is_ignored(tmp_path: Path) -> None:
    for name, limits in (("none", {}), ("other", {"trusted_proxies": ("10.0.0.0/8",)})):
        with _client(tmp_path / name, tables_per_minute=1.0, **limits) as client:
            assert _create(client, "203.0.113.1") == 201
            assert _create(client, "203.0.113.2") == 429
            assert _create(client) == 429


def test_websockets_are_admitted_per_forwarded_client(tmp_path: Path) -> None:
    limits = {"connections_per_address": 1, "trusted_proxies": ("127.0.0.1",)}
    with _client(tmp_path, **limits) as client:
        game_id, _ = create_table(client)
        path = f"/ws/{game_id}"
        first = {"X-Forwarded-For": "203.0.113.1"}
        with client.websocket_connect(path, headers=first) as ws:
            ws.send_json({"type": "hello"})
            assert ws.receive_json()["type"] == "welcome"
            with client.websocket_connect(path, headers=first) as again:
                assert again.receive_json()["code"] == "too_many_connections"
            other = {"X-Forwarded-For": "203.0.113.2"}
            with client.websocket_connect(path, headers=other) as ws2:
                ws2.send_json({"type": "hello"})
                assert ws2.receive_json()["type"] == "welcome"


def test_the_qr_link_is_at_the_public_url(tmp_path: Path) -> None:
    public = {"public_url": "https://cards.example.org/"}
    with _client(tmp_path / "a", **public) as client:
        game_id, _ = create_table(client)
        svg = client.get(f"/api/games/{game_id}/qr.svg", headers={"Host": "evil.example"})
    assert svg.content == qr_svg(f"https://cards.example.org/g/{game_id}")
    # without one: the Host asked for, with the scheme a trusted proxy forwarded
    with _client(tmp_path / "b", trusted_proxies=("127.0.0.1",)) as client:
        game_id, _ = create_table(client)
        headers = {"Host": "cards.example.org", "X-Forwarded-Proto": "https"}
        svg = client.get(f"/api/games/{game_id}/qr.svg", headers=headers)
        assert svg.content == qr_svg(f"https://cards.example.org/g/{game_id}")
        svg = client.get(f"/api/games/{game_id}/qr.svg", headers={"Host": "cards.example.org"})
        assert svg.content == qr_svg(f"http://cards.example.org/g/{game_id}")
    with _client(tmp_path / "c", peer="192.0.2.1") as client:  # not trusted
        game_id, _ = create_table(client)
        headers = {"Host": "cards.example.org", "X-Forwarded-Proto": "https"}
        svg = client.get(f"/api/games/{game_id}/qr.svg", headers=headers)
        assert svg.content == qr_svg(f"http://cards.example.org/g/{game_id}")


def test_pages_of_the_public_url_may_open_websockets(tmp_path: Path) -> None:
    """Behind a proxy the Host the server sees may not be the site's (an upstream
    name): a page of the public URL's origin is still this server's."""
    with _client(tmp_path, public_url="https://cards.example.org") as client:
        game_id, _ = create_table(client)
        inside = {"Host": "127.0.0.1:8000"}
        for origin in ("https://cards.example.org", "https://CARDS.example.org"):
            with client.websocket_connect(
                f"/ws/{game_id}", headers=inside | {"Origin": origin}
            ) as ws:
                ws.send_json({"type": "hello"})
                assert ws.receive_json()["type"] == "welcome"
        for origin in (
            "http://cards.example.org",  # another scheme: another origin
            "https://cards.example.org:8443",
            "https://evil.example",
        ):
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                client.websocket_connect(
                    f"/ws/{game_id}", headers=inside | {"Origin": origin}
                ) as ws,
            ):
                ws.receive_json()
            assert refused.value.code == 1008
