"""The home page, the lobby and the rules forms (issue 20), in all four languages at
360x640, 390x844 and 1280x800: "How to play" explains the rules picked on the home form
before a table exists; the form remembers the last rules, and a preset change that
replaces edits can be undone; the player's open tables are listed with a link back;
nothing sticks out of its panel (the Scoring select, the turn-timer placeholder, the
Danish and German "Forgotten Mau" select, long names in the lobby); the connection badge
follows a language change; the lobby keeps the keyboard focus when it is drawn again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from tablekit import SIZES, call, draw_and_keep, make_table, pick_language

from support.languages import LANGUAGES, strings

LONG = "W" * 32
RULES_KEY = "maumau.home.rules"

#: everything drawn inside a panel that reaches out of the panel's content box (past its
#: padding), and every empty input whose placeholder is wider than the input's text box
FITS = """() => {
  const out = [];
  const edges = (el) => {
    const cs = getComputedStyle(el), r = el.getBoundingClientRect();
    return [r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft) - 0.5,
            r.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight) + 0.5];
  };
  for (const panel of document.querySelectorAll('#app .panel')) {
    const [left, right] = edges(panel);
    for (const el of panel.querySelectorAll('*')) {
      if (!el.getClientRects().length || el.closest('.sr-only')) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0) continue;
      let [l, r] = [b.left, b.right];
      for (let a = el.parentElement; a && a !== panel; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const c = a.getBoundingClientRect();
        [l, r] = [Math.max(l, c.left), Math.min(r, c.right)];
      }
      if (r > l && (r > right || l < left)) {
        out.push(`${el.tagName}#${el.id}.${el.className} ${Math.round(l)}..${Math.round(r)}`
          + ` in ${Math.round(left)}..${Math.round(right)}`);
      }
    }
  }
  const ctx = document.createElement('canvas').getContext('2d');
  for (const input of document.querySelectorAll('#app input[placeholder]')) {
    if (!input.getClientRects().length || input.value) continue;
    const cs = getComputedStyle(input);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const need = ctx.measureText(input.placeholder).width;
    if (need > room + 0.5) out.push(`placeholder of #${input.id}: ${need} > ${room}`);
  }
  const html = document.documentElement;
  if (html.scrollWidth > html.clientWidth) out.push(`page scrolls ${html.scrollWidth}`);
  return out.slice(0, 6);
}"""


def shot(page: Page, path: Path, full_page: bool = True) -> None:
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")


def size_name(size: Any) -> str:
    return f"{size['width']}x{size['height']}"


def ready(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-ready", "1")


def open_home(page: Page, base: str, code: str = "en") -> None:
    page.goto(f"{base}/?lang={code}")
    ready(page)
    for summary in page.locator("form.create details > summary").all():
        if summary.locator("xpath=..").get_attribute("open") is None:
            summary.click()


def check_fits(page: Page, where: str) -> None:
    out: list[str] = page.evaluate(FITS)
    assert out == [], (where, out)
    assert page.locator("html").get_attribute("data-missing-keys") is None, where


def check_axe(page: Page, where: str) -> None:
    """No accessibility violation that axe-core finds in the page."""
    results = Axe().run(page)
    assert results.violations_count == 0, (where, results.generate_report())


@pytest.fixture()
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=SIZES[2])
    yield ctx
    ctx.close()


@pytest.fixture()
def page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert errors == []


def test_the_home_form_fits_its_panel(page: Page, live_server: str, artifacts: Path) -> None:
    for code in LANGUAGES:
        open_home(page, live_server, code)
        # the widest values: fixed number of deals, "only if caught"
        page.select_option("#opt-scoring", index=2)
        page.select_option("#opt-mau_penalty", index=1)
        for size in SIZES:
            page.set_viewport_size(size)
            check_fits(page, f"home {code} {size_name(size)}")
            if code in ("en", "da"):
                shot(page, artifacts / f"home-{code}-{size_name(size)}.png")


def test_the_form_offers_the_engines_options_and_refuses_one_without_a_label(
    page: Page, live_server: str
) -> None:
    """The options and presets are the engine's (/options.json); the client keeps only
    their labels, and an option it has no label for (a new rule the language files
    lack) stops the start, loudly, instead of being shown as its bare key."""
    served = call(f"{live_server}/options.json", "GET")
    open_home(page, live_server)
    offered = page.locator("form.create .option[data-key]").evaluate_all(
        "(rows) => rows.map((row) => row.dataset.key)"
    )
    assert offered == [o["key"] for o in served["options"]]
    presets = page.locator("input[name='preset']").evaluate_all("(l) => l.map((i) => i.value)")
    assert presets == [p["name"] for p in served["presets"]]

    served["options"].append({"key": "queen_reverses", "kind": "flag", "default": False})
    page.route("**/options.json", lambda route: route.fulfill(json=served))
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text))
    page.goto(f"{live_server}/?lang=en")
    expect(page.locator("#app")).to_have_text(strings("en")["error.start"])
    assert any("queen_reverses" in text for text in said), said


def howto_text(page: Page) -> str:
    dialog = page.locator("#rules-dialog[open]")
    expect(dialog).to_be_visible()
    return dialog.locator("#howto-rules").inner_text()


def test_how_to_play_explains_the_rules_on_the_form(
    page: Page, live_server: str, artifacts: Path
) -> None:
    open_home(page, live_server)
    expect(page.locator("#rules-btn")).to_be_hidden()  # the header's button is a table's
    page.click("#howto")
    text = howto_text(page)
    for words in (
        "A Seven makes the next player draw 2 cards",
        "An Eight makes the next player miss a turn",
        "whoever plays it wishes for a suit",
        "call when no call is due, and you draw 2 cards at once",  # "penalty at once"
        "reaches 100 points",
    ):
        assert words in text
    assert "Nine" not in text  # only the rules that are in play
    expect(page.locator("#rules-dialog h1")).to_have_text("How to play")
    expect(page.locator("#rules-dialog .preset-name")).to_have_text("Penalty points 100")
    expect(page.locator("#rules-dialog .close")).to_be_focused()
    check_axe(page, "how to play")
    for size in SIZES:
        page.set_viewport_size(size)
        shot(page, artifacts / f"howto-en-{size_name(size)}.png", full_page=False)
    page.keyboard.press("Escape")
    expect(page.locator("#howto")).to_be_focused()

    # Another preset, then an option adjusted by hand: the page follows both.
    page.check("input[name=preset][value=gamerules]")
    page.select_option("#opt-seven_draw", index=1)
    page.click("#howto")
    text = howto_text(page)
    assert "draw 3 cards" in text
    assert "A Nine reverses the direction of play" in text
    assert "any other player may catch you" in text
    assert "first to reach 150 points wins" in text
    expect(page.locator("#rules-dialog .preset-name")).to_have_text("Custom rules")
    page.keyboard.press("Escape")

    # In every language, without a missing string.
    for code in LANGUAGES[1:]:
        title = strings(code)["howto.title"]
        pick_language(page, code)
        page.click("#howto")
        expect(page.locator("#rules-dialog[open] h1")).to_have_text(title)
        assert page.locator("html").get_attribute("data-missing-keys") is None
        assert "svit" not in howto_text(page).lower()
        for size in SIZES:
            page.set_viewport_size(size)
            shot(page, artifacts / f"howto-{code}-{size_name(size)}.png", full_page=False)
        page.keyboard.press("Escape")


def test_the_form_remembers_the_rules_and_a_preset_change_can_be_undone(
    page: Page, live_server: str, artifacts: Path
) -> None:
    open_home(page, live_server)
    expect(page.locator("input[name=preset][value=penalty-100]")).to_be_checked()
    page.check("input[name=preset][value=traditional]")
    page.select_option("#opt-seven_draw", index=1)
    page.fill("#set-turn_seconds", "45")
    page.reload()
    open_home(page, live_server)
    expect(page.locator("input[name=preset][value=traditional]")).to_be_checked()
    expect(page.locator("#opt-seven_draw")).to_have_js_property("selectedIndex", 1)
    expect(page.locator("#set-turn_seconds")).to_have_value("45")

    # Another preset replaces the edit, and says so: Undo brings it back.
    notice = page.locator("#preset-undo")
    expect(notice).to_be_hidden()
    page.check("input[name=preset][value=standard]")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Traditional")
    check_axe(page, "undo notice")
    for size in SIZES:
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("input[name=preset][value=standard]").scroll_into_view_if_needed()
        expect(notice).to_be_in_viewport()  # seen without scrolling to it
        shot(page, artifacts / f"home-undo-{size_name(size)}.png", full_page=False)
    expect(page.locator("#opt-seven_draw")).to_have_js_property("selectedIndex", 0)
    page.click("#undo-preset")
    expect(notice).to_be_hidden()
    expect(page.locator("input[name=preset][value=traditional]")).to_be_checked()
    expect(page.locator("#opt-seven_draw")).to_have_js_property("selectedIndex", 1)
    expect(page.locator("#opt-seven_draw")).to_be_focused()
    # A preset change without edits replaces nothing, so nothing is offered.
    page.check("input[name=preset][value=penalty-150]")
    expect(notice).to_be_visible()
    page.check("input[name=preset][value=penalty-100]")
    expect(notice).to_be_hidden()

    # The table is created with the remembered rules.
    page.check("input[name=preset][value=traditional]")
    page.select_option("#opt-seven_draw", index=1)
    page.fill("#player-name", "Anna")
    page.click("#create")
    expect(page.locator("#seats li[data-seat]")).to_have_count(1)
    game_id = page.url.rsplit("/", 1)[1]
    info = call(f"{live_server}/api/games/{game_id}", "GET")
    assert info["options"] == {"preset": "traditional", "seven_draw": 3}
    assert info["settings"]["turn_seconds"] == 45
    assert info["settings"]["research_export"] is False  # unless the host says so
    expect(page.locator("#research-note")).to_have_count(0)
    stored = json.loads(page.evaluate(f"localStorage.getItem('{RULES_KEY}')"))
    assert stored["preset"] == "traditional"


def test_a_host_may_share_the_tables_games_for_research(
    page: Page, browser: Browser, live_server: str, artifacts: Path
) -> None:
    """The switch is off each time the form is drawn; on, the table is made with
    ``research_export`` and its lobby says so, as does the join form to whoever comes
    by the invite, in their language."""
    open_home(page, live_server)
    page.click("details.more summary")
    switch = page.locator("#set-research_export")
    expect(switch).not_to_be_checked()
    switch.check()
    page.fill("#player-name", "Anna")
    page.click("#create")
    expect(page.locator("#seats li[data-seat]")).to_have_count(1)
    game_id = page.url.rsplit("/", 1)[1]
    info = call(f"{live_server}/api/games/{game_id}", "GET")
    assert info["settings"]["research_export"] is True
    expect(page.locator("#research-note")).to_contain_text("without names")
    check_axe(page, "lobby with the research note")
    guest = browser.new_context(viewport=SIZES[2]).new_page()
    try:
        guest.goto(f"{live_server}{info['invite']}?lang=de")
        expect(guest.locator("#join")).to_be_visible()
        expect(guest.locator("#research-note")).to_contain_text("ohne Namen")
    finally:
        guest.context.close()


def test_the_home_page_lists_the_open_tables(page: Page, live_server: str, artifacts: Path) -> None:
    lobby = call(f"{live_server}/api/games", "POST", {"name": "Anna", "preset": "standard"})
    call(f"{live_server}/api/games/{lobby['game_id']}/seats", "POST", {"name": LONG})
    playing = make_table(live_server, ["Bert", "Cleo"], bots=1)
    closed = call(f"{live_server}/api/games", "POST", {"name": "Dora", "preset": "standard"})
    try:
        playing.play_until({0: draw_and_keep, 1: draw_and_keep}, lambda s: True)

        def closed_reply(route: Route) -> None:
            reply = route.fetch()
            route.fulfill(response=reply, json={**reply.json(), "status": "closed"})

        page.route(f"**/api/games/{closed['game_id']}", closed_reply)
        page.goto(live_server + "/?lang=en")
        tokens = {
            lobby["game_id"]: lobby["token"],
            playing.game_id: playing.tokens[0],
            closed["game_id"]: closed["token"],
            "no-such-table": "x" * 43,
        }
        page.evaluate(
            "(tokens) => { for (const [id, token] of Object.entries(tokens))"
            " localStorage.setItem('maumau.token.' + id, token); }",
            tokens,
        )
        open_home(page, live_server)
        rows = page.locator("#my-tables li[data-game]")
        expect(rows).to_have_count(2)
        first, second = rows.nth(0), rows.nth(1)
        expect(page.locator(f"#my-tables li[data-game='{lobby['game_id']}']")).to_contain_text(
            "Waiting in the lobby"
        )
        mine = page.locator(f"#my-tables li[data-game='{playing.game_id}']")
        expect(mine).to_contain_text("Being played")
        expect(mine).to_contain_text("Bert, Cleo, ")
        assert {first.get_attribute("data-game"), second.get_attribute("data-game")} == {
            lobby["game_id"],
            playing.game_id,
        }
        # the closed and the unknown table are forgotten, the open ones kept
        kept = page.evaluate(
            "Object.keys(localStorage).filter((k) => k.startsWith('maumau.token.')).sort()"
        )
        assert kept == sorted(f"maumau.token.{g}" for g in (lobby["game_id"], playing.game_id))
        check_axe(page, "open tables")
        for code in LANGUAGES:
            pick_language(page, code)
            expect(rows).to_have_count(2)
            for size in SIZES:
                page.set_viewport_size(size)
                check_fits(page, f"tables {code} {size_name(size)}")
                if code == "de":
                    shot(page, artifacts / f"home-tables-de-{size_name(size)}.png")
        pick_language(page, "en")
        mine.get_by_role("link").click()
        page.wait_for_selector("#table")
    finally:
        playing.close()


def test_the_lobby_fits_keeps_the_focus_and_translates_the_badge(
    browser: Browser, page: Page, live_server: str, artifacts: Path
) -> None:
    open_home(page, live_server)
    page.fill("#player-name", LONG)
    page.click("#create")
    expect(page.locator("#seats li[data-seat]")).to_have_count(1)
    game_id = page.url.rsplit("/", 1)[1]
    call(f"{live_server}/api/games/{game_id}/seats", "POST", {"name": "M" * 32})
    expect(page.locator("#seats li[data-seat]")).to_have_count(2)
    expect(page.locator("#conn")).to_have_text("Connected")

    # The keyboard: choose a level, add a computer player, and the focus stays put.
    page.focus("#bot-level")
    page.keyboard.press("ArrowDown")  # normal -> hard
    expect(page.locator("#bot-level")).to_have_value("hard")
    page.keyboard.press("Tab")
    expect(page.locator("#add-bot")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#seats li[data-seat]")).to_have_count(3)
    expect(page.locator("#add-bot")).to_be_focused()
    expect(page.locator("#bot-level")).to_have_value("hard")  # kept for the next one
    expect(page.locator("#seats li[data-seat='2']")).to_contain_text("hard")
    # Someone joining while the level picker has the focus does not take it away.
    page.focus("#bot-level")
    call(f"{live_server}/api/games/{game_id}/seats", "POST", {"name": "Cleo"})
    expect(page.locator("#seats li[data-seat]")).to_have_count(4)
    expect(page.locator("#bot-level")).to_be_focused()
    # Removing a seat with the keyboard leaves the focus on the next Remove button.
    page.focus("#seats li[data-seat='2'] button")
    page.keyboard.press("Enter")
    expect(page.locator("#seats li[data-seat]")).to_have_count(3)
    expect(page.locator("#seats li[data-seat='2'] button")).to_be_focused()
    check_axe(page, "lobby")

    for code in (*LANGUAGES[1:], "en"):
        pick_language(page, code)
        expect(page.locator("#conn")).to_have_text(strings(code)["conn.online"])
        for size in SIZES:
            page.set_viewport_size(size)
            check_fits(page, f"lobby {code} {size_name(size)}")
            if code in ("de", "sv"):
                shot(page, artifacts / f"lobby-{code}-{size_name(size)}.png")

    # The join form of the same table, as a guest who opens the invite link, fits too.
    guest = browser.new_context(viewport=SIZES[0])
    try:
        other = guest.new_page()
        for code in LANGUAGES:
            other.goto(f"{live_server}/g/{game_id}?lang={code}")
            expect(other.locator("#join-name")).to_be_visible()
            for size in SIZES:
                other.set_viewport_size(size)
                check_fits(other, f"join {code} {size_name(size)}")
    finally:
        guest.close()
