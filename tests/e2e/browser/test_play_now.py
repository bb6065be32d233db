"""Play now (issue 22, "Play right now"): one button on the home page starts a game
against three computer players and opens it; with the rules of the last table created
in this browser (the penalty points 100 preset before there was one) and the computer
level last chosen in a lobby (normal before); a refusal is said under the button, in the
server's words when no translation has them, with a link to a table already made."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect
from tablekit import SIZES, call, pick_language, shoot_sizes
from test_home import FITS

from support.languages import LANGUAGES


def fresh(browser: Browser, base: str, **context: Any) -> Page:
    ctx = browser.new_context(locale="en-US", **context)
    page = ctx.new_page()
    page.goto(f"{base}/")
    expect(page.locator("#play-now")).to_be_visible()
    return page


def table_of(page: Page, base: str) -> dict[str, Any]:
    """The table the page shows, as GET /api/games/{id} tells it."""
    page.wait_for_selector("#table")
    match = re.search(r"/g/([^/?#]+)", page.url)
    assert match, page.url
    info: dict[str, Any] = call(f"{base}/api/games/{match.group(1)}", "GET")
    return info


def test_one_click_starts_penalty_100_against_three_computers(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    page = fresh(browser, live_server, viewport=SIZES[0])
    expect(page.locator("#play-now-rules")).to_contain_text("Penalty points 100")
    expect(page.locator("#play-now-rules")).to_contain_text("three computer players (normal)")
    for size in SIZES:
        page.set_viewport_size(size)
        box = page.locator("#play-now").bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44
        shown = f"{size['width']}x{size['height']}"
        page.screenshot(path=str(artifacts / f"play-now-home-{shown}.png"))
    page.set_viewport_size(SIZES[0])
    for lang in LANGUAGES:
        pick_language(page, lang)
        assert page.evaluate(FITS) == [], lang
    pick_language(page, "en")
    page.click("#play-now")
    info = table_of(page, live_server)
    assert info["status"] == "playing"
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot", "bot"]
    assert {s["level"] for s in info["seats"][1:]} == {"normal"}
    assert info["seats"][0]["name"] == "Player"  # no name given yet
    assert info["rules"]["scoring"] == "penalty" and info["rules"]["limit"] == 100
    # the page is the player's seat, in the round
    expect(page.locator("#table .mine #hand .card")).not_to_have_count(0)
    expect(page.locator(".opponent")).to_have_count(3)


def test_play_now_uses_the_last_rules_and_computer_level(
    browser: Browser, live_server: str
) -> None:
    page = fresh(browser, live_server, viewport=SIZES[2])
    # a table made with the form: the traditional preset, a turn timer of 60 s
    page.fill("#player-name", "Greta")
    page.check("input[name=preset][value=traditional]")
    page.click("details.more:has(#set-turn_seconds) > summary")
    page.fill("#set-turn_seconds", "60")
    page.click("#create")
    expect(page.locator("#bot-level")).to_be_visible()
    page.select_option("#bot-level", "hard")
    page.goto(f"{live_server}/")
    expect(page.locator("#play-now-rules")).to_contain_text("Traditional")
    expect(page.locator("#play-now-rules")).to_contain_text("(hard)")
    page.click("#play-now")
    info = table_of(page, live_server)
    assert info["status"] == "playing"
    assert info["rules"]["deck"] == 32 and info["rules"]["card_values"] == "traditional"
    assert info["settings"]["turn_seconds"] == 60
    assert [s["level"] for s in info["seats"][1:]] == ["hard", "hard", "hard"]
    assert info["seats"][0]["name"] == "Greta"


def refuse(code: str, message: str, status: int = 429) -> Any:
    def handler(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.dumps({"error": {"code": code, "message": message}})
        route.fulfill(status=status, content_type="application/json", body=body)

    return handler


def test_a_refusal_is_said_under_the_button(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    page = fresh(browser, live_server, viewport=SIZES[1])
    # a code the client has no words for: the server's message
    page.route(
        "**/api/games", refuse("too_many_live_tables", "this address has as many tables open")
    )
    page.click("#play-now")
    error = page.locator("#play-now-error")
    expect(error).to_have_text("this address has as many tables open")
    expect(page.locator("#play-now")).to_be_enabled()
    assert page.url == f"{live_server}/"
    # a known one, in the page's language
    page.unroute("**/api/games")
    page.route("**/api/games", refuse("too_many_tables", "too many tables lately"))
    page.click("#play-now")
    expect(error).to_contain_text("You have created many tables just now")
    # the table is made but does not start: said, with the way to the table
    page.unroute("**/api/games")
    page.route("**/api/games/*/start", refuse("store_unavailable", "x", 503))
    page.click("#play-now")
    expect(error).to_contain_text("The server cannot save right now")
    link = page.locator("#play-now-table")
    expect(link).to_be_visible()
    shoot_sizes(page, artifacts, "play-now-error")
    page.unroute("**/api/games/*/start")
    link.click()
    expect(page.locator("#start-game")).to_be_visible()
    expect(page.locator("#seats .seat-row[data-kind=bot]")).to_have_count(3)
