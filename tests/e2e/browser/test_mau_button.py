"""The Mau button cannot punish by accident (issue 20): it is offered only when a call can
be due with the next card (the player's own turn, two cards or one, a card that can be
played), an arm lasts only for the state it was made in (a draw drops it, so a later play
from three cards calls nothing), the armed state stays visible under the pointer and
across a reload, and an armed play calls "Mau" without a penalty.  The call stays the
player's own act: nothing calls for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from tablekit import SIZES, Table, draw_and_keep, keep_above, make_table

QUIET = {"grace_seconds": None}
ARMED = "#mau[aria-pressed='true']"


def two_cards_one_playable(base: str) -> Table:
    """Seat 0 to move with two cards, one of which it can play."""
    table = make_table(
        base,
        ["Anna", "Bruno"],
        options={"draw_when_able": True, "eight_skips": False},
        settings=QUIET,
    )

    def ready(s: dict[str, Any]) -> bool:
        view = s["view"]
        return (
            view["step"] == "play"
            and len(view["hand"]) == 2
            and any("play" in a for a in s["legal"])
        )

    table.play_until({0: keep_above(2), 1: keep_above(4)}, ready)
    return table


@pytest.fixture
def table(live_server: str) -> Iterator[Table]:
    made = two_cards_one_playable(live_server)
    yield made
    made.close()


def anna_entries(page: Page) -> list[str]:
    entries: list[str] = page.evaluate(
        "[...document.querySelectorAll('#log li')].map((li) => li.textContent)"
        ".filter((text) => text.startsWith('Anna'))"
    )
    return entries


def test_the_call_is_not_offered_when_it_cannot_be_due(browser: Browser, live_server: str) -> None:
    table = make_table(live_server, ["Anna"], settings={**QUIET, "bot_delay_ms": 8000}, bots=1)
    try:
        table.play_until(
            {0: draw_and_keep}, lambda s: bool(s["legal"]) and s["view"]["step"] == "play"
        )
        page = table.open(browser, viewport=SIZES[0])
        expect(page.locator("#table.my-turn")).to_be_visible()
        assert page.locator(".hand .card").count() >= 5
        expect(page.locator("#mau")).to_be_disabled()
        page.locator(".hand .card").first.focus()
        page.keyboard.press("m")  # the shortcut does not arm it either
        expect(page.locator(ARMED)).to_have_count(0)
        # it stays focusable, and pressing it says when a call is made
        page.focus("#mau")
        page.keyboard.press("Enter")
        expect(page.locator("#toast")).to_contain_text("second-to-last card")
        expect(page.locator(ARMED)).to_have_count(0)
        version = page.locator("#table").get_attribute("data-version") or ""
        page.click("#draw")
        expect(page.locator("#table")).not_to_have_attribute("data-version", version)
        if page.locator("#pass").count():
            page.click("#pass")  # keep a playable card drawn
        expect(page.locator("#table.my-turn")).to_have_count(0)  # the computer's turn
        expect(page.locator("#mau")).to_be_disabled()
    finally:
        table.close()


def test_an_arm_lasts_only_for_the_state_it_was_made_in(browser: Browser, table: Table) -> None:
    page = table.open(browser, viewport=SIZES[2])
    mau = page.locator("#mau")
    expect(mau).to_be_enabled()
    expect(mau).to_have_attribute("aria-pressed", "false")
    mau.click()
    expect(mau).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#turn")).to_contain_text("will be called")
    # under the pointer the armed button still looks armed
    mau.hover()
    armed = page.evaluate("getComputedStyle(document.querySelector('#mau')).backgroundColor")
    assert armed == "rgb(209, 45, 63)", armed
    # a reload keeps the arm of this very state
    page.reload()
    expect(page.locator(ARMED)).to_be_visible()
    # a draw is a new state: the arm is gone, and with three cards no call is offered
    page.click("#draw")
    expect(page.locator(ARMED)).to_have_count(0)
    kept = page.evaluate(
        "Object.keys(sessionStorage).filter((k) => k.startsWith('maumau.mauArm.'))"
    )
    assert kept == []
    if page.locator(".hand .card.drawn.playable").count():
        # the drawn card can be played from three cards: no call goes with it
        expect(page.locator("#mau")).to_be_disabled()
        page.click(".hand .card.drawn")
        expect(page.locator("#log li.newest")).not_to_contain_text("Mau")
        assert not any("penalty" in e for e in anna_entries(page))


def test_an_armed_play_calls_mau_and_costs_nothing(browser: Browser, table: Table) -> None:
    page = table.open(browser, viewport=SIZES[0])
    page.click("#mau")
    expect(page.locator(ARMED)).to_be_visible()
    page.locator(".hand .card.playable").first.click()
    if page.locator("#suit-dialog[open]").count():
        page.click(".suit-choice[data-suit='H']")
    expect(page.locator("#log")).to_contain_text("“Mau!”")
    expect(page.locator(".hand .card")).to_have_count(1)
    assert not any("penalty" in e for e in anna_entries(page))
    expect(page.locator(ARMED)).to_have_count(0)


def test_a_forgotten_call_is_still_the_players_own(browser: Browser, table: Table) -> None:
    """Not armed, the play from two cards calls nothing and the rules punish it."""
    page = table.open(browser, viewport=SIZES[1])
    page.locator(".hand .card.playable").first.click()
    if page.locator("#suit-dialog[open]").count():
        page.click(".suit-choice[data-suit='H']")
    expect(page.locator("#log")).to_contain_text("penalty")
    assert any("penalty" in e for e in anna_entries(page))
