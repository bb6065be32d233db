"""Draws as chance events: which cards an action draws, decided one card at a time.

The engine draws from the end of its draw pile and reshuffles the discard pile with the
round's generator when the pile runs out.  For OpenSpiel every card drawn is a chance
outcome instead: :func:`plan_draws` works out (on a copy) how many cards an action
draws and from which set each comes (the draw pile; after a reshuffle, the cards that
were under the top card), and :func:`arrange` orders the real piles so that the engine
then draws exactly the chosen cards.  The draw pile's order before a draw therefore
carries no information: it is decided at the moment of drawing.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from typing import Any

from maumau.engine import Action, Pass, Play, Round


class Arranger(random.Random):
    """A round's reshuffle "generator": a reshuffle puts the queued cards first (in
    the order they are to be drawn), the rest in canonical order.  It records the
    reshuffled piles too (for :func:`plan_draws`)."""

    def __init__(self) -> None:
        # not seeded: it never draws a random number (seeding costs 25 us a copy)
        self.gauss_next = None
        self.queue: list[list[int]] = []
        self.piles: list[list[int]] = []

    def shuffle(self, x: MutableSequence[Any], *args: Any) -> None:
        self.piles.append(sorted(x))
        first = self.queue.pop(0) if self.queue else []
        chosen = set(first)
        rest = sorted(c for c in x if c not in chosen)
        # the engine reverses the pile and draws from its end: first[0] comes out first
        x[:] = [*first, *rest]


#: one segment of an action's draws: (the cards it is drawn from, how many)
Segment = tuple[tuple[int, ...], int]


def plan_draws(state: Round, action: Action, seat: int) -> list[Segment]:
    """The draws ``action`` by ``seat`` makes, as segments (empty: it draws nothing).
    Raises ``IllegalAction`` as :meth:`Round.apply` would.  A pass never draws, nor does
    a play the engine lists (it carries the call that is due): those skip the trial."""
    cls = action.__class__
    if cls is Pass or (cls is Play and action in state.legal_actions(seat)):
        return []
    arranger = Arranger()
    trial = state.copy(arranger, history=False)
    before = len(trial.stock)
    stock = tuple(sorted(trial.stock))
    trial.apply(action, seat)
    refilled = sum(len(p) for p in arranger.piles)
    drawn = before + refilled - len(trial.stock)
    segments: list[Segment] = []
    left = drawn
    for cards in (stock, *(tuple(p) for p in arranger.piles)):
        take = min(left, len(cards))
        if take:
            segments.append((cards, take))
        left -= take
    return segments


def arrange(state: Round, segments: Sequence[Segment], chosen: Sequence[int]) -> None:
    """Order ``state``'s draw pile (and queue its reshuffles) so that applying the
    planned action draws ``chosen``, segment by segment."""
    arranger = state.rng if isinstance(state.rng, Arranger) else Arranger()
    state.rng = arranger
    arranger.queue = []
    arranger.piles = []
    parts: list[list[int]] = []
    i = 0
    for _cards, count in segments:
        parts.append(list(chosen[i : i + count]))
        i += count
    if parts and state.stock:  # the first draws come from the pile as it is
        first = parts.pop(0)
        keep = set(first)
        rest = [c for c in state.stock if c not in keep]
        state.stock[:] = [*rest, *reversed(first)]
    arranger.queue = parts
