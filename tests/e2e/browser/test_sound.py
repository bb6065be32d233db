"""Sound and touch (issue 22, item 1): each game event sounds its cue with oscillators
really started, a light vibration when it becomes your turn, nothing before the user
interacted with the page, a remembered mute switch that stops every sound, and
spectators silent unless they turn sound on."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from spies import AUDIO, cues, spied
from tablekit import SIZES, State, Table, after_two_deals, call, make_table, playing, run, watch

QUIET = {"grace_seconds": None, "next_round_seconds": 0}
#: two deals, so a round ends before the game does
TWO_DEALS = {"scoring": "deals", "deals": 2}
LOADED = 240_000  # ms: a whole game on a loaded machine


def forgetful(state: State) -> dict[str, Any]:
    """Play whenever a card fits, never calling Mau: penalties follow."""
    play = next((a for a in state["legal"] if "play" in a), None)
    if play is not None:
        return {k: v for k, v in play.items() if k != "call"}
    return next(a for a in state["legal"] if "draw" in a or "pass" in a)


@pytest.fixture
def table(live_server: str) -> Iterator[Table]:
    """Ana and Bo at a two-deal table; nobody has moved yet."""
    made = make_table(live_server, ["Ana", "Bo"], options=TWO_DEALS, settings=QUIET)
    yield made
    made.close()


def play_on(table: Table) -> None:
    """Both seats play by policy (Ana's by a second connection of her seat, so that her
    page only watches and listens)."""
    run(table, {0: playing, 1: forgetful}, pace=0.15)


def gesture(page: Page) -> None:
    """A user gesture that changes nothing at the table (no shortcut key)."""
    page.keyboard.press("Shift")


def wait_cue(page: Page, name: str) -> None:
    page.wait_for_function(
        "(name) => window.__audio.cues.some((c) => c.cue === name)", arg=name, timeout=LOADED
    )


def wait_finished(page: Page) -> None:
    page.wait_for_function("() => document.body.dataset.view === 'finished'", timeout=LOADED)


def test_every_game_event_maps_to_its_cue_and_each_cue_starts_oscillators(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser), AUDIO)
    gesture(page)
    # cues.js is the one place that maps messages to cues: fed each kind of event
    mapped = page.evaluate("""async () => {
      const { cuesOf } = await import("/js/cues.js");
      const view = (extra = {}) => ({ round: 0, to_move: 1, step: "play", pending: 0,
                                      finished: false, ...extra });
      const state = (events, extra) => ({ type: "state", view: view(extra), events });
      const before = state([], {});
      const many = (entry) => Array(30).fill(entry); // a whole round so far
      return {
        play: cuesOf(state([{ seat: 1, play: "5H" }]), before, 0),
        mau: cuesOf(state([{ seat: 1, play: "5H", call: "mau" }]), before, 0),
        draw: cuesOf(state([{ seat: 1, draw: 1 }]), before, 0),
        penalty: cuesOf(state([{ seat: 1, penalty: 2, reason: "missed" }]), before, 0),
        turn: cuesOf(state([{ seat: 1, play: "5H" }], { to_move: 0 }), before, 0),
        seven: cuesOf(state([{ seat: 1, play: "7H" }], { to_move: 0, pending: 2 }), before, 0),
        still_mine: cuesOf(state([{ seat: 0, draw: 1 }], { to_move: 0, step: "drawn" }),
                           state([], { to_move: 0 }), 0),
        spectator: cuesOf(state([{ seat: 1, play: "5H" }], { to_move: 0 }), before, null),
        round_end: cuesOf({ type: "round_end", round: 0 }, state([], { step: "over" }), 0),
        last_round_end: cuesOf({ type: "round_end", round: 0 },
                               state([], { step: "over", finished: true }), 0),
        winner: cuesOf({ type: "game_end", winners: [0] }, before, 0),
        next_round: cuesOf(state([], { round: 1 }), state([], { step: "over" }), 0),
        rematch: cuesOf({ type: "rematch", game_id: "x", invite: "/g/x" }, before, 0),
        catch_up_mine: cuesOf(state(many({ seat: 1, play: "5H" }), { to_move: 0 }), null, 0),
        catch_up_other: cuesOf(state(many({ seat: 1, draw: 2 })), null, 0),
      };
    }""")
    assert mapped == {
        "play": ["play"],
        "mau": ["play", "mau"],
        "draw": ["draw"],
        "penalty": ["penalty"],
        "turn": ["play", "turn"],
        "seven": ["play", "seven"],
        "still_mine": ["draw"],
        "spectator": ["play"],
        "round_end": ["round_end"],
        "last_round_end": [],
        "winner": ["winner"],
        "next_round": ["round_start"],
        "rematch": ["rematch"],
        # a reload or reconnect catching up sounds no burst: at most its own turn
        "catch_up_mine": ["turn"],
        "catch_up_other": [],
    }
    # every cue of a game event starts real oscillators; an unknown name is ignored
    played = page.evaluate("""async () => {
      const { play, CUE_NAMES } = await import("/js/sound.js");
      const out = {};
      for (const name of [...CUE_NAMES, "no-such-cue"]) {
        const before = window.__audio.starts;
        play(name);
        out[name] = window.__audio.starts - before;
      }
      await new Promise((done) => setTimeout(done, 1500)); // those cues have started
      // a burst of moves at once: the minor cues are cut short, a turn still sounds
      const burst = window.__audio.cues.length;
      for (let i = 0; i < 30; i += 1) play("play");
      out.burst = window.__audio.cues.length - burst;
      play("turn");
      out.after_burst = window.__audio.cues.at(-1).cue;
      // and however many the messages ask for, only a few seconds of cues are queued
      const flood = window.__audio.cues.length;
      for (let i = 0; i < 200; i += 1) play("winner");
      out.flood = window.__audio.cues.length - flood;
      return out;
    }""")
    events = ["turn", "play", "draw", "seven", "mau", "penalty", "round_end", "winner"]
    assert all(played[name] >= 1 for name in events), played
    assert played["no-such-cue"] == 0
    assert 0 < played["burst"] < 10
    assert played["after_burst"] == "turn"
    assert 0 < played["flood"] < 40
    assert page.evaluate("window.__audio.contexts") == 1


def test_a_live_game_sounds_its_events_and_buzzes_on_your_turn(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser, viewport=SIZES[0]), AUDIO)
    gesture(page)
    play_on(table)
    wait_cue(page, "winner")
    heard = page.evaluate("window.__audio.cues")
    names = {c["cue"] for c in heard}
    assert {"turn", "play", "draw", "round_end", "winner"} <= names, [c["cue"] for c in heard]
    # each cue came with oscillators started for it
    counts = [0] + [c["starts"] for c in heard]
    assert all(b > a for a, b in itertools.pairwise(counts)), heard
    # the turn cues (and only they, with a Seven's) asked the phone for a short buzz
    turns = [c for c in heard if c["cue"] in ("turn", "seven")]
    assert len(page.evaluate("window.__audio.vibes")) == len(turns) > 0


def test_nothing_plays_before_the_user_interacted_with_the_page(
    browser: Browser, table: Table
) -> None:
    page = spied(table.open(browser), AUDIO)
    version = int(page.locator("#table").get_attribute("data-version") or "0")
    play_on(table)
    page.wait_for_function(
        "(v) => +document.querySelector('#table')?.dataset.version >= v",
        arg=version + 8,
        timeout=LOADED,
    )
    # moves were seen, but no AudioContext was even made, nor a phone buzzed
    assert page.evaluate("window.__audio") == {"contexts": 0, "starts": 0, "cues": [], "vibes": []}
    gesture(page)
    page.wait_for_function("() => window.__audio.cues.length > 0", timeout=LOADED)
    assert page.evaluate("window.__audio.starts") > 0


def test_mute_stops_every_sound_and_is_remembered(browser: Browser, live_server: str) -> None:
    table = make_table(live_server, ["Ana", "Bo"], settings=QUIET)  # one deal
    try:
        muted(browser, table)
    finally:
        table.close()


def muted(browser: Browser, table: Table) -> None:
    page = spied(table.open(browser), AUDIO)
    gesture(page)
    play_on(table)
    page.wait_for_function("() => window.__audio.cues.length > 0", timeout=LOADED)
    page.click("#settings > summary")
    sound = page.locator("#sound-on")
    expect(sound).to_be_checked()
    sound.uncheck()
    page.keyboard.press("Escape")
    heard = page.evaluate(
        "[window.__audio.starts, window.__audio.cues.length, window.__audio.vibes.length]"
    )
    wait_finished(page)
    # the rest of the game, its round end and its winner included: silent and still
    after = page.evaluate(
        "[window.__audio.starts, window.__audio.cues.length, window.__audio.vibes.length]"
    )
    assert after == heard
    assert page.evaluate("localStorage.getItem('maumau.sound')") == "off"
    page.reload()
    page.wait_for_selector("#table")
    # (the result dialog is open: the menu is opened as behind any modal dialog)
    page.evaluate("document.getElementById('settings').open = true")
    expect(page.locator("#sound-on")).not_to_be_checked()


def test_spectators_are_silent_until_they_turn_sound_on(browser: Browser, table: Table) -> None:
    page = spied(watch(table, browser), AUDIO)
    gesture(page)
    version = int(page.locator("#table").get_attribute("data-version") or "0")
    play_on(table)
    page.wait_for_function(
        "(v) => +document.querySelector('#table')?.dataset.version >= v",
        arg=version + 6,
        timeout=LOADED,
    )
    assert page.evaluate("[window.__audio.starts, window.__audio.cues.length]") == [0, 0]
    page.click("#settings > summary")
    sound = page.locator("#sound-on")
    expect(sound).not_to_be_checked()
    sound.check()
    page.wait_for_function("() => window.__audio.cues.length > 0", timeout=LOADED)
    assert page.evaluate("window.__audio.starts") > 0
    # a spectator never has a turn: no turn cue, no buzz
    assert "turn" not in cues(page)
    assert page.evaluate("window.__audio.vibes") == []


def entry_cues(entry: dict[str, Any]) -> list[str]:
    """The cues a log entry sounds, as cues.js says (the test's own copy)."""
    found = [
        cue
        for key, cue in (("play", "play"), ("draw", "draw"), ("penalty", "penalty"))
        if key in entry
    ]
    if "play" in entry and entry.get("call"):
        found.append("mau")
    return found


def test_the_replay_sounds_each_step_forward_as_it_sounded_live(
    browser: Browser, live_server: str
) -> None:
    table = after_two_deals(live_server)
    try:
        page = spied(table.open(browser), AUDIO)
        page.click("#open-replay")  # a click: the gesture
        expect(page.locator("#replay")).to_be_visible()
        replay = call(f"{live_server}/api/games/{table.game_id}/replay", "GET")
        frames = replay["rounds"][0]["frames"]
        steps = min(8, len(frames) - 1)
        expected: list[str] = []
        for step in range(1, steps + 1):
            page.wait_for_function("() => window.__audioCaughtUp()", timeout=LOADED)
            page.click("#replay-next")
            expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
            expected += list(
                dict.fromkeys(c for e in frames[step]["events"] for c in entry_cues(e))
            )
        assert expected and cues(page) == expected
        # a jump (the first position, the last) sounds nothing
        heard = len(cues(page))
        page.click("#replay-first")
        page.click("#replay-last")
        expect(page.locator("#replay")).to_have_attribute("data-step", str(len(frames) - 1))
        assert len(cues(page)) == heard
    finally:
        table.close()
