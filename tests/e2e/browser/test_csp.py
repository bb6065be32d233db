"""The browser client works under the server's Content-Security-Policy: a table is
created, computer players are added, the game is started, a few moves are made, the
game is played to its end (by the stand-in, once the player has left) and its result
and replay are looked at, and the browser reports no violation of the policy on the
way.  That the listener hears violations is checked first, with one made on purpose."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from playwright.sync_api import Browser, Page, expect
from test_game import DESKTOP, move

#: reports every violation the page sees to Python (``reportViolation``, exposed below)
LISTEN = """document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(
  `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`),
  true);"""


def wait_until(page: Page | None, done: Any, what: str, seconds: float = 60) -> None:
    """Until ``done()``; waiting on ``page`` (Playwright hands over the page's events,
    such as the reported violations, only while it is called)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        if page is None:
            time.sleep(0.05)
        else:
            page.wait_for_timeout(50)


def provoke(page: Page, violations: list[str]) -> list[str]:
    """Make a violation on purpose (an inline style), wait until it is reported, and
    take it off ``violations``; what was reported before it (reports come in order)."""
    page.evaluate(
        "() => { const p = document.createElement('p');"
        " p.setAttribute('style', 'color: red'); document.body.append(p); p.remove(); }"
    )
    mine = "style-src-attr blocked inline at :1"  # (no source file: the test's own script)
    wait_until(page, lambda: mine in violations, "the violation made on purpose", 10)
    before = violations[: violations.index(mine)]
    violations.clear()
    return before


def test_the_client_runs_under_the_policy(browser: Browser, live_server: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    violations: list[str] = []
    errors: list[str] = []

    def report(text: str) -> None:
        violations.append(text)

    context.expose_function("reportViolation", report)
    context.add_init_script(LISTEN)

    def watch(page: Page) -> Page:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    page = watch(context.new_page())
    reply = page.goto(live_server + "/?lang=en")
    assert reply is not None
    policy = reply.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
    assert "unsafe" not in policy, policy
    expect(page.locator("body")).to_have_attribute("data-ready", "1")

    # the listener hears a violation: an inline style, which the policy refuses
    assert provoke(page, violations) == []

    # a table of one scored deal (so that the result has its chart), quick computer
    # players, and no grace period, so that a stand-in plays on once the player leaves
    page.fill("#player-name", "Anna")
    page.check('input[name="preset"][value="standard"]')
    page.click("summary:has-text('Adjust the rules')")
    page.select_option("#opt-scoring", label="fixed number of deals")
    page.fill("#opt-deals", "1")
    page.press("#opt-deals", "Tab")
    page.click("summary:has-text('Table settings')")
    page.fill("#set-bot_delay_ms", "0")
    page.fill("#set-grace_seconds", "0")
    page.select_option("#set-next_round_seconds", "0")
    page.click("#create")
    expect(page.locator("#seats li[data-seat]")).to_have_count(1)
    invite = page.locator("#invite-link").input_value()
    game_id = invite.rsplit("/", 1)[1]
    page.wait_for_function(  # the invite's QR code (an image from this origin) is shown
        "() => { const i = document.querySelector('#invite-qr img');"
        " return !!i && i.complete && i.naturalWidth > 0; }"
    )
    info = json.loads(context.request.get(f"{live_server}/api/games/{game_id}").text())
    assert info["rules"]["scoring"] == "deals" and info["rules"]["deals"] == 1
    for seats in (2, 3):
        page.select_option("#bot-level", "easy")
        page.click("#add-bot")
        expect(page.locator("#seats li[data-seat]")).to_have_count(seats)
    page.click("#start-game")
    expect(page.locator("#table")).to_be_visible()

    seen: dict[str, Any] = {"moves": 0, "mau": 0, "jacks": 0}
    wait_until(page, lambda: move(page, seen) and seen["moves"] >= 3, "three moves made", 120)

    # the player leaves; the stand-in and the computer players finish the game
    page.close()

    def finished() -> bool:
        info = json.loads(context.request.get(f"{live_server}/api/games/{game_id}").text())
        return bool(info["status"] == "finished")

    wait_until(None, finished, "the game finished", 300)

    # back at the table: the result with its chart, then the replay
    page = watch(context.new_page())
    page.goto(invite + "?lang=en")
    dialog = page.locator("#result-dialog")
    expect(dialog.locator("#result-title")).to_have_text(re.compile(r"wins!|draw"))
    expect(dialog.locator("svg.chart")).to_be_visible()
    expect(dialog.locator(".legend .swatch").first).to_be_visible()
    page.click("#open-replay")
    expect(page.locator("#replay")).to_be_visible()
    for step in range(1, 4):
        page.click("#replay-next")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    page.click("#replay-close")
    expect(dialog).to_be_visible()

    # (the one made on purpose comes after every earlier one)
    reported = provoke(page, violations)
    assert reported == [], "\n".join(reported)
    assert errors == []
    context.close()
