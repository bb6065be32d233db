"""The bot interface: a computer player decides from its seat's view and nothing else.

A bot is handed a :class:`~maumau.engine.SeatView` (its own hand, the public state
and the public log) and the seat's legal actions, never the game: it cannot see
another hand or the draw pile's order, because nothing it is given holds them.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from maumau.engine import Action, Catch, Draw, Pass, Play, SeatView


class Bot(ABC):
    """A computer player.  The same ``seed`` gives the same decisions."""

    level: ClassVar[str] = ""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        """The action to take when the game waits for this seat (``legal`` is not empty)."""

    def react(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        """Out of turn, ``legal`` holds what this seat may do anyway (a catch): return
        it, or ``None`` to let the moment pass.  By default a bot catches."""
        return next((a for a in legal if isinstance(a, Catch)), None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def plays_of(legal: Sequence[Action]) -> list[Play]:
    return [a for a in legal if isinstance(a, Play)]


def fallback(legal: Sequence[Action]) -> Action:
    """The draw or pass among ``legal`` (there is always one when nothing is played)."""
    for action in legal:
        if isinstance(action, Draw | Pass):
            return action
    return legal[0]
