"""Every page passes axe-core without serious or critical violations, in each of the
four languages: home, lobby, table, round summary, game result and replay.  The tables
are set up so the states always come: the summary of a penalty game whose limit no
single round reaches, and the result of a game of exactly two deals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from a11y import violations
from playwright.sync_api import Browser, BrowserContext, Page, expect
from tablekit import SIZES, Table, after_first_round, after_two_deals, call, make_table

from support.languages import LANGUAGES


@pytest.fixture(scope="module")
def tables(live_server: str) -> Iterator[dict[str, Table]]:
    playing_table = make_table(live_server, ["Ana", "Bo"], "standard")
    round_table = after_first_round(live_server)
    done = after_two_deals(live_server)
    made = {"table": playing_table, "summary": round_table, "result": done}
    yield made
    for table in made.values():
        table.close()


@pytest.fixture()
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=SIZES[2])
    yield ctx
    ctx.close()


def in_language(
    ctx: BrowserContext, base: str, lang: str, token: tuple[str, str] | None = None
) -> Page:
    page = ctx.new_page()
    page.goto(f"{base}/")
    page.evaluate("(lang) => localStorage.setItem('maumau.lang', lang)", lang)
    if token is not None:
        page.evaluate(
            "([id, token]) => localStorage.setItem('maumau.token.' + id, token)", list(token)
        )
    return page


def check(page: Page, lang: str) -> None:
    expect(page.locator("html")).to_have_attribute("lang", lang)
    found = violations(page)
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home(context: BrowserContext, live_server: str, lang: str) -> None:
    page = in_language(context, live_server, lang)
    page.reload()
    expect(page.locator("main")).to_be_visible()
    check(page, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_lobby(context: BrowserContext, live_server: str, lang: str) -> None:
    made = call(f"{live_server}/api/games", "POST", {"name": "Ana", "preset": "standard"})
    page = in_language(context, live_server, lang, (made["game_id"], made["token"]))
    page.goto(f"{live_server}/g/{made['game_id']}")
    expect(page.locator("body")).to_have_attribute("data-view", "lobby")
    expect(page.locator("body")).to_have_attribute("data-conn", "online")
    check(page, lang)


def open_seat(table: Table, context: BrowserContext, base: str, lang: str) -> Page:
    page = in_language(context, base, lang, (table.game_id, table.tokens[0]))
    page.goto(f"{base}/g/{table.game_id}")
    expect(page.locator("#table")).to_be_visible()
    return page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_table(
    context: BrowserContext, live_server: str, tables: dict[str, Table], lang: str
) -> None:
    page = open_seat(tables["table"], context, live_server, lang)
    expect(page.locator("#table .hand .card").first).to_be_visible()
    check(page, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_summary(
    context: BrowserContext, live_server: str, tables: dict[str, Table], lang: str
) -> None:
    page = open_seat(tables["summary"], context, live_server, lang)
    expect(page.locator("#result-dialog #next-round")).to_be_visible()
    page.click("#result-dialog .shuffle summary")
    expect(page.locator("#result-dialog .verdict.ok")).to_be_visible()
    check(page, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_result(
    context: BrowserContext, live_server: str, tables: dict[str, Table], lang: str
) -> None:
    page = open_seat(tables["result"], context, live_server, lang)
    expect(page.locator("#result-dialog #open-replay")).to_be_visible()
    check(page, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_replay(
    context: BrowserContext, live_server: str, tables: dict[str, Table], lang: str
) -> None:
    page = open_seat(tables["result"], context, live_server, lang)
    page.click("#result-dialog #open-replay")
    expect(page.locator("#replay .replay-seat").first).to_be_visible()
    page.click("#replay-next")
    check(page, lang)


def test_the_check_sees_a_violation(context: BrowserContext, live_server: str) -> None:
    """The check itself works: a button with no name is reported."""
    page = in_language(context, live_server, "en")
    page.reload()
    expect(page.locator("main")).to_be_visible()
    page.evaluate("document.querySelector('main').append(document.createElement('button'))")
    assert any(v.startswith("button-name (critical)") for v in violations(page))
