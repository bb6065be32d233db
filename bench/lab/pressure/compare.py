"""Two runs side by side (``bench/pressure.py --compare BEFORE.json AFTER.json``): one
markdown table, a row per phase, with the move round trip's and ``/api/health``'s p50
and p99 of each run and each figure's ratio to that run's own quiet phase.

Both runs should be made by the same command on the same machine, one after the other
(the old tree with ``--source``, then the new one); the header says what each was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab.pressure.stats import ratio, show_ms, show_ratio

#: (figure, percentile) in the order of the table's column pairs
FIGURES = (("moves", "p50"), ("moves", "p99"), ("health", "p50"), ("health", "p99"))
LABELS = {"moves": "move", "health": "health"}


class CompareError(Exception):
    """A file that is not a run's results."""


def load(path: Path) -> dict[str, Any]:
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CompareError(f"{path}: not a run's JSON results ({exc})") from None
    if not isinstance(result, dict) or not isinstance(result.get("phases"), list):
        raise CompareError(f"{path}: no 'phases' list: not a run of bench/pressure.py --json")
    return result


def cell(result: dict[str, Any], name: str, figure: str, pct: str) -> str:
    """``"12.3 (1.5x)"``: a phase's figure and its ratio to the run's quiet phase."""
    phases = {phase["name"]: phase for phase in result["phases"]}
    phase = phases.get(name)
    if phase is None:
        return "not run"
    value = phase[figure][f"{pct}_ms"]
    if value is None:
        return "-"  # (no sample in the phase)
    quiet = phases.get("quiet")
    base = None if quiet is None else quiet[figure][f"{pct}_ms"]
    return f"{show_ms(value)} ({show_ratio(ratio(value, base))})"


def describe(label: str, result: dict[str, Any]) -> str:
    config = result.get("config", {})
    return (
        f"**{label}**: tree {result.get('source')} at {result.get('revision')}, "
        f"{result.get('when')}; database {result.get('database', 'sqlite')}, "
        f"{result.get('servers', 1)} server process(es); phases of "
        f"{config.get('phase_seconds', '?')} s; {result.get('machine')}"
    )


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """A warning line for each way in which the two runs are not alike."""

    def sides(result: dict[str, Any]) -> dict[str, Any]:
        return {
            "database": result.get("database", "sqlite"),
            "machine": result.get("machine"),
            "phase seconds": result.get("config", {}).get("phase_seconds"),
        }

    was, now = sides(before), sides(after)
    return [
        f"- **not alike**: {what} {was[what]} before, {now[what]} after"
        for what in was
        if was[what] != now[what]
    ]


def compare(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The markdown: who is who, then the table (phases in the order they ran)."""
    names = [phase["name"] for phase in before["phases"]]
    names += [phase["name"] for phase in after["phases"] if phase["name"] not in names]
    columns = ["phase"]
    for figure, pct in FIGURES:
        columns += [f"{LABELS[figure]} {pct} before", "after"]
    out = [
        f"- {describe('before', before)}",
        f"- {describe('after', after)}",
        "- times in ms; in brackets, the figure over the same run's quiet phase's",
        *differences(before, after),
        "",
        "| " + " | ".join(columns) + " |",
        "|---|" + "---:|" * (len(columns) - 1),
    ]
    for name in names:
        cells = [name]
        for figure, pct in FIGURES:
            cells += [cell(before, name, figure, pct), cell(after, name, figure, pct)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
