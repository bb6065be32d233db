"""Fixtures every test module may use.

- ``anyio_backend``: async tests (``@pytest.mark.anyio``) run on asyncio.
- ``pg_url``: a throwaway PostgreSQL cluster's ``postgres`` database (session; skips
  when PostgreSQL is not installed), ``pg_db_url``: a fresh database in it per test.
- ``db_url``: a fresh, empty database of each kind, as ``"sqlite"`` and ``"postgresql"``
  parameters (the URL as a user writes it: ``sqlite:///...``, ``postgresql://...``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.pg import pg_db_url, pg_url

__all__ = ["anyio_backend", "db_url", "pg_db_url", "pg_url"]


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
