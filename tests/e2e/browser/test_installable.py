"""The installable app (issue 22, item 7) in Chromium: no installability errors over the
DevTools protocol, the manifest's icons load at the sizes they claim, the service worker
keeps the app shell and never an API answer, a reload with the server stopped shows the
client's offline state (not the browser's error page) until the server is back, and the
Web Share button shares the invite link where the browser can share."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, BrowserType, Page, expect
from serving import ROOT, serving
from tablekit import SIZES, call

from lab.serve import stop_server
from maumau.server.config import WEB_DIR

#: a stand-in for the phone's share sheet: what it was given, in window.shared
FAKE_SHARE = """
window.shared = [];
navigator.share = (data) => { window.shared.push(data); return Promise.resolve(); };
navigator.canShare = () => true;
"""

CONTROLLED = "() => navigator.serviceWorker.controller !== null"
#: how long a page may take to load on a loaded machine (ms)
LOADED = 30_000


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of its own (this test stops it): its URL and data directory."""
    data = tmp_path / "data"
    with serving(data) as url:
        yield url, data


def lobby(url: str) -> dict[str, Any]:
    made: dict[str, Any] = call(f"{url}/api/games", "POST", {"name": "Anna"})
    return made


def open_as_host(context: BrowserContext, url: str, table: dict[str, Any]) -> Page:
    """The host's lobby page, served by the worker (it has taken the page over)."""
    page = context.new_page()
    page.goto(f"{url}/?lang=en")
    page.evaluate(
        "([id, token]) => localStorage.setItem('maumau.token.' + id, token)",
        [table["game_id"], table["token"]],
    )
    page.wait_for_function(CONTROLLED, timeout=2 * LOADED)
    page.goto(f"{url}{table['invite']}?lang=en")
    expect(page.locator("#invite-link")).to_be_visible(timeout=LOADED)
    expect(page.locator("body")).to_have_attribute("data-conn", "online", timeout=LOADED)
    return page


def shell_cache(page: Page) -> dict[str, list[str]]:
    """Every cache of the origin and the paths of what it holds."""
    result: dict[str, list[str]] = page.evaluate(
        """async () => {
          const out = {};
          for (const key of await caches.keys()) {
            const cache = await caches.open(key);
            out[key] = (await cache.keys()).map((r) => new URL(r.url).pathname);
          }
          return out;
        }"""
    )
    return result


def test_chromium_finds_nothing_in_the_way_of_installing(
    browser_type: BrowserType, browser_type_launch_args: dict[str, Any], server: Any, tmp_path: Path
) -> None:
    """In a profile of its own: Chromium installs nothing from an incognito context
    (Playwright's usual contexts are), and says so as an installability error."""
    url, _ = server
    context = browser_type.launch_persistent_context(
        tmp_path / "profile", **browser_type_launch_args
    )
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(f"{url}/?lang=en")
    page.wait_for_function(CONTROLLED, timeout=2 * LOADED)
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{url}/manifest.webmanifest"
    assert manifest["errors"] == []
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    context.close()


def test_the_manifest_icons_load_at_their_sizes(browser: Browser, server: Any) -> None:
    url, _ = server
    page = browser.new_page()
    page.goto(f"{url}/?lang=en")
    icons = page.evaluate(
        """async () => {
          const manifest = await (await fetch('/manifest.webmanifest')).json();
          const apple = document.querySelector('link[rel=apple-touch-icon]');
          const wanted = [...manifest.icons, {src: new URL(apple.href).pathname, sizes: '180x180'}];
          const out = [];
          for (const icon of wanted) {
            const reply = await fetch(icon.src);
            const image = await createImageBitmap(await reply.blob());
            out.push({src: icon.src, claimed: icon.sizes, status: reply.status,
                      type: reply.headers.get('content-type'),
                      size: `${image.width}x${image.height}`});
          }
          return out;
        }"""
    )
    assert len(icons) == 5
    assert {i["src"] for i in icons} >= {"/icons/maskable-512.png", "/icons/apple-touch-icon.png"}
    for icon in icons:
        assert (icon["status"], icon["type"], icon["size"]) == (200, "image/png", icon["claimed"])
    page.close()


def test_the_worker_keeps_the_shell_and_no_api_answer(browser: Browser, server: Any) -> None:
    url, _ = server
    context = browser.new_context()
    table = lobby(url)
    page = open_as_host(context, url, table)
    # the API answered this page several times (the table, its QR code, the socket)
    expect(page.locator("#invite-qr img")).to_be_visible(timeout=LOADED)
    page.evaluate("fetch('/api/health').then((r) => r.json())")
    page.reload()
    expect(page.locator("#invite-link")).to_be_visible(timeout=LOADED)
    caches = shell_cache(page)
    assert len(caches) == 1, caches
    ((name, paths),) = caches.items()
    assert name.startswith("maumau-shell-")
    assert "/" in paths and "/js/main.js" in paths and "/lang/en.json" in paths
    assert "/icons/icon-192.png" in paths and "/favicon.svg" in paths
    bad = [p for p in paths if p.startswith(("/api/", "/ws/", "/g/", "/metrics", "/sw.js"))]
    assert bad == []
    context.close()


def test_with_the_server_stopped_the_shell_says_offline_and_comes_back(
    browser: Browser, tmp_path: Path, artifacts: Path
) -> None:
    data = tmp_path / "data"
    context = browser.new_context(viewport=SIZES[0])
    with serving(data) as url:
        table = lobby(url)
        page = open_as_host(context, url, table)
    port = int(url.rsplit(":", 1)[1])
    with socket.socket() as probe:  # the server is gone: nothing listens there
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    page.reload()
    notice = page.locator("#offline")
    expect(notice).to_be_visible(timeout=LOADED)
    expect(notice.locator("h1")).to_have_text("You are offline")
    expect(page.locator("#conn")).to_have_text("Offline — reconnecting…")
    expect(page.locator("body")).to_have_attribute("data-conn", "no_server")
    assert page.url.endswith(table["invite"] + "?lang=en")
    for size in SIZES:
        page.set_viewport_size(size)
        page.screenshot(path=str(artifacts / f"offline-{size['width']}x{size['height']}.png"))
    # translated, also while offline (the languages are in the shell)
    page.evaluate("document.getElementById('settings').open = true")
    page.select_option("#lang-picker", "de")
    expect(page.locator("#conn")).to_have_text("Offline — verbinde neu …")
    expect(notice.locator("h1")).to_have_text("Du bist offline")
    page.select_option("#lang-picker", "en")
    page.evaluate("document.getElementById('settings').open = false")
    # the home page too
    home = context.new_page()
    home.goto(f"{url}/?lang=en")
    expect(home.locator("#create")).to_be_visible(timeout=LOADED)
    expect(home.locator("#conn")).to_have_text("Offline — reconnecting…", timeout=LOADED)
    for size in SIZES:
        home.set_viewport_size(size)
        home.screenshot(path=str(artifacts / f"offline-home-{size['width']}x{size['height']}.png"))
    # the server back on the same address: the table opens by itself
    with serving(data, port=port):
        page.evaluate("dispatchEvent(new Event('online'))")  # (or the next retry, in 8 s)
        expect(page.locator("#invite-link")).to_be_visible(timeout=LOADED)
        expect(notice).to_have_count(0)
        expect(page.locator("#conn")).not_to_have_text("Offline — reconnecting…")
        home.evaluate("dispatchEvent(new Event('online'))")
        expect(home.locator("#conn")).to_be_hidden(timeout=LOADED)
        context.close()


def test_the_share_button_shares_the_invite_link(
    browser: Browser, server: Any, artifacts: Path
) -> None:
    url, _ = server
    table = lobby(url)
    context = browser.new_context()
    context.add_init_script(FAKE_SHARE)
    page = open_as_host(context, url, table)
    button = page.locator("#share-invite")
    expect(button).to_have_text("Share")
    for size in SIZES:
        page.set_viewport_size(size)
        expect(button).to_be_visible()
        # (the lobby is drawn again on news from the table: both read at one moment)
        box, area = page.evaluate(
            "() => ['#share-invite', '.invite'].map((s) => {"
            " const r = document.querySelector(s).getBoundingClientRect();"
            " return {x: r.x, y: r.y, width: r.width, height: r.height}; })"
        )
        assert box["height"] >= 40 and box["width"] >= 44, box
        shot = artifacts / f"share-{size['width']}x{size['height']}.png"
        page.screenshot(path=str(shot), clip=area)
    button.click()
    page.wait_for_function("window.shared.length === 1")
    shared = page.evaluate("window.shared[0]")
    assert shared["url"] == f"{url}{table['invite']}"
    assert table["token"] not in str(shared)
    assert shared["text"] == "Join my Mau Mau table:"
    context.close()
    # without navigator.share (desktop Chromium on Linux) there is no button
    plain = browser.new_context()
    page = open_as_host(plain, url, table)
    assert page.evaluate("typeof navigator.share") == "undefined"
    expect(page.locator("#copy-invite")).to_be_visible()
    expect(page.locator("#share-invite")).to_have_count(0)
    plain.close()


#: a server of the client in another directory (a release of other files)
RELEASE = """
import sys
from pathlib import Path
import uvicorn
from maumau.server.app import create_app
from maumau.server.config import ServerConfig
data, web, port = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
app = create_app(ServerConfig(data_dir=data, web_dir=web))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
"""


@contextlib.contextmanager
def release(data: Path, web: Path, port: int) -> Iterator[str]:
    """The client in ``web`` served on ``port`` until the block ends; its base URL."""
    command = [sys.executable, "-c", RELEASE, str(data), str(web), str(port)]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 90
    try:
        while True:
            try:
                urllib.request.urlopen(url + "/api/health", timeout=5).read()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.1)
        yield url
    finally:
        stop_server(proc)


def test_a_new_release_replaces_the_old_shell(browser: Browser, tmp_path: Path) -> None:
    """The worker of the old release keeps answering until the new one is installed;
    then the new release's files are served and the old cache is gone."""
    web, data = tmp_path / "web", tmp_path / "data"
    shutil.copytree(WEB_DIR, web)
    port = int(socket.create_server(("127.0.0.1", 0)).getsockname()[1])
    context = browser.new_context()
    page = context.new_page()
    with release(data, web, port) as url:
        page.goto(f"{url}/?lang=en")
        page.wait_for_function(CONTROLLED, timeout=2 * LOADED)
        (old,) = shell_cache(page)
        title = page.evaluate("fetch('/lang/en.json').then((r) => r.json())")["home.title"]
    lang = web / "lang" / "en.json"
    lang.write_text(lang.read_text("utf-8").replace(title, "A new release"), "utf-8")
    with release(data, web, port) as url:
        page.reload()  # (the old shell, while the browser looks for a new worker)
        deadline = time.monotonic() + 120
        # the new worker installs beside the old one, then deletes the old cache
        while len(keys := list(shell_cache(page))) != 1 or keys == [old]:
            assert time.monotonic() < deadline, f"the new worker did not take over: {keys}"
            page.wait_for_timeout(100)
        page.reload()
        expect(page.locator(".hero h1")).to_have_text("A new release", timeout=LOADED)
    context.close()
