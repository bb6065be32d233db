"""A phone that loses its signal mid-turn, with a real fault: Ben's page reaches the
server through the packet-holding proxy (tests/support/holdproxy.py), which holds every byte
both ways and closes nothing, as a tunnel does (Chromium's offline mode would leave the
open WebSocket alone).  Ana plays by a policy over the protocol, and watches on a page.

- Ben's page stops claiming "Your turn" within its deadline (the heartbeat,
  connection.js): it says "Connection lost — reconnecting…" and its cards are not
  playable.
- A card Ben tapped just after the cut (before his page could know) is shown pending;
  his turn runs out while he is cut off, and the move is refused with the reason when
  the signal is back: never played in a later turn.
- Ana's page is told within the server's keepalive, with the countdown to the computer
  taking over.
- When the signal returns, Ben's page reconnects by itself.

Screenshots of both pages at the five sizes, in tests/e2e/artifacts/lost-signal-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import make_table, playing, run

from support.holdproxy import HoldProxy

SHOTS: list[ViewportSize] = [
    {"width": 360, "height": 640},
    {"width": 390, "height": 844},
    {"width": 640, "height": 360},
    {"width": 768, "height": 1024},
    {"width": 1280, "height": 800},
]
#: the client's promise: dead within 5 s (3.5 s of silence, judged every 0.25 s);
#: with slack for a loaded machine
CLIENT_BOUND_MS = 5000 + 3000
#: the server's promise: within 10 s (keepalive 4 + 5, the notice within 0.25 s)
SERVER_BOUND_MS = 10_000 + 5000


@pytest.fixture
def proxy(live_server: str) -> Iterator[HoldProxy]:
    proxy = HoldProxy(int(live_server.rsplit(":", 1)[1])).start()
    yield proxy
    proxy.stop()


def seat_page(browser: Browser, base: str, game_id: str, token: str) -> Page:
    ctx = browser.new_context(viewport=SHOTS[4], locale="en-US")
    page = ctx.new_page()
    page.goto(f"{base}/")
    page.evaluate(
        "([id, token]) => localStorage.setItem('maumau.token.' + id, token)", [game_id, token]
    )
    page.goto(f"{base}/g/{game_id}")
    page.wait_for_selector("#table")
    return page


def shoot(page: Page, name: str, artifacts: Path) -> None:
    for size in SHOTS:
        page.set_viewport_size(size)
        page.wait_for_timeout(150)  # (a layout pass after the resize, for the picture)
        page.screenshot(
            path=str(artifacts / f"lost-signal-{name}-{size['width']}x{size['height']}.png")
        )
    page.set_viewport_size(SHOTS[4])


def test_a_lost_signal_is_said_and_no_move_is_played_late(
    browser: Browser, live_server: str, proxy: HoldProxy, artifacts: Path
) -> None:
    table = make_table(
        live_server, ["Ana", "Ben"], settings={"turn_seconds": 15, "bot_delay_ms": 0}
    )
    try:
        run(table, {0: playing}, pace=0.2)
        ana = seat_page(browser, live_server, table.game_id, table.tokens[0])
        ben = seat_page(browser, proxy.url, table.game_id, table.tokens[1])
        # Ben's turn, a card he may play
        card = ben.locator(".table.my-turn .hand .card.playable").first
        expect(card).to_be_visible(timeout=60_000)
        expect(ben.locator("#conn")).to_have_text("Connected")
        version = ben.locator("#table").get_attribute("data-version") or ""
        timeouts = ana.locator("#log li", has_text="time ran out")
        expect(ana.locator("#table")).to_have_attribute("data-version", version)  # as far
        timed_out = timeouts.count()

        proxy.cut()
        code = card.get_attribute("data-card")
        card.click()  # before the page can know: sent into the cut
        if (code or "").startswith("J"):  # a Jack: its suit first
            ben.locator("#suit-dialog .suit-choice").first.click()
        expect(ben.locator(f'.hand .card.pending[data-card="{code}"]')).to_be_visible()
        expect(ben.locator("#move-pending")).to_have_text("Sending your move…")

        # the page says it cannot reach the server, and nothing is playable
        expect(ben.locator("#conn-lost")).to_have_text(
            "Connection lost — reconnecting…", timeout=CLIENT_BOUND_MS
        )
        expect(ben.locator("#table")).to_have_class(re.compile(r"\bunreachable\b"))
        expect(ben.locator(".hand .card.playable")).to_have_count(0)
        expect(ben.locator("#conn")).not_to_have_text("Connected")
        ben.locator(".hand .card").first.click()  # a tap now is refused, with the reason
        expect(ben.locator("#toast")).to_contain_text("Connection lost")

        # Ana is told, with the countdown to the computer taking over
        notice = ana.locator("#dropped")
        expect(notice).to_contain_text(
            re.compile(r"Ben's connection dropped — a computer takes over in \d+ s"),
            timeout=SERVER_BOUND_MS,
        )
        shoot(ben, "cut", artifacts)
        shoot(ana, "told", artifacts)

        # Ben's turn runs out while he is cut off: the computer moves for him
        expect(ana.locator("#table")).not_to_have_attribute("data-version", version, timeout=30_000)
        assert timeouts.count() > timed_out

        # the signal is back (what was held is delivered: the server had let the old
        # connection go): the page reconnects by itself, sends the move once more, and
        # the server refuses it, for it was made for a state that is gone
        proxy.release()
        expect(ben.locator("#conn")).to_have_text("Connected", timeout=30_000)
        expect(ben.locator("#toast")).to_contain_text(
            "The turn passed while you were offline: your move was not played."
        )
        expect(ben.locator(".hand .card.pending")).to_have_count(0)
        expect(ben.locator("#table")).not_to_have_class(re.compile(r"\bunreachable\b"))
        expect(notice).to_have_count(0)  # Ana's page: Ben is back
        # the page shows the game as the server has it: the moves made meanwhile too
        expect(ben.locator("#table")).not_to_have_attribute("data-version", version)
    finally:
        table.close()


#: the page's visibility, as a phone asleep (hidden) and woken (visible) sets it
VISIBILITY = """(hidden) => {
  const state = () => (hidden ? "hidden" : "visible");
  Object.defineProperty(document, "visibilityState", { configurable: true, get: state });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_the_browser_going_offline_is_said_at_once_and_the_page_comes_back(
    browser: Browser, live_server: str
) -> None:
    """The `offline` event needs no heartbeat: the page gives its socket up at once, and
    the `online` event reconnects at once.  The page is hidden meanwhile (a phone in a
    pocket), where the heartbeat does not judge (its timers are slowed): only the event
    can say it."""
    table = make_table(live_server, ["Ana", "Ben"], settings={"bot_delay_ms": 0})
    try:
        run(table, {0: playing}, pace=0.2)
        ben = seat_page(browser, live_server, table.game_id, table.tokens[1])
        expect(ben.locator("#conn")).to_have_text("Connected")
        ben.evaluate(VISIBILITY, True)
        ben.context.set_offline(True)
        expect(ben.locator("#conn-lost")).to_have_text("Connection lost — reconnecting…")
        expect(ben.locator(".hand .card.playable")).to_have_count(0)
        expect(ben.locator("#table")).not_to_have_class(re.compile(r"\bmy-turn\b"))
        ben.context.set_offline(False)
        expect(ben.locator("#conn")).to_have_text("Connected")
        expect(ben.locator("#conn-lost")).to_have_count(0)
        ben.evaluate(VISIBILITY, False)
    finally:
        table.close()
