"""The machine's load around a cell: load averages, the busy cores of the whole machine
and the CPU of a process tree (``/proc``)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from maumau.loadtest import probe

clock = time.monotonic
TICKS = os.sysconf("SC_CLK_TCK")


def loadavg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (``/proc/loadavg``)."""
    try:
        return [float(v) for v in Path("/proc/loadavg").read_text().split()[:3]]
    except (OSError, ValueError):
        return None


def cpu_times() -> tuple[int, int] | None:
    """(all, idle) jiffies of the whole machine since boot (``/proc/stat``)."""
    try:
        with open("/proc/stat") as handle:
            values = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(values), values[3] + values[4]  # idle + iowait


def busy_cores(first: tuple[int, int] | None, last: tuple[int, int] | None) -> float | None:
    """Cores the whole machine kept busy between two ``cpu_times()``."""
    if first is None or last is None or last[0] <= first[0]:
        return None
    idle = (last[1] - first[1]) / (last[0] - first[0])
    return round((1.0 - idle) * (os.cpu_count() or 1), 3)


def _cpu_fields(pid: int) -> list[int] | None:
    """utime, stime, cutime, cstime of ``pid`` in clock ticks (``None``: gone)."""
    try:
        text = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # fields[0] is field 3 of proc(5)
    return [int(v) for v in fields[11:15]]


def tree_cpu(roots: tuple[int, ...]) -> float | None:
    """CPU seconds of ``roots`` and their live descendants, with the children the roots
    have reaped: PostgreSQL's backends come and go, and a backend's time moves into the
    postmaster's cutime/cstime when it ends, so the sum only grows."""
    total = 0
    found = False
    pids = probe.family(roots)
    for pid in pids:
        fields = _cpu_fields(pid)
        if fields is None:
            continue
        found = True
        total += fields[0] + fields[1] + (fields[2] + fields[3] if pid in roots else 0)
    return total / TICKS if found else None


class WindowMeter:
    """The machine's busy cores inside a load run's measuring window, and the CPU of
    some other processes (the database) there.

    ``arm(start, end)`` takes ``/proc/stat`` after ``start`` and ``end`` seconds from
    now (in timer threads), ``cores()`` gives the busy cores between the two."""

    def __init__(self, pids: tuple[int, ...] = ()) -> None:
        self.pids = pids
        self.samples: dict[str, tuple[int, int] | None] = {}
        self.cpu: dict[str, tuple[float, float]] = {}
        self.timers: list[threading.Timer] = []

    def _take(self, name: str) -> None:
        self.samples[name] = cpu_times()
        if self.pids:
            cpu = tree_cpu(self.pids)
            if cpu is not None:
                self.cpu[name] = (clock(), cpu)

    def arm(self, start: float, end: float) -> None:
        for name, delay in (("start", start), ("end", end)):
            timer = threading.Timer(max(0.0, delay), self._take, (name,))
            timer.daemon = True
            timer.start()
            self.timers.append(timer)

    def finish(self, timeout: float) -> None:
        """Wait a little for samples still due (the window's end is taken by a timer)."""
        for timer in self.timers:
            timer.join(timeout)

    def cancel(self) -> None:
        for timer in self.timers:
            timer.cancel()

    def cores(self) -> float | None:
        return busy_cores(self.samples.get("start"), self.samples.get("end"))

    def pid_cores(self) -> float | None:
        """CPU cores used by ``pids`` and their children between the two samples."""
        if "start" not in self.cpu or "end" not in self.cpu:
            return None
        (t0, c0), (t1, c1) = self.cpu["start"], self.cpu["end"]
        return None if t1 <= t0 else round((c1 - c0) / (t1 - t0), 3)
