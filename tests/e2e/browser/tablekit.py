"""Tables in a chosen position for the browser tests, set up over the protocol.

A browser test of the table needs a hand of 17 cards, two cards with one playable, or a
Jack to play: playing there through the UI would take minutes.  ``make_table`` seats
players whose moves come from small Python policies over the WebSocket (the same
protocol a browser speaks), plays until the position is reached, and hands the seat to
a page: the page opens the table with that seat's token, as after a reload.  The other
seats go on playing by their policies in background threads until the table is closed.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from playwright.sync_api import (
    Browser,
    BrowserContext,
    FloatRect,
    Locator,
    Page,
    ViewportSize,
    expect,
)
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

#: the three sizes every layout rule is checked at (phone, tall phone, desktop)
SIZES: list[ViewportSize] = [
    {"width": 360, "height": 640},
    {"width": 390, "height": 844},
    {"width": 1280, "height": 800},
]

State = dict[str, Any]
Action = dict[str, Any]
#: a policy picks a move from a state whose ``legal`` list is not empty
Policy = Callable[[State], Action]


def call(url: str, method: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
    """One HTTP request of the protocol; the JSON reply (or None)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as reply:
        text = reply.read()
    return json.loads(text) if text else None


def pick_language(page: Page, code: str) -> None:
    """Switch the page's language in the settings menu (opened by a click; behind a
    modal dialog, where no click reaches it, the menu is opened by script)."""
    if page.locator("dialog[open]").count():
        page.evaluate("document.getElementById('settings').open = true")
    elif page.locator("#settings").get_attribute("open") is None:
        page.click("#settings > summary")
    page.select_option("#lang-picker", code)
    page.evaluate("document.getElementById('settings').open = false")
    expect(page.locator("html")).to_have_attribute("lang", code)


# --- policies -------------------------------------------------------------------------


def _first(state: State, key: str) -> Action | None:
    return next((a for a in state["legal"] if key in a), None)


def _draw_or_pass(state: State) -> Action:
    return _first(state, "draw") or _first(state, "pass") or state["legal"][0]


def draw_and_keep(state: State) -> Action:
    """Draw whenever drawing is allowed and keep the card: the hand grows."""
    return _draw_or_pass(state)


def keep_above(cards: int) -> Policy:
    """Play while holding more than ``cards`` cards, then only draw and keep."""

    def policy(state: State) -> Action:
        if len(state["view"]["hand"]) > cards:
            play = _first(state, "play")
            if play is not None:
                return play
        return _draw_or_pass(state)

    return policy


def playing(state: State) -> Action:
    """Play a card whenever one fits (with the call that is due), else draw."""
    return _first(state, "play") or _draw_or_pass(state)


# --- seats ----------------------------------------------------------------------------


class Seat:
    """One seat's WebSocket, moved by a policy."""

    def __init__(self, base: str, game_id: str, token: str, policy: Policy) -> None:
        self.token, self.policy = token, policy
        self._exit = ExitStack()
        self.ws: ClientConnection = self._exit.enter_context(
            connect(base.replace("http", "ws", 1) + f"/ws/{game_id}", open_timeout=10)
        )
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.state: State | None = None
        self.moves = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def read(self, timeout: float) -> State | None:
        """The next state sent to this seat, if one comes in time."""
        try:
            msg: State = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return None
        if msg["type"] != "state":
            return None
        self.state = msg
        return msg

    def act(self, state: State) -> None:
        """Make the policy's move, if this seat may move in ``state``."""
        if state["legal"] and not state["view"]["finished"]:
            self.moves += 1
            message = {
                "type": "action",
                "version": state["version"],
                "action_id": f"kit-{self.moves}",
                "action": self.policy(state),
            }
            self.ws.send(json.dumps(message))

    def step(self, timeout: float) -> None:
        state = self.read(timeout)
        if state is not None:
            self.act(state)

    def run_in_background(self, pace: float = 0.0) -> None:
        """Play on in a thread; each move waits ``pace`` seconds (as a person would)."""

        def loop() -> None:
            try:
                while not self._stop.is_set():
                    state = self.read(0.2)
                    if state is not None and state["legal"] and pace:
                        time.sleep(pace)
                    if state is not None:
                        self.act(state)
            except ConnectionClosed:
                pass

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._exit.close()


class Table:
    """A table whose seats Python moves; ``open`` gives one of them to a page."""

    def __init__(self, base: str, game_id: str, tokens: list[str]) -> None:
        self.base, self.game_id, self.tokens = base, game_id, tokens
        self.seats: dict[int, Seat] = {}
        self.contexts: list[BrowserContext] = []

    def play_until(
        self, policies: dict[int, Policy], done: Callable[[State], bool], seat: int = 0
    ) -> State:
        """Move the given seats by their policies until ``done`` holds for ``seat``'s
        state (checked when that seat may act, or when it may not act at all)."""
        for s, policy in policies.items():
            self.seats[s] = Seat(self.base, self.game_id, self.tokens[s], policy)
        watched = self.seats[seat]
        others = [other for other in self.seats.values() if other is not watched]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for other in others:
                other.step(0.005)
            state = watched.read(0.02)
            if state is None:
                continue
            if done(state):
                return state
            watched.act(state)
        raise AssertionError(f"the table never reached the position (last: {watched.state})")

    def open(
        self,
        browser: Browser,
        seat: int = 0,
        viewport: ViewportSize | None = None,
        locale: str = "en-US",
        **context: Any,
    ) -> Page:
        """The seat's page (its socket leaves the policy); the other seats go on by
        their policies in the background."""
        own = self.seats.pop(seat, None)
        if own is not None:
            own.close()
        for s in self.seats.values():
            if s._thread is None:
                s.run_in_background()
        ctx = browser.new_context(viewport=viewport or SIZES[2], locale=locale, **context)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.goto(f"{self.base}/")
        page.evaluate(
            "([id, token]) => localStorage.setItem('maumau.token.' + id, token)",
            [self.game_id, self.tokens[seat]],
        )
        page.goto(f"{self.base}/g/{self.game_id}")
        page.wait_for_selector("#table")
        return page

    def close(self) -> None:
        for s in self.seats.values():
            s.close()
        for ctx in self.contexts:
            ctx.close()


def make_table(
    base: str,
    names: list[str],
    preset: str = "standard",
    options: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    bots: int = 0,
) -> Table:
    """A started table: ``names`` in seats 0.. (tokens kept), then ``bots`` computer
    players."""
    made = call(
        f"{base}/api/games",
        "POST",
        {"name": names[0], "preset": preset, "options": options or {}, "settings": settings or {}},
    )
    game_id, host = made["game_id"], made["token"]
    tokens = [host]
    for name in names[1:]:
        tokens.append(call(f"{base}/api/games/{game_id}/seats", "POST", {"name": name})["token"])
    for _ in range(bots):
        call(f"{base}/api/games/{game_id}/bots", "POST", {"level": "easy"}, token=host)
    call(f"{base}/api/games/{game_id}/start", "POST", token=host)
    return Table(base, game_id, tokens)


# --- watching ---------------------------------------------------------------------------


def run(table: Table, policies: dict[int, Policy], pace: float = 0.3) -> None:
    """Let the given seats play by their policies in the background, ``pace`` seconds
    a move."""
    for s, policy in policies.items():
        seat = Seat(table.base, table.game_id, table.tokens[s], policy)
        table.seats[s] = seat
        seat.run_in_background(pace)


def watch(table: Table, browser: Browser, viewport: ViewportSize | None = None) -> Page:
    """A spectator's page of the table (no seat)."""
    ctx = browser.new_context(viewport=viewport or SIZES[2], locale="en-US")
    table.contexts.append(ctx)
    page = ctx.new_page()
    page.goto(f"{table.base}/g/{table.game_id}")
    page.wait_for_selector("#table")
    return page


def preferring(ranks: str, fallback: Policy) -> Policy:
    """Play a card of one of ``ranks`` whenever one fits, else as ``fallback``."""

    def policy(state: State) -> Action:
        legal: list[Action] = state["legal"]
        wanted = [a for a in legal if "play" in a and a["play"][0] in ranks]
        return wanted[0] if wanted else fallback(state)

    return policy


# --- positions after a round or a game ---------------------------------------------------


def round_over(state: State) -> bool:
    return bool(state["view"]["step"] == "over")


def game_over(state: State) -> bool:
    return bool(state["view"]["finished"])


def after_first_round(base: str) -> Table:
    """Two players after round 1 of a penalty game that cannot end in one round (limit
    1000 is more than every card of the deck is worth); the next round waits."""
    table = make_table(
        base,
        ["Ana", "Bo"],
        "penalty-100",
        options={"limit": 1000},
        settings={"next_round_seconds": 600},
    )
    table.play_until({0: playing, 1: playing}, round_over)
    return table


def after_two_deals(base: str) -> Table:
    """A finished game of exactly two deals (so its chart has two rounds)."""
    table = make_table(
        base,
        ["Ana", "Bo"],
        "penalty-100",
        options={"scoring": "deals", "deals": 2},
        settings={"next_round_seconds": 0},
    )
    table.play_until({0: playing, 1: playing}, game_over)
    return table


def box_of(locator: Locator, tries: int = 50) -> FloatRect:
    """``locator``'s box on the page, once it is shown.  (Each message re-renders the
    table: a box read just as an element is replaced is None, so it is read again.)"""
    expect(locator).to_be_visible()
    for _ in range(tries):
        box = locator.bounding_box()
        if box is not None:
            return box
        locator.page.wait_for_timeout(100)
    raise AssertionError(f"{locator} has no box")


def shoot_sizes(page: Page, folder: Path, name: str) -> None:
    """``page`` at each of :data:`SIZES` as ``<name>-<w>x<h>.png`` in ``folder``; the
    page's own size afterwards."""
    before = page.viewport_size
    for size in SIZES:
        page.set_viewport_size(size)
        page.wait_for_timeout(200)  # (a resize lays the table out again)
        page.screenshot(path=str(folder / f"{name}-{size['width']}x{size['height']}.png"))
    if before is not None:
        page.set_viewport_size(before)
        page.wait_for_timeout(200)
