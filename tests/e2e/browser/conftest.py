"""Playwright with Debian's Chromium, and a real game server on a free port."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import serving

ROOT = Path(__file__).resolve().parents[3]
#: screenshots for people to look at (kept after the run)
ARTIFACTS = Path(os.environ.get("MAUMAU_TEST_E2E_ARTIFACTS", ROOT / "tests" / "e2e" / "artifacts"))

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    # Chromium still looks up Google hosts at start: resolve nothing but loopback.
    # Keep 127.0.0.1 excluded or local pages fail with ERR_NAME_NOT_RESOLVED.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``maumau serve`` on a fresh data directory; yields its base URL.  The browser
    tests open many tables and sockets from one address quickly, and leave some to play
    on; the limits themselves are tested in the server suites."""
    raised = ["--tables-per-minute", "1000", "--live-tables-per-address", "1000"]
    raised += ["--messages-per-second", "1000", "--replays-per-minute", "1000"]
    # (tables earlier tests left to their computer players count as unattended; with the
    # default of two per address, a later test's table could be paused at once)
    raised += ["--unattended-tables-per-address", "1000"]
    # (every test's pages connect from 127.0.0.1, many a minute)
    raised += ["--connections-per-minute", "100000"]
    with serving(tmp_path_factory.mktemp("server-data"), *raised) as url:
        yield url


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
