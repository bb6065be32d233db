"""How a load client moves: which legal action, and how long it thinks first."""

from __future__ import annotations

import random
from typing import Any

Action = dict[str, Any]

#: what a client does when it can play no card, in this order of preference
FALLBACKS = ("catch", "draw", "pass")


def choose_action(legal: list[Action], rng: random.Random) -> Action:
    """A random card among the playable ones (for a Jack, a random suit), else a
    catch, a draw or a pass.  The server's ``legal`` list already carries the "Mau" /
    "Mau Mau" call that is due, so a play taken from it calls when it must."""
    plays = [a for a in legal if "play" in a]
    if plays:
        cards = list(dict.fromkeys(a["play"] for a in plays))
        card = cards[int(rng.random() * len(cards))]
        variants = [a for a in plays if a["play"] == card]
        return variants[int(rng.random() * len(variants))] if len(variants) > 1 else variants[0]
    for key in FALLBACKS:
        for action in legal:
            if key in action:
                return action
    return legal[0]


def think_mean(games: int, rate: float) -> float:
    """The mean think time T that makes ``games`` tables offer ``rate`` moves/s: one
    seat per table is on turn, so T = games / rate."""
    return games / rate


def think_time(rng: random.Random, mean: float) -> float:
    """A think time drawn uniformly from 0.5 T to 1.5 T (its mean is T)."""
    return mean * (0.5 + rng.random())


class ActionIds:
    """Unique ``action_id`` values: a run nonce, the client process, a counter."""

    def __init__(self, nonce: str, process: int) -> None:
        self.prefix = f"{nonce}{process:x}."
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"{self.prefix}{self.count:x}"
