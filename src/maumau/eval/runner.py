"""``evaluate(entrant, suite)``: play a suite's tables and sum the figures up.

The entrant is entry 0 of every table (named :data:`ENTRANT` in the outcomes, so that
it never shares a name with an opponent of the pool, ``normal`` evaluated against
``normal`` included); the opponents follow in the suite's order.  Each deal block is
played by :func:`maumau.eval.duplicate.play_block` with the suite's name as the seed
prefix, so the same suite gives the same deals, seats and bot seeds in any process:
an entrant that decides the same way gets the same results.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from datetime import UTC, datetime

from maumau import __version__
from maumau.bots import Bot
from maumau.eval.duplicate import Outcome, play_block
from maumau.eval.opponents import make_opponent, unavailable
from maumau.eval.policy import Entrant, as_bot, check_entrant, name_of
from maumau.eval.results import Results, summarise
from maumau.eval.suites import Suite, suite_of

#: the entrant's name in the outcomes
ENTRANT = "entrant"
#: Plackett-Luce refits of the bootstrap interval (each one is a whole MM fit)
PL_RESAMPLES = 200


def evaluate(
    entrant: Entrant | object,
    suite: str | Suite,
    *,
    name: str | None = None,
    resamples: int = PL_RESAMPLES,
    on_block: Callable[[list[Outcome]], None] | None = None,
) -> Results:
    """Play ``entrant`` (a policy of observation and mask, a ``maumau.bots.Bot``, a
    ``Bot`` subclass, or a :class:`~maumau.eval.policy.Level`) through every table of
    ``suite`` (a :class:`Suite` or the name of one of :data:`~maumau.eval.SUITES`).

    ``name`` is the entrant's name in the results (by default its ``module:function``
    or its bot's level); ``on_block`` is called with each deal block's outcomes as it
    ends.  An illegal action chosen by a policy raises
    :class:`~maumau.eval.policy.IllegalPolicyAction`."""
    played = check_entrant(entrant)
    chosen = suite_of(suite)
    rules = chosen.rule_set()
    rules.check_players(chosen.players)
    skipped = {kind: why for kind in chosen.pool() if (why := unavailable(kind)) is not None}
    missing = [kind for kind in chosen.opponents if kind in skipped]
    if missing:
        raise ValueError(f"suite {chosen.name}: cannot play {missing[0]}: {skipped[missing[0]]}")
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    clock = time.process_time()
    outcomes: list[Outcome] = []
    for table, opponents in enumerate(chosen.tables()):
        if any(kind in skipped for kind in opponents):
            continue
        kinds = (ENTRANT, *opponents)

        def make(entry: int, seed: int, kinds: tuple[str, ...] = kinds) -> Bot:
            return as_bot(played, seed) if entry == 0 else make_opponent(kinds[entry], seed)

        for block in range(chosen.deals):
            done = play_block(kinds, make, rules, chosen.seed, table, block, chosen.prefix)
            outcomes.extend(done)
            if on_block is not None:
                on_block(done)
    run = {
        "maumau": __version__,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "started": started,
        "cpu_seconds": round(time.process_time() - clock, 1),
    }
    return summarise(
        chosen, name or name_of(played), outcomes, skipped, run, resamples, entrant=ENTRANT
    )
