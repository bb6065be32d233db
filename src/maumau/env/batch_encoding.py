"""The observation encoding of :mod:`maumau.env.encoding`, written for a batch of games
at once from arrays instead of one :class:`~maumau.engine.SeatView` at a time.

:class:`maumau.env.batch.BatchEnv` folds what the observing seat may see of each game's
round into one row of ints: the public scalars, the discard pile as a bitmask, every
seat's hand as a bitmask (its own is read whole, the others' *only as counts*), and a
per-seat code of its last action this round (kept up to date from the log).
:func:`encode_rows` turns the rows of every game into the observation vectors, in
numpy, into a preallocated array.  The vectors are the same, float for float, as
:func:`maumau.env.encoding.encode` of the seat's view (``tests/env/test_env_batch.py``
checks every step of whole games), and they hold no other seat's cards and nothing of
the draw pile's order (``tests/env/test_env_leak.py``).

A row (``row_width(n)`` ints for ``n`` seats)::

    0 seat (the seat to move, which the row is for)   1 top   2 named (-1)
    3 drawn (-1)   4 step   5 pending   6 direction   7 draw pile size   8 round index
    9 catchable (-1)   10 leader   11 discard pile (bitmask)
    then per seat: hands (bitmasks), last-action codes

A last-action code is ``kind | (suit + 1) << 3 | called << 6``: ``kind`` of the seat's
latest log entry this round (play, draw, pass, catch, penalty; 7: none yet), ``suit``
and ``called`` of its latest play (suit + 1 = 0: no play yet).  The seats' totals and
rounds won change between rounds only; they come as arrays of their own.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from maumau.engine import Round
from maumau.engine.round import OVER
from maumau.env.encoding import (
    DISCARD,
    DRAWN,
    HAND,
    NAMED,
    SCALARS,
    SEAT_CALLED,
    SEAT_CATCHABLE,
    SEAT_COUNT,
    SEAT_LAST,
    SEAT_LEADER,
    SEAT_PRESENT,
    SEAT_SIZE,
    SEAT_SUIT,
    SEAT_TO_MOVE,
    SEAT_TOTAL,
    SEAT_WON,
    SEATS,
    STEP,
    TOP,
)

Ints = npt.NDArray[np.int64]

SEAT, TOP_CARD, NAMED_SUIT, DRAWN_CARD, STEP_INDEX, PENDING, DIRECTION = range(7)
STOCK, ROUND, CATCHABLE, LEADER, DISCARD_MASK, PER_SEAT = range(7, 13)
#: the last-action code of a seat that has not acted this round
NO_ACTION = 7
#: a log entry's kind as the last-action code's ``kind`` (none: a reshuffle, the end)
LOG_KINDS = {"play": 0, "draw": 1, "pass": 2, "catch": 3, "penalty": 4}


def row_width(n: int) -> int:
    return PER_SEAT + 2 * n


def discard_mask(state: Round) -> int:
    """The discard pile as a bitmask (every card on it was played in public)."""
    mask = 0
    for card in state.discard:
        mask |= 1 << card
    return mask


if hasattr(np, "bitwise_count"):  # numpy >= 2

    def _counts(hands: Ints) -> Ints:
        return np.bitwise_count(hands).astype(np.int64)

else:  # pragma: no cover - numpy 1.x

    def _counts(hands: Ints) -> Ints:
        bytes_ = hands.astype("<u8").view(np.uint8).reshape(*hands.shape, 8)
        return np.unpackbits(bytes_, axis=-1).sum(axis=-1).astype(np.int64)  # type: ignore[no-any-return]


def _bits(masks: Ints) -> npt.NDArray[np.uint8]:
    """Bitmasks [N] as their 52 bits [N, 52] (bit ``c`` is card ``c``)."""
    bytes_ = masks.astype("<u8").view(np.uint8).reshape(len(masks), 8)
    return np.unpackbits(bytes_, axis=1, bitorder="little")[:, :52]


def encode_rows(
    rows: Ints, totals: Ints, won: Ints, deck: int, limit: int, out: npt.NDArray[np.float32]
) -> None:
    """Write the observation vector of each row of ``rows`` (``[N, row_width(n)]``;
    ``totals`` and ``won`` ``[N, n]``: each seat's points and rounds won) into ``out``
    (``[N, OBS_SIZE]`` float32), as :func:`maumau.env.encoding.encode` writes the
    seat's view.  ``deck`` is the deck size (52 or 32), ``limit`` the rules' effective
    limit."""
    count = len(rows)
    n = totals.shape[1]
    out[:] = 0.0
    if not count:
        return
    every = np.arange(count)
    seat = rows[:, SEAT]
    hands = rows[:, PER_SEAT : PER_SEAT + n]
    out[:, HAND : HAND + 52] = _bits(hands[every, seat])
    out[every, TOP + rows[:, TOP_CARD]] = 1.0
    for column, offset in ((NAMED_SUIT, NAMED), (DRAWN_CARD, DRAWN)):
        value = rows[:, column]
        some = np.flatnonzero(value >= 0)
        out[some, offset + value[some]] = 1.0
    out[:, DISCARD : DISCARD + 52] = _bits(rows[:, DISCARD_MASK])
    step = rows[:, STEP_INDEX]
    out[every, STEP + step] = 1.0
    # float64 first, then float32, exactly as the single-game encoder rounds
    out[:, SCALARS] = np.minimum(rows[:, PENDING] / 12.0, 1.0)
    out[:, SCALARS + 1] = rows[:, DIRECTION] == 1
    out[:, SCALARS + 2] = rows[:, STOCK] / deck
    out[:, SCALARS + 3] = np.minimum(rows[:, ROUND] / 50.0, 1.0)

    codes = rows[:, PER_SEAT + n : PER_SEAT + 2 * n]
    seats = np.zeros((count, n, SEAT_SIZE))
    seats[:, :, SEAT_PRESENT] = 1.0
    seats[:, :, SEAT_COUNT] = np.minimum(_counts(hands) / deck, 1.0)
    seats[:, :, SEAT_TOTAL] = np.minimum(totals / limit, 1.0)
    seats[:, :, SEAT_WON] = np.minimum(won / 50.0, 1.0)
    live = np.flatnonzero(step != OVER)
    seats[live, seat[live], SEAT_TO_MOVE] = 1.0
    catchable = rows[:, CATCHABLE]
    some = np.flatnonzero(catchable >= 0)
    seats[some, catchable[some], SEAT_CATCHABLE] = 1.0
    seats[every, rows[:, LEADER], SEAT_LEADER] = 1.0
    flat = seats.reshape(count * n, SEAT_SIZE)
    codes = codes.reshape(count * n)
    kind = codes & 7
    acted = np.flatnonzero(kind < 5)
    flat[acted, SEAT_LAST + kind[acted]] = 1.0
    suit = (codes >> 3 & 7) - 1
    played = np.flatnonzero(suit >= 0)
    flat[played, SEAT_SUIT + suit[played]] = 1.0
    flat[:, SEAT_CALLED] = codes >> 6 & 1
    # seats relative to the observer: slot 0 is the observing seat
    order = (np.arange(n) + seat[:, None]) % n
    out[:, SEATS : SEATS + n * SEAT_SIZE] = seats[every[:, None], order].reshape(count, -1)


__all__ = ["LOG_KINDS", "OVER", "discard_mask", "encode_rows", "row_width"]
