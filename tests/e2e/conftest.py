"""Browser tests live in ``tests/e2e/browser/`` and run in their own pytest process.

The sync Playwright API leaves an asyncio loop running in the main thread, which breaks
async tests that run after it in the same process (see the toolchain notes).  So the
root ``pytest`` run does not collect ``browser/``; ``test_browser.py`` here runs
``pytest tests/e2e/browser`` in a child process (with ``MAUMAU_TEST_E2E_CHILD=1``) and
fails when it fails; that test runs last.  With ``MAUMAU_TEST_E2E_BESIDE=1`` the child
starts as soon as the root run has collected its tests and runs beside the rest: about
3 minutes sooner on two cores, but the rest's timing-sensitive samples (the hostile
load's short run) then share the cores with Chromium, and one of them failed so in
CI; ``.ci/run`` runs them one after the other.
"""

from __future__ import annotations

import os

import pytest

CHILD_RUN = bool(os.environ.get("MAUMAU_TEST_E2E_CHILD"))
collect_ignore = [] if CHILD_RUN else ["browser"]

SUITE = "test_browser.py::test_browser_suite"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CHILD_RUN or config.option.collectonly:
        return
    suite = [item for item in items if item.nodeid.endswith(SUITE)]
    if not suite:
        return
    items[:] = [item for item in items if item not in suite] + suite
    if os.environ.get("MAUMAU_TEST_E2E_BESIDE"):
        from test_browser import start_child

        start_child()


def pytest_unconfigure(config: pytest.Config) -> None:
    """An interrupted run leaves no browsers behind."""
    if CHILD_RUN:
        return
    from test_browser import CHILD

    for child in CHILD:
        child.stop()
