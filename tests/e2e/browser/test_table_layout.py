"""The table's layout rules (issue 20, "Phone first"), at 360x640, 390x844 and 1280x800,
with 5 and with 17 cards in hand: a turn is played without scrolling (the top card, the
status, the buttons and every card of the hand are on screen at once and the page does
not scroll), every card of the hand keeps a tap target of at least 40 x 40 pixels that
is the card itself, nothing sticks out of the viewport sideways, and the header is one
row.  The suit choice and the phone's move log open with their headline in view.
Screenshots of each go to the artifacts folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import SIZES, Table, box_of, draw_and_keep, keep_above, make_table
from test_names import SIDEWAYS

NAMES = ["Anna", "Bruno", "Chiara", "Dmitri", "Eleonora"]
QUIET = {"grace_seconds": None}  # no stand-in takes a seat while the test reopens it

#: what must be on screen to play a turn, and how far the page could scroll
ON_SCREEN = """() => {
  const cards = [...document.querySelectorAll('.hand .card')];
  const wanted = ['#top-card', '#draw-pile', '#turn', '#draw', '#mau']
    .map((sel) => [sel, document.querySelector(sel)])
    .concat(cards.map((c) => [c.dataset.card, c]));
  const off = [];
  for (const [what, el] of wanted) {
    if (!el) { off.push(what + ' missing'); continue; }
    const r = el.getBoundingClientRect();
    const out = r.top < -0.5 || r.bottom > innerHeight + 0.5;
    if (out || r.left < -0.5 || r.right > innerWidth + 0.5) {
      off.push(`${what} ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
    }
  }
  const html = document.documentElement;
  return { off, scroll: html.scrollHeight - innerHeight, y: scrollY };
}"""

#: for each card: the 40 x 40 box at its top left corner (where its index is), and
#: whether a tap at each corner and the middle of that box hits the card itself
TAP_TARGETS = """(size) => [...document.querySelectorAll('.hand .card')].map((card) => {
  const r = card.getBoundingClientRect();
  const [x0, y0] = [r.left + 1, r.top + 1];
  const [x1, y1] = [x0 + size - 1, y0 + size - 1];
  const points = [[x0, y0], [x1, y0], [x0, y1], [x1, y1], [x0 + size / 2, y0 + size / 2]];
  const hit = points.every(([x, y]) => document.elementFromPoint(x, y)?.closest('.card') === card);
  return { card: card.dataset.card, hit, box: [Math.round(r.left), Math.round(r.top)] };
})"""


#: opponents' names and badges that their box cuts off (an ellipsis)
CLIPPED = """() => [...document.querySelectorAll('.opp-name > .name, .opponent .badge')]
  .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 0.5)
  .map((el) => el.textContent)"""


def hand_of(cards: int, base: str) -> Table:
    """A five-player table where it is seat 0's turn with at least ``cards`` cards."""
    table = make_table(base, NAMES, options={"draw_when_able": True}, settings=QUIET)
    others = {seat: keep_above(3) for seat in range(1, 5)}
    table.play_until(
        {0: draw_and_keep, **others},
        lambda s: (
            len(s["view"]["hand"]) >= cards and bool(s["legal"]) and s["view"]["step"] == "play"
        ),
    )
    return table


@pytest.fixture(scope="module")
def tables(live_server: str) -> Iterator[dict[int, Table]]:
    made = {5: hand_of(5, live_server), 17: hand_of(17, live_server)}
    yield made
    for table in made.values():
        table.close()


def check_turn_on_screen(page: Page, where: str) -> None:
    seen: dict[str, Any] = page.evaluate(ON_SCREEN)
    assert seen["y"] == 0, where
    assert not seen["off"], f"{where}: off screen: {seen['off']}"
    assert seen["scroll"] <= 1, f"{where}: the page scrolls {seen['scroll']} px"


def check_tap_targets(page: Page, where: str) -> None:
    targets: list[dict[str, Any]] = page.evaluate(TAP_TARGETS, 40)
    assert targets, where
    missed = [t for t in targets if not t["hit"]]
    assert not missed, f"{where}: cards without a 40 px tap target: {missed}"


def check_no_sideways(page: Page, where: str) -> None:
    seen: dict[str, Any] = page.evaluate(SIDEWAYS)
    assert seen["scroll"] == 0 and not seen["out"], f"{where}: {seen}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("cards", [5, 17])
def test_a_turn_fits_the_screen_with_every_card_reachable(
    browser: Browser, tables: dict[int, Table], size: ViewportSize, cards: int, artifacts: Path
) -> None:
    table = tables[cards]
    page = table.open(browser, viewport=size)
    expect(page.locator("#table.my-turn")).to_be_visible()
    page.wait_for_function(f"document.querySelectorAll('.hand .card').length >= {cards}")
    page.wait_for_timeout(400)  # the dealing animation
    where = f"{cards} cards at {size['width']}x{size['height']}"
    header = page.locator("header.topbar").bounding_box()
    assert header is not None and header["height"] < 64, f"{where}: header {header}"
    check_turn_on_screen(page, where)
    check_tap_targets(page, where)
    check_no_sideways(page, where)
    assert page.evaluate(CLIPPED) == [], where
    page.screenshot(path=str(artifacts / f"table-{cards}-{size['width']}x{size['height']}.png"))
    # the settings menu opens inside the screen
    page.click("#settings > summary")
    panel = page.locator(".settings-panel").bounding_box()
    assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= size["width"]
    page.keyboard.press("Escape")
    expect(page.locator(".settings-panel")).to_be_hidden()
    page.context.close()


def test_a_turn_is_played_without_scrolling(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = hand_of(17, live_server)
    try:
        page = table.open(browser, viewport=SIZES[0])
        expect(page.locator("#table.my-turn")).to_be_visible()
        version = page.locator("#table").get_attribute("data-version")
        box = box_of(page.locator("#draw"))
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(page.locator("#table")).not_to_have_attribute("data-version", version or "")
        assert page.evaluate("scrollY") == 0
    finally:
        table.close()


def jack_in_hand(base: str) -> Table:
    """A two-player table where seat 0 may play a Jack (and holds other cards)."""
    table = make_table(base, NAMES[:2], options={"draw_when_able": True}, settings=QUIET)

    def has_jack(s: dict[str, Any]) -> bool:
        plays = [a["play"] for a in s["legal"] if "play" in a]
        return (
            s["view"]["step"] == "play"
            and any(p[0] == "J" for p in plays)
            and len(s["view"]["hand"]) > 3
        )

    table.play_until({0: draw_and_keep, 1: keep_above(3)}, has_jack)
    return table


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_suit_choice_opens_at_its_headline(
    browser: Browser, live_server: str, size: ViewportSize, artifacts: Path
) -> None:
    table = jack_in_hand(live_server)
    try:
        page = table.open(browser, viewport=size)
        expect(page.locator("#table.my-turn")).to_be_visible()
        hand: list[str] = page.evaluate(
            "[...document.querySelectorAll('.hand .card')].map((c) => c.dataset.card)"
        )
        jack = page.locator(".hand .card.playable[data-card^='J']").first
        code = jack.get_attribute("data-card")
        jack.click()
        dialog = page.locator("#suit-dialog[open]")
        expect(dialog).to_be_visible()
        title = page.locator("#suit-title").bounding_box()
        assert (
            title is not None and title["y"] >= 0 and title["y"] + title["height"] <= size["height"]
        )
        padding = page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('#suit-dialog')).paddingTop)"
        )
        assert padding >= 8, "the suit dialog has no inner padding"
        for suit in "CDHS":
            held = sum(1 for c in hand if c != code and c[1] == suit and c[0] != "J")
            expect(page.locator(f".suit-choice[data-suit='{suit}'] .suit-held")).to_contain_text(
                str(held)
            )
        page.screenshot(path=str(artifacts / f"suit-choice-{size['width']}x{size['height']}.png"))
        page.click(".suit-choice[data-suit='H']")
        expect(page.locator("#suit-dialog")).to_have_count(0)
        expect(page.locator("#log")).to_contain_text("hearts")
    finally:
        table.close()


def test_the_phone_log_opens_the_whole_round_at_its_headline(
    browser: Browser, tables: dict[int, Table], artifacts: Path
) -> None:
    page = tables[17].open(browser, viewport=SIZES[0])
    expect(page.locator("#ticker")).to_be_visible()
    expect(page.locator(".side")).to_be_hidden()
    entries = page.evaluate("document.querySelectorAll('#log li').length")
    assert entries > 8  # the whole round, not the last eight moves
    page.click("#ticker")
    dialog = page.locator("#log-dialog[open]")
    expect(dialog).to_be_visible()
    expect(dialog.locator("li")).to_have_count(entries)
    expect(dialog.locator("li.newest")).to_have_count(1)
    title = page.locator("#log-sheet-title").bounding_box()
    assert title is not None and 0 <= title["y"] < SIZES[0]["height"]
    page.screenshot(path=str(artifacts / "log-sheet-360x640.png"))
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_eight_players_in_german_fit(
    browser: Browser, live_server: str, size: ViewportSize, artifacts: Path
) -> None:
    """Six people and two computer players, German: the long words fit, the computer
    players' badges are whole, a turn still fits the screen."""
    table = make_table(
        live_server,
        ["Anna", "Bruno", "Chiara", "Dmitri", "Eleonora", "Friedrich"],
        settings={**QUIET, "bot_delay_ms": 200},
        bots=2,
    )
    try:
        others = {seat: keep_above(3) for seat in range(1, 6)}
        table.play_until({0: draw_and_keep, **others}, lambda s: bool(s["legal"]))
        page = table.open(browser, viewport=size, locale="de-DE")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#table.my-turn")).to_be_visible()
        page.wait_for_timeout(400)
        where = f"8 players at {size['width']}x{size['height']}"
        check_turn_on_screen(page, where)
        check_no_sideways(page, where)
        assert page.evaluate(CLIPPED) == [], where
        page.screenshot(path=str(artifacts / f"table-8-de-{size['width']}x{size['height']}.png"))
    finally:
        table.close()
