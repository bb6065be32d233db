"""Sampling a world: the full state of a round, consistent with what one seat knows.

A seat knows its own hand, the discard pile (every card on it was played in public),
every card count, the draw pile's size, the named suit, the pending draw, the
direction and whose move it is.  Every other card is somewhere among the other hands
and the draw pile; :func:`sample_world` deals those unseen cards at random into hands
of the right sizes and a draw pile of the right size, which gives a :class:`Round` the
engine can play on.  Information-set search averages over many such worlds.
"""

from __future__ import annotations

import random

from maumau.engine import SeatView
from maumau.engine.round import DRAWN, PLAY, WAIT, Round
from maumau.engine.table import Table, table_for

_STEPS = {"play": PLAY, "drawn": DRAWN, "wait": WAIT}


class WorldSampler:
    """Samples worlds for one decision: the known part is worked out once."""

    def __init__(self, view: SeatView) -> None:
        if view.seat is None:
            raise ValueError("a spectator has no hand to search from")
        if view.step not in _STEPS:
            raise ValueError(f"nothing to decide: the round is {view.step}")
        self.view = view
        self.seat = view.seat
        self.table: Table = table_for(view.rules)
        mine = 0
        for card in view.hand:
            mine |= 1 << card
        self.mine = mine
        known = mine
        for card in view.discard:
            known |= 1 << card
        deck = self.table.deck
        self.unseen = [c for c in range(52) if deck >> c & 1 and not known >> c & 1]
        self.counts = view.counts
        self.discard = [int(c) for c in view.discard]
        self.step = _STEPS[view.step]
        self.drawn = int(view.drawn) if view.drawn is not None else -1
        # during a catch-mode wait the view's seat to move is the accepting seat; search
        # never plays on from a wait (a bot catches), so that is turn enough
        self.turn = view.to_move
        expected = sum(c for s, c in enumerate(view.counts) if s != self.seat) + view.stock_count
        if expected != len(self.unseen):
            raise ValueError(
                f"the view does not add up: {len(self.unseen)} unseen cards for {expected} places"
            )

    def sample(self, rng: random.Random) -> Round:
        """One world; ``rng`` also becomes the world's reshuffle generator."""
        cards = self.unseen[:]
        rng.shuffle(cards)
        hands = []
        i = 0
        for seat, count in enumerate(self.counts):
            if seat == self.seat:
                hands.append(self.mine)
                continue
            hand = 0
            for card in cards[i : i + count]:
                hand |= 1 << card
            hands.append(hand)
            i += count
        view = self.view
        return Round.from_parts(
            self.table,
            hands=hands,
            stock=cards[i:],
            discard=self.discard[:],
            named=-1 if view.named_suit is None else view.named_suit,
            pending=view.pending,
            direction=view.direction,
            turn=self.turn,
            leader=view.leader,
            step=self.step,
            drawn=self.drawn,
            catchable=-1 if view.catchable is None else view.catchable,
            rng=rng,
        )
