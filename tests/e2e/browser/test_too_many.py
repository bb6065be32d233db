"""A tab refused with ``too_many_connections`` says so, does not keep reconnecting, and
connects when its player asks once a connection is free again (a server that lets one
address hold a single WebSocket)."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, WebSocket, expect
from serving import serving
from test_game import DESKTOP

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def one_socket_server(tmp_path: Path) -> Iterator[str]:
    """``maumau serve`` that lets an address hold one WebSocket; its base URL."""
    with serving(tmp_path, "--connections-per-address", "1") as url:
        yield url


def wait_for_no_sockets(url: str, seconds: float = 20.0) -> bool:
    """Whether the server at ``url`` holds no WebSocket, greeted or not, within
    ``seconds`` (a closed tab's socket is gone a moment after the close)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "/api/health", timeout=5) as reply:
            health = json.load(reply)
        if health["connections"] == 0 and health["pending"] == 0:
            return True
        time.sleep(0.1)
    return False


def test_a_refused_tab_says_why_and_waits_for_its_player(
    browser: Browser, one_socket_server: str
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    first = context.new_page()
    first.goto(one_socket_server + "/?lang=en")
    first.fill("#player-name", "Anna")
    first.click("#create")
    expect(first.locator("#seats li[data-seat]")).to_have_count(1)
    expect(first.locator("body")).to_have_attribute("data-conn", "online")
    invite = first.locator("#invite-link").input_value()

    second = context.new_page()
    sockets: list[WebSocket] = []
    second.on("websocket", lambda ws: sockets.append(ws))
    second.goto(invite + "?lang=en")
    notice = second.locator("#too-many")
    expect(notice.locator("h1")).to_have_text("Too many connections")
    expect(second.locator("body")).to_have_attribute("data-conn", "closed")
    second.wait_for_timeout(2000)  # the first reconnect would come after 0.4 s
    assert len(sockets) == 1

    first.close()  # its socket's place is free again, once the server has seen it go
    assert wait_for_no_sockets(one_socket_server), "the first tab's socket stayed open"
    second.click("#retry")
    expect(second.locator("body")).to_have_attribute("data-conn", "online", timeout=10_000)
    expect(second.locator("#seats li.me")).to_contain_text("Anna")
    assert len(sockets) == 2
    context.close()
