"""The fixed, discrete action space of the research environments (docs/research.md).

=============  =====================================================================
index          action
=============  =====================================================================
0 .. 51        play card ``index`` (not a Jack) with the call that is due
52 .. 67       play the Jack of suit ``(index - 52) // 4`` naming suit ``(index - 52) % 4``
               with the call that is due
68 .. 135      the same 68 plays *without* the call that is due ("silent"; catch mode only)
136            draw (as many cards as the rules make the seat draw)
137            pass
138 .. 144     catch the seat ``index - 137`` places after the acting seat
=============  =====================================================================

Indices 9, 22, 35 and 48 (the Jacks in the first block) are never legal: a Jack is
always played with the suit it names.  The space is the same for every rule set and
player count, so one network can be trained across them.  Pure Python (no numpy).
"""

from __future__ import annotations

from maumau.engine import Action, Catch, Draw, Pass, Play
from maumau.engine.actions import MAX_SEATS
from maumau.engine.cards import CODES, JACK, SUITS

PLAYS = 68
SILENT = PLAYS
DRAW = 2 * PLAYS
PASS = DRAW + 1
CATCH = PASS + 1
#: the size of the action space
ACTION_COUNT = CATCH + MAX_SEATS - 1

Legal = dict[int, Action]


def play_index(card: int, suit: int | None) -> int:
    """The index of a play of ``card`` (naming ``suit`` when it is a Jack)."""
    if card % 13 == JACK:
        if suit is None:
            raise ValueError(f"a Jack ({CODES[card]}) must name a suit")
        return 52 + 4 * (int(card) // 13) + suit
    return int(card)


def legal_indices(legal: tuple[Action, ...], seat: int, n: int, silent: bool) -> Legal:
    """Index -> engine action for ``seat``'s legal actions ``legal``; ``silent`` adds
    the plays without the due call (catch mode)."""
    out: Legal = {}
    for action in legal:
        cls = action.__class__
        if cls is Play:
            index = play_index(action.card, action.suit)  # type: ignore[attr-defined]
            out[index] = action
            if silent and action.call is not None:  # type: ignore[attr-defined]
                out[index + SILENT] = Play(action.card, action.suit)  # type: ignore[attr-defined]
        elif cls is Draw:
            out[DRAW] = action
        elif cls is Pass:
            out[PASS] = action
        elif cls is Catch:
            out[CATCH + (action.target - seat) % n - 1] = action  # type: ignore[attr-defined]
    return out


def describe(index: int) -> str:
    """A readable name of an action index, e.g. ``play JC>H`` or ``catch +1``."""
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"action {index!r} is outside the action space 0..{ACTION_COUNT - 1}")
    if index >= CATCH:
        return f"catch +{index - CATCH + 1}"
    if index == DRAW:
        return "draw"
    if index == PASS:
        return "pass"
    silent = index >= SILENT
    base = index - SILENT if silent else index
    if base < 52:
        text = f"play {CODES[base]}"
    else:
        jack = (base - 52) // 4 * 13 + JACK
        text = f"play {CODES[jack]}>{SUITS[(base - 52) % 4]}"
    return text + (" (silent)" if silent else "")
