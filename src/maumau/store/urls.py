"""Database URLs: the async driver for each database, and URLs safe to show."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

# scheme as the user writes it -> the async driver URL scheme
_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
}
_BACKENDS = {"sqlite", "postgresql"}


def database_url(url: str) -> str:
    """The async SQLAlchemy URL for ``url``.

    ``sqlite:///path`` becomes ``sqlite+aiosqlite:///path``, ``postgresql://...`` and
    ``postgres://...`` become ``postgresql+asyncpg://...``; a URL that names its driver
    (``scheme+driver://``) is kept.  Any other database raises ``ValueError``.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL (no '://'): {redact(url)!r}")
    backend, plus, driver = scheme.lower().partition("+")
    if backend == "postgres":
        backend = "postgresql"
    if backend not in _BACKENDS:
        raise ValueError(
            f"unsupported database scheme {scheme!r}: use sqlite:///path or postgresql://..."
        )
    if plus:
        if not driver:
            raise ValueError(f"empty driver in database scheme {scheme!r}")
        return f"{backend}+{driver}://{rest}"
    return f"{_DRIVERS[backend]}://{rest}"


def sqlite_url(path: Path) -> str:
    """The URL of the SQLite database file at ``path`` (made absolute; a ``?`` or ``#``
    in the path is escaped, not read as the start of the URL's query)."""
    database = str(path.expanduser().resolve())
    return URL.create("sqlite+aiosqlite", database=database).render_as_string()


def redact(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages and logs)."""
    try:
        parsed: URL = make_url(url)
    except (ArgumentError, ValueError):
        scheme, sep, _ = url.partition("://")
        return f"{scheme}://***" if sep else "***"
    return parsed.render_as_string(hide_password=True)


def sqlite_file(url: str) -> Path | None:
    """The database file of an SQLite URL, or None (not SQLite, in memory, or a URI)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)
