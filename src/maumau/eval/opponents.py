"""The opponents of the suites, by kind: a bot level of :func:`maumau.bots.make_bot`
(``random``, ``easy``, ``normal``, ``hard``, ``hard:N``), or ``ismcts:N`` /
``ismcts-random:N``, OpenSpiel's ISMCTS bot through :mod:`maumau.env.spiel_bot`
(hard's heuristic rollouts, or uniformly random ones), which needs the ``spiel``
extra: without it, making one raises :class:`OpponentUnavailable` saying so.
``bench/lab/baselines/agents.py`` makes its OpenSpiel kinds here too.
"""

from __future__ import annotations

import importlib

from maumau.bots import Bot, make_bot

#: the module that plays OpenSpiel's ISMCTS as a maumau bot (it needs pyspiel)
SPIEL_MODULE = "maumau.env.spiel_bot"
#: the function it offers: (simulations, seed, rollouts) -> a Bot
SPIEL_FACTORY = "ismcts_agent"
#: the kinds of OpenSpiel's ISMCTS: prefix -> its rollouts
SPIEL_KINDS = {"ismcts": "heuristic", "ismcts-random": "random"}


class OpponentUnavailable(RuntimeError):
    """The kind is known, but what it needs is not installed (or not built yet)."""


def spiel_ismcts(simulations: int, seed: int, rollouts: str = "heuristic") -> Bot:
    """OpenSpiel's own ISMCTS bot, playing through the ``python_maumau`` registration."""
    try:
        module = importlib.import_module(SPIEL_MODULE)
    except ImportError as exc:
        raise OpponentUnavailable(
            f"ismcts needs {SPIEL_MODULE} and pyspiel (the spiel extra: uv sync --extra spiel, "
            f'or pip install ".[spiel]" in the checkout): {exc}'
        ) from None
    factory = getattr(module, SPIEL_FACTORY, None)
    if factory is None:
        raise OpponentUnavailable(
            f"{SPIEL_MODULE} has no {SPIEL_FACTORY}(simulations, seed, rollouts)"
        )
    agent = factory(simulations, seed, rollouts)
    if not isinstance(agent, Bot):
        raise OpponentUnavailable(f"{SPIEL_MODULE}.{SPIEL_FACTORY} did not return a maumau Bot")
    return agent


def budget(name: str, arg: str) -> int:
    """The ``N`` of ``name:N`` (``ValueError`` unless a whole number >= 1)."""
    if not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"{name} needs a budget: {name}:N with N >= 1 simulations, not {arg!r}")
    return int(arg)


def make_opponent(kind: str, seed: int) -> Bot:
    """An opponent of ``kind`` seeded ``seed``: ``ValueError`` for an unknown kind or a
    bad budget, :class:`OpponentUnavailable` when its library is missing."""
    prefix, _, arg = kind.partition(":")
    if prefix in SPIEL_KINDS:
        return spiel_ismcts(budget(prefix, arg), seed, SPIEL_KINDS[prefix])
    return make_bot(kind, seed)


def unavailable(kind: str) -> str | None:
    """``None`` when ``kind`` can be made here, else why not."""
    try:
        make_opponent(kind, 0)
    except OpponentUnavailable as exc:
        return str(exc)
    return None
