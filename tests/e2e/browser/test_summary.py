"""The round summary and the game's result: revealed hands as readable chips, only the
columns the scoring mode uses, a chart with round ticks and a labelled limit, dialogs
that open at their headline on a phone, nothing cut at 360 px in any language, and a
shuffle check that holds for 63-bit seeds.  Screenshots of the round result, the
summary's chart, the game over and the replay at the three sizes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import (
    SIZES,
    Table,
    after_first_round,
    after_two_deals,
    game_over,
    make_table,
    playing,
)

from support.languages import LANGUAGES, LOCALES

SERIES_HEADERS = ["Player", "Cards left", "Value", "Round", "Total", "Won"]


@pytest.fixture(scope="module")
def round_table(live_server: str) -> Iterator[Table]:
    table = after_first_round(live_server)
    yield table
    table.close()


@pytest.fixture(scope="module")
def deals_table(live_server: str) -> Iterator[Table]:
    table = after_two_deals(live_server)
    yield table
    table.close()


@pytest.fixture(scope="module")
def single_table(live_server: str) -> Iterator[Table]:
    """A finished standard game: one deal."""
    table = make_table(live_server, ["Ana", "Bo"], "standard")
    table.play_until({0: playing, 1: playing}, game_over)
    yield table
    table.close()


def shot(page: Page, path: Path) -> None:
    page.screenshot(path=str(path), animations="disabled")


def headers(page: Page) -> list[str]:
    return [h.strip() for h in page.locator("#scores thead th").all_text_contents()]


def headline_in_view(page: Page) -> None:
    """The dialog is open at its top: the headline is on screen, not scrolled past."""
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    title = dialog.locator("#result-title")
    box = title.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
    assert dialog.evaluate("d => d.scrollTop") == 0


@pytest.mark.parametrize("size", SIZES, ids=lambda s: str(s["width"]))
def test_round_result_opens_at_its_headline_with_readable_hands(
    browser: Browser, round_table: Table, artifacts: Path, size: ViewportSize
) -> None:
    page = round_table.open(browser, viewport=size)
    headline_in_view(page)
    expect(page.locator("#next-round")).to_be_focused()
    assert headers(page) == SERIES_HEADERS
    # the player who did not go out shows their cards, each chip with rank and suit
    chips = page.locator("#scores .mini-card")
    assert chips.count() > 0
    for i in range(chips.count()):
        chip = chips.nth(i)
        code = chip.get_attribute("data-card") or ""
        rank = "10" if code[0] == "T" else code[0]
        rank_text = chip.locator(".rank").inner_text()
        assert rank_text == rank
        assert chip.locator("svg.suit").count() == 1
        font = chip.evaluate("c => parseFloat(getComputedStyle(c).fontSize)")
        box = chip.bounding_box()
        assert font >= 12 and box is not None and box["height"] >= 15, (font, box)
    shot(page, artifacts / f"round-result-{size['width']}.png")
    # the rest of the summary: the chart and the shuffle check, opened
    page.click("#result-dialog .shuffle summary")
    page.locator("#result-dialog .shuffle").scroll_into_view_if_needed()
    shot(page, artifacts / f"summary-{size['width']}.png")


def test_the_chart_has_round_ticks_and_a_labelled_limit(
    browser: Browser, round_table: Table
) -> None:
    page = round_table.open(browser)
    chart = page.locator("#result-dialog svg.chart")
    expect(chart.locator(".limit-label")).to_have_text("Limit 1000")
    ticks = [int(v) for v in chart.locator("text.axis[text-anchor=end]").all_text_contents()]
    assert ticks == [0, 200, 400, 600, 800, 1000]


def test_nice_ticks_and_exact_seeds(browser: Browser, live_server: str) -> None:
    page = browser.new_page()
    try:
        page.goto(live_server + "/")
        ticks = page.evaluate("async () => (await import('/js/chart.js')).niceTicks(103)")
        assert ticks == [0, 25, 50, 75, 100, 125]
        assert page.evaluate("async () => (await import('/js/chart.js')).niceTicks(150)") == [
            0,
            50,
            100,
            150,
        ]
        # a 63-bit seed comes through exactly (JSON.parse alone would round it)
        seed = page.evaluate(
            """async () => (await import('/js/shuffle.js'))
                 .parseMessage('{"type":"round_end","seed":9223372036854775807,"n":2}')"""
        )
        assert seed == {"type": "round_end", "seed": "9223372036854775807", "n": 2}
    finally:
        page.close()


def test_the_shuffle_check_holds(browser: Browser, round_table: Table) -> None:
    page = round_table.open(browser)
    note = page.locator("#result-dialog .shuffle")
    note.locator("summary").click()
    expect(note.locator(".help")).to_contain_text("fingerprint")
    expect(note.locator(".verdict")).to_have_class("verdict ok")
    codes = note.locator("dd code").all_text_contents()
    commitment, seed, salt = codes
    assert hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest() == commitment
    assert int(seed) < 2**63


@pytest.mark.parametrize("lang", LANGUAGES)
def test_nothing_is_cut_at_360(
    browser: Browser, round_table: Table, lang: str, artifacts: Path
) -> None:
    page = round_table.open(browser, viewport=SIZES[0], locale=LOCALES[lang])
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#result-dialog")).to_be_visible()
    cut = page.evaluate(
        """() => [...document.querySelectorAll('#result-dialog .scroll, #result-dialog th,'
              + ' #result-dialog td, #result-dialog .name, #result-dialog button')]
            .filter((e) => e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.tagName + ':' + e.scrollWidth + '>' + e.clientWidth)"""
    )
    shot(page, artifacts / f"summary-cut-{lang}-360.png") if cut else None
    assert cut == []


def test_single_deal_shows_no_points_columns(browser: Browser, single_table: Table) -> None:
    page = single_table.open(browser, viewport=SIZES[0])
    headline_in_view(page)
    assert headers(page) == ["Player", "Cards left", "Value"]
    expect(page.locator("#result-dialog svg.chart")).to_have_count(0)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: str(s["width"]))
def test_game_over_opens_at_its_headline(
    browser: Browser, deals_table: Table, artifacts: Path, size: ViewportSize
) -> None:
    page = deals_table.open(browser, viewport=size)
    headline_in_view(page)
    assert headers(page) == SERIES_HEADERS
    expect(page.locator("#result-dialog svg.chart")).to_have_attribute("data-rounds", "2")
    shot(page, artifacts / f"game-over-{size['width']}.png")
    page.click("#open-replay")
    expect(page.locator("#replay")).to_be_visible()
    shot(page, artifacts / f"replay-{size['width']}.png")
