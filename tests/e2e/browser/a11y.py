"""The accessibility check of the browser tests: axe-core (through axe-playwright-python)
run on a page as it is shown; the serious and critical violations, one line each."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

#: the impacts a page must have none of
BLOCKING = ("serious", "critical")

_axe = Axe()


def violations(page: Page, context: str | None = None) -> list[str]:
    """Every serious or critical axe-core violation on the page (or inside ``context``,
    a selector), as "rule-id (impact): element" lines."""
    page.wait_for_timeout(0)  # let a pending render finish its task
    results = _axe.run(page, context=context)
    found: list[dict[str, Any]] = results.response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {' '.join(map(str, node['target']))}"
        for v in found
        if v["impact"] in BLOCKING
        for node in v["nodes"]
    ]
