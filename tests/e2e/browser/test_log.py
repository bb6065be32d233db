"""The log says why (issue 20), in the browser: skips, reversals, kept cards, penalties
with their reason, the computer's moves for a player (the turn timer, a stand-in), and
the notice a player gets on coming back after a stand-in played for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from tablekit import SIZES, Seat, State, make_table, pick_language

from support.languages import LANGUAGES

LANG_DIR = Path(__file__).resolve().parents[3] / "src" / "maumau" / "web" / "lang"
Action = dict[str, Any]


def strings(code: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((LANG_DIR / f"{code}.json").read_text(encoding="utf-8"))
    return data


def fill(text: str, **params: Any) -> str:
    for key, value in params.items():
        text = text.replace("{" + key + "}", str(value))
    return text


# every kind of entry the log now explains, as the server sends them
ENTRIES: list[dict[str, Any]] = [
    {"seat": 0, "play": "8D", "skipped": 1},
    {"seat": 0, "play": "9D", "reversed": True},
    {"seat": 1, "pass": True, "kept": True},
    {"seat": 1, "pass": True},
    {"seat": 0, "penalty": 2, "reason": "missed", "cards": ["7S", "QD", "2C"]},
    {"seat": 1, "penalty": 2, "reason": "false"},
    {"seat": 0, "penalty": 2, "reason": "caught", "by": 1},
    {"seat": 0, "draw": 1, "by": "timeout"},
    {"seat": 1, "play": "KD", "by": "stand_in"},
    {"seat": 1, "pass": True, "accept": True},
]

RENDER = """async ([code, entries]) => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLanguage(code);
  const { describeEntry, catchReason } = await import('/js/log.js');
  const { shownName } = await import('/js/names.js');
  const players = ['Alex', 'Bruno (bot)'];
  const name = (s) => players[s];
  const box = document.createElement('ol');
  box.id = 'log-check';
  box.style.width = '150px';
  document.body.append(box);
  const lines = entries.map((e) => {
    const li = document.createElement('li');
    li.append(...describeEntry(e, name));
    box.append(li);
    return li;
  });
  // every comma and colon sits in the same element as the word or card before it
  const loose = [...box.querySelectorAll('li')].flatMap((li) =>
    [...li.childNodes].filter((n) => n.nodeType === 3 && /^[,:]/.test(n.textContent.trim())));
  const view = { catchable: 0, step: 'play', counts: [1, 5],
                 log: [{ seat: 0, play: '8D' }] };
  const wrong = { ...view, log: [{ seat: 0, play: '8D', call: 'maumau' }] };
  const text = (parts) => parts.map((p) => typeof p === 'string' ? p : p.textContent).join('');
  const result = {
    plain: entries.map((e) => describeEntry(e, name, true)),
    shown: lines.map((li) => li.textContent),
    loose: loose.length,
    forgot: text(catchReason(view, players)),
    wrong: text(catchReason(wrong, players)),
    none: catchReason({ ...view, catchable: null }, players),
    bot: shownName('Bruno (bot)'),
  };
  box.remove();
  return result;
}"""


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_entry_says_why_in_each_language(
    browser: Browser, live_server: str, code: str
) -> None:
    s = strings(code)
    page = browser.new_page()
    page.goto(f"{live_server}/")
    got = page.evaluate(RENDER, [code, ENTRIES])
    page.close()
    plain, shown = got["plain"], got["shown"]
    alex, bruno = "Alex", "Bruno"
    assert got["bot"] == bruno, "a computer's name is shown without the English (bot)"
    assert fill(s["log.skipped"], name=bruno) in plain[0]
    assert s["log.reversed"] in plain[1]
    assert plain[2] == fill(s["log.kept"], name=bruno)
    assert plain[3] == fill(s["log.passed"], name=bruno) != plain[2]
    assert fill(s["log.penalty.other"], name=alex, n=2) in plain[4]
    assert s["log.reason.missed"] in plain[4]
    assert s["log.reason.false"] in plain[5]
    assert fill(s["log.reason.caught"], name=bruno) in plain[6]
    assert fill(s["log.by.timeout"], name=alex) in plain[7]
    assert fill(s["log.by.stand_in"], name=bruno) in plain[8]
    assert plain[9] == fill(s["log.accepted"], name=bruno)
    assert all("(bot)" not in line for line in plain + shown)
    assert got["loose"] == 0, "a comma or colon could wrap onto a line of its own"
    word = s["mau.mau"]
    assert got["forgot"] == fill(s["catch.forgot"], name=alex, word=word)
    assert got["wrong"] == fill(s["catch.wrong"], name=alex, word=word, said=s["mau.maumau"])
    assert got["none"] is None
    # every new key is in every language, and none is left in English
    for key in ("log.skipped", "log.kept", "log.reason.missed", "catch.missed", "away.title"):
        assert key in s
        if code != "en":
            assert s[key] != strings("en")[key], key


def calling_mau(state: State) -> Action:
    """Play a card calling "Mau" whatever is due (a false call with many cards left),
    else draw, else keep."""
    play = next((a for a in state["legal"] if "play" in a), None)
    if play is not None:
        return {**play, "call": "mau"}
    return next((a for a in state["legal"] if "draw" in a), None) or state["legal"][0]


def test_the_page_log_shows_penalty_reasons_and_the_timer(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = make_table(
        live_server,
        ["Sven", "Ben"],
        options={"hand_size": 7},
        settings={"turn_seconds": 1, "bot_delay_ms": 0, "grace_seconds": None},
    )
    table.seats[1] = Seat(live_server, table.game_id, table.tokens[1], calling_mau)
    try:
        page = table.open(browser, 0, viewport=SIZES[2])
        log = page.locator("#log")
        for code in LANGUAGES:
            s = strings(code)
            pick_language(page, code)
            # Sven does nothing: the computer moves for him when his time runs out
            expect(log).to_contain_text(fill(s["log.by.timeout"], name="Sven"), timeout=15_000)
            expect(log).to_contain_text(s["log.reason.false"], timeout=15_000)
            if code == "de":
                # on a phone the round's log is a sheet the ticker opens
                page.set_viewport_size(SIZES[1])
                page.click("#ticker")
                sheet = page.locator("#log-dialog")
                expect(sheet).to_contain_text(s["log.reason.false"])
                page.screenshot(path=str(artifacts / "log-timer-de-390.png"))
                page.keyboard.press("Escape")
                expect(sheet).to_have_count(0)
                page.set_viewport_size(SIZES[2])
        pick_language(page, "en")
        # the rules say where a false call is punished: this table's mau_penalty (auto)
        page.click("#rules-btn")
        dialog = page.locator("#rules-dialog")
        expect(dialog.locator(".mau-penalty")).to_have_text(
            strings("en")["opt.mau_penalty.auto.help"]
        )
        page.set_viewport_size(SIZES[0])
        dialog.locator(".mau-penalty").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "rules-mau-360.png"))
        page.keyboard.press("Escape")
        for size in SIZES:
            page.set_viewport_size(size)
            expect(log).to_contain_text("time ran out", timeout=15_000)
            phone = size["width"] <= 760  # the log is the ticker's sheet there
            if phone:
                page.click("#ticker")
            page.screenshot(path=str(artifacts / f"log-timer-{size['width']}.png"))
            if phone:
                page.keyboard.press("Escape")
    finally:
        table.close()


def test_coming_back_after_a_stand_in_played_shows_what_it_played(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    table = make_table(
        live_server,
        ["Sven", "Ben"],
        options={"hand_size": 10},
        # (a reload is shorter than the grace period: nobody stands in meanwhile; the
        # stand-in plays slowly, so the round is not over before Sven is back)
        settings={"grace_seconds": 1, "bot_delay_ms": 1000},
    )
    seen: list[dict[str, Any]] = []

    def stood_in(state: State) -> bool:
        seen.extend(state["events"])
        return any(e.get("by") == "stand_in" and e.get("seat") == 0 for e in seen)

    try:
        table.play_until({1: draw_and_keep_forever}, stood_in, seat=1)
        page = table.open(browser, 0, viewport=SIZES[0])
        notice = page.locator("#away")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("While you were away")
        first = notice.locator("li").first
        expect(first).to_contain_text("Sven")
        expect(first).not_to_contain_text("standing in")  # the heading says it once
        for size in SIZES:
            page.set_viewport_size(size)
            expect(notice).to_be_in_viewport()
            page.screenshot(path=str(artifacts / f"away-{size['width']}.png"))
        notice.get_by_role("button", name="OK").click()
        expect(notice).to_have_count(0)
        # a reload does not tell it again: this browser has shown those moves
        page.reload()
        page.wait_for_selector("#table")
        page.wait_for_timeout(300)
        expect(page.locator("#away")).to_have_count(0)
    finally:
        table.close()


def draw_and_keep_forever(state: State) -> Action:
    return next((a for a in state["legal"] if "draw" in a or "pass" in a), state["legal"][0])
