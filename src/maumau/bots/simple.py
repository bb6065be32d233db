"""The two simplest levels: ``random`` (a baseline) and ``easy`` (a casual player)."""

from __future__ import annotations

from collections.abc import Sequence

from maumau.bots.base import Bot, fallback, plays_of
from maumau.engine import Action, Catch, Play, SeatView


class RandomBot(Bot):
    """Uniform over the legal actions; out of turn it catches half the time."""

    level = "random"

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        return legal[int(self.rng.random() * len(legal))]

    def react(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        catch = super().react(view, legal)
        return catch if self.rng.random() < 0.5 else None


class EasyBot(Bot):
    """Plays a matching card when it has one (any of them), names a suit it holds, and
    now and then forgets to call "Mau" like a casual player."""

    level = "easy"
    forget_rate = 0.25

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        catch = next((a for a in legal if isinstance(a, Catch)), None)
        if catch is not None and self.rng.random() < 0.5:
            return catch
        plays = plays_of(legal)
        if not plays:
            return fallback(legal)
        play = plays[int(self.rng.random() * len(plays))]
        if play.suit is not None:  # a Jack: name a suit it holds, if any
            held = [c.suit for c in view.hand if c != play.card and c.rank != 9]
            if held:
                play = Play(play.card, held[int(self.rng.random() * len(held))], play.call)
        if play.call is not None and self.rng.random() < self.forget_rate:
            play = Play(play.card, play.suit, None)
        return play

    def react(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        return super().react(view, legal) if self.rng.random() < 0.5 else None
