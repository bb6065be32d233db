"""The rows of a game record as plain, immutable values (the store's whole vocabulary)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

GAME_STATUSES = ("lobby", "playing", "finished", "closed")
SEAT_KINDS = ("human", "bot")
STEP_KINDS = ("deal", "action")


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat of a game: who sits at ``position``."""

    position: int
    name: str
    kind: str  # "human" | "bot"
    level: str | None  # bot level, e.g. "normal"; None for humans
    token_hash: str | None  # hex SHA-256 of the seat token, never the token


@dataclass(frozen=True, slots=True)
class StepRow:
    """One step of a game record: a deal or an accepted action, numbered 0, 1, 2, ..."""

    seq: int
    kind: str  # "deal" | "action"
    data: dict[str, Any]
    client_id: str | None = None
    created_at: float = 0.0  # 0.0: ``Store.append`` stamps the step with its ``now``


@dataclass(frozen=True, slots=True)
class GameRow:
    """A game's metadata and seats (its steps are loaded separately)."""

    id: str
    status: str  # "lobby" | "playing" | "finished" | "closed"
    options: dict[str, Any]
    settings: dict[str, Any]
    host: int
    seats: tuple[SeatRow, ...]
    created_at: float
    last_active_at: float
    rematch_of: str | None = None
    rematch_id: str | None = None
    #: token hashes of seats removed from the lobby (their tokens get ``seat_removed``)
    removed: tuple[str, ...] = ()


def check_status(status: str) -> None:
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown game status {status!r}; expected one of {GAME_STATUSES}")


def check_seats(seats: Sequence[SeatRow]) -> None:
    positions = [seat.position for seat in seats]
    if len(set(positions)) != len(positions):
        raise ValueError(f"seat positions repeat: {positions}")
    for seat in seats:
        if seat.kind not in SEAT_KINDS:
            raise ValueError(f"unknown seat kind {seat.kind!r}; expected one of {SEAT_KINDS}")


def check_steps(steps: Sequence[StepRow]) -> None:
    for step in steps:
        if step.kind not in STEP_KINDS:
            raise ValueError(f"unknown step kind {step.kind!r}; expected one of {STEP_KINDS}")
