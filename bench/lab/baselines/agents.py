"""Agent kinds: a name such as ``hard`` or ``ismcts:1000`` that makes a player.

A kind is resolved by its prefix (the text before ``:``) through :data:`KINDS`; the
rest is the kind's argument (``hard:500``: 500 simulations per decision).  Every agent
is a :class:`maumau.bots.Bot`: it decides from its seat's view and legal actions only.
Kinds whose code needs an optional dependency import it when they are first made, and
raise :class:`AgentUnavailable` with a message saying what is missing.  Any other
``module:function`` is a policy of :mod:`maumau.eval.policy` (a callable of
``maumau_v0``'s observation and mask, or a ``maumau.bots.Bot``).
"""

from __future__ import annotations

import importlib  # (the tests stand in for it, to see a missing OpenSpiel named)
from collections.abc import Callable
from dataclasses import dataclass

from maumau.bots import LEVELS, Bot, make_bot
from maumau.bots.hard import DEFAULT_SIMULATIONS
from maumau.eval.opponents import OpponentUnavailable, budget, spiel_ismcts
from maumau.eval.policy import PolicyError, as_bot, load_policy

__all__ = ["KINDS", "AgentUnavailable", "Kind", "available", "importlib", "make_agent"]


#: the kind is known, but what it needs is not installed (maumau.eval's own error)
AgentUnavailable = OpponentUnavailable


#: makes an agent of one kind: (the text after ``:`` or "", seed) -> Bot
Factory = Callable[[str, int], Bot]


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of agent: how to make it and what it is, for the report."""

    factory: Factory
    about: str


def _ours(level: str) -> Factory:
    def make(arg: str, seed: int) -> Bot:
        return make_bot(f"{level}:{arg}" if arg else level, seed)

    return make


def _lab_ismcts(arg: str, seed: int) -> Bot:
    from lab.ismcts import IsmctsBot  # bench/ is on the path of the scripts and tests

    return IsmctsBot(seed, simulations=budget("lab-ismcts", arg))


def _spiel_ismcts(arg: str, seed: int, rollouts: str = "heuristic") -> Bot:
    """OpenSpiel's own ISMCTS bot (:func:`maumau.eval.opponents.spiel_ismcts`)."""
    return spiel_ismcts(budget("ismcts", arg), seed, rollouts)


KINDS: dict[str, Kind] = {
    **{level: Kind(_ours(level), f"maumau.bots {level}") for level in LEVELS if level != "hard"},
    "hard": Kind(
        _ours("hard"), f"maumau.bots hard, {DEFAULT_SIMULATIONS:,} simulations per decision"
    ),
    "lab-ismcts": Kind(_lab_ismcts, "bench/lab/ismcts.py IsmctsBot (ours, research)"),
    "ismcts": Kind(
        _spiel_ismcts, "OpenSpiel ISMCTSBot via maumau.env.spiel_bot, hard's heuristic rollouts"
    ),
    "ismcts-random": Kind(
        lambda arg, seed: _spiel_ismcts(arg, seed, "random"),
        "OpenSpiel ISMCTSBot via maumau.env.spiel_bot, uniformly random rollouts",
    ),
}


def make_agent(kind: str, seed: int) -> Bot:
    """An agent of ``kind`` (``hard``, ``hard:500``, ``ismcts:1000``...) seeded ``seed``.
    An unknown kind or a bad argument raises ``ValueError``; a kind whose optional
    dependency is missing raises :class:`AgentUnavailable`."""
    prefix, _, arg = kind.partition(":")
    entry = KINDS.get(prefix)
    if entry is not None:
        return entry.factory(arg, seed)
    if arg:  # module:function, a policy of maumau.eval (or a Bot)
        try:
            return as_bot(load_policy(kind), seed)
        except PolicyError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError(
        f"unknown agent kind {kind!r}; the kinds are: {', '.join(KINDS)}, "
        "or a policy as module:function"
    )


def available(kind: str) -> str | None:
    """``None`` when ``kind`` can be made here, else why not (the message to print)."""
    try:
        make_agent(kind, 0)
    except AgentUnavailable as exc:
        return str(exc)
    return None
