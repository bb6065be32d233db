"""Late friends (issue 22, item 5): a friend who opens the invite link after the start is
told they are watching and may ask for a seat a computer plays; the host accepts with one
click, and the friend plays that seat's next move with the bot's hand.  Everyone sees how
many watch; a rematch is offered to those watching too.  Screenshots of the watching
notice, the host's prompt, the spectator count and "join the rematch" at three sizes."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from tablekit import SIZES, call, game_over, make_table, playing, watch

from support.languages import LANGUAGES, LOCALES, strings

#: the bot waits this long before a move, and nobody is replaced while away
SLOW = {"bot_delay_ms": 10_000, "grace_seconds": None, "next_round_seconds": 600}


#: the watching notice in each language
NOTICE = {code: strings(code)["watch.notice"] for code in LANGUAGES}
#: the notice is on the screen and below the status line and the ticker
CLEAR = """() => {
  const notice = document.getElementById("watching")?.getBoundingClientRect();
  if (!notice || notice.left < 0 || notice.right > innerWidth) return false;
  return ["#turn", ".ticker"].every((sel) => {
    const row = document.querySelector(`#table ${sel}`)?.getBoundingClientRect();
    return row && row.bottom <= notice.top;
  });
}"""


def shoot(pages: dict[str, Page], artifacts: Path) -> None:
    """Each page at every size: ``<name>-<width>.png``."""
    for size in SIZES:
        for name, page in pages.items():
            page.set_viewport_size(size)
            page.wait_for_timeout(150)  # (a resize lays the hand out again)
            page.screenshot(path=str(artifacts / f"{name}-{size['width']}.png"))


def move(page: Page) -> None:
    """End this seat's turn: play a card that fits (not a Jack, which asks for a suit),
    else draw, and keep a drawn card that fits; again while the turn stays (an Eight
    skips the only other seat)."""
    table = page.locator("#table")
    for _ in range(20):
        before = table.get_attribute("data-version") or ""
        cards = page.locator("#table .hand .card.playable:not([data-card^='J'])")
        if cards.count():
            cards.first.click()
        else:
            page.click("#draw")
        expect(table).not_to_have_attribute("data-version", before)
        keep = page.locator("#pass:not(:disabled)")
        if keep.count() and page.locator("#table.my-turn").count():
            before = table.get_attribute("data-version") or ""
            keep.click()
            expect(table).not_to_have_attribute("data-version", before)
        if not page.locator("#table.my-turn").count():
            return
    raise AssertionError("the turn never passed")


def test_a_late_friend_takes_over_a_bot_seat_and_plays_it(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = make_table(live_server, ["Ana"], "penalty-100", settings=SLOW, bots=1)
    try:
        host = table.open(browser, 0, viewport=SIZES[1])
        expect(host.locator("#table")).to_have_class(re.compile(r"\bmy-turn\b"))
        friend = watch(table, browser, viewport=SIZES[1])
        notice = friend.locator("#watching")
        expect(notice).to_contain_text("You are watching — ask the host for a seat")
        expect(host.locator("#watch-count")).to_have_text("1 watching")
        expect(friend.locator("#watch-count")).to_have_text("1 watching")
        bot_cards = int(host.locator(".opponent[data-seat='1'] .count-n").inner_text())
        shoot({"late-watching": friend, "late-count": host}, artifacts)
        friend.set_viewport_size(SIZES[1])
        # the game goes on under the notice without taking its button away from a
        # keyboard (or from under a finger): the host's move reaches the friend as a new
        # state, and the focused button is the same one after it
        friend.focus("#ask-seat")
        before = friend.locator("#table").get_attribute("data-version")
        move(host)
        expect(friend.locator("#table")).not_to_have_attribute("data-version", before or "")
        assert friend.evaluate("() => document.activeElement?.id") == "ask-seat"
        # (the bot moves after 10 s; again, if its Eight skips the host)
        expect(host.locator("#table")).to_have_class(re.compile(r"\bmy-turn\b"), timeout=60_000)
        bot_cards = int(host.locator(".opponent[data-seat='1'] .count-n").inner_text())

        friend.click("#ask-seat")
        dialog = friend.locator("#ask-seat-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator(".ask-choice")).to_have_count(1)
        expect(dialog.locator(".ask-choice")).to_contain_text("Ada")
        friend.fill("#ask-name", "Mia")
        shoot({"late-ask": friend}, artifacts)
        friend.click("#ask-send")
        expect(dialog).to_have_count(0)
        expect(notice).to_contain_text("waiting for the host")

        prompt = host.locator("#seat-prompts .seat-prompt")
        expect(prompt).to_have_count(1)
        expect(prompt).to_contain_text("Mia asks to play the seat of")
        shoot({"late-prompt": host}, artifacts)
        host.set_viewport_size(SIZES[1])
        prompt.locator("[data-answer=accept]").click()  # one click

        # the friend is seated: the bot's hand, and the table names the seat for Mia
        expect(friend.locator("#watching")).to_have_count(0)
        hand = friend.locator("#table .hand .card")
        expect(hand).to_have_count(bot_cards)
        expect(host.locator(".opponent[data-seat='1'] .opp-name")).to_have_text("Mia")
        expect(host.locator("#seat-prompts")).to_have_count(0)
        expect(host.locator("#watch-count")).to_have_count(0)  # nobody watches now
        token = friend.evaluate(f"() => localStorage.getItem('maumau.token.{table.game_id}')")
        assert token and len(token) >= 40

        # the host moves; then it is the friend's turn, and the friend moves from the seat
        move(host)
        mine = friend.locator("#table.my-turn")
        expect(mine).to_be_visible(timeout=15_000)
        before = friend.locator("#table").get_attribute("data-version")
        move(friend)
        expect(friend.locator("#table")).not_to_have_attribute("data-version", before or "")
        # the host's table shows the seat's move as Mia's
        expect(host.locator(".opponent[data-seat='1'] .last")).to_be_visible()
        # after a reload the friend is still at the seat (the token was kept)
        friend.reload()
        expect(friend.locator("#table .hand")).to_be_visible()
        expect(friend.locator("#watching")).to_have_count(0)
    finally:
        table.close()


def test_a_host_who_declines_leaves_the_friend_watching(browser: Browser, live_server: str) -> None:
    table = make_table(live_server, ["Ana"], "penalty-100", settings=SLOW, bots=1)
    try:
        host = table.open(browser, 0, viewport=SIZES[2])
        friend = watch(table, browser, viewport=SIZES[0])
        friend.click("#ask-seat")
        friend.fill("#ask-name", "Ana")  # the host's name: refused, said under the field
        friend.click("#ask-send")
        expect(friend.locator("#ask-name-error")).to_contain_text("Ana")
        friend.fill("#ask-name", "Ole")
        friend.click("#ask-send")
        host.locator("#seat-prompts [data-answer=decline]").click()
        expect(friend.locator("#toast")).to_contain_text("declined")
        expect(friend.locator("#ask-seat")).to_be_visible()
        expect(host.locator("#seat-prompts")).to_have_count(0)
    finally:
        table.close()


def test_the_rematch_reaches_those_watching(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = make_table(
        live_server,
        ["Ana", "Bo"],
        "penalty-100",
        options={"scoring": "deals", "deals": 1},
        settings={"next_round_seconds": 0},
    )
    try:
        table.play_until({0: playing, 1: playing}, game_over)
        friend = watch(table, browser, viewport=SIZES[1])
        expect(friend.locator("#result-dialog")).to_be_visible()
        expect(friend.locator("#rematch")).to_have_count(0)  # nothing to join yet
        made = call(
            f"{live_server}/api/games/{table.game_id}/rematch", "POST", token=table.tokens[0]
        )
        button = friend.locator("#rematch")
        expect(button).to_have_text("Join the rematch")
        shoot({"late-rematch": friend}, artifacts)
        friend.set_viewport_size(SIZES[1])
        button.click()
        friend.wait_for_url(f"**/g/{made['game_id']}")
        expect(friend.locator("#join-name")).to_be_visible()
    finally:
        table.close()


def test_the_notice_fits_a_phone_in_every_language(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = make_table(live_server, ["Ana"], "penalty-100", settings=SLOW, bots=1)
    try:
        for lang in (*LANGUAGES[1:], "en"):
            locale = LOCALES[lang]
            ctx = browser.new_context(viewport=SIZES[0], locale=locale)
            table.contexts.append(ctx)
            page = ctx.new_page()
            page.goto(f"{live_server}/g/{table.game_id}")
            expect(page.locator("html")).to_have_attribute("lang", lang)
            notice = page.locator("#watching")
            expect(notice.locator("#ask-seat")).to_be_visible()
            page.screenshot(path=str(artifacts / f"late-watching-{lang}-360.png"))
            expect(notice.locator(".watching-text")).to_have_text(NOTICE[lang])
            # within the screen, and the table's rows above it stay clear of it (checked
            # once the page has settled: its first frames may still be laid out)
            page.wait_for_function(CLEAR, timeout=10_000)
            cut = page.evaluate(
                "() => [...document.querySelectorAll('#watching *')]"
                ".filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)"
            )
            assert cut == [], (lang, cut)
            assert notice.locator("#ask-seat").bounding_box()["height"] >= 44  # type: ignore[index]
            ctx.close()
            table.contexts.remove(ctx)
    finally:
        table.close()
