"""The operator's announcement (``maumau admin announce``) reaches an open table page
within seconds, as a banner at the top, its text shown as text (never markup); the
home page shows it too; it can be dismissed, and withdrawn with ``--clear``.
Screenshots at a phone's and a desktop's size are kept for people to look at."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from serving import serving
from tablekit import make_table

ROOT = Path(__file__).resolve().parents[3]
WORDS = (
    "Maintenance at 22:00 <b>UTC</b>: the server restarts, about 5 minutes. Your games are kept."
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``maumau serve`` on its own data directory: its base URL and the directory."""
    data = tmp_path / "data"
    with serving(data) as url:
        yield url, data


def admin(data: Path, *argv: str) -> None:
    command = [sys.executable, "-m", "maumau", "admin", *argv, "--data-dir", str(data)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_announcement_appears_on_an_open_table(
    browser: Browser, server: tuple[str, Path], artifacts: Path
) -> None:
    base, data = server
    table = make_table(base, ["Ana", "Ben"])
    try:
        page = table.open(browser, 0, viewport={"width": 360, "height": 640})
        banner = page.locator("#announcement")
        expect(banner).to_be_hidden()
        admin(data, "announce", WORDS, "--expires-in", "60")
        expect(banner).to_be_visible(timeout=20_000)  # the server reads notices every 2 s
        expect(banner.locator(".announcement-text")).to_have_text(WORDS)
        expect(banner.locator("b")).to_have_count(0)  # the operator's words, as text
        expect(banner).to_contain_text("Announcement")
        page.screenshot(path=str(artifacts / "announcement-table-360.png"), animations="disabled")
        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            expect(banner).to_be_in_viewport()
            shot = artifacts / f"announcement-table-{width}.png"
            page.screenshot(path=str(shot), animations="disabled")

        home = page.context.new_page()
        home.goto(base + "/?lang=de")
        expect(home.locator("#announcement .announcement-text")).to_have_text(WORDS)
        expect(home.locator("#announcement")).to_contain_text("Mitteilung")
        home.set_viewport_size({"width": 360, "height": 640})
        home.screenshot(path=str(artifacts / "announcement-home-360.png"), animations="disabled")
        home.locator(".announcement-close").click()
        expect(home.locator("#announcement")).to_be_hidden()

        admin(data, "announce", "--clear")
        expect(banner).to_be_hidden(timeout=20_000)
    finally:
        table.close()
