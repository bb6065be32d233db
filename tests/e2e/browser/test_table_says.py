"""The table says what happens (issue 20, "Nothing happens without being said"): who
played the top card and which card lies under it, the suit a Jack asked for in words, why
a tapped card cannot be played, who led the round, the seat that just acted; the catch
flow says why a player can be caught, pulses a few times only, and says so when the
chance is gone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from tablekit import (
    SIZES,
    State,
    Table,
    draw_and_keep,
    keep_above,
    make_table,
    preferring,
    run,
    watch,
)

QUIET = {"grace_seconds": None}
NAMES = ["Anna", "Bruno", "Chiara"]


def forgetful(state: State) -> dict[str, Any]:
    """Play whenever a card fits, and never call Mau."""
    play = next((a for a in state["legal"] if "play" in a), None)
    if play is not None:
        return {k: v for k, v in play.items() if k != "call"}
    return next(a for a in state["legal"] if "draw" in a or "pass" in a)


@pytest.fixture
def played(live_server: str) -> Iterator[Table]:
    """Seat 0 to move, with a card it cannot play, after both others played a card."""
    table = make_table(live_server, NAMES, options={"draw_when_able": True}, settings=QUIET)

    def ready(s: State) -> bool:
        view, legal = s["view"], s["legal"]
        plays = {a["play"] for a in legal if "play" in a}
        return (
            view["step"] == "play"
            and not view["pending"]
            and any(c not in plays for c in view["hand"])
            and len(view["discard"]) >= 3
        )

    table.play_until({0: draw_and_keep, 1: keep_above(3), 2: keep_above(3)}, ready)
    yield table
    table.close()


def test_the_felt_says_who_played_what(browser: Browser, played: Table, artifacts: Path) -> None:
    page = played.open(browser, viewport=SIZES[0])
    expect(page.locator("#table.my-turn")).to_be_visible()
    top = page.locator("#top-card").get_attribute("data-card")
    under = page.locator("#under-card").get_attribute("data-card")
    assert top and under and top != under
    # the log's last play is the top card's; its player is named on the felt
    last_play = page.evaluate(
        "[...document.querySelectorAll('#log li')].map((li) => li.textContent)"
        ".filter((t) => t.includes(' played ')).pop()"
    )
    player = last_play.split(" played ")[0]
    expect(page.locator("#played-by")).to_contain_text(player)
    label = page.locator(".discard-pile").get_attribute("aria-label") or ""
    assert f"played by {player}" in label and "before it" in label
    # the seat that acted last is marked; the round's leader is shown
    expect(page.locator(".opponent.acted")).to_have_count(1)
    leader = page.locator(".leader")
    expect(leader).to_have_count(1)
    page.set_viewport_size(SIZES[2])
    expect(page.locator("#turn .led")).to_contain_text("led")
    page.screenshot(path=str(artifacts / "table-says-1280x800.png"))


def test_a_tapped_card_that_cannot_be_played_says_why(browser: Browser, played: Table) -> None:
    page = played.open(browser, viewport=SIZES[0])
    expect(page.locator("#table.my-turn")).to_be_visible()
    top = page.locator("#top-card").get_attribute("data-card") or ""
    dim = page.locator(".hand .card.dim").first
    code = dim.get_attribute("data-card") or ""
    version = page.locator("#table").get_attribute("data-version")
    dim.click()
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    if top[0] == "J" or code[0] == "J":
        expect(toast).to_contain_text("Jack")
    else:
        expect(toast).to_contain_text("match the")
    # nothing was played
    expect(page.locator("#table")).to_have_attribute("data-version", version or "")
    expect(page.locator(f".hand .card[data-card='{code}']")).to_have_count(1)


def catchable(base: str) -> Table:
    """Catch rules: Bruno just played his second-to-last card without "Mau"; Anna moves."""
    table = make_table(
        base, NAMES[:2], options={"mau_penalty": "catch", "eight_skips": False}, settings=QUIET
    )

    def ready(s: State) -> bool:
        return s["view"]["step"] == "play" and any("catch" in a for a in s["legal"])

    table.play_until({0: keep_above(5), 1: forgetful}, ready)
    return table


def open_catch(browser: Browser, live_server: str) -> tuple[Table, Page]:
    table = catchable(live_server)
    page = table.open(browser, viewport=SIZES[0])
    expect(page.locator(".catch")).to_be_visible()
    return table, page


def test_the_catch_says_why_and_stops_pulsing(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table, page = open_catch(browser, live_server)
    try:
        expect(page.locator("#turn")).to_contain_text("Bruno forgot to say “Mau”")
        pulses = page.evaluate(
            "getComputedStyle(document.querySelector('.catch')).animationIterationCount"
        )
        assert pulses != "infinite" and float(pulses) <= 3
        page.screenshot(path=str(artifacts / "catch-360x640.png"))
        page.click(".catch")
        expect(page.locator("#log")).to_contain_text("Anna caught Bruno")
        expect(page.locator(".catch")).to_have_count(0)
    finally:
        table.close()


def test_a_missed_catch_is_said(browser: Browser, live_server: str) -> None:
    table, page = open_catch(browser, live_server)
    try:
        page.click("#draw")  # Anna moves on instead of catching
        expect(page.locator("#toast")).to_contain_text("Too late: the chance to catch Bruno")
        expect(page.locator("#log")).not_to_contain_text("caught")
    finally:
        table.close()


@pytest.mark.parametrize(
    ("options", "ranks", "said"),
    [
        ({"eight_skips": True}, "8", "is skipped"),
        ({"nine_reverses": True}, "9", "Direction reversed"),
    ],
    ids=["skip", "reverse"],
)
def test_a_skip_or_a_reversal_is_cued_on_the_felt(
    browser: Browser,
    live_server: str,
    options: dict[str, Any],
    ranks: str,
    said: str,
    artifacts: Path,
) -> None:
    table = make_table(live_server, NAMES, options={"draw_when_able": True, **options})
    try:
        page = watch(table, browser, SIZES[0])
        run(table, {0: keep_above(3), 1: preferring(ranks, keep_above(3)), 2: keep_above(3)})
        cue = page.locator("#cue")
        expect(cue).to_contain_text(said, timeout=30_000)
        page.screenshot(path=str(artifacts / f"cue-{said.split()[-1]}-360x640.png"))
        # the log says it too, and the cue goes away by itself
        expect(page.locator("#log")).to_contain_text("skipped" if ranks == "8" else "direction")
    finally:
        table.close()


def test_the_asked_for_suit_reads_naturally_and_large(browser: Browser, live_server: str) -> None:
    table = make_table(live_server, NAMES, options={"draw_when_able": True})
    try:
        page = watch(table, browser, SIZES[0])
        run(table, {0: keep_above(3), 1: preferring("J", keep_above(3)), 2: keep_above(3)})
        # read at once, in the page: the next card may take the Jack's wish away
        seen: dict[str, Any] = page.wait_for_function(
            """() => {
              const named = document.querySelector('#named-suit');
              const symbol = named?.querySelector('.named-symbol svg');
              return symbol
                ? { text: named.textContent, height: symbol.getBoundingClientRect().height }
                : null;
            }""",
            timeout=30_000,
        ).json_value()
        assert seen["text"].startswith("Asked for:"), seen
        assert seen["height"] >= 20, seen  # seen at a glance
        assert any(suit in seen["text"] for suit in ("clubs", "diamonds", "hearts", "spades"))
    finally:
        table.close()
