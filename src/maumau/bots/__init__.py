"""Computer players.  Each sees only what its seat may see (a ``SeatView``).

>>> from maumau.bots import make_bot
>>> bot = make_bot("hard", seed=1)
>>> action = bot.choose(game.view(seat), game.legal_actions(seat))   # doctest: +SKIP
"""

from __future__ import annotations

from maumau.bots.base import Bot
from maumau.bots.hard import HardBot
from maumau.bots.normal import NormalBot
from maumau.bots.simple import EasyBot, RandomBot

LEVELS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of ``level``: ``random``, ``easy``, ``normal`` or ``hard``; ``hard:N``
    searches ``N`` simulations per decision instead of the default."""
    name, _, budget = level.partition(":")
    if name not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(LEVELS)}")
    if not budget:
        return LEVELS[name](seed)
    if name != "hard" or not budget.isdigit() or int(budget) < 1:
        raise ValueError(f"bot level {level!r}: only hard takes a budget, as hard:N with N >= 1")
    return HardBot(seed, simulations=int(budget))


__all__ = ["LEVELS", "Bot", "EasyBot", "HardBot", "NormalBot", "RandomBot", "make_bot"]
