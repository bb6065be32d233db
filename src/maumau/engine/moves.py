"""How a round changes: the checked actions (play, draw, pass, catch) and the piles.

:class:`Moves` is the half of :class:`maumau.engine.round.Round` that applies actions;
``round.py`` holds the other half (construction, copies, what can be seen, legal
actions).  Every method here either changes the round as the rule book (docs/rules.md)
says or raises :class:`IllegalAction` with a stable code and changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from maumau.engine.actions import (
    CALLS,
    DRAWS,
    MAX_SEATS,
    PASS,
    SEATED_DRAWS,
    SEATED_JACK_PLAYS,
    SEATED_PLAYS,
    Action,
    Catch,
    Draw,
    Pass,
    Play,
)
from maumau.engine.cards import CODES, JACK, SUIT_NAMES, SUITS
from maumau.engine.effects import DRAW, SKIP, WISH
from maumau.engine.errors import IllegalAction
from maumau.engine.table import MAU_AUTO, MAU_CATCH, Table

PLAY, DRAWN, WAIT, OVER = 0, 1, 2, 3
STEP_NAMES = ("play", "drawn", "wait", "over")

#: call index due when ``n`` cards are left after a play: 2 "maumau", 1 "mau", 0 none
CALL_INDEX = (2, 1) + (0,) * 60
CATCHES = tuple(Catch(s) for s in range(MAX_SEATS))
#: the ``(seat, action)`` pairs of passes and catches (see ``SEATED_PLAYS``)
SEATED_PASS = tuple((seat, PASS) for seat in range(MAX_SEATS))
SEATED_CATCHES = tuple(tuple((seat, c) for c in CATCHES) for seat in range(MAX_SEATS))

# The public log: tuples whose first item says what happened.
#   ("play", seat, card, suit|-1, call, skipped|-1, reversed)    ("draw", seat, count)
#   ("penalty", seat, count, reason, catcher|-1)                 ("pass", seat, how)
#   ("catch", seat, target)                ("reshuffle", count)      ("out", seat)
# ``skipped``: the seat an Eight or Ace skipped; ``reversed``: a Nine reversed the
# direction (neither when the card ended the round: its effect lapses; while a
# catch-mode round waits after a last card without "Mau Mau" they stay, as they apply
# if it is caught).  A penalty's ``reason`` is one of PENALTY_REASONS; ``catcher`` the
# seat that caught it.  A pass's ``how``: "kept" (kept the card just drawn), "accept"
# (let a player go out without "Mau Mau" in catch mode), or "" (could neither play
# nor draw).
# What was drawn is kept apart, in ``Round.private``: (log index, seat, cards).
LogEntry = tuple[Any, ...]

#: why a penalty was drawn: a due call was missing, a call was not due (or was the
#: wrong word), or an opponent caught a missing call
MISSED, FALSE, CAUGHT = "missed", "false", "caught"
PENALTY_REASONS = (MISSED, FALSE, CAUGHT)


def refill_stock(stock: list[int], discard: list[int], shuffle: Callable[[list[int]], None]) -> int:
    """Shuffle the discard pile under its top card into the (empty) draw pile, oldest
    card first (docs/rules.md#cards-and-deal); returns how many cards it holds now."""
    pile = discard[:-1]
    del discard[:-1]
    shuffle(pile)
    pile.reverse()  # the stock is drawn from its end
    stock.extend(pile)
    return len(pile)


class Moves:
    """The state of a round and the actions that change it (the base of
    :class:`maumau.engine.round.Round`)."""

    __slots__ = (
        "actions",
        "catchable",
        "direction",
        "discard",
        "drawn",
        "hands",
        "leader",
        "log",
        "match",
        "n",
        "named",
        "out",
        "pending",
        "private",
        "rng",
        "step",
        "stock",
        "t",
        "turn",
    )

    t: Table
    n: int
    hands: list[int]
    stock: list[int]  # reversed: the next card to draw is stock[-1]
    discard: list[int]  # oldest first: the top card is discard[-1]
    match: int
    named: int
    pending: int
    direction: int
    turn: int
    step: int
    drawn: int
    catchable: int
    out: int
    leader: int
    rng: random.Random
    log: list[LogEntry]
    #: per seat, what it drew this round: (log index, cards) for each of its draws
    private: list[list[tuple[int, tuple[int, ...]]]]
    actions: list[tuple[int, Action]]

    @property
    def accepter(self) -> int:
        """During a catch-mode wait: the seat that may accept with ``pass``."""
        turn = self.turn
        if turn == self.catchable:  # two players and a skip: the other player accepts
            return (turn + 1) % self.n
        return turn

    # --- applying actions ----------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for ``seat`` (default: the seat to move), or raise
        :class:`IllegalAction` with a stable code and change nothing."""
        cls = action.__class__
        if cls is Catch:
            if self.step == OVER:
                raise IllegalAction("round_over", f"the round is over: seat {self.out} went out")
            if seat is None:
                raise IllegalAction("not_your_turn", "a catch must say which seat catches")
            self._catch(seat, action.target)  # type: ignore[attr-defined]
            return
        if self.step >= WAIT:
            self._apply_waiting(action, seat)
            return
        turn = self.turn
        if seat is None:
            seat = turn
        elif seat != turn:
            if not 0 <= seat < self.n:
                raise IllegalAction(
                    "not_your_turn", f"there is no seat {seat}: seats are 0..{self.n - 1}"
                )
            raise IllegalAction("not_your_turn", f"seat {seat} acted, but it is seat {turn}'s turn")
        if cls is Play:
            self._play(seat, action)  # type: ignore[arg-type]
        elif cls is Draw:
            self._draw_action(seat, action.count)  # type: ignore[attr-defined]
        elif cls is Pass:
            self._pass(seat)
        else:
            raise TypeError(f"not an action: {action!r}")

    def _apply_waiting(self, action: Action, seat: int | None) -> None:
        if self.step == OVER:
            raise IllegalAction("round_over", f"the round is over: seat {self.out} went out")
        accepter = self.accepter
        if seat is None:
            seat = accepter
        if seat != accepter:
            raise IllegalAction(
                "not_your_turn",
                f"seat {seat} acted, but the round waits for seat {accepter} to accept "
                f"seat {self.catchable} going out, or for a catch",
            )
        if action.__class__ is not Pass:
            raise IllegalAction(
                "must_pass",
                f"seat {self.catchable} played its last card without 'Mau Mau': seat "
                f"{seat} may only pass (accept) or catch seat {self.catchable}",
            )
        self.actions.append(SEATED_PASS[seat])
        self.log.append(("pass", seat, "accept"))
        self._finish(self.catchable)

    def _play(self, seat: int, action: Play) -> None:
        card = action.card
        bit = 1 << card
        hand = self.hands[seat]
        suit = action.suit
        rank = card % 13
        if not (
            hand & bit
            and self.match & bit
            and not self.pending
            and self.step == PLAY
            and (suit is None) is (rank != JACK)
        ):
            self._check_play(seat, card, suit)
        t = self.t
        hand ^= bit
        self.hands[seat] = hand
        self.discard.append(card)
        effect = t.effects.effect[card]
        if effect == WISH:
            self.match = t.named[suit]  # type: ignore[index]
            self.named = suit  # type: ignore[assignment]
        else:
            self.match = t.match[card]
            self.named = -1
        self.step = PLAY
        self.drawn = -1
        self.catchable = -1
        direction = self.direction
        skipped, reversed_ = -1, False
        if effect < DRAW:  # PLAIN or WISH: the next seat moves
            self.turn = (seat + direction) % self.n
        elif effect == DRAW:
            self.pending += t.effects.draw[card]
            self.turn = (seat + direction) % self.n
        elif effect == SKIP:
            skipped = (seat + direction) % self.n
            self.turn = (seat + 2 * direction) % self.n
        else:  # REVERSE
            self.direction = -direction
            self.turn = (seat - direction) % self.n
            reversed_ = True
        call = action.call
        played = len(self.log)
        self.log.append(
            ("play", seat, card, -1 if suit is None else suit, call, skipped, reversed_)
        )
        ci = CALLS.index(call)
        if suit is None:
            self.actions.append(SEATED_PLAYS[seat][ci][card])
        else:
            self.actions.append(SEATED_JACK_PLAYS[seat][ci][card][suit])
        mode = t.mau_mode
        if not mode:
            if not hand:
                self._went_out(seat, played)
            return
        left = hand.bit_count()
        if left > 1:
            if call is not None and mode == MAU_AUTO:  # a call when none is due
                self._penalty(seat, FALSE)
            return
        due = "mau" if left else "maumau"
        if mode == MAU_AUTO:
            if call != due:
                self._penalty(seat, MISSED if call is None else FALSE)
                if not self.hands[seat]:
                    self._went_out(seat, played)
            elif not left:
                self._went_out(seat, played)
        elif call != due:  # catch mode: a missing (or wrong) call waits to be caught
            self.catchable = seat
            if not left:
                self.step = WAIT
        elif not left:
            self._went_out(seat, played)

    def _went_out(self, seat: int, played: int) -> None:
        """``seat`` went out with the play logged at ``played``: the card's skip or
        reverse lapses with the round, so its entry no longer says it had one."""
        entry = self.log[played]
        if entry[5] >= 0 or entry[6]:
            self.log[played] = (*entry[:5], -1, False)
        self._finish(seat)

    def _penalty(self, seat: int, reason: str, catcher: int = -1) -> None:
        """``seat`` draws the Mau penalty, logged with its reason (and its catcher)."""
        cards = self._draw(seat, self.t.penalty_cards)
        self.private[seat].append((len(self.log), cards))
        self.log.append(("penalty", seat, len(cards), reason, catcher))

    def _check_play(self, seat: int, card: int, suit: int | None) -> None:
        """Raise the reason a play is refused, or return if it is legal after all (a
        stacked Seven, the card just drawn)."""
        if not self.hands[seat] >> card & 1:
            raise IllegalAction("card_not_in_hand", f"seat {seat} does not hold {CODES[card]}")
        rank = card % 13
        if rank == JACK:
            if suit is None:
                raise IllegalAction("suit_required", f"a Jack ({CODES[card]}) must name a suit")
        elif suit is not None:
            raise IllegalAction("bad_suit", f"only a Jack names a suit; {CODES[card]} cannot")
        if self.pending:
            stack = self.t.effects.stack
            if not stack >> card & 1:
                what = "or play a Seven" if stack else "(Sevens do not stack)"
                raise IllegalAction(
                    "must_draw",
                    f"seat {seat} must draw {self.pending} {what}, not play {CODES[card]}",
                )
        elif self.step == DRAWN:
            if card != self.drawn:
                raise IllegalAction(
                    "card_not_playable",
                    f"after drawing, seat {seat} may play only the card drawn "
                    f"({CODES[self.drawn]}) or pass, not {CODES[card]}",
                )
        elif not self.match >> card & 1:
            raise IllegalAction("card_not_playable", self._why_not_playable(card))

    def _why_not_playable(self, card: int) -> str:
        top = self.discard[-1]
        if top % 13 == JACK and card % 13 == JACK:
            return f"{CODES[card]} may not go on a Jack ({CODES[top]}): jack_on_jack is off"
        if self.named >= 0:
            return (
                f"{CODES[card]} does not follow the suit named with {CODES[top]}: "
                f"{SUIT_NAMES[self.named]} ({SUITS[self.named]})"
            )
        if top % 13 == JACK:
            return f"{CODES[card]} may not go on the start Jack {CODES[top]}"
        return f"{CODES[card]} matches neither the suit nor the rank of {CODES[top]}"

    def _draw_action(self, seat: int, count: int | None) -> None:
        if self.step == DRAWN:
            raise IllegalAction(
                "already_drawn", f"seat {seat} has drawn already: play {CODES[self.drawn]} or pass"
            )
        pending = self.pending
        avail = len(self.stock) + len(self.discard) - 1
        if pending:
            due = pending if pending < avail else avail
            if count is not None and count != due:
                raise IllegalAction("wrong_draw_count", f"seat {seat} must draw {due}, not {count}")
            self.pending = 0
            self.catchable = -1
            self._log_draw("draw", seat, self._draw(seat, due))
            self.turn = (seat + self.direction) % self.n
            self.actions.append(SEATED_DRAWS[seat][due] if due < len(DRAWS) else (seat, Draw(due)))
            return
        if not avail:
            raise IllegalAction("cannot_draw", f"there is no card left to draw for seat {seat}")
        if not self.t.draw_when_able and self.hands[seat] & self.match:
            raise IllegalAction(
                "must_play", f"seat {seat} holds a playable card and draw_when_able is off"
            )
        if count is not None and count != 1:
            raise IllegalAction("wrong_draw_count", f"seat {seat} must draw 1, not {count}")
        self.catchable = -1
        stock = self.stock
        if not stock:
            self._reshuffle()
        card = stock.pop()
        self.hands[seat] |= 1 << card
        self.private[seat].append((len(self.log), (card,)))
        self.log.append(("draw", seat, 1))
        self.actions.append(SEATED_DRAWS[seat][1])
        if self.match >> card & 1:
            self.step = DRAWN
            self.drawn = card
        else:
            self.turn = (seat + self.direction) % self.n

    def _pass(self, seat: int) -> None:
        how = ""
        if self.step == DRAWN:
            self.step = PLAY
            self.drawn = -1
            how = "kept"
        elif self.pending:
            raise IllegalAction("cannot_pass", f"seat {seat} must draw {self.pending}, not pass")
        elif self.hands[seat] & self.match:
            raise IllegalAction("cannot_pass", f"seat {seat} can play a card and may not pass")
        elif len(self.stock) + len(self.discard) > 1:
            raise IllegalAction("cannot_pass", f"seat {seat} can draw a card and may not pass")
        self.catchable = -1
        self.turn = (seat + self.direction) % self.n
        self.log.append(("pass", seat, how))
        self.actions.append(SEATED_PASS[seat])

    def _catch(self, seat: int, target: int) -> None:
        if not 0 <= seat < self.n:
            raise IllegalAction("nothing_to_catch", f"there is no seat {seat}")
        if self.t.mau_mode != MAU_CATCH:
            raise IllegalAction(
                "nothing_to_catch", "catching is only played with mau_penalty: catch"
            )
        if self.catchable < 0:
            raise IllegalAction("nothing_to_catch", "nobody has missed a call that can be caught")
        if target != self.catchable:
            raise IllegalAction(
                "nothing_to_catch", f"seat {target} missed no call; seat {self.catchable} did"
            )
        if seat == target:
            raise IllegalAction("nothing_to_catch", f"seat {seat} cannot catch itself")
        self.catchable = -1
        self.log.append(("catch", seat, target))
        self._penalty(target, CAUGHT, seat)
        self.actions.append(SEATED_CATCHES[seat][target])
        if self.step == WAIT:
            if self.hands[target]:
                self.step = PLAY
            else:
                self._finish(target)

    # --- the piles -----------------------------------------------------------------

    def _draw(self, seat: int, count: int) -> tuple[int, ...]:
        stock = self.stock
        got = []
        for _ in range(count):
            if not stock:
                if len(self.discard) < 2:
                    break
                self._reshuffle()
            got.append(stock.pop())
        hand = self.hands[seat]
        for card in got:
            hand |= 1 << card
        self.hands[seat] = hand
        return tuple(got)

    def _log_draw(self, kind: str, seat: int, cards: tuple[int, ...]) -> None:
        """Log a draw in public as a count; the cards go to the drawer's private log."""
        self.private[seat].append((len(self.log), cards))
        self.log.append((kind, seat, len(cards)))

    def _reshuffle(self) -> None:
        self.log.append(("reshuffle", refill_stock(self.stock, self.discard, self.rng.shuffle)))

    def _finish(self, seat: int) -> None:
        self.out = seat
        self.step = OVER
        self.pending = 0
        self.catchable = -1
        self.drawn = -1
        self.log.append(("out", seat))
