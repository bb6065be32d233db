"""Playwright with Debian's Chromium, and a real game server on a free port."""

from __future__ import annotations

import os
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

ROOT = Path(__file__).resolve().parents[3]
#: screenshots for people to look at (kept after the run)
ARTIFACTS = Path(os.environ.get("MAUMAU_E2E_ARTIFACTS", ROOT / "tests" / "e2e" / "artifacts"))

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``maumau serve`` on a fresh data directory; yields its base URL."""
    port = _free_port()
    data = tmp_path_factory.mktemp("server-data")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "maumau",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(data),
            "--log-level",
            "warning",
            # The browser tests open many tables and sockets from one address quickly;
            # the limits themselves are tested in the server suites.
            "--tables-per-minute",
            "1000",
            "--live-tables-per-address",
            "1000",
            "--messages-per-second",
            "1000",
            "--replays-per-minute",
            "1000",
        ],
        cwd=ROOT,
    )
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(url + "/api/health", timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the game server did not start") from None
            time.sleep(0.1)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
