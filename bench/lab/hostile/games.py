"""What the campaign knows about each game the probes aim at (none of it may change)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from maumau.engine import Rules
from maumau.engine.cards import CODES, deck_cards


@dataclass
class GameCtx:
    """A game the probes aim at, as it stands (it must not change)."""

    key: str
    id: str
    status: str  # lobby | playing | finished
    rules: Rules
    #: the human seats the campaign holds: seat -> token
    tokens: dict[int, str]
    version: int | None = None
    #: each held seat's legal actions and hand in the current state
    legal: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    hands: dict[int, list[str]] = field(default_factory=dict)
    #: action ids each seat had accepted (a resend is answered with ack, duplicate)
    accepted_ids: dict[int, list[str]] = field(default_factory=dict)

    @property
    def deck(self) -> list[str]:
        return [CODES[c] for c in deck_cards(self.rules.deck)]


@dataclass
class Context:
    games: dict[str, GameCtx]
    #: seat tokens of another table (no probe goes there): right shape, wrong table
    strangers: list[str]

    def targets(self, game: GameCtx) -> list[str]:
        """The persistent connections a probe may use at ``game``."""
        return [*(f"seat{s}" for s in sorted(game.tokens)), "spectator", "fresh"]


def seat_of(who: str) -> int | None:
    who = who.removeprefix("own-")
    return int(who[4:]) if who.startswith("seat") else None
