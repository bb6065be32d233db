"""Store errors: every failure of the store is a :class:`StoreError`."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every error the store raises (besides ``ValueError`` for bad arguments)."""


class SeqConflict(StoreError):
    """A step's ``(game_id, seq)`` is already taken: another writer appended it first."""


class SeatsChanged(StoreError):
    """``replace_seats`` expected other seats: another writer changed them first."""


class UnknownGame(StoreError):
    """The game id names no stored game (raised by the methods that change a game)."""


class GameExists(StoreError):
    """``create_game`` was given an id that is already stored."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or refused the operation.

    The message names the database (with any password hidden) and the problem.
    """


def driver_message(exc: BaseException) -> str:
    """The driver's own message (without SQLAlchemy's statement and parameters)."""
    orig = getattr(exc, "orig", None)
    cause = orig if isinstance(orig, BaseException) else exc
    text = str(cause).strip() or type(cause).__name__
    return f"{type(cause).__name__}: {text.splitlines()[0]}"
