"""The named, fixed suites an entrant is evaluated on.

A suite fixes everything but the entrant: the rule set, the number of seats, the pool
of opponents, the number of deal blocks per table and the seed every deal is made
from (:mod:`maumau.eval.duplicate`, with the suite's name as the seed prefix).  Its
tables are the entrant with each opponent (heads-up) or with each set of
``players - 1`` opponents of the pool (more seats), each played on ``deals`` blocks,
every block once per seat rotation: the entrant sits in every seat of every deal.

A suite is never changed once published; a change is a new name (``-v1``).  The
``optional`` opponents are played where they can be made (OpenSpiel's ISMCTS needs the
``spiel`` extra); the tables without them keep their numbers, and so their deals,
whether or not the optional ones are played, and the results file says which were
left out and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from maumau.engine import Rules
from maumau.env.session import resolve_rules

#: the opponents of every v0 suite
POOL = ("random", "easy", "normal", "hard")
#: OpenSpiel's ISMCTS (200 simulations per decision, hard's heuristic rollouts)
ISMCTS = "ismcts:200"


@dataclass(frozen=True, slots=True)
class Suite:
    """A fixed evaluation: see the module's docstring."""

    name: str
    #: a rule set of :data:`maumau.env.session.RULE_SETS` (``standard``, ``penalty-100``...)
    rules: str
    players: int
    #: deal blocks per table (each played once per seat rotation)
    deals: int
    opponents: tuple[str, ...] = POOL
    optional: tuple[str, ...] = (ISMCTS,)
    seed: int = 0
    about: str = ""
    #: the name the deals are derived from (a trial run of fewer deals plays the first
    #: blocks of its suite: the same deals); empty: the suite's own name
    deals_from: str = ""

    @property
    def prefix(self) -> str:
        """The seed prefix of :func:`maumau.eval.duplicate.play_block`."""
        return self.deals_from or self.name

    def rule_set(self) -> Rules:
        return resolve_rules(self.rules)

    def pool(self) -> tuple[str, ...]:
        """Every opponent the suite names, the optional ones last."""
        return self.opponents + self.optional

    def tables(self) -> list[tuple[str, ...]]:
        """The opponents of each table, numbered by their place in this list (which
        the optional opponents never change for the others: they come last)."""
        size = self.players - 1
        core = list(combinations(self.opponents, size))
        every = combinations(self.pool(), size)
        return core + [t for t in every if any(kind in self.optional for kind in t)]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "opponents": list(self.opponents),
            "optional": list(self.optional),
            "seed": self.seed,
            "deals_from": self.prefix,
        }


SUITES: dict[str, Suite] = {
    suite.name: suite
    for suite in (
        Suite(
            "standard-2p-v0",
            "standard",
            2,
            deals=250,
            about="heads-up under the standard rules: 250 deals against each opponent, "
            "each played from both seats (500 matches per opponent)",
        ),
        Suite(
            "penalty100-4p-v0",
            "penalty-100",
            4,
            deals=25,
            about="4 seats under penalty-100 (a match ends at 100 points): the entrant with "
            "every 3 of the pool, 25 deals per table, each played from all 4 seats",
        ),
    )
}


def suite_of(name: str | Suite) -> Suite:
    """The suite called ``name`` (a :class:`Suite` is returned as it is)."""
    if isinstance(name, Suite):
        return name
    suite = SUITES.get(name)
    if suite is None:
        raise ValueError(f"unknown suite {name!r}; the suites are: {', '.join(SUITES)}")
    return suite
