"""The server's CPU time and memory, read from ``/proc`` (Linux).

A server process is given by its pid; its child processes count with it, so that
``--server-pid $!`` after ``uv run maumau serve &`` (where ``$!`` is ``uv``, whose
child is the server) measures the server.  A process that is gone (a killed server)
simply counts as nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class Sample:
    """CPU seconds (user + system) and resident memory of a group of processes."""

    cpu: float
    rss: int
    processes: int


def _stat(pid: int) -> tuple[int, float] | None:
    """The parent pid and CPU seconds of ``pid`` (``None`` when it is gone)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    # fields[0] is field 3 of proc(5): state; ppid is 4, utime 14, stime 15
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def _rss(pid: int) -> int:
    try:
        return int((PROC / str(pid) / "statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def family(roots: tuple[int, ...]) -> set[int]:
    """The given pids and all their descendants that exist now."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                children.setdefault(stat[0], []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid for pid in roots if (PROC / str(pid)).exists()]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def sample(roots: tuple[int, ...]) -> Sample | None:
    """CPU time and RSS of the server processes now; ``None`` if none was given or
    ``/proc`` cannot be read."""
    if not roots or not PROC.is_dir():
        return None
    cpu = 0.0
    rss = 0
    pids = family(roots)
    for pid in pids:
        stat = _stat(pid)
        if stat is not None:
            cpu += stat[1]
            rss += _rss(pid)
    return Sample(cpu=cpu, rss=rss, processes=len(pids))
