"""Run the browser tests (tests/e2e/browser) in a child pytest process.

:func:`test_browser_suite` runs first (see ``tests/e2e/conftest.py``), starts the child
on ``MAUMAU_TEST_E2E_WORKERS`` workers of its own (default 0: one test after the
other; with workers, each its own server and Chromium) and fails when the child failed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
#: the child's whole run may take this long
TIMEOUT = 1500
#: the child's pytest-xdist workers (0: the browser tests one after the other, in the child)
WORKERS = int(os.environ.get("MAUMAU_TEST_E2E_WORKERS", "0"))


def missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (dev dependency: playwright, pytest-playwright)"
    if not os.path.exists(CHROMIUM):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


class Child:
    """The child pytest run, its output going to a temporary file."""

    def __init__(self) -> None:
        self.output: IO[str] = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in wait)
        # (not a worker of the root run's: the child is a run of its own)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
        env["MAUMAU_TEST_E2E_CHILD"] = "1"
        command = [sys.executable, "-m", "pytest", str(HERE / "browser"), "-q"]
        command += ["-n", str(WORKERS)]
        command += ["-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"]
        self.proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.output, stderr=subprocess.STDOUT, text=True
        )

    def wait(self) -> tuple[int, str]:
        """The child's exit code and output, once it has ended."""
        try:
            code = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.stop()
            code = -1
        self.output.seek(0)
        text = self.output.read()
        self.output.close()
        return code, text

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


#: the child of this run, if :func:`start_child` started one
CHILD: list[Child] = []


def start_child() -> None:
    """Start the child run (once), unless the browser tests cannot run here."""
    if not CHILD and missing() is None:
        CHILD.append(Child())


def test_browser_suite() -> None:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    start_child()
    code, text = CHILD[0].wait()
    if code != 0:
        pytest.fail(f"browser tests failed (exit code {code}):\n{text[-11000:]}")
