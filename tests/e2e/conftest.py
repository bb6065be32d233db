"""Browser tests live in ``tests/e2e/browser/`` and run in their own pytest process.

The sync Playwright API leaves an asyncio loop running in the main thread, which breaks
async tests that run after it in the same process (see the toolchain notes).  So the
root ``pytest`` run does not collect ``browser/``; ``test_browser.py`` here runs
``pytest tests/e2e/browser`` in a child process (with ``MAUMAU_TEST_E2E_CHILD=1``), its
tests spread over workers of its own (pytest-xdist), and fails when it fails.  That test
runs first: under the root run's workers (see pyproject.toml) the child's browsers then
work beside the rest of the suite instead of after it.
"""

from __future__ import annotations

import os

import pytest

CHILD_RUN = bool(os.environ.get("MAUMAU_TEST_E2E_CHILD"))
collect_ignore = [] if CHILD_RUN else ["browser"]

SUITE = "test_browser.py::test_browser_suite"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CHILD_RUN:
        return
    suite = [item for item in items if item.nodeid.endswith(SUITE)]
    items[:] = suite + [item for item in items if item not in suite]


def pytest_unconfigure(config: pytest.Config) -> None:
    """An interrupted run leaves no browsers behind."""
    if CHILD_RUN:
        return
    from test_browser import CHILD

    for child in CHILD:
        child.stop()
