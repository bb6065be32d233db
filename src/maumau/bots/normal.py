"""The ``normal`` level: a sound heuristic player.

It plays whenever it can, sheds expensive cards first when cards left in hand cost
points (Jacks and Aces most), keeps a Jack for when it is stuck but dumps it once
somebody is about to go out, hits a player who is close to going out with Sevens and
Eights (or a skipping Ace), stacks Sevens rather than drawing, names the suit it holds
most, always makes its calls and catches every missed call it sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from maumau.bots.base import Bot, fallback, plays_of
from maumau.engine import Action, Catch, Pass, Play, SeatView
from maumau.engine.cards import JACK, Card
from maumau.engine.effects import DRAW, REVERSE, SKIP
from maumau.engine.table import table_for

SCORING_MODES = ("penalty", "deals", "reward")


class NormalBot(Bot):
    """A heuristic player worth playing against."""

    level = "normal"

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        catch = next((a for a in legal if isinstance(a, Catch)), None)
        if catch is not None:
            return catch
        plays = plays_of(legal)
        if not plays:
            return fallback(legal)
        if view.step == "drawn":
            return self._drawn(view, plays, legal)
        if view.pending:  # only Sevens are offered: stacking passes the sum on
            return plays[0]
        return self._best_play(view, plays, legal)

    # --- decisions ---------------------------------------------------------------------

    def _drawn(self, view: SeatView, plays: list[Play], legal: Sequence[Action]) -> Action:
        """Play the card just drawn, except a Jack that is worth keeping for later."""
        card = plays[0].card
        if card.rank == JACK and len(view.hand) > 3 and not self._danger(view):
            return next(a for a in legal if isinstance(a, Pass))
        return self._with_suit(view, plays[0]) if card.rank == JACK else plays[0]

    def _best_play(self, view: SeatView, plays: list[Play], legal: Sequence[Action]) -> Action:
        seat = view.seat
        assert seat is not None
        scoring = view.rules.scoring in SCORING_MODES
        table = table_for(view.rules)
        values, effect_of = table.values, table.effects.effect
        danger = self._danger(view)
        n = len(view.counts)
        nxt = (seat + view.direction) % n
        next_close = view.counts[nxt] <= 2
        suits = [0, 0, 0, 0]
        for c in view.hand:
            if c.rank != JACK:
                suits[c.suit] += 1
        non_jacks = [p for p in plays if p.card.rank != JACK]
        best: Play | None = None
        best_score = -1e9
        for play in non_jacks:
            card = play.card
            score = 2.0 * (suits[card.suit] - 1)  # keep a suit we can follow up with
            if scoring:
                score += values[card] * (1.5 if danger else 0.6)
            effect = effect_of[card]  # the action cards (engine/effects.py)
            if effect == DRAW:
                score += 25.0 if next_close else 3.0
            elif effect == SKIP:
                score += 25.0 if next_close else 2.0
            elif effect == REVERSE and n > 2:
                prev = (seat - view.direction) % n
                if next_close and view.counts[prev] > 2:
                    score += 20.0
            if score > best_score:
                best, best_score = play, score
        if best is not None:
            return best
        # only Jacks fit: we are stuck, which is what the Jack was kept for -- but with a
        # big hand and time left, a draw may find another card first
        if (
            len(view.hand) > 4
            and not danger
            and view.stock_count > 2
            and any(not isinstance(a, Play) for a in legal)
            and not scoring
        ):
            return fallback(legal)
        return self._with_suit(view, plays[0])

    def _with_suit(self, view: SeatView, play: Play) -> Play:
        """The same Jack naming the suit this seat holds most (by count, then value)."""
        rest = [c for c in view.hand if c != play.card and c.rank != JACK]
        return Play(play.card, _best_suit(rest, play.card), play.call)

    @staticmethod
    def _danger(view: SeatView) -> bool:
        """Is an opponent about to go out?"""
        return any(count <= 2 for seat, count in enumerate(view.counts) if seat != view.seat)


def suit_preference(cards: Sequence[Card]) -> list[int]:
    """Suits ordered by how many of ``cards`` are of them (then by rank sum)."""
    counts = [0, 0, 0, 0]
    ranks = [0, 0, 0, 0]
    for c in cards:
        counts[c.suit] += 1
        ranks[c.suit] += c.rank
    return sorted(range(4), key=lambda s: (-counts[s], -ranks[s], s))


def _best_suit(cards: Sequence[Card], jack: Card) -> int:
    return suit_preference(cards)[0] if cards else jack.suit
