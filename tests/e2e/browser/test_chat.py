"""Reactions and chat at the table (issue 22, "Game night", item 2): two players in two
browsers exchange a reaction and a line; a muted player's lines and reactions are
hidden for the muter only (and stay so after a reload); the host's chat-off is shown to
everyone and enforced by the server, where a raw WebSocket client is refused with
``chat_off``; a spectator reacts but cannot chat.  Screenshots of the panel, the phone's
sheet, a bubble and the reactions row at each size."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from tablekit import SIZES, Table, make_table, shoot_sizes, watch
from websockets.sync.client import connect

#: the sizes the house rules ask a changed screen to be looked at in
EVERY_SIZE: list[ViewportSize] = [
    {"width": w, "height": h}
    for w, h in ((360, 640), (390, 844), (640, 360), (768, 1024), (1280, 800))
]

QUIET = {"grace_seconds": None}


@pytest.fixture
def trio(live_server: str) -> Iterator[Table]:
    table = make_table(live_server, ["Anna", "Bruno", "Chiara"], settings=QUIET)
    yield table
    table.close()


def size_name(size: Any) -> str:
    return f"{size['width']}x{size['height']}"


def phone(size: Any) -> bool:
    return bool(size["width"] <= 760)


def chat_tab(page: Page) -> None:
    """Wide screens: show the chat in the side panel (its tab)."""
    page.click("#side-tab-chat")
    expect(page.locator(".side #chat")).to_be_visible()


def say(page: Page, text: str, size: Any) -> None:
    """Send a chat line from ``page`` (through the sheet on a phone)."""
    if phone(size):
        page.click("#chat-open")
        expect(page.locator("#chat-sheet")).to_be_visible()
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")
    expect(page.locator("#chat-input")).to_have_value("")
    if phone(size):
        page.click("#chat-sheet .close")
        expect(page.locator("#chat-sheet")).to_have_count(0)


def react(page: Page, key: str, size: Any) -> None:
    if phone(size):
        page.click("#chat-open")
    page.click(f'#chat [data-reaction="{key}"]')
    if phone(size):  # the sheet closes, so that the bubble is seen
        expect(page.locator("#chat-sheet")).to_have_count(0)


def bubble_text(page: Page, where: str) -> str:
    """What the next bubble shown at ``where`` says (a picture by its name); it goes
    after a few seconds, so it is read as it appears."""
    handle = page.wait_for_selector(f"{where} .bubble", state="attached")
    assert handle is not None
    said: str = handle.evaluate(
        "b => b.querySelector('.react-icon')?.getAttribute('aria-label') ?? b.textContent"
    )
    return said


def chat_lines(page: Page) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#chat-lines .chat-line .chat-text", "els => els.map(e => e.textContent)"
    )
    return texts


@pytest.mark.parametrize("size", SIZES, ids=size_name)
def test_two_players_exchange_a_reaction_and_a_line(
    browser: Browser, trio: Table, artifacts: Path, size: Any
) -> None:
    anna = trio.open(browser, 0, viewport=size)
    bruno = trio.open(browser, 1, viewport=SIZES[2])
    chat_tab(bruno)
    name = size_name(size)
    # the reactions row and the (empty) chat, where this size shows them
    if phone(size):
        expect(anna.locator("#chat")).to_be_hidden()
        anna.click("#chat-open")
        expect(anna.locator("#chat-sheet .reactions")).to_be_visible()
        expect(anna.locator("#chat-sheet .chat-empty")).to_have_text("No messages yet.")
        anna.screenshot(path=str(artifacts / f"chat-sheet-empty-{name}.png"))
        anna.click("#chat-sheet .close")
    else:
        expect(anna.locator(".side #chat")).to_be_hidden()  # the log's tab first
        chat_tab(anna)
        expect(anna.locator(".side #chat .reactions")).to_be_visible()

    # a reaction from Anna: a bubble at her seat for Bruno, and at her hand for herself
    react(anna, "ouch", size)
    assert bubble_text(bruno, '.opponent[data-seat="0"]') == "Ouch!"
    assert bubble_text(anna, ".mine") == "Ouch!"

    # a line from Bruno: in Anna's chat, and as a bubble at his seat
    bruno.fill("#chat-input", "that Seven was mean")
    bruno.click("#chat-send")
    assert bubble_text(anna, '.opponent[data-seat="1"]') == "that Seven was mean"
    anna.screenshot(path=str(artifacts / f"chat-bubble-{name}.png"))
    if phone(size):
        # unread on the phone's chat button until the sheet is opened
        expect(anna.locator("#chat-unread")).to_have_text("1")
        anna.click("#chat-open")
        expect(anna.locator("#chat-sheet #chat-lines")).to_contain_text("that Seven was mean")
        expect(anna.locator("#chat-unread")).to_be_hidden()
        anna.click("#chat-sheet .close")
    else:
        expect(anna.locator(".side #chat-lines")).to_contain_text("Bruno")
        expect(anna.locator(".side #chat-lines")).to_contain_text("that Seven was mean")

    # and Anna answers: Bruno reads it, with her name
    say(anna, "it was!", size)
    expect(bruno.locator("#chat-lines .chat-line").last).to_contain_text("Anna")
    expect(bruno.locator("#chat-lines .chat-line").last).to_contain_text("it was!")
    if phone(size):
        anna.click("#chat-open")
        expect(anna.locator("#chat-sheet #chat-lines .chat-line")).to_have_count(2)
        anna.screenshot(path=str(artifacts / f"chat-sheet-{name}.png"))
        anna.click("#chat-sheet .close")
    else:
        anna.screenshot(path=str(artifacts / f"chat-panel-{name}.png"))
        anna.locator("#chat").screenshot(path=str(artifacts / f"chat-reactions-{name}.png"))
    # a reload shows the recent lines
    anna.reload()
    anna.wait_for_selector("#table")
    assert chat_lines(anna) == ["that Seven was mean", "it was!"]


def test_a_muted_player_is_hidden_for_the_muter_only(
    browser: Browser, trio: Table, artifacts: Path
) -> None:
    anna = trio.open(browser, 0, viewport=SIZES[2])
    bruno = trio.open(browser, 1, viewport=SIZES[2])
    chiara = trio.open(browser, 2, viewport=SIZES[0])
    chat_tab(bruno)
    anna.click('.opponent[data-seat="1"] .seat-menu-btn')
    expect(anna.locator("#seat-menu")).to_be_visible()
    expect(anna.locator("#mute-toggle")).to_have_text("Mute Bruno")
    shoot_sizes(anna, artifacts, "chat-seat-menu")
    if not anna.locator("#seat-menu").is_visible():  # (a resize may have closed it)
        anna.click('.opponent[data-seat="1"] .seat-menu-btn')
    anna.click("#mute-toggle")
    expect(anna.locator('.opponent[data-seat="1"] .seat-menu-btn')).to_have_class(
        "seat-menu-btn muted"
    )

    bruno.fill("#chat-input", "you cannot hear me")
    bruno.click("#chat-send")
    bruno.click('#chat [data-reaction="laugh"]')
    # Chiara sees both; so does Bruno himself
    assert bubble_text(chiara, '.opponent[data-seat="1"]') in ("you cannot hear me", "Laughing")
    chiara.click("#chat-open")
    expect(chiara.locator("#chat-sheet #chat-lines")).to_contain_text("you cannot hear me")
    chiara.click("#chat-sheet .close")
    expect(bruno.locator("#chat-lines")).to_contain_text("you cannot hear me")
    # a line after Bruno's, from Chiara: once Anna has it, she has had Bruno's too
    chiara.click("#chat-open")
    chiara.fill("#chat-input", "I can")
    chiara.press("#chat-input", "Enter")
    expect(anna.locator("#chat-lines")).to_contain_text("I can")
    expect(anna.locator("#chat-lines")).not_to_contain_text("you cannot hear me")
    expect(anna.locator('.opponent[data-seat="1"] .bubble')).to_have_count(0)
    # the chat's tab counts Chiara's line as unread, not Bruno's
    expect(anna.locator("#chat-tab-unread")).to_have_text("1")
    # remembered at this table after a reload
    anna.reload()
    anna.wait_for_selector("#table")
    expect(anna.locator("#chat-lines")).to_contain_text("I can")
    expect(anna.locator("#chat-lines")).not_to_contain_text("you cannot hear me")
    # unmuted: his lines are back
    anna.click('.opponent[data-seat="1"] .seat-menu-btn')
    expect(anna.locator("#mute-toggle")).to_have_text("Unmute Bruno")
    anna.click("#mute-toggle")
    expect(anna.locator("#chat-lines")).to_contain_text("you cannot hear me")


def test_the_hosts_chat_off_is_shown_and_enforced_by_the_server(
    browser: Browser, trio: Table, artifacts: Path
) -> None:
    anna = trio.open(browser, 0, viewport=SIZES[2])
    bruno = trio.open(browser, 1, viewport=SIZES[1])
    watcher = watch(trio, browser, SIZES[2])
    chat_tab(anna)
    chat_tab(watcher)
    # only the host has the switches; a spectator may react but not chat
    expect(anna.locator("#chat-host")).to_be_visible()
    expect(watcher.locator("#chat-host")).to_be_hidden()
    expect(watcher.locator("#chat-note")).to_have_text("Spectators cannot chat at this table.")
    expect(watcher.locator("#chat-form")).to_be_hidden()
    watcher.click('#chat [data-reaction="wow"]')
    assert bubble_text(anna, ".felt") == "Wow!"

    anna.uncheck("#chat-on")
    bruno.click("#chat-open")
    expect(bruno.locator("#chat-sheet #chat-note")).to_have_text(
        "The host has turned the chat off."
    )
    expect(bruno.locator("#chat-sheet #chat-form")).to_be_hidden()
    shoot_sizes(bruno, artifacts, "chat-off")
    shoot_sizes(anna, artifacts, "chat-off-host")

    # not only hidden: the server refuses a raw client's line with a code
    socket = trio.base.replace("http", "ws", 1) + f"/ws/{trio.game_id}"
    with connect(socket, open_timeout=10) as raw:
        raw.send(json.dumps({"type": "hello", "token": trio.tokens[1]}))
        raw.send(json.dumps({"type": "chat", "text": "let me in"}))
        deadline = time.monotonic() + 30
        while True:
            message = json.loads(raw.recv(timeout=deadline - time.monotonic()))
            if message["type"] == "error":
                break
        assert message["code"] == "chat_off", message
    expect(anna.locator("#chat-lines")).not_to_contain_text("let me in")

    # on again: Bruno's form is back
    anna.check("#chat-on")
    expect(bruno.locator("#chat-sheet #chat-form")).to_be_visible()
    expect(bruno.locator("#chat-sheet #chat-note")).to_be_hidden()


def test_the_host_turns_spectators_reactions_off(
    browser: Browser, trio: Table, artifacts: Path
) -> None:
    """Item 7 of "Trust, round 3": the host's switch beside chat-off silences the
    spectators' reactions; the spectator sees why, and the server refuses a raw
    spectator's reaction with ``chat_off``. Screenshots of the switch (host) and the
    note (spectator) at 360x640 and 1280x800."""
    anna = trio.open(browser, 0, viewport=SIZES[2])
    watcher = watch(trio, browser, SIZES[0])
    chat_tab(anna)
    switch = anna.locator("#chat-spectator-reactions")
    expect(switch).to_be_checked()
    expect(anna.locator("#chat-host")).to_contain_text("Spectators may react")
    watcher.click("#chat-open")
    expect(watcher.locator("#chat-sheet .reactions")).to_be_visible()

    anna.uncheck("#chat-spectator-reactions")
    expect(watcher.locator("#chat-sheet .reactions")).to_be_hidden()
    expect(watcher.locator("#chat-sheet #react-note")).to_have_text(
        "The host has turned spectators' reactions off."
    )
    expect(anna.locator(".side #chat .reactions")).to_be_visible()  # players react on
    expect(anna.locator("#react-note")).to_be_hidden()
    anna.locator("#chat-host").screenshot(path=str(artifacts / "chat-host-switches-1280x800.png"))
    anna.screenshot(path=str(artifacts / "chat-spectator-reactions-host-1280x800.png"))
    watcher.screenshot(path=str(artifacts / "chat-spectator-reactions-off-360x640.png"))
    anna.set_viewport_size(SIZES[0])
    anna.click("#chat-open")
    expect(anna.locator("#chat-sheet #chat-spectator-reactions")).not_to_be_checked()
    anna.screenshot(path=str(artifacts / "chat-spectator-reactions-host-360x640.png"))
    watcher.click("#chat-sheet .close")
    anna.set_viewport_size(SIZES[0])
    watcher.set_viewport_size(SIZES[2])
    chat_tab(watcher)
    expect(watcher.locator(".side #react-note")).to_be_visible()
    watcher.screenshot(path=str(artifacts / "chat-spectator-reactions-off-1280x800.png"))
    for size in EVERY_SIZE:  # (the host's switches and the spectator's note, to look at)
        for page, who in ((anna, "host"), (watcher, "off")):
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            name = f"chat-spectator-reactions-{who}-all-{size['width']}x{size['height']}.png"
            page.screenshot(path=str(artifacts / name))
        # every switch of the host's sheet on screen, a phone held sideways too
        box = anna.locator("#chat-sheet #chat-spectator-reactions").bounding_box()
        assert box is not None and box["y"] + box["height"] <= size["height"], (size, box)
    watcher.set_viewport_size(SIZES[2])

    # not only hidden: the server refuses a raw spectator's reaction with a code
    socket = trio.base.replace("http", "ws", 1) + f"/ws/{trio.game_id}"
    with connect(socket, open_timeout=10) as raw:
        raw.send(json.dumps({"type": "hello"}))
        raw.send(json.dumps({"type": "react", "key": "wow"}))
        deadline = time.monotonic() + 30
        while True:
            message = json.loads(raw.recv(timeout=deadline - time.monotonic()))
            if message["type"] == "error":
                break
        assert message["code"] == "chat_off", message

    # on again: the spectator's reactions are back
    anna.check("#chat-sheet #chat-spectator-reactions")
    expect(watcher.locator(".side #chat .reactions")).to_be_visible()
    expect(watcher.locator("#react-note")).to_be_hidden()
