"""Evaluation anyone can enter: a policy or a bot, played through named, fixed suites.

>>> from maumau.eval import evaluate
>>> def first_legal(observation, mask):          # maumau_v0's observation and mask
...     return int(mask.nonzero()[0][0])
>>> results = evaluate(first_legal, "standard-2p-v0")              # doctest: +SKIP
>>> results.win_rate, results.wilson95                              # doctest: +SKIP
>>> results.write(Path("first_legal.json"))                         # doctest: +SKIP

or from the command line: ``maumau eval --suite standard-2p-v0 --policy module:function``.

- :mod:`~maumau.eval.policy`: what may enter (a callable of ``maumau_v0``'s observation
  and mask, a ``maumau.bots.Bot``, ``module:function`` on a command line);
- :mod:`~maumau.eval.suites`: the named suites (:data:`SUITES`): rules, seats, pool,
  deals, seed;
- :mod:`~maumau.eval.duplicate`: duplicate deals with rotated seats (the method of
  ``bench/baselines.py`` too); :mod:`~maumau.eval.ratings`: Wilson intervals, the
  bootstrap, Plackett-Luce;
- :mod:`~maumau.eval.results`: the results file (JSON, schema ``maumau-eval/1``);
- :mod:`~maumau.eval.games`: human games exported from a server (``maumau admin
  research-export``, only tables that allowed it, no names) as (observation, mask,
  action, seat, outcome) samples, and their loader ``load_games``.

Importing this package loads no numpy; playing a policy needs it (the ``rl`` extra).
docs/research.md describes the suites and the files.
"""

from __future__ import annotations

from maumau.eval.policy import IllegalPolicyAction, Level, PolicyBot, PolicyError, load_policy
from maumau.eval.results import SCHEMA, Results, read_results
from maumau.eval.runner import evaluate
from maumau.eval.suites import SUITES, Suite, suite_of

__all__ = [
    "SCHEMA",
    "SUITES",
    "IllegalPolicyAction",
    "Level",
    "PolicyBot",
    "PolicyError",
    "Results",
    "Suite",
    "evaluate",
    "load_policy",
    "read_results",
    "suite_of",
]
