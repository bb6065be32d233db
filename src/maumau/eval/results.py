"""The results of an evaluation, and their file (JSON, schema :data:`SCHEMA`).

The file is one JSON object (``docs/research.md`` documents every field):

- ``schema``: ``"maumau-eval/1"``; a reader refuses another (a change that a reader of
  version 1 would misread gets a new number);
- ``suite``: the suite's definition (name, rules, players, deals, opponents, optional,
  seed, deals_from); ``skipped``: each optional opponent that was not played, and why;
- ``entrant``: its name; ``run``: maumau's version, Python, machine, start, CPU seconds
  (the only fields that differ between two runs of the same entrant);
- ``tables``: per table, its ``opponents``, ``matches``, the entrant's ``score`` (a
  win 1, a shared win 1/k), ``win_rate`` and ``wilson95`` ([low, high]),
  ``mean_points`` (the entrant's points left in hand per match; lower is better) and
  ``opponents_mean_points``, ``mean_rounds``;
- ``overall``: the same over every table (and ``mean_place``, 1 = first);
- ``plackett_luce``: ``strengths`` (entrant and each opponent played, summing to 1:
  the chance of finishing first at a table of all of them) fitted on every finishing
  order of the evaluation, ``interval95`` each (a percentile bootstrap over deal
  blocks, ``resamples`` refits);
- ``outcomes``: every match (table, block, rotation, kinds, score, points, order,
  rounds, decisions), from which everything above can be computed again.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maumau.eval.duplicate import Outcome
from maumau.eval.ratings import bootstrap, percentile_interval, plackett_luce, wilson
from maumau.eval.suites import Suite

SCHEMA = "maumau-eval/1"


@dataclass(frozen=True, slots=True)
class Results:
    """What :func:`maumau.eval.evaluate` returns; :meth:`to_json` is the file's object."""

    document: dict[str, Any]

    @property
    def win_rate(self) -> float:
        return float(self.document["overall"]["win_rate"])

    @property
    def wilson95(self) -> tuple[float, float]:
        low, high = self.document["overall"]["wilson95"]
        return float(low), float(high)

    @property
    def tables(self) -> list[dict[str, Any]]:
        return list(self.document["tables"])

    def table(self, *opponents: str) -> dict[str, Any]:
        """The row of the table with these opponents."""
        for row in self.document["tables"]:
            if tuple(row["opponents"]) == opponents:
                return dict(row)
        raise KeyError(f"no table with opponents {opponents}")

    def to_json(self) -> dict[str, Any]:
        return self.document

    def write(self, path: Path) -> None:
        """The file: the figures indented, then one line per match."""
        head = {k: v for k, v in self.document.items() if k != "outcomes"}
        text = json.dumps(head, indent=1)[: -len("\n}")]
        lines = [json.dumps(o, separators=(",", ":")) for o in self.document["outcomes"]]
        text += ',\n "outcomes": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def read_results(path: Path) -> Results:
    """The results in file ``path`` (``ValueError`` if it is not of :data:`SCHEMA`)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else None
        raise ValueError(f"{path}: not a results file of schema {SCHEMA} (schema: {found!r})")
    return Results(document)


def _rate(score: float, matches: int) -> dict[str, Any]:
    low, high = wilson(score, matches)
    return {
        "matches": matches,
        "score": score,
        "win_rate": round(score / matches, 6) if matches else 0.0,
        "wilson95": [round(low, 6), round(high, 6)],
    }


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 6) if values else 0.0


def summarise(
    suite: Suite,
    name: str,
    outcomes: Sequence[Outcome],
    skipped: Mapping[str, str],
    run: Mapping[str, Any],
    resamples: int,
    entrant: str = "entrant",
) -> Results:
    """The results document of ``outcomes`` (entry 0 of each is the entrant)."""
    by_table: dict[int, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_table[o.table].append(o)
    tables = []
    for table in sorted(by_table):
        games = by_table[table]
        row = {"table": table, "opponents": list(games[0].kinds[1:])}
        row |= _rate(sum(o.score[0] for o in games), len(games))
        row["mean_points"] = _mean([o.points[0] for o in games])
        row["opponents_mean_points"] = _mean([p for o in games for p in o.points[1:]])
        row["mean_rounds"] = _mean([o.rounds for o in games])
        tables.append(row)
    overall = _rate(sum(o.score[0] for o in outcomes), len(outcomes))
    overall["mean_points"] = _mean([o.points[0] for o in outcomes])
    overall["mean_place"] = _mean([o.order.index(0) + 1 for o in outcomes])
    document = {
        "schema": SCHEMA,
        "suite": suite.to_json(),
        "skipped": dict(skipped),
        "entrant": name,
        "run": dict(run),
        "tables": tables,
        "overall": overall,
        "plackett_luce": _ratings(outcomes, entrant, resamples),
        "outcomes": [o.to_json() for o in outcomes],
    }
    return Results(document)


def _ratings(outcomes: Sequence[Outcome], entrant: str, resamples: int) -> dict[str, Any]:
    if not outcomes:
        return {"strengths": {}, "interval95": {}, "resamples": 0}
    items = [entrant, *dict.fromkeys(k for o in outcomes for k in o.kinds if k != entrant)]
    index = {kind: i for i, kind in enumerate(items)}
    blocks: dict[tuple[int, int], list[list[int]]] = defaultdict(list)
    for o in outcomes:
        blocks[(o.table, o.block)].append([index[o.kinds[e]] for e in o.order])
    grouped = [blocks[key] for key in sorted(blocks)]

    def fit(sample: Sequence[list[list[int]]]) -> list[float]:
        return plackett_luce([r for b in sample for r in b], len(items), tol=1e-9)

    strengths = fit(grouped)
    fits: list[list[float]] = []

    def statistic(sample: Sequence[list[list[int]]]) -> float:
        with suppress(ValueError):  # a resample that left an item out of every ranking
            fits.append(fit(sample))
        return 0.0

    if resamples:
        bootstrap(grouped, statistic, resamples, seed=7)
    spread = {
        kind: [round(x, 6) for x in percentile_interval([f[i] for f in fits])]
        for i, kind in enumerate(items)
        if fits
    }
    return {
        "strengths": {kind: round(strengths[i], 6) for i, kind in enumerate(items)},
        "interval95": spread,
        "resamples": len(fits),
    }
