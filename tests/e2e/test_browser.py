"""Run the browser tests (tests/e2e/browser) in a child pytest process."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"


def test_browser_suite() -> None:
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed (dev dependency: playwright, pytest-playwright)")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    env = {**os.environ, "MAUMAU_E2E_CHILD": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(HERE / "browser"),
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    if result.returncode != 0:
        pytest.fail(f"browser tests failed:\n{result.stdout[-8000:]}\n{result.stderr[-3000:]}")
