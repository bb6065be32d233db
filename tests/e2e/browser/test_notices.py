"""Your turn, even in another tab (issue 22, item 3): while the tab is hidden, the turn
changes its title and favicon until it is looked at again; a system notification only
after the player asked for them with the button (never on load), one per event and
replacing the last, a click bringing the tab forward; the same for the next round and a
rematch. The page's visibility and the Notification API are emulated (spies.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a11y import violations
from playwright.sync_api import Browser, Page, expect
from spies import NOTIFICATIONS, VISIBILITY, spied
from tablekit import SIZES, Table, call, make_table, pick_language, playing, run

from support.languages import LANGUAGES

QUIET = {"grace_seconds": None, "next_round_seconds": 0}
LOADED = 240_000  # ms: a whole game on a loaded machine
PLAIN_TITLE = "Mau Mau — play online with friends"


@pytest.fixture
def table(live_server: str) -> Iterator[Table]:
    """Ana and Bo at a two-deal table; nobody has moved yet."""
    made = make_table(
        live_server, ["Ana", "Bo"], options={"scoring": "deals", "deals": 2}, settings=QUIET
    )
    yield made
    made.close()


def play_on(table: Table) -> None:
    """Both seats play by policy (Ana's by a second connection of her seat: her page
    only watches)."""
    run(table, {0: playing, 1: playing}, pace=0.15)


def hide(page: Page, hidden: bool = True) -> None:
    page.evaluate("(hidden) => window.__setHidden(hidden)", hidden)


def notes(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = page.evaluate("() => ({ ...window.__notes, last: undefined })")
    return value


def favicon(page: Page) -> str:
    return str(page.evaluate("document.querySelector('link[rel~=icon]').getAttribute('href')"))


def allow_notifications(page: Page) -> None:
    page.click("#settings > summary")
    button = page.locator("#notify-btn")
    expect(button).to_have_attribute("aria-pressed", "false")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")


def test_a_hidden_tab_shows_the_turn_in_its_title_until_looked_at(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser), VISIBILITY, NOTIFICATIONS)
    assert page.title() == PLAIN_TITLE and favicon(page) == "/favicon.svg"
    hide(page)
    play_on(table)
    page.wait_for_function("() => document.title.startsWith('●')", timeout=LOADED)
    assert page.title() == "● Your turn — Mau Mau"
    assert favicon(page) == "/favicon-turn.svg"
    icon = page.request.get(f"{table.base}/favicon-turn.svg")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
    # a language change while hidden keeps the notice, in the new language
    pick_language(page, "de")
    assert page.title() == "● Du bist dran — Mau Mau"
    pick_language(page, "en")
    # notifications were never asked for: none asked, none shown
    seen = notes(page)
    assert seen["asked"] == 0 and seen["shown"] == []
    # looking at the tab restores title and favicon, and they stay while it is seen
    hide(page, False)
    assert page.title() == PLAIN_TITLE and favicon(page) == "/favicon.svg"
    version = int(page.locator("#table").get_attribute("data-version") or "0")
    page.wait_for_function(
        "(v) => +document.querySelector('#table')?.dataset.version >= v",
        arg=version + 6,
        timeout=LOADED,
    )
    assert page.title() == PLAIN_TITLE and favicon(page) == "/favicon.svg"


def test_a_notification_only_after_the_button_one_per_event_replaced(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser), VISIBILITY, NOTIFICATIONS)
    assert notes(page)["asked"] == 0  # never on load
    allow_notifications(page)
    assert notes(page)["asked"] == 1
    hide(page)
    play_on(table)
    page.wait_for_function("() => window.__notes.shown.length >= 2", timeout=LOADED)
    seen = notes(page)
    first = seen["shown"][0]
    assert first == {
        "title": "Your turn",
        "body": "Click to go back to the table.",
        "tag": f"maumau-{table.game_id}",
    }
    # every notice of the table carries its one tag: each replaces the last
    assert {n["tag"] for n in seen["shown"]} == {f"maumau-{table.game_id}"}
    # a click on it brings the tab forward and closes it
    page.evaluate("window.__notes.last.onclick()")
    seen = notes(page)
    assert seen["focused"] == 1 and seen["closed"] >= 1
    hide(page, False)
    # turned off again with the same button: no more notifications
    page.click("#settings > summary")
    page.click("#notify-btn")
    expect(page.locator("#notify-btn")).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("Escape")
    shown = len(notes(page)["shown"])
    hide(page)
    page.wait_for_function("() => document.title.startsWith('●')", timeout=LOADED)
    assert len(notes(page)["shown"]) == shown


def test_the_next_round_and_a_rematch_are_notices_too(browser: Browser, table: Table) -> None:
    page = spied(table.open(browser), VISIBILITY, NOTIFICATIONS)
    allow_notifications(page)
    hide(page)
    play_on(table)
    # round 2 is led by Bo: its deal is the next round's notice, not Ana's turn
    page.wait_for_function(
        "() => window.__notes.shown.some((n) => n.title === 'The next round is starting')",
        timeout=LOADED,
    )
    page.wait_for_function("() => document.body.dataset.view === 'finished'", timeout=LOADED)
    call(f"{table.base}/api/games/{table.game_id}/rematch", "POST", token=table.tokens[1])
    page.wait_for_function(
        "() => window.__notes.shown.at(-1)?.title === 'A rematch was offered'", timeout=LOADED
    )
    assert page.title() == "● A rematch was offered — Mau Mau"
    assert favicon(page) == "/favicon-turn.svg"
    hide(page, False)
    assert page.title() == PLAIN_TITLE and favicon(page) == "/favicon.svg"


def test_blocked_notifications_are_said_and_the_button_is_off(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser), NOTIFICATIONS)
    page.click("#settings > summary")
    expect(page.locator("#notify-btn")).to_be_enabled()
    page.keyboard.press("Escape")
    # the player blocks notifications in the browser's site settings meanwhile
    page.evaluate("Notification.permission = 'denied'")
    page.click("#settings > summary")
    expect(page.locator("#notify-btn")).to_be_disabled()
    expect(page.locator("#notify-btn")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#notify-help")).to_have_text("Blocked in this browser's site settings.")
    assert notes(page)["asked"] == 0


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_settings_menu_has_the_sound_switch_and_the_notification_button(
    browser: Browser, table: Table, artifacts: Path, size: Any
) -> None:
    page = spied(table.open(browser, viewport=size), NOTIFICATIONS)
    page.click("#settings > summary")
    panel = page.locator(".settings-panel")
    sound, button = page.locator("#sound-on"), page.locator("#notify-btn")
    expect(sound).to_be_checked()
    expect(button).to_be_visible()
    expect(page.locator("#notify-help")).to_contain_text("while this tab is hidden")
    # big enough to tap, and inside the screen
    for control in (page.locator(".sound-pick"), button):
        box = control.bounding_box()
        assert box is not None and box["height"] >= 40
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"]
    box = panel.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"]
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    name = f"settings-sound-notify-{size['width']}x{size['height']}.png"
    page.screenshot(path=str(artifacts / name))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_settings_menu_is_translated_and_accessible(
    browser: Browser, table: Table, artifacts: Path, lang: str
) -> None:
    page = spied(table.open(browser, viewport=SIZES[0]), NOTIFICATIONS)
    pick_language(page, lang)
    page.click("#settings > summary")
    expect(page.locator("#notify-btn")).to_be_visible()
    assert page.evaluate("document.documentElement.dataset.missingKeys || null") is None
    found = violations(page)
    assert found == [], "\n".join(found)
    box = page.locator(".settings-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[0]["width"]
    page.screenshot(path=str(artifacts / f"settings-sound-notify-{lang}-360x640.png"))
