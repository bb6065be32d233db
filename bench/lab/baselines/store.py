"""The campaign's raw outcomes as a JSON-lines file: a header line (the command, the
versions, the rules), then one line per match, written as blocks finish."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from lab.baselines.campaign import Outcome
from lab.paths import ROOT
from maumau import __version__


def header(command: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What a reader needs to run the campaign again: command, versions, machine."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "header": True,
        "command": command,
        "maumau": __version__,
        "commit": commit,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **settings,
    }


def write_line(handle: IO[str], value: dict[str, Any]) -> None:
    handle.write(json.dumps(value, separators=(",", ":")) + "\n")
    handle.flush()


def write_outcomes(handle: IO[str], outcomes: Iterable[Outcome]) -> None:
    for o in outcomes:
        write_line(handle, o.to_json(seconds=True))


def whole_blocks(outcomes: Iterable[Outcome]) -> list[Outcome]:
    """The outcomes of the blocks that have every rotation (a run stopped while it wrote
    a block leaves a part of it)."""
    outcomes = list(outcomes)
    count = Counter((o.table, o.block) for o in outcomes)
    return [o for o in outcomes if count[(o.table, o.block)] == len(o.kinds)]


def read(path: Path) -> tuple[dict[str, Any], list[Outcome]]:
    """The header and the outcomes of a results file."""
    head: dict[str, Any] | None = None
    outcomes = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError:
                raise ValueError(f"{path}:{number}: not a JSON line") from None
            if value.get("header"):
                head = {**(head or {}), **value}  # the last line adds the CPU time
                continue
            try:
                outcomes.append(
                    Outcome(
                        int(value["table"]),
                        int(value["block"]),
                        int(value["rotation"]),
                        tuple(value["kinds"]),
                        tuple(float(s) for s in value["score"]),
                        tuple(int(p) for p in value["points"]),
                        tuple(int(e) for e in value["order"]),
                        int(value["rounds"]),
                        tuple(int(d) for d in value.get("decisions", ())),
                        tuple(float(t) for t in value.get("seconds", ())),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{number}: not an outcome line: {exc}") from None
    if head is None:
        raise ValueError(f"{path}: no header line")
    return head, outcomes
