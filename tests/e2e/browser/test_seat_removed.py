"""A player whose seat the host removes is told so on their page, and is back at the
join form (no lobby that no longer lists them); the others' pages follow who is
connected through the small ``presence`` messages."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from tablekit import call


def test_a_removed_player_is_told_and_can_join_again(
    browser: Browser, live_server: str, artifacts: Path
) -> None:
    made = call(f"{live_server}/api/games", "POST", {"name": "Host"})
    game_id, host = made["game_id"], made["token"]
    ben = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = ben.new_page()
    page.goto(f"{live_server}/g/{game_id}")
    page.fill("#join-name", "Ben")
    page.click("#join")
    seats = page.locator("#seats li[data-seat]")
    expect(seats).to_have_count(2)
    # the host comes online: Ben's lobby shows it, told by a presence message
    host_page = browser.new_context(locale="en-US").new_page()
    host_page.goto(f"{live_server}/")
    host_page.evaluate(
        "([id, token]) => localStorage.setItem('maumau.token.' + id, token)", [game_id, host]
    )
    host_page.goto(f"{live_server}/g/{game_id}")
    expect(host_page.locator("#seats li[data-seat]")).to_have_count(2)
    expect(seats.nth(0).locator(".badge.online")).to_be_visible()
    # the host removes Ben
    call(f"{live_server}/api/games/{game_id}/seats/1", "DELETE", token=host)
    expect(page.locator("#toast")).to_contain_text("removed from this table")
    expect(page.locator("#join-name")).to_be_visible()
    page.screenshot(path=str(artifacts / "seat-removed-390.png"))
    assert page.evaluate(f"() => localStorage.getItem('maumau.token.{game_id}')") is None
    expect(host_page.locator("#seats li[data-seat]")).to_have_count(1)
    # Ben can take a seat again, as a new player
    page.fill("#join-name", "Ben")
    page.click("#join")
    expect(page.locator("#seats li[data-seat]")).to_have_count(2)
    ben.close()
