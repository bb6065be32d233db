"""Persistence: game records (metadata, seats, append-only steps) in SQLite or PostgreSQL.

The store knows nothing of the rules: it keeps plain JSON dicts.  Open one with
``store = await Store.open(url)`` (``sqlite:///path`` or ``postgresql://...``); the
schema is migrated to the newest revision on open.
"""

from __future__ import annotations

from maumau.store.errors import (
    GameExists,
    SeatsChanged,
    SeqConflict,
    StoreError,
    StoreUnavailable,
    UnknownGame,
)
from maumau.store.rows import GAME_STATUSES, GameRow, SeatRow, StepRow
from maumau.store.store import Store
from maumau.store.urls import database_url, sqlite_url

__all__ = [
    "GAME_STATUSES",
    "GameExists",
    "GameRow",
    "SeatRow",
    "SeatsChanged",
    "SeqConflict",
    "StepRow",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "UnknownGame",
    "database_url",
    "sqlite_url",
]
