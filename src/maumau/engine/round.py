"""One deal of Mau Mau: the state machine of the rule book, from docs/rules.md#cards-and-deal
to docs/rules.md#end-of-a-round.

:class:`Round` holds the hands (bitmasks), the draw pile, the discard pile and the turn,
and changes only through :meth:`Round.apply`.  Scoring across rounds is
:class:`maumau.engine.game.Game`'s business.

Steps of a round:

* ``PLAY``  -- the seat to move plays, draws or passes (catches may come from anyone);
* ``DRAWN`` -- that seat drew a playable card: it plays exactly that card or passes;
* ``WAIT``  -- catch mode: a player went out without "Mau Mau"; the accepting seat
  passes or anyone catches;
* ``OVER``  -- somebody went out.
"""

from __future__ import annotations

import random

from maumau.engine.actions import DRAWS, JACK_PLAYS, PASS, PLAYS, Action, draw_action
from maumau.engine.cards import JACK
from maumau.engine.moves import (
    CALL_INDEX,
    CATCHES,
    DRAWN,
    OVER,
    PLAY,
    STEP_NAMES,
    WAIT,
    LogEntry,
    Moves,
)
from maumau.engine.table import Table

__all__ = ["DRAWN", "OVER", "PLAY", "STEP_NAMES", "WAIT", "LogEntry", "Round"]


def _legal_plays(t: Table, key: int, m: int, ci: int, offer: int) -> tuple[Action, ...]:
    """Build (and memoize) the actions for playable mask ``m``: plays in card order, a
    Jack once per suit, then the offer (0 none, 1 draw one, 2 pass, 3+k draw k)."""
    acts: list[Action] = []
    while m:
        low = m & -m
        c = low.bit_length() - 1
        if c % 13 == JACK:
            acts.extend(JACK_PLAYS[ci][c])
        else:
            acts.append(PLAYS[ci][c])
        m ^= low
    if offer == 1:
        acts.append(DRAWS[1])
    elif offer == 2:
        acts.append(PASS)
    elif offer >= 3:
        acts.append(draw_action(offer - 3))
    result = tuple(acts)
    if len(t.legal_memo) > 200_000:
        t.legal_memo.clear()
    t.legal_memo[key] = result
    return result


class Round(Moves):
    """The state of one deal.  Build with :meth:`deal` or :meth:`from_layout`."""

    __slots__ = ()

    # --- construction ----------------------------------------------------------------

    @classmethod
    def deal(cls, table: Table, players: int, seed: int, leader: int = 0) -> Round:
        """Shuffle the canonical deck with ``random.Random(seed)`` and deal
        (docs/rules.md#cards-and-deal)."""
        rng = random.Random(seed)
        deck = [c for c in range(52) if table.deck >> c & 1]
        rng.shuffle(deck)
        size = table.rules.hand_size
        hands = [deck[i * size : (i + 1) * size] for i in range(players)]
        start = deck[players * size]
        stock = deck[players * size + 1 :]
        return cls._build(table, hands, start, stock, rng, leader)

    @classmethod
    def from_layout(
        cls,
        table: Table,
        hands: list[list[int]],
        start: int,
        stock: list[int],
        seed: int,
        leader: int = 0,
    ) -> Round:
        """A round laid out by hand; ``stock`` is drawn from its first card.  The caller
        has checked that the layout is one deck (see :func:`maumau.engine.game.check_layout`)."""
        return cls._build(table, hands, start, stock, random.Random(seed), leader)

    @classmethod
    def _build(
        cls,
        table: Table,
        hands: list[list[int]],
        start: int,
        stock: list[int],
        rng: random.Random,
        leader: int,
    ) -> Round:
        return cls.from_parts(
            table,
            hands=[sum(1 << c for c in hand) for hand in hands],
            stock=stock[::-1],
            discard=[start],
            named=-1,
            pending=0,
            direction=1,
            turn=leader,
            leader=leader,
            step=PLAY,
            drawn=-1,
            catchable=-1,
            rng=rng,
        )

    @classmethod
    def from_parts(
        cls,
        table: Table,
        *,
        hands: list[int],
        stock: list[int],
        discard: list[int],
        named: int,
        pending: int,
        direction: int,
        turn: int,
        leader: int,
        step: int,
        drawn: int,
        catchable: int,
        rng: random.Random,
    ) -> Round:
        """A round rebuilt from its parts: ``hands`` as bitmasks, ``stock`` with the next
        card to draw LAST, ``discard`` oldest first.  Search bots use this to set up a
        world sampled from what their seat knows; nothing is checked."""
        r = cls.__new__(cls)
        r.t = table
        r.n = len(hands)
        r.hands = hands
        r.stock = stock
        r.discard = discard
        top = discard[-1]
        r.match = table.fits(top, named)
        r.named = named
        r.pending = pending
        r.direction = direction
        r.turn = turn
        r.leader = leader
        r.step = step
        r.drawn = drawn
        r.catchable = catchable
        r.out = -1
        r.rng = rng
        r.log = []
        r.private = [[] for _ in range(r.n)]
        r.actions = []
        return r

    def copy(self, rng: random.Random | None = None, *, history: bool = True) -> Round:
        """An independent copy.  ``rng`` replaces the reshuffle generator (default: an
        exact clone of it); ``history=False`` starts the copy with an empty log, which
        is what a search wants."""
        r = Round.__new__(Round)
        r.t = self.t
        r.n = self.n
        r.hands = self.hands[:]
        r.stock = self.stock[:]
        r.discard = self.discard[:]
        r.match = self.match
        r.named = self.named
        r.pending = self.pending
        r.direction = self.direction
        r.turn = self.turn
        r.leader = self.leader
        r.step = self.step
        r.drawn = self.drawn
        r.catchable = self.catchable
        r.out = self.out
        if rng is None:  # an exact clone (without seeding a generator only to overwrite it)
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
        r.rng = rng
        if history:
            r.log = self.log[:]
            r.private = [p[:] for p in self.private]
            r.actions = self.actions[:]
        else:
            r.log = []
            r.private = [[] for _ in range(r.n)]
            r.actions = []
        return r

    # --- what can be seen ------------------------------------------------------------

    @property
    def top(self) -> int:
        """The top card of the discard pile."""
        return self.discard[-1]

    @property
    def to_move(self) -> int:
        """The seat whose action the round waits for (-1 once it is over).  During a
        catch-mode wait this is the seat that may accept with ``pass``."""
        if self.step == WAIT:
            return self.accepter
        if self.step == OVER:
            return -1
        return self.turn

    # --- legal actions -----------------------------------------------------------------

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """Every action ``seat`` (default: the seat to move) may take now; each playable
        card once with the call that is due, a Jack once per suit
        (docs/rules.md#calling-mau)."""
        step = self.step
        turn = self.turn
        if seat is None or seat == turn:
            if step == PLAY:
                t = self.t
                hand = self.hands[turn]
                ci = CALL_INDEX[hand.bit_count() - 1] if t.mau_mode else 0
                pending = self.pending
                avail = len(self.stock) + len(self.discard) - 1
                if pending:
                    m = hand & t.effects.stack
                    offer = 3 + (pending if pending < avail else avail)
                else:
                    m = hand & self.match
                    offer = (1 if t.draw_when_able or not m else 0) if avail else (0 if m else 2)
                key = m << 10 | offer << 2 | ci
                acts = t.legal_memo.get(key)
                if acts is None:
                    acts = _legal_plays(t, key, m, ci, offer)
                if self.catchable >= 0 and self.catchable != turn:
                    return (*acts, CATCHES[self.catchable])
                return acts
            if step == DRAWN:
                c = self.drawn
                ci = CALL_INDEX[self.hands[turn].bit_count() - 1] if self.t.mau_mode else 0
                if c % 13 == JACK:
                    return (*JACK_PLAYS[ci][c], PASS)
                return (PLAYS[ci][c], PASS)
        if step == OVER:
            return ()
        if seat is None:
            seat = self.to_move
        catchable = self.catchable
        if step == WAIT:
            acts = (PASS,) if seat == self.accepter else ()
            if seat != catchable:
                acts = (*acts, CATCHES[catchable])
            return acts
        if catchable >= 0 and seat != catchable:
            return (CATCHES[catchable],)
        return ()
