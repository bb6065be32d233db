"""What may be evaluated: a policy over ``maumau_v0``'s observations, or a bot.

A *policy* is any callable ``policy(observation, mask) -> action``: ``observation`` is
the seat's vector of :mod:`maumau.env.encoding` (``float32[364]``, as ``maumau_v0``
observes it), ``mask`` the legal actions (``int8[145]``, 1 for legal, as
``maumau_v0``'s ``action_mask``), and the action an index of
:mod:`maumau.env.actions` (an ``int`` or a numpy integer).  :class:`PolicyBot` plays
it at our tables: it encodes its seat's view and legal actions exactly as the
environment does, and refuses an index that is not legal (:class:`IllegalPolicyAction`,
naming it and the legal ones).  Out of turn, a ``PolicyBot`` catches a missed call as
every bot does (``maumau_v0`` offers no out-of-turn catches to learn).

A :class:`maumau.bots.Bot` instance plays as it is; a ``Bot`` subclass is made anew for
each match with the match's seed (so its decisions do not depend on the order of the
matches).  :func:`load_policy` reads a policy named on a command line:
``module:function`` (``module:object.attribute`` for a nested one), or a bot level of
:func:`maumau.bots.make_bot` (``normal``, ``hard:500``) or OpenSpiel's ``ismcts:N``.
numpy is imported only when a policy is made (the ``rl`` extra).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from maumau.bots import LEVELS, Bot
from maumau.engine import Action, SeatView
from maumau.env.actions import describe, legal_indices
from maumau.eval.opponents import SPIEL_KINDS, OpponentUnavailable, make_opponent

if TYPE_CHECKING:
    from collections.abc import Sequence

#: a policy: (observation float32[364], mask int8[145]) -> action index
Policy = Callable[[Any, Any], Any]


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level of :func:`maumau.bots.make_bot` (``normal``, ``hard:500``), or
    OpenSpiel's ``ismcts:N``, as an entrant: made anew, with the match's seed, for each
    match."""

    name: str


#: what :func:`maumau.eval.evaluate` takes: a policy, a bot, a bot class, or a level
Entrant = Policy | Bot | type[Bot] | Level


class PolicyError(ValueError):
    """A policy that cannot be loaded or played (the message says why)."""


class IllegalPolicyAction(PolicyError):
    """The policy chose an action that is not legal at that moment."""


class PolicyBot(Bot):
    """A policy over ``maumau_v0``'s observations, seated at our tables as a bot."""

    level = "policy"

    def __init__(self, policy: Policy, seed: int | None = None) -> None:
        super().__init__(seed)
        import numpy as np

        from maumau.env.actions import ACTION_COUNT
        from maumau.env.encoding import encode

        self.policy = policy
        self._np = np
        self._encode = encode
        self._count = ACTION_COUNT

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        if seat is None:
            raise ValueError("a policy plays a seat, not a spectator's view")
        # plays without the due call are actions only in catch mode (as in maumau_v0)
        silent = view.rules.mau_penalty == "catch"
        indices = legal_indices(tuple(legal), seat, len(view.counts), silent)
        mask = self._np.zeros(self._count, dtype=self._np.int8)
        mask[list(indices)] = 1
        chosen = self.policy(self._encode(view), mask)
        index = _index_of(chosen)
        action = indices.get(index) if index is not None else None
        if action is None:
            shown = ", ".join(f"{i} ({describe(i)})" for i in sorted(indices))
            raise IllegalPolicyAction(
                f"the policy chose {chosen!r}, which is not a legal action now; legal: {shown}"
            )
        return action

    def __repr__(self) -> str:
        return f"PolicyBot({name_of(self.policy)})"


def _index_of(chosen: object) -> int | None:
    """``chosen`` as an action index, if it is a whole number (a numpy integer, or a
    0-d or one-element integer array, included)."""
    if isinstance(chosen, bool):
        return None
    item = getattr(chosen, "item", None)
    if callable(item) and getattr(chosen, "size", 1) == 1:
        chosen = item()
    return chosen if isinstance(chosen, int) and not isinstance(chosen, bool) else None


def as_bot(entrant: Entrant, seed: int) -> Bot:
    """The bot that plays ``entrant`` in one match seeded ``seed``."""
    if isinstance(entrant, Bot):
        return entrant
    if isinstance(entrant, Level):
        return make_opponent(entrant.name, seed)
    if isinstance(entrant, type) and issubclass(entrant, Bot):
        return entrant(seed)
    if callable(entrant):
        return PolicyBot(entrant, seed)
    raise PolicyError(
        f"{entrant!r} is neither a policy (a callable of observation and mask) nor a bot"
    )


def check_entrant(entrant: object) -> Entrant:
    """``entrant`` if :func:`maumau.eval.evaluate` can play it, else :class:`PolicyError`."""
    if isinstance(entrant, Bot | Level) or callable(entrant):
        return entrant  # (a callable is taken as a policy)
    raise PolicyError(
        f"{entrant!r} is neither a policy (a callable of observation and mask) nor a bot"
    )


def name_of(entrant: object) -> str:
    """A short name for the results: ``module:function``, the bot's class, ..."""
    if isinstance(entrant, Level):
        return entrant.name
    if isinstance(entrant, Bot):
        return entrant.level or type(entrant).__name__
    module = getattr(entrant, "__module__", None)
    qualname = getattr(entrant, "__qualname__", None)
    if module and qualname:
        return f"{module}:{qualname}"
    return type(entrant).__name__


def load_policy(spec: str) -> Entrant:
    """The entrant ``spec`` names: ``module:function`` (or ``module:obj.attr``), or a
    bot level (``random``, ``hard:500``, ``ismcts:200``).  A wrong spec raises :class:`PolicyError`
    saying what is wrong."""
    text = spec.strip()
    head, colon, tail = text.partition(":")
    if head in LEVELS or head in SPIEL_KINDS:
        try:
            make_opponent(text, 0)
        except (ValueError, OpponentUnavailable) as exc:
            raise PolicyError(f"policy {spec!r}: {exc}") from None
        return Level(text)
    if not colon or not head or not tail:
        raise PolicyError(
            f"policy {spec!r}: give module:function (a callable of observation and mask, "
            f"or a maumau.bots.Bot), or a bot level ({', '.join(LEVELS)})"
        )
    try:
        target: Any = importlib.import_module(head)
    except ImportError as exc:
        raise PolicyError(f"policy {spec!r}: cannot import module {head!r}: {exc}") from None
    for part in tail.split("."):
        if not hasattr(target, part):
            raise PolicyError(f"policy {spec!r}: {head!r} has no attribute {tail!r}")
        target = getattr(target, part)
    if not (isinstance(target, Bot) or callable(target)):
        raise PolicyError(f"policy {spec!r}: {tail!r} is {type(target).__name__}, not callable")
    return target  # type: ignore[no-any-return]
