"""The visible turn timer (issue 22, "A visible turn timer"): with a table's
``turn_seconds`` set, the seat to move has a bar that runs down, with its seconds in
the last 10 s, on every client, spectators too; the player's own clock is the larger
ring by the hand, and pulses at the end; it is counted by the server's clock, so a
browser whose clock is an hour off shows it right; nothing of it breaks the CSP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import SIZES, Table, after_first_round, make_table, watch
from test_csp import LISTEN, provoke

NAMES = ["Ana", "Bo"]
DIGITS = re.compile(r"^\d+$")
#: milliseconds a page may take to open its table on a loaded machine
LOADED = 30_000


def timed_table(base: str, seconds: int) -> Table:
    """Ana (seat 0) to move first with a turn timer of ``seconds``; nobody plays by
    policy, and no seat is ever handed to a stand-in for being away: each turn runs
    until its timer makes the move."""
    return make_table(base, NAMES, settings={"turn_seconds": seconds, "grace_seconds": None})


@pytest.fixture
def long_turn(live_server: str) -> Iterator[Table]:
    table = timed_table(live_server, 120)
    yield table
    table.close()


@pytest.fixture
def short_turn(live_server: str) -> Iterator[Table]:
    table = timed_table(live_server, 14)
    yield table
    table.close()


def shown(size: ViewportSize) -> str:
    return f"{size['width']}x{size['height']}"


def fraction(page: Page, selector: str) -> float:
    value = page.locator(selector).get_attribute("data-fraction")
    assert value is not None, f"{selector} has no fraction"
    return float(value)


#: the clock at ``sel`` once low, read in one go: its seconds, whether it pulses, the own
#: ring's size and bar, whether the panel around the hand is marked
LOW_CLOCK = """(sel) => {
  const el = document.querySelector(sel);
  if (!el || !el.classList.contains('low')) return null;
  const secs = el.querySelector('.clock-secs');
  return {
    secs: secs.textContent, secsHeight: secs.getBoundingClientRect().height,
    animation: getComputedStyle(el).animationName,
    ring: el.id === 'my-clock' ? el.getBoundingClientRect().height : 0,
    bar: !!el.closest('.mine')?.querySelector('.my-clock-bar'),
    panel: !!el.closest('.mine.clock-low'),
  };
}"""


#: the low clock's seconds badge of the seat at ``sel`` and its name's and star's boxes,
#: all read in one go (``null`` while its clock is not low)
LOW_BOXES = """(sel) => {
  const seat = document.querySelector(sel);
  const badge = seat?.querySelector('.seat-clock.low .clock-secs');
  if (!badge) return null;
  const rect = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  };
  return {
    badge: rect(badge),
    '.opp-name .name': rect(seat.querySelector('.opp-name .name')),
    '.leader': rect(seat.querySelector('.leader')),
  };
}"""


def at_the_end(page: Page, selector: str) -> dict[str, Any]:
    """The clock at ``selector`` in its last 10 s, which it shows in whole seconds."""
    found: dict[str, Any] = page.wait_for_function(
        LOW_CLOCK, arg=selector, timeout=40_000
    ).json_value()
    assert DIGITS.match(found["secs"]) and 0 <= int(found["secs"]) <= 10, found
    return found


def runs_down(page: Page, selector: str) -> None:
    """The clock at ``selector`` shows part of its time left, and less a moment later."""
    expect(page.locator(f"{selector}[data-fraction]")).to_be_visible(timeout=LOADED)
    first = fraction(page, selector)
    assert 0 < first <= 1
    page.wait_for_function(
        "([sel, first]) => Number(document.querySelector(sel)?.dataset.fraction) < first",
        arg=[selector, first],
    )
    assert 0 < fraction(page, selector) < first


def test_the_seat_to_move_has_a_clock_that_runs_down(
    browser: Browser, long_turn: Table, artifacts: Path
) -> None:
    page = long_turn.open(browser, seat=1, viewport=SIZES[0])  # Bo waits for Ana
    ana = ".opponent[data-seat='0'] .seat-clock"
    expect(page.locator(".opponent[data-seat='0'].turn.timed")).to_be_visible(timeout=LOADED)
    runs_down(page, ana)
    # more than 10 s left: the bar only, no seconds; Bo has no clock of his own
    expect(page.locator(f"{ana} .clock-secs")).to_have_text("")
    expect(page.locator("#my-clock")).to_have_count(0)
    expect(page.locator("#turn-timer")).to_contain_text("s left")
    # a reload mid-turn shows the part of the turn that is left, not a whole one
    before = fraction(page, ana)
    page.reload()
    expect(page.locator(f"{ana}[data-fraction]")).to_be_visible(timeout=LOADED)
    assert fraction(page, ana) <= before
    for size in SIZES:
        page.set_viewport_size(size)
        # the bar and its seat's box measured in one frame, once both are drawn: one by
        # one, a slow run measured between two renders and found none
        widths = page.wait_for_function(
            """([bar, seat]) => {
              const b = document.querySelector(bar)?.getBoundingClientRect();
              const s = document.querySelector(seat)?.getBoundingClientRect();
              return b && s && b.width > 0 && s.width > 0 ? [b.width, s.width] : null;
            }""",
            arg=[ana + " .clock-bar", ".opponent[data-seat='0']"],
            timeout=LOADED,
        ).json_value()
        assert widths[0] > widths[1] / 2, widths
        page.screenshot(
            path=str(artifacts / f"timer-opponent-{size['width']}x{size['height']}.png")
        )


def test_spectators_see_the_clock(browser: Browser, long_turn: Table) -> None:
    page = watch(long_turn, browser, viewport=SIZES[1])
    expect(page.locator("#table.watching")).to_be_visible()
    runs_down(page, ".opponent[data-seat='0'] .seat-clock")
    expect(page.locator(".opponent[data-seat='1'] .seat-clock")).to_have_count(0)


def an_hour_ahead(browser: Browser, table: Table, seat: int | None = None) -> Page:
    """The table's page (as ``seat``, or watching) in a browser whose clock is an hour
    ahead of the server's."""
    ctx = browser.new_context(viewport=SIZES[2], locale="en-US")
    table.contexts.append(ctx)
    ctx.add_init_script("{ const real = Date.now; Date.now = () => real() + 3600e3; }")
    page = ctx.new_page()
    if seat is not None:
        page.goto(f"{table.base}/")
        page.evaluate(
            "([id, token]) => localStorage.setItem('maumau.token.' + id, token)",
            [table.game_id, table.tokens[seat]],
        )
    page.goto(f"{table.base}/g/{table.game_id}")
    return page


def test_the_next_round_counts_down_by_the_server_clock_too(
    browser: Browser, live_server: str
) -> None:
    table = after_first_round(live_server)  # the next round in 600 s, unless all are ready
    try:
        page = an_hour_ahead(browser, table, seat=0)
        count = page.locator("#wait-count")
        expect(count).to_have_text(re.compile(r"\d+"), timeout=LOADED)
        seconds = int(re.findall(r"\d+", count.inner_text())[0])
        assert 500 < seconds <= 600
    finally:
        table.close()


def test_a_wrong_clock_in_the_browser_shows_the_time_left_right(
    browser: Browser, long_turn: Table
) -> None:
    # this browser's clock is an hour ahead: by it, the turn would be long over
    page = an_hour_ahead(browser, long_turn)
    runs_down(page, ".opponent[data-seat='0'] .seat-clock")
    left = page.locator(".opponent[data-seat='0'] .seat-clock").get_attribute("data-left")
    assert left is not None and 10 < float(left) <= 120


def test_your_own_clock_is_the_prominent_one_and_says_its_last_seconds(
    browser: Browser, short_turn: Table, artifacts: Path
) -> None:
    violations: list[str] = []
    ctx = browser.new_context(viewport=SIZES[2], locale="en-US")
    short_turn.contexts.append(ctx)

    def report(text: str) -> None:
        violations.append(text)

    ctx.expose_function("reportViolation", report)
    ctx.add_init_script(LISTEN)
    mine = ctx.new_page()
    mine.goto(f"{short_turn.base}/")
    mine.evaluate(
        "([id, token]) => localStorage.setItem('maumau.token.' + id, token)",
        [short_turn.game_id, short_turn.tokens[0]],
    )
    mine.goto(f"{short_turn.base}/g/{short_turn.game_id}")
    other = short_turn.open(browser, seat=1, viewport=SIZES[2])
    # Ana's turn: her ring by the hand, with its seconds, runs down
    expect(mine.locator("#table.my-turn .mine.timed #my-clock")).to_be_visible(timeout=LOADED)
    runs_down(mine, "#my-clock")
    # the last 10 s (read at once: a turn may end between two reads)
    low = at_the_end(mine, "#my-clock")
    assert low["ring"] >= 44 and low["bar"] and low["panel"], low
    assert low["animation"] == "clock-pulse"
    # Bo sees Ana's seconds on her box: smaller than Ana's own ring
    theirs = at_the_end(other, ".opponent[data-seat='0'] .seat-clock")
    assert theirs["secsHeight"] and theirs["secsHeight"] < low["ring"], theirs
    assert theirs["animation"] != "clock-pulse" and not theirs["bar"]
    for size in SIZES:
        mine.set_viewport_size(size)
        expect(mine.locator("#my-clock.low")).to_be_visible(timeout=40_000)
        mine.screenshot(path=str(artifacts / f"timer-mine-low-{shown(size)}.png"))
    other.screenshot(path=str(artifacts / "timer-opponent-low-1280x800.png"))
    assert provoke(mine, violations) == []


def test_reduced_motion_keeps_the_clock_still(browser: Browser, short_turn: Table) -> None:
    page = short_turn.open(browser, seat=0, viewport=SIZES[0], reduced_motion="reduce")
    low = at_the_end(page, "#my-clock")
    assert low["animation"] == "none"
    runs_down(page, "#my-clock")


#: draw the table again (a language change) and read a seat's new clock as soon as it is
#: in the page: its bar's scale, and the fraction it was set to
REDRAWN = """(lang) => new Promise((resolve) => {
  const old = document.querySelector('.seat-clock .clock-fill');
  const seen = new MutationObserver(() => {
    const fill = document.querySelector('.seat-clock .clock-fill');
    if (!fill || fill === old) return;
    seen.disconnect();
    const scale = new DOMMatrixReadOnly(getComputedStyle(fill).transform).a;
    resolve([scale, Number(fill.closest('[data-clock]').dataset.fraction)]);
  });
  seen.observe(document.getElementById('app'), { childList: true, subtree: true });
  const pick = document.getElementById('lang-picker');
  pick.value = lang;
  pick.dispatchEvent(new Event('change'));
})"""


def test_a_redrawn_clock_shows_the_time_left_at_once(browser: Browser, short_turn: Table) -> None:
    page = short_turn.open(browser, seat=1, viewport=SIZES[2])
    ana = ".opponent[data-seat='0'] .seat-clock"
    page.wait_for_function(
        "(sel) => Number(document.querySelector(sel)?.dataset.fraction) < 0.8",
        arg=ana,
        timeout=40_000,
    )
    scale, fraction = page.evaluate(REDRAWN, "de")
    # not a full bar running down to the time left: the time left, from the first frame
    assert 0 < fraction < 0.85
    assert abs(scale - fraction) < 0.05, (scale, fraction)


def test_four_players_on_a_phone_keep_the_seconds_on_screen(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    # Bo's page: Cy, Di and Ana in a row; Ana, last on the right, is to move
    names = ["Ana", "Bo", "Cy", "Di"]
    table = make_table(live_server, names, settings={"turn_seconds": 12, "grace_seconds": None})
    try:
        page = table.open(browser, seat=1, viewport=SIZES[0])
        low = at_the_end(page, ".opponent[data-seat='0'] .seat-clock")
        assert low["secsHeight"] > 0
        # the badge and its neighbours measured at once, in one frame of the page, while
        # the clock is low: measured one by one, a slow run saw the turn run out between
        boxes = page.wait_for_function(LOW_BOXES, arg=".opponent[data-seat='0']").json_value()
        box = boxes["badge"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= SIZES[0]["width"], box
        # clear of the name and of the leader's star (Ana leads round 1)
        for part in (".opp-name .name", ".leader"):
            other = boxes[part]
            assert other, part
            apart = (
                other["x"] >= box["x"] + box["width"]
                or other["x"] + other["width"] <= box["x"]
                or other["y"] >= box["y"] + box["height"]
            )
            assert apart, (part, other, box)
        page.screenshot(path=str(artifacts / "timer-opponent-low-4p-360x640.png"))
    finally:
        table.close()
