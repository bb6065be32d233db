"""Browser tests live in ``tests/e2e/browser/`` and run in their own pytest process.

The sync Playwright API leaves an asyncio loop running in the main thread, which breaks
async tests that run after it in the same process (see the toolchain notes).  So the
root ``pytest`` run does not collect ``browser/``; ``test_browser.py`` here runs
``pytest tests/e2e/browser`` in a child process (with ``MAUMAU_E2E_CHILD=1``) and fails
when it fails.
"""

from __future__ import annotations

import os

collect_ignore = [] if os.environ.get("MAUMAU_E2E_CHILD") else ["browser"]
