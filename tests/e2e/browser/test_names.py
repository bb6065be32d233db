"""Display names in the browser (docs/protocol.md, "Display names"): a 32-character name
without a break, an emoji name and a right-to-left name at one table.  At a desktop and
at two phone sizes every Remove button stays visible and clickable, nothing makes the
page scroll sideways, every name is isolated from the text around it, and the emoji's
avatar is the whole emoji.  The create and join forms explain a refused name in the
page's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, expect

LONG = "W" * 32  # the widest letter, 32 times, no break
LONG_TOO = "M" * 32
EMOJI = "😀 Emma"  # U+1F600 is two UTF-16 code units: slice(0, 1) split it
HEBREW = "אבי כהן"
VIEWPORTS: list[ViewportSize] = [
    {"width": 1280, "height": 800},
    {"width": 390, "height": 844},
    {"width": 360, "height": 640},
]

#: how far the page scrolls sideways, and the elements of the page that reach out of the
#: viewport where they are seen (inside the boxes that clip them, such as an ellipsis)
SIDEWAYS = """() => {
  const html = document.documentElement;
  const out = [];
  for (const el of document.querySelectorAll('#app *')) {
    if (!el.getClientRects().length || el.closest('.sr-only')) continue;
    const r = el.getBoundingClientRect();
    let [left, right] = [r.left, r.right];
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const clip = a.getBoundingClientRect();
      [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
    }
    if (right > left && (right > innerWidth + 0.5 || left < -0.5)) {
      out.push(`${el.tagName}.${el.className} ${Math.round(left)}..${Math.round(right)}`);
    }
  }
  return { scroll: html.scrollWidth - html.clientWidth, out: out.slice(0, 5) };
}"""

#: for each button of a seat, brought into view by scrolling up or down only: is it
#: inside the viewport, and is it what a click at its middle hits?  (At once, in one
#: task: the lobby may be drawn again between two calls from the test.)
BUTTONS_HIT = """() => [...document.querySelectorAll('#seats button')].map((button) => {
  const before = button.getBoundingClientRect();
  window.scrollTo(0, window.scrollY + before.top - innerHeight / 2);
  const r = button.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const inside = r.width > 0 && r.left >= 0 && r.right <= innerWidth
    && r.top >= 0 && r.bottom <= innerHeight;
  const hit = document.elementFromPoint(x, y)?.closest('button') === button;
  const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
  return { text: button.textContent, inside, hit, box };
})"""

#: each seat's name: its text, and whether it is shown in a bidi isolate of its own
SEAT_NAMES = """() => [...document.querySelectorAll('#seats li[data-seat]')].map((li) => {
  const name = li.querySelector('.seat-name > .name');
  const isolated = !!name && getComputedStyle(name).unicodeBidi === 'isolate'
    && name.parentElement.firstChild === name;
  return { text: name?.textContent, isolated, avatar: li.querySelector('.avatar').textContent };
})"""


def wide(text: str) -> str:
    """``text`` in full-width letters (as a phone's keyboard may type them)."""
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


def shot(page: Page, path: Path) -> None:
    page.screenshot(path=str(path), full_page=True, animations="disabled")


def seat_count(page: Page, n: int) -> None:
    expect(page.locator("#seats li[data-seat]")).to_have_count(n)


def take_seat(page: Page, live_server: str, game_id: str, name: str) -> None:
    """A player who joins through the API (no page of their own)."""
    reply = page.request.post(f"{live_server}/api/games/{game_id}/seats", data={"name": name})
    assert reply.status == 200, reply.text()


def check_no_sideways(page: Page, where: str) -> None:
    layout: dict[str, Any] = page.evaluate(SIDEWAYS)
    assert layout["scroll"] <= 0 and layout["out"] == [], (where, layout)


def check_buttons(page: Page, where: str) -> int:
    """Every button of a seat is inside the viewport (scrolled to) and hit by a click."""
    buttons: list[dict[str, Any]] = page.evaluate(BUTTONS_HIT)
    assert all(b["inside"] and b["hit"] for b in buttons), (where, buttons)
    page.evaluate("window.scrollTo(0, 0)")
    return len(buttons)


def create_table(page: Page, live_server: str, host: str) -> str:
    page.goto(live_server + "/?lang=en")
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    page.fill("#player-name", host)
    page.click("#create")
    seat_count(page, 1)
    return page.locator("#invite-link").input_value().rsplit("/", 1)[1]


def test_long_emoji_and_rtl_names_keep_the_lobby_usable(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    host_ctx = browser.new_context(viewport=VIEWPORTS[0])
    guest_ctx = browser.new_context(viewport=VIEWPORTS[1], has_touch=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    errors: list[str] = []
    for page in (host, guest):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        game_id = create_table(host, live_server, "Anna")
        invite = f"{live_server}/g/{game_id}"
        take_seat(host, live_server, game_id, LONG)
        take_seat(host, live_server, game_id, LONG_TOO)
        take_seat(host, live_server, game_id, EMOJI)
        host.click("#add-bot")
        seat_count(host, 5)

        # The right-to-left player joins on a phone, through the invite link.
        guest.goto(invite + "?lang=en")
        expect(guest.locator("#join-name")).to_be_visible()
        # the names in "At the table: ..." are isolated too
        listed = guest.locator(".join p .name")
        expect(listed).to_have_count(5)
        assert listed.nth(1).text_content() == LONG
        guest.fill("#join-name", HEBREW)
        guest.click("#join")
        seat_count(host, 6)
        seat_count(guest, 6)
        expect(guest.locator("#seats li.me .seat-name")).to_have_text(f"{HEBREW} (you)")

        info = json.loads(host.request.get(f"{live_server}/api/games/{game_id}").text())
        names = [s["name"] for s in info["seats"]]
        assert names == ["Anna", LONG, LONG_TOO, EMOJI, "Ada (bot)", HEBREW]
        for page in (host, guest):
            shown = page.evaluate(SEAT_NAMES)
            # a computer's name without its English "(bot)": its translated badge says it
            assert [s["text"] for s in shown] == [n.removesuffix(" (bot)") for n in names]
            assert all(s["isolated"] for s in shown), shown
            assert [s["avatar"] for s in shown] == ["A", "W", "M", "😀", "A", "א"]

        for viewport in VIEWPORTS:
            size = f"{viewport['width']}x{viewport['height']}"
            for who, page in (("host", host), ("guest", guest)):
                page.set_viewport_size(viewport)
                page.evaluate("window.scrollTo(0, 0)")
                check_no_sideways(page, f"{who} {size}")
                # the host may remove every seat but their own; the guest may leave
                assert check_buttons(page, f"{who} {size}") == (5 if who == "host" else 1)
                shot(page, artifacts / f"names-lobby-{who}-{size}.png")

        # The host removes the second griefer with the mouse, at the desktop size.
        host.set_viewport_size(VIEWPORTS[0])
        row = host.locator("#seats li[data-seat]", has=host.locator(".name", has_text=LONG_TOO))
        button = row.locator("button")
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None
        host.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        seat_count(host, 5)
        expect(host.locator("#seats")).not_to_contain_text(LONG_TOO)

        # At the table the names stay on one line or wrap, nothing scrolls sideways.
        host.click("#start-game")
        expect(host.locator("#table")).to_be_visible()
        expect(guest.locator("#table")).to_be_visible()
        for viewport in VIEWPORTS:
            size = f"{viewport['width']}x{viewport['height']}"
            for who, page in (("host", host), ("guest", guest)):
                page.set_viewport_size(viewport)
                check_no_sideways(page, f"{who} table {size}")
                opponents = page.locator(".opponent .opp-name > .name")
                expect(opponents).to_have_count(4)
                texts = opponents.all_text_contents()
                assert LONG in texts and EMOJI in texts and (HEBREW in texts) == (who == "host")
            shot(host, artifacts / f"names-table-host-{size}.png")
        avatars = host.locator(".opponent .avatar").all_text_contents()
        assert "😀" in avatars and "\ufffd" not in "".join(avatars)
        assert errors == []
    finally:
        host_ctx.close()
        guest_ctx.close()


def test_the_forms_explain_a_refused_name(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    ctx = browser.new_context(viewport=VIEWPORTS[1])
    page = ctx.new_page()
    try:
        page.goto(live_server + "/?lang=en")
        expect(page.locator("body")).to_have_attribute("data-ready", "1")
        error = page.locator("#player-name-error")
        expect(error).to_be_hidden()
        page.fill("#player-name", "Anna (Bot)")
        page.click("#create")
        expect(error).to_have_text(
            "Names ending in “(bot)”, or like “Bot 3”, are for computer players."
        )
        expect(page.locator("#player-name")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#player-name")).to_be_focused()
        page.fill("#player-name", "host\u202e")  # typing clears the message
        expect(error).to_be_hidden()
        page.click("#create")
        expect(error).to_have_text(
            "A name cannot contain control characters or invisible formatting characters."
        )
        page.fill("#player-name", "Anna")
        page.click("#create")
        expect(page.locator("#seats li[data-seat]")).to_have_count(1)
        game_id = page.locator("#invite-link").input_value().rsplit("/", 1)[1]

        # Somebody else opens the invite link and tries names that are refused.
        joiner = browser.new_context(viewport=VIEWPORTS[2])
        other = joiner.new_page()
        try:
            cases = [
                (
                    "en",
                    " ANNA ",
                    "“ANNA” is already taken at this table. Please choose another name.",
                ),
                (
                    "de",
                    wide("anna"),
                    f"„{wide('anna')}“ ist an diesem Tisch schon vergeben. "
                    "Bitte wähle einen anderen Namen.",
                ),
                (
                    "da",
                    "Ada (bot)",
                    "Navne, der ender på “(bot)”, eller som “Bot 3”, er til computerspillere.",
                ),
                (
                    "sv",
                    "x" * 31 + "\u0378",
                    "Ett namn får inte innehålla styrtecken eller osynliga formateringstecken.",
                ),
                (
                    "en",
                    "\u3164",
                    "A name cannot contain control characters or invisible formatting characters.",
                ),
                ("en", "   ", "A name needs at least one visible letter, digit or symbol."),
            ]
            for code, name, message in cases:
                other.goto(f"{live_server}/g/{game_id}?lang={code}")
                expect(other.locator("#join-name")).to_be_visible()
                other.fill("#join-name", name)
                other.click("#join")
                expect(other.locator("#join-name-error")).to_have_text(message)
                if code == "de":
                    # the name in the message is isolated like every other name
                    expect(other.locator("#join-name-error .name")).to_have_text(wide("anna"))
                    shot(other, artifacts / "names-join-error-de.png")
            info = json.loads(page.request.get(f"{live_server}/api/games/{game_id}").text())
            assert [s["name"] for s in info["seats"]] == ["Anna"]
        finally:
            joiner.close()
    finally:
        ctx.close()
