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
from maumau.engine.cards import JACK, JACKS
from maumau.engine.round import DRAWN, PLAY, WAIT, Round
from maumau.engine.table import Table, table_for

_STEPS = {"play": PLAY, "drawn": DRAWN, "wait": WAIT}


class WorldSampler:
    """Samples worlds for one decision: the known part is worked out once."""

    def __init__(self, view: SeatView, infer: bool = True) -> None:
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
        #: per seat: (cards it is believed not to hold, how many of its cards that covers)
        self.beliefs = infer_avoidances(view, self.table) if infer else []
        expected = sum(c for s, c in enumerate(view.counts) if s != self.seat) + view.stock_count
        if expected != len(self.unseen):
            raise ValueError(
                f"the view does not add up: {len(self.unseen)} unseen cards for {expected} places"
            )

    def sample(self, rng: random.Random) -> Round:
        """One world; ``rng`` also becomes the world's reshuffle generator."""
        rand = rng.random
        # a uniform random order; cheaper than rng.shuffle's one randbelow per card
        cards = sorted(self.unseen, key=lambda _: rand())
        hands = [0] * len(self.counts)
        hands[self.seat] = self.mine
        slots = list(self.counts)
        slots[self.seat] = 0
        for seat, (avoid, need) in self.beliefs:
            # deal the cards this seat held when it drew from those it could not play then
            rest = []
            hand = 0
            for card in cards:
                if need and not avoid >> card & 1:
                    hand |= 1 << card
                    need -= 1
                else:
                    rest.append(card)
            hands[seat] = hand
            slots[seat] -= hand.bit_count()
            cards = rest
        i = 0
        for seat, count in enumerate(slots):
            hand = hands[seat]
            for card in cards[i : i + count]:
                hand |= 1 << card
            hands[seat] = hand
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


def infer_avoidances(view: SeatView, table: Table) -> list[tuple[int, tuple[int, int]]]:
    """What the public log says about the other hands, assuming sensible players.

    A player who drew a card instead of playing one is taken to have held nothing that
    fitted (apart from a Jack it may have kept); with ``draw_when_able`` off that is
    the rule, otherwise it is how a sensible player plays.  A threatened player who drew
    the Seven sum instead of stacking is taken to have held no Seven.  The belief covers
    the cards the seat held then and still holds: at most its count now, less what it
    has drawn since.  Returns ``(seat, (avoid_mask, cards_covered))`` per seat."""
    seat = view.seat
    rules = view.rules
    n = len(view.counts)
    avoid = [0] * n
    fresh = [0] * n
    has_belief = [False] * n
    reshuffled = any(entry[0] == "reshuffle" for entry in view.log)
    top = -1 if reshuffled else int(view.discard[0])
    named = -1
    pending = 0
    for entry in view.log:
        kind = entry[0]
        if kind == "play":
            top = entry[2]
            named = entry[3] if top % 13 == JACK else -1
            pending += table.effects.draw[top]  # a Seven's draw (engine/effects.py)
        elif kind == "draw":
            who, count = entry[1], entry[2]
            if pending:
                pending = 0
                if table.effects.stack:
                    avoid[who], fresh[who], has_belief[who] = table.effects.stack, count, True
                else:
                    fresh[who] += count
            elif top >= 0:
                keep = 0 if not rules.draw_when_able else JACKS
                fits = table.fits(top, named)
                avoid[who], fresh[who], has_belief[who] = fits & ~keep, count, True
            else:
                fresh[who] += count
        elif kind == "penalty":
            fresh[entry[1]] += entry[2]
    out = []
    for other in range(n):
        if other == seat or not has_belief[other]:
            continue
        need = view.counts[other] - fresh[other]
        if need > 0:
            out.append((other, (avoid[other], need)))
    return out
