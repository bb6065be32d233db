"""The observation encoding: one seat's :class:`~maumau.engine.SeatView` as a vector.

:func:`encode` reads nothing but the view, so it cannot hold what the seat may not
see (``tests/env/test_env_leak.py`` permutes the other hands and the draw pile and checks
that the vector does not change).  Every value lies in [0, 1]; seats are *relative*
(slot 0 is the observing seat, slot 1 the next seat clockwise, ...), so one policy can
play every seat.  The layout (``OBS_SIZE`` = 364 floats; docs/research.md has the
table):

====================  =====  ==========================================================
offset                size   what
====================  =====  ==========================================================
``HAND`` 0            52     own hand (card int ``suit * 13 + rank``)
``TOP`` 52            52     the top card of the discard pile
``NAMED`` 104         4      the suit a Jack named (C D H S), if any
``DRAWN`` 108         52     the card this seat just drew and may play, if any
``DISCARD`` 160       52     every card on the discard pile (all played in public)
``STEP`` 212          4      play, drawn, wait (catch mode), over
``SCALARS`` 216       4      pending Seven sum / 12, direction (1 clockwise), draw
                             pile size / deck, round index / 50
``SEATS`` 220         8x18   per relative seat, see ``SEAT_*``
====================  =====  ==========================================================

With ``rules_in_obs=True`` the environments append :func:`encode_rules`'s
``RULES_SIZE`` floats (the rule options) after these ``OBS_SIZE``; the layout above is
unchanged.

Per seat (``SEAT_SIZE`` = 18): present, card count / deck, total / limit (at most 1),
rounds won / 50, to move, catchable, leads this round, its last action this round
(play, draw, pass, catch, penalty: 5), the suit of its last play (the named suit for a
Jack: 4), and whether that play carried a call.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from maumau.engine import Rules, SeatView
from maumau.engine.actions import MAX_SEATS
from maumau.engine.options import OPTIONS, Option

HAND, TOP, NAMED, DRAWN, DISCARD, STEP, SCALARS, SEATS = 0, 52, 104, 108, 160, 212, 216, 220
SEAT_SIZE = 18
SEAT_PRESENT, SEAT_COUNT, SEAT_TOTAL, SEAT_WON, SEAT_TO_MOVE, SEAT_CATCHABLE, SEAT_LEADER = range(7)
SEAT_LAST = 7  # 5: play, draw, pass, catch, penalty
SEAT_SUIT = 12  # 4
SEAT_CALLED = 16
#: the length of an observation vector
OBS_SIZE = SEATS + MAX_SEATS * SEAT_SIZE

STEPS = {"play": 0, "drawn": 1, "wait": 2, "over": 3}
_LAST_KIND = {"play": 0, "draw": 1, "pass": 2, "catch": 3, "penalty": 4}

# The public history window of the information-state tensor: the last HISTORY entries
# of the round's log, newest first, each ENTRY_SIZE floats: relative seat (8), kind
# (play, draw, pass, catch, penalty, reshuffle, out: 7), card (52), named suit (4),
# call (1), count / 10 (1).
HISTORY = 8
ENTRY_SIZE = MAX_SEATS + 7 + 52 + 4 + 1 + 1
_ENTRY_KIND = {"play": 0, "draw": 1, "pass": 2, "catch": 3, "penalty": 4, "reshuffle": 5, "out": 6}
#: the length of an information-state vector: the observation, then the history window
INFO_SIZE = OBS_SIZE + HISTORY * ENTRY_SIZE

Vector = npt.NDArray[np.float32]


def encode(view: SeatView, out: Vector | None = None) -> Vector:
    """The observation vector of ``view`` (a seat's view, not a spectator's); written
    into ``out`` (``OBS_SIZE`` floats, cleared first) when given."""
    seat = view.seat
    if seat is None:
        raise ValueError("encode a seat's view: a spectator's view has no seat")
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out[:OBS_SIZE] = 0.0
    ones = [HAND + c for c in view.hand]
    ones.append(TOP + view.top)
    if view.named_suit is not None:
        ones.append(NAMED + view.named_suit)
    if view.drawn is not None:
        ones.append(DRAWN + view.drawn)
    ones.extend(DISCARD + c for c in view.discard)
    ones.append(STEP + STEPS[view.step])
    rules = view.rules
    deck = rules.deck
    limit = rules.effective_limit
    n = len(view.counts)
    out[SCALARS] = min(view.pending / 12.0, 1.0)
    if view.direction == 1:
        ones.append(SCALARS + 1)
    out[SCALARS + 2] = view.stock_count / deck
    out[SCALARS + 3] = min(view.round / 50.0, 1.0)
    base = [SEATS + ((s - seat) % n) * SEAT_SIZE for s in range(n)]
    for s in range(n):
        b = base[s]
        ones.append(b + SEAT_PRESENT)
        out[b + SEAT_COUNT] = min(view.counts[s] / deck, 1.0)
        out[b + SEAT_TOTAL] = min(view.totals[s] / limit, 1.0)
        out[b + SEAT_WON] = min(view.rounds_won[s] / 50.0, 1.0)
    if view.step != "over":
        ones.append(base[view.to_move] + SEAT_TO_MOVE)
    if view.catchable is not None:
        ones.append(base[view.catchable] + SEAT_CATCHABLE)
    ones.append(base[view.leader] + SEAT_LEADER)
    last_seen = [False] * n
    play_seen = [False] * n
    left = 2 * n
    for entry in reversed(view.log):
        kind = entry[0]
        if kind == "reshuffle" or kind == "out":
            continue
        who = entry[1]
        if not last_seen[who]:
            last_seen[who] = True
            left -= 1
            ones.append(base[who] + SEAT_LAST + _LAST_KIND[kind])
        if kind == "play" and not play_seen[who]:
            play_seen[who] = True
            left -= 1
            card = entry[2]
            ones.append(base[who] + SEAT_SUIT + (entry[3] if entry[3] >= 0 else card // 13))
            if entry[4] is not None:
                ones.append(base[who] + SEAT_CALLED)
        if not left:
            break
    out[ones] = 1.0
    return out


def encode_info(view: SeatView, out: Vector | None = None) -> Vector:
    """The information-state vector: :func:`encode` followed by the last ``HISTORY``
    public log entries of the round (``INFO_SIZE`` floats)."""
    seat = view.seat
    if seat is None:
        raise ValueError("encode a seat's view: a spectator's view has no seat")
    if out is None:
        out = np.zeros(INFO_SIZE, dtype=np.float32)
    else:
        out[:] = 0.0
    encode(view, out)
    n = len(view.counts)
    ones: list[int] = []
    log = view.log
    for i, entry in enumerate(log[-1 : -HISTORY - 1 : -1]):
        b = OBS_SIZE + i * ENTRY_SIZE
        kind = entry[0]
        k = b + MAX_SEATS
        ones.append(k + _ENTRY_KIND[kind])
        if kind == "reshuffle":
            out[k + 7 + 52 + 4 + 1] = min(entry[1] / 10.0, 1.0)
            continue
        ones.append(b + (entry[1] - seat) % n)
        if kind == "play":
            ones.append(k + 7 + entry[2])
            if entry[3] >= 0:
                ones.append(k + 7 + 52 + entry[3])
            if entry[4] is not None:
                ones.append(k + 7 + 52 + 4)
        elif kind in ("draw", "penalty"):
            out[k + 7 + 52 + 4 + 1] = min(entry[2] / 10.0, 1.0)
        elif kind == "catch":
            ones.append(b + (entry[2] - seat) % n)
    if ones:
        out[ones] = 1.0
    return out


# The rule options (``rules_in_obs=True`` appends them to the observation), in the
# engine's order of its options (:data:`maumau.engine.options.OPTIONS`), so that a new
# option is encoded without a line here: a flag as 0 or 1, a whole number as where it
# lies in its range (0 at the least, 1 at the most), a choice of two as 0 or 1 (its
# second value), a longer choice one-hot.  With today's options: 22 floats.


def _width(option: Option) -> int:
    return len(option.values) if option.kind == "choice" and len(option.values) > 2 else 1


RULES_SIZE = sum(_width(option) for option in OPTIONS)


def encode_rules(rules: Rules) -> Vector:
    """The rule options as ``RULES_SIZE`` floats in [0, 1] (the same for every seat)."""
    given = rules.to_dict()
    values: list[float] = []
    for option in OPTIONS:
        value = given[option.key]
        if option.kind == "flag":
            values.append(float(value))
        elif option.kind == "int":
            values.append((value - option.low) / (option.high - option.low))
        elif len(option.values) == 2:
            values.append(float(value == option.values[1]))
        else:
            values += [float(value == v) for v in option.values]
    return np.array(values, dtype=np.float32)


def encode_with(view: SeatView, tail: Vector | None) -> Vector:
    """:func:`encode` of ``view``, followed by ``tail`` (the rule options) when given."""
    if tail is None:
        return encode(view)
    out = np.empty(OBS_SIZE + len(tail), dtype=np.float32)
    out[OBS_SIZE:] = tail
    return encode(view, out)
