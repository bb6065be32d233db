"""Two browsers create and join a table through the invite link, add two computer
players and play a whole penalty-points game through the UI only: click highlighted
cards, choose suits after Jacks, press Mau when it is due.  Reloads mid-game keep the
seat and the history of finished rounds; after the game, the replay shows every hand
of every step of the record."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import box_of, pick_language
from test_table_layout import TAP_TARGETS

from support.languages import LANGUAGES

PHONE: ViewportSize = {"width": 360, "height": 740}
SMALL_PHONE: ViewportSize = {"width": 320, "height": 640}
DESKTOP: ViewportSize = {"width": 1280, "height": 860}

# What a player sees, read from the page (the test acts only by clicking and typing).
READ = """() => {
  const table = document.querySelector('#table');
  const result = document.querySelector('#result-dialog[open]');
  const suit = document.querySelector('#suit-dialog[open]');
  const q = (s) => table && table.querySelector(s);
  const cards = (s) => (table ? [...table.querySelectorAll(s)].map((c) => c.dataset.card) : []);
  return {
    version: table ? Number(table.dataset.version) : -1,
    step: table ? table.dataset.step : null,
    round: table ? Number(table.dataset.round) : -1,
    myTurn: !!(table && table.classList.contains('my-turn')),
    hand: cards('.hand .card'),
    playable: cards('.hand .card.playable'),
    drawn: q('.hand .card.drawn')?.dataset.card || null,
    canDraw: !!q('#draw:not(:disabled)'),
    canPass: !!q('#pass'),
    armed: q('#mau')?.getAttribute('aria-pressed') === 'true',
    result: result ? (result.querySelector('#download-record') ? 'end' : 'round') : null,
    ready: result?.querySelector('#next-round')?.getAttribute('aria-disabled') === 'true',
    suitDialog: !!suit,
  };
}"""


def read(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(READ)
    return result


def shot(page: Page, path: Path, full_page: bool = False) -> None:
    """A screenshot for people to look at (animations finished)."""
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")


def missing_keys(page: Page) -> str | None:
    value: str | None = page.evaluate("document.documentElement.dataset.missingKeys || null")
    return value


def every_card_reachable(page: Page) -> None:
    """On a small phone the hand overlaps; a card lifted by keyboard focus or by the
    mouse must not cover the tap target of its neighbours (40 x 40 pixels at each card's
    index corner, see test_table_layout)."""
    page.set_viewport_size(SMALL_PHONE)
    page.wait_for_function(  # the hand is laid out again for the narrower screen
        "() => document.querySelector('.hand').clientWidth <= 320"
    )
    page.focus('.hand .card[tabindex="0"]')
    page.keyboard.press("Home")  # keyboard focus (and its lift) on the first card
    expect(page.locator(".hand .card").first).to_be_focused()
    third = page.locator(".hand .card").nth(2)
    box = third.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 2, box["y"] + 10)  # the mouse rests on the third
    page.wait_for_timeout(300)  # the lifts' transitions (0.15 s) have ended
    targets: list[dict[str, Any]] = page.evaluate(TAP_TARGETS, 40)
    page.set_viewport_size(PHONE)
    assert len(targets) >= 3 and all(t["hit"] for t in targets), targets


def move(page: Page, seen: dict[str, Any]) -> bool:
    """Make one move for the player on ``page`` if it is their turn; True if one was made."""
    s = read(page)
    if s["result"] or not s["myTurn"] or s["suitDialog"]:
        return False
    version = s["version"]
    if s["playable"]:
        card = s["drawn"] if s["drawn"] in s["playable"] else s["playable"][-1]
        keyboard = seen["moves"] % 3 == 0
        if len(s["hand"]) <= 2 and not s["armed"]:
            # The call is the player's own act: press Mau first (by key or by click).
            page.keyboard.press("m") if keyboard else page.click("#mau")
            expect(page.locator("#mau")).to_have_attribute("aria-pressed", "true")
            seen["mau"] += 1
        target = page.locator(f'.hand .card[data-card="{card}"]')
        expect(target).to_have_attribute("aria-label", re.compile(r", playable$"))
        if keyboard:  # choose the card with the arrow keys, play it with Enter
            page.focus('.hand .card[tabindex="0"]')
            page.keyboard.press("Home")
            for _ in range(s["hand"].index(card)):
                page.keyboard.press("ArrowRight")
            expect(target).to_be_focused()
            page.keyboard.press("Enter")
        else:
            # In a big hand the cards overlap and the next card covers this one's middle:
            # click the strip of it that shows, at its left edge, as a player would.
            box = box_of(target)
            target.click(position={"x": 4, "y": box["height"] / 2})
        if card.startswith("J"):
            expect(page.locator("#suit-dialog")).to_be_visible()
            suits = [c[1] for c in s["hand"] if c != card and not c.startswith("J")] or ["H"]
            best = max(set(suits), key=suits.count)
            page.click(f'#suit-dialog button[data-suit="{best}"]')
            seen["jacks"] += 1
    elif s["canDraw"]:
        page.keyboard.press("d") if seen["moves"] % 2 else page.click("#draw")
    elif s["canPass"]:
        page.click("#pass")
    else:
        return False
    seen["moves"] += 1
    page.wait_for_function(
        "(v) => { const t = document.querySelector('#table');"
        " return !t || Number(t.dataset.version) !== v"
        " || !!document.querySelector('#result-dialog[open]'); }",
        arg=version,
        timeout=15000,
    )
    return True


def play_until_end(pages: list[Page], shots: Path, seen: dict[str, Any]) -> None:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        for page in pages:
            s = read(page)
            other = pages[1] if page is pages[0] else pages[0]
            if s["result"] == "round":
                if s["ready"]:
                    continue  # waiting for the other player; the summary closes by itself
                width = page.viewport_size["width"] if page.viewport_size else 0
                if width not in seen["summaries"]:
                    seen["summaries"].add(width)
                    check_summary(page, shots)
                finished = int(
                    page.locator("#result-dialog svg.chart").get_attribute("data-rounds") or 0
                )
                press_next_round(page, other, seen, shots)
                if page is pages[0] and finished >= 2 and not seen["history_checked"]:
                    seen["history_due"] = finished
            elif s["result"] is None and page is pages[0] and seen["history_due"]:
                # the next round has been dealt: a reload shows every finished round again
                reload_keeps_history(page, seen["history_due"], shots)
                seen["history_checked"] = True
                seen["history_due"] = 0
            elif s["result"] == "end":
                if all(read(p)["result"] == "end" for p in pages):
                    return
            elif move(page, seen):
                guest = pages[1]
                if not seen["reach_checked"] and len(read(guest)["hand"]) >= 5:
                    every_card_reachable(guest)
                    seen["reach_checked"] = True
                if seen["moves"] == 6:
                    shot(pages[0], shots / "table.png")
                    shot(pages[1], shots / "table-phone-midgame.png")
                if not seen["big_hand"] and len(read(pages[1])["hand"]) >= 9:
                    shot(pages[1], shots / "table-phone-big-hand.png")
                    seen["big_hand"] = True
                if seen["moves"] == 10 and not seen["reloaded"]:
                    reload_returns_to_seat(pages[1])
                    seen["reloaded"] = True
        time.sleep(0.05)
    raise AssertionError("the game did not end in time")


def press_next_round(page: Page, other: Page, seen: dict[str, Any], shots: Path) -> None:
    """Say ready for the next round (by click, or by Enter on the focused button).  The
    first to press waits, with the countdown and a ✓ by their name; once both have
    pressed, the next round is dealt at once and both summaries close by themselves."""
    o, s = read(other), read(page)
    # the other has not said ready for this round (a round dealt already counts as ready)
    other_pending = not o["ready"] and o["round"] == s["round"]
    dialog = page.locator("#result-dialog")
    button = dialog.locator("#next-round")
    if seen["next_presses"] % 2:
        expect(button).to_be_focused()
        page.keyboard.press("Enter")
    else:
        button.click()
    seen["next_presses"] += 1
    if other_pending:
        expect(dialog.locator("#wait-text")).to_have_text("Waiting for the others…")
        expect(dialog.locator("#wait-count")).to_have_text(re.compile(r"^Next round in \d+ s$"))
        expect(button).to_have_attribute("aria-disabled", "true")
        expect(button).to_be_focused()
        mine = dialog.locator("#scores tbody tr", has_text="(you)")
        expect(mine.locator(".ready-mark")).to_be_visible()
        expect(dialog.locator(".ready-mark:visible")).to_have_count(1)
        if not seen["waited"]:
            width = page.viewport_size["width"] if page.viewport_size else 0
            shot(page, shots / f"summary-waiting-{width}.png")
        seen["waited"] += 1
        # Pressing again (Enter on the still focused button) sends nothing more.
        page.keyboard.press("Enter")
        expect(button).to_have_attribute("aria-disabled", "true")
    else:
        # both are ready: the next round comes without waiting for the countdown
        for p in (page, other):
            expect(p.locator("#result-dialog")).to_be_hidden(timeout=5000)
            expect(p.locator("#table")).to_have_attribute("data-round", str(s["round"] + 1))


def check_summary(page: Page, shots: Path) -> None:
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#scores tbody tr")).to_have_count(4)
    # Every hand is revealed: the player who went out has none, the others show cards.
    expect(dialog.locator(".mini-card").first).to_be_visible()
    expect(dialog.locator("svg.chart")).to_be_visible()
    width = page.viewport_size["width"] if page.viewport_size else 0
    shot(page, shots / f"summary-{width}.png")


def chart_rounds(page: Page) -> int:
    """How many rounds the open dialog's chart shows (checked against its points)."""
    chart = page.locator("#result-dialog svg.chart")
    expect(chart).to_be_visible()
    rounds = int(chart.get_attribute("data-rounds") or -1)
    expect(chart.locator("circle")).to_have_count(4 * rounds)
    return rounds


def reload_keeps_history(page: Page, finished: int, shots: Path) -> None:
    """After a reload mid-game the Scores button shows every finished round again
    (the server sends them in ``welcome``), with a tab for each."""
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-conn", "online", timeout=10000)
    expect(page.locator("#table")).to_be_visible()
    page.click("#scores-btn")
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    assert chart_rounds(page) == finished
    tabs = dialog.locator(".round-tabs button")
    expect(tabs).to_have_count(finished)
    expect(tabs.last).to_have_attribute("aria-pressed", "true")
    shot(page, shots / "scores-after-reload.png")
    tabs.first.click()
    expect(dialog.locator(".kicker").first).to_have_text("Round 1")
    assert chart_rounds(page) == 1
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator("#scores-btn")).to_be_focused()


def reload_returns_to_seat(page: Page) -> None:
    name = page.locator(".me-name > .name").inner_text()
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-conn", "online", timeout=10000)
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator(".me-name > .name")).to_have_text(name)
    after = read(page)
    assert after["hand"] or after["step"] == "over"


def test_two_players_and_two_bots_play_a_penalty_game(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    host_ctx = browser.new_context(viewport=DESKTOP)
    guest_ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    errors: list[str] = []
    for page in (host, guest):
        page.on("pageerror", lambda exc: errors.append(str(exc)))

    # Home: penalty points 100, computer players quick.
    host.goto(live_server + "/?lang=en")
    expect(host.locator("body")).to_have_attribute("data-ready", "1")
    shot(host, artifacts / "home.png", full_page=True)
    host.fill("#player-name", "Anna")
    host.check('input[name="preset"][value="penalty-100"]')
    host.click("summary:has-text('Table settings')")
    host.fill("#set-bot_delay_ms", "0")
    expect(host.locator("#set-next_round_seconds")).to_have_value("15")
    host.select_option("#set-next_round_seconds", "30")
    host.click("#create")
    expect(host.locator("#seats li[data-seat]")).to_have_count(1)
    invite = host.locator("#invite-link").input_value()
    assert re.fullmatch(re.escape(live_server) + r"/g/[A-Za-z0-9_-]+", invite)
    game_id = invite.rsplit("/", 1)[1]
    token = host.evaluate(f"localStorage.getItem('maumau.token.{game_id}')")
    info = json.loads(host.request.get(f"{live_server}/api/games/{game_id}").text())
    assert info["settings"]["next_round_seconds"] == 30
    assert token and token not in host.url

    # The guest opens the invite link on a phone and takes a seat.
    guest.goto(invite + "?lang=en")
    guest.fill("#join-name", "Bo")
    guest.click("#join")
    expect(host.locator("#seats li[data-seat]")).to_have_count(2)
    expect(guest.locator("#seats li.me")).to_contain_text("Bo")
    host.select_option("#bot-level", "easy")
    host.click("#add-bot")
    expect(host.locator("#seats li[data-seat]")).to_have_count(3)
    host.select_option("#bot-level", "normal")
    host.click("#add-bot")
    expect(host.locator("#seats li[data-seat]")).to_have_count(4)
    expect(host.locator("#seats li[data-seat='1'] .badge.online")).to_be_visible()
    host.wait_for_function(  # the invite's QR code (an SVG from the server) is shown
        "() => { const i = document.querySelector('#invite-qr img');"
        " return !!i && i.complete && i.naturalWidth > 0; }"
    )
    shot(host, artifacts / "lobby.png", full_page=True)
    shot(guest, artifacts / "lobby-phone.png", full_page=True)
    host.click("#start-game")
    expect(host.locator("#table")).to_be_visible()
    expect(guest.locator("#table")).to_be_visible()
    shot(guest, artifacts / "table-phone.png")

    # Every language renders the table without a missing key.
    for code in (*LANGUAGES[1:], "en"):
        pick_language(host, code)
        expect(host.locator("html")).to_have_attribute("lang", code)
        expect(host.locator("#table")).to_be_visible()
        assert missing_keys(host) is None, f"{code}: {missing_keys(host)}"

    seen: dict[str, Any] = {
        "moves": 0,
        "mau": 0,
        "jacks": 0,
        "summaries": set(),
        "reloaded": False,
        "big_hand": False,
        "reach_checked": False,
        "history_checked": False,
        "history_due": 0,
        "next_presses": 0,
        "waited": 0,
    }
    play_until_end([host, guest], artifacts, seen)
    assert seen["reloaded"]
    assert seen["mau"] > 0

    # The final result: winner (or draw) with its tie-break, totals, rematch.
    for page in (host, guest):
        dialog = page.locator("#result-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#result-title")).to_have_text(re.compile(r"wins!|draw"))
        expect(dialog.locator("#decided-by")).to_be_visible()
        expect(dialog.locator("#scores tbody tr")).to_have_count(4)
    shot(host, artifacts / "result.png")
    shot(guest, artifacts / "result-phone.png")
    totals = [int(t) for t in host.locator("#scores tbody td.total").all_inner_texts()]
    assert max(totals) >= 100
    record = json.loads(host.request.get(f"{live_server}/api/games/{game_id}/record").text())
    assert record["players"] == ["Anna", "Bo", *record["players"][2:]]
    replay = json.loads(host.request.get(f"{live_server}/api/games/{game_id}/replay").text())
    rounds = len(replay["rounds"])
    assert seen["waited"] >= rounds - 1  # in every round one player pressed first and waited
    assert seen["history_checked"] or rounds < 3
    assert seen["reach_checked"]  # the guest held five cards at least once
    assert chart_rounds(host) == rounds

    # A reload after the game: the result, its tie-break and every round come back.
    guest.reload()
    expect(guest.locator("#result-dialog #decided-by")).to_have_text(
        host.locator("#decided-by").inner_text()
    )
    assert chart_rounds(guest) == rounds

    check_replay(host, replay, artifacts)

    for code in LANGUAGES[1:]:
        pick_language(host, code)
        expect(host.locator("#result-dialog")).to_be_visible()
        assert missing_keys(host) is None, f"{code}: {missing_keys(host)}"
    shot(host, artifacts / "result-sv.png")
    pick_language(host, "en")

    # The guest watches the replay on the phone; anyone with the link can watch it.
    guest.click("#open-replay")
    expect(guest.locator("#replay")).to_be_visible()
    for _ in range(3):
        guest.click("#replay-next")
    expect(guest.locator("#replay")).to_have_attribute("data-step", "3")
    assert shown_hands(guest) == frame_hands(replay, 0, 3)
    shot(guest, artifacts / "replay-phone.png")
    shot(guest, artifacts / "replay-phone-full.png", full_page=True)
    watcher_ctx = browser.new_context(viewport={"width": 1024, "height": 768})
    watcher = watcher_ctx.new_page()
    watcher.on("pageerror", lambda exc: errors.append(str(exc)))
    watcher.goto(f"{invite}?lang=en#replay/{rounds}/2")
    expect(watcher.locator("#replay")).to_have_attribute("data-round", str(rounds - 1))
    assert shown_hands(watcher) == frame_hands(replay, rounds - 1, 2)
    watcher.click("#replay-close")
    expect(watcher.locator("#result-dialog #open-replay")).to_be_visible()
    expect(watcher.locator("#result-dialog #rematch")).to_have_count(0)
    watcher_ctx.close()
    guest.click("#replay-close")
    expect(guest.locator("#result-dialog")).to_be_visible()

    # Rematch: the host starts it, the guest follows the rematch message.
    host.click("#rematch")
    expect(host.locator("#seats li[data-seat]")).to_have_count(4)
    new_id = host.url.rsplit("/", 1)[1]
    assert new_id != game_id
    expect(guest.locator("#rematch")).to_have_text("Join the rematch")
    guest.click("#rematch")
    expect(guest.locator("#seats li.me")).to_contain_text("Bo")
    assert errors == []
    host_ctx.close()
    guest_ctx.close()


def frame_hands(replay: dict[str, Any], round_index: int, step: int) -> list[list[str]]:
    hands = replay["rounds"][round_index]["frames"][step]["view"]["hands"]
    return [sorted(hand) for hand in hands]


def shown_hands(page: Page) -> list[list[str]]:
    """Every hand the replay shows, face up, seat by seat."""
    hands: list[list[str]] = page.evaluate(
        """() => [...document.querySelectorAll('#replay-seats .replay-seat')].map(
            (s) => [...s.querySelectorAll('.rp-card')].map((c) => c.dataset.card).sort())"""
    )
    return hands


def check_replay(page: Page, replay: dict[str, Any], shots: Path) -> None:
    """Step through the record: every hand, the top card and the draw pile match
    ``GET /api/games/{id}/replay``; buttons, arrow keys and the round selector move."""
    page.click("#open-replay")
    box = page.locator("#replay")
    expect(box).to_be_visible()
    expect(page.locator("#result-dialog")).to_be_hidden()
    expect(page.locator("#replay-next")).to_be_focused()
    assert "#replay" in page.url
    frames = replay["rounds"][0]["frames"]

    def at(round_index: int, step: int) -> None:
        expect(box).to_have_attribute("data-round", str(round_index))
        expect(box).to_have_attribute("data-step", str(step))
        view = replay["rounds"][round_index]["frames"][step]["view"]
        assert shown_hands(page) == frame_hands(replay, round_index, step)
        expect(page.locator("#replay-top")).to_have_attribute("data-card", view["top"])
        expect(page.locator("#replay-stock")).to_have_text(re.compile(rf"^{view['stock_count']} "))
        if view["step"] != "over":
            expect(page.locator(f'.replay-seat[data-seat="{view["to_move"]}"]')).to_have_class(
                re.compile(r"\bturn\b")
            )

    at(0, 0)
    expect(page.locator("#replay-action")).to_contain_text("dealt")
    changed = 0
    for step in range(1, 7):
        if step % 2:
            page.click("#replay-next")
        else:
            page.keyboard.press("ArrowRight")
        at(0, step)
        if frame_hands(replay, 0, step) != frame_hands(replay, 0, step - 1):
            changed += 1
        action = frames[step]["action"]
        # (a computer's name shows without its English "(bot)": the badge says it)
        who = replay["players"][action["seat"]].removesuffix(" (bot)")
        expect(page.locator("#replay-action .what")).to_contain_text(who)
    assert changed >= 5  # plays and draws change a hand; only a pass does not
    shot(page, shots / "replay.png")
    page.keyboard.press("ArrowLeft")
    at(0, 5)
    page.keyboard.press("End")
    at(0, len(frames) - 1)
    last = len(replay["rounds"]) - 1
    if last:
        expect(page.locator("#replay-turn")).to_have_text("The round is over")
        page.keyboard.press("ArrowRight")  # on into the next round
        at(1, 0)
        page.click("#replay-prev")
        at(0, len(frames) - 1)
    page.select_option("#replay-round", str(last))
    at(last, 0)
    page.click("#replay-last")
    at(last, len(replay["rounds"][last]["frames"]) - 1)
    expect(page.locator("#replay-next")).to_be_disabled()
    out = replay["rounds"][last]["frames"][-1]["view"]["out"]
    expect(page.locator(f'.replay-seat[data-seat="{out}"] .rp-card')).to_have_count(0)
    page.click("#replay-first")
    at(last, 0)

    for code in LANGUAGES[1:]:
        pick_language(page, code)
        expect(page.locator("html")).to_have_attribute("lang", code)
        expect(box).to_be_visible()
        assert missing_keys(page) is None, f"{code}: {missing_keys(page)}"
    pick_language(page, "en")
    page.select_option("#replay-round", "0")
    page.focus("#replay-next")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    at(0, 4)
    if last:
        page.keyboard.press("PageDown")
        at(1, 0)
        page.keyboard.press("PageUp")
        at(0, 0)
    page.click("#replay-play")  # plays on by itself, a move a second, until paused
    expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "true")
    expect(box).to_have_attribute("data-step", "1", timeout=4000)
    page.click("#replay-play")
    expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "false")
    step = int(box.get_attribute("data-step") or 0)
    at(0, step)
    page.click("#replay-close")
    expect(box).to_be_hidden()
    expect(page.locator("#result-dialog")).to_be_visible()
    assert "#replay" not in page.url
