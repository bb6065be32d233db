"""Engine errors.  Every error carries a stable ``code`` (see ``docs/record.md``)."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: something the caller asked for breaks the rules or the format."""

    code = "engine_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class BadOption(EngineError):
    """An unknown option key, a bad value, or a player count the options do not allow."""

    code = "bad_option"


class BadCard(EngineError):
    """A card code that is malformed or not in this game's deck."""

    code = "bad_card"


class BadLayout(EngineError):
    """A layout that is not exactly one deck, or hands of the wrong size."""

    code = "bad_layout"


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code)
