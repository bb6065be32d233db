"""Fixtures every test module may use, and the markers that pick the fast loop.

- ``anyio_backend``: async tests (``@pytest.mark.anyio``) run on asyncio.
- ``pg_url``: a throwaway PostgreSQL cluster's ``postgres`` database (session; skips
  when PostgreSQL is not installed), ``pg_db_url``: a fresh database in it per test.
- ``db_url``: a fresh, empty database of each kind, as ``"sqlite"`` and ``"postgresql"``
  parameters (the URL as a user writes it: ``sqlite:///...``, ``postgresql://...``).

Markers (registered in pyproject.toml), put on each test here so that no module needs
to remember them: ``system`` on everything in ``tests/system`` (real ``maumau serve``
processes, nginx, Caddy) and on the tests marked so in other folders (subprocesses);
``pg`` on every test that uses the PostgreSQL cluster (``pg_url``, ``pg_db_url``, or the
``"postgresql"`` case of ``db_url``); ``browser`` on the browser tests (``tests/e2e``'s
Chromium runs).  ``pytest -m "not system and not pg and not browser"`` is the fast loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.pg import pg_db_url, pg_url

__all__ = ["anyio_backend", "db_url", "pg_db_url", "pg_url"]

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: an SQLite file under tmp_path, or a new PostgreSQL one."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db' / 'maumau.sqlite3'}"
    url: str = request.getfixturevalue("pg_db_url")
    return url


def uses_postgresql(item: pytest.Item) -> bool:
    if "pg_url" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("db_url") == "postgresql"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(TESTS).parts
        if where[0] == "system":
            item.add_marker(pytest.mark.system)
        if where[0] == "e2e" and (where[1] == "browser" or where[1] == "test_browser.py"):
            item.add_marker(pytest.mark.browser)
        if uses_postgresql(item):
            item.add_marker(pytest.mark.pg)
