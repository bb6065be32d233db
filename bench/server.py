#!/usr/bin/env python3
"""Server under load: the whole server matrix in one run, with its reference points.

Run from the repository root::

    uv run python bench/server.py --quick                     # smoke run: 2 s warm-up, 5 s
    uv run python bench/server.py --json bench/results/server.json   # SQLite and PostgreSQL
    uv run python bench/server.py --ceiling $SHARED/bench/ceiling \\
        --ceiling-python $CEILING_VENV/bin/python --bgio $SHARED/bench/bgio-peer \\
        --json bench/results/server.json                      # everything

It starts every server itself, runs ``maumau loadtest`` (a subprocess: its own client
processes) against it, and prints one table.  Every cell gets a fresh server:

- **sqlite**: one ``python -m maumau serve`` process on a fresh data directory (SQLite,
  WAL, ``synchronous=FULL``: every move durable before it is broadcast), ``--games``
  tables x 4 seats, preset ``--preset``; closed loop and an offered ``--sqlite-rate``
  moves/s, each with permessage-deflate on and off (``--compression``).
- **pg**: a throwaway PostgreSQL cluster with its default durability settings (fsync
  on, synchronous_commit on; they are read back and recorded), a fresh database per
  cell and two ``maumau serve --database-url`` processes on it; the load tool gets both
  URLs.  Closed loop and an offered ``--pg-rate`` moves/s, compression on (and off
  with ``--compression-off-too``).  The cluster is removed at the end, also after
  Ctrl+C or an error.
- **ceiling** (``--ceiling DIR``): the bare uvicorn server of ``$SHARED/bench/ceiling``
  (``server.py --mode durable --sync FULL --commit group``) under its ``load.py`` with
  as many connections as we have clients, closed loop and with the think time that
  offers each of our offered rates.  Our moves/s are printed as a ratio of its msgs/s
  (closed loop against closed loop, an offered rate against the same offered rate).
- **bgio** (``--bgio DIR``): the boardgame.io peer of ``$SHARED/bench/bgio-peer``,
  copied to a temporary directory (DIR is only read), ``npm ci`` there, then its
  ``bench.sh memory`` and ``bench.sh flatfile`` with the same number of games.

Each cell's raw JSON (the load tool's ``--json``, the ceiling's row, the peer's result)
is saved in ``--out`` (default ``bench/results/server/``).  For each cell the machine's
load is recorded too: ``/proc/loadavg`` before and after, the load tool's own CPU,
PostgreSQL's CPU, and the busy cores of the whole machine inside the measuring window,
so that a busy machine shows.  ``--markdown FILE`` writes the table as Markdown;
``--show FILE`` prints the tables of an earlier ``--json`` again.  A script, not a
test (``tests/test_bench_server.py`` runs a tiny SQLite cell).  Exit status 0 when
every cell ran, 1 when one failed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lab.ports import free_port
from lab.postgres import Cluster, ClusterError
from maumau.loadtest import probe

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "results" / "server"
#: the per-address limits the load tool needs (docs/performance.md, "The load tool")
SERVE_LIMITS = ("--tables-per-minute", "100000", "--messages-per-second", "1000")
PARTS = ("sqlite", "pg", "ceiling", "bgio")
CEILING_SETUP = "ceiling (bare uvicorn)"
MIB = 2**20
clock = time.monotonic
TICKS = os.sysconf("SC_CLK_TCK")

#: figures issue 6 asks for at 250 tables x 4 seats:
#: (part, offered rate or None) -> (least moves/s, most p99 ms)
TARGETS: dict[tuple[str, float | None], tuple[float | None, float | None]] = {
    ("sqlite", None): (2000.0, None),
    ("sqlite", 2000.0): (None, 50.0),
    ("pg", None): (1500.0, None),
    ("pg", 1500.0): (None, 80.0),
}


class BenchError(Exception):
    """A cell could not be run (a server did not start, a tool failed...)."""


# --- the machine ---------------------------------------------------------------------------


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


def http_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            reply.read()
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (OSError, ValueError):
        return None


def portable(path: Path | str) -> str:
    """``path`` as it may be written in a results file: relative to the repository when
    inside it, else only its last three parts (no machine's own directories)."""
    full = Path(path).resolve()
    if full.is_relative_to(ROOT):
        return str(full.relative_to(ROOT))
    return str(Path("...", *full.parts[-3:]))


def tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


# --- processes -----------------------------------------------------------------------------


class Service:
    """A server process of ours (a subprocess with its output in a log file)."""

    def __init__(self, name: str, command: list[str], log: Path, cwd: Path) -> None:
        self.name = name
        self.command = command
        self.log = log
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.command, stdout=out, stderr=subprocess.STDOUT, cwd=self.cwd
            )

    def wait_ready(self, url: str, timeout: float = 60.0) -> None:
        """Until ``url`` answers 200."""
        deadline = clock() + timeout
        while http_status(url) != 200:
            if self.proc is None or self.proc.poll() is not None:
                code = None if self.proc is None else self.proc.returncode
                raise BenchError(f"{self.name} exited ({code}) while starting:\n{tail(self.log)}")
            if clock() > deadline:
                raise BenchError(f"{self.name} not ready in {timeout:g} s:\n{tail(self.log)}")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def services(*started: Service) -> Iterator[None]:
    try:
        yield
    finally:
        for service in started:
            service.stop()


def maumau_server(name: str, work: Path, db_args: list[str]) -> tuple[Service, str]:
    """A ``maumau serve`` process (not started yet) and its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "maumau", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), *db_args, *SERVE_LIMITS, "--log-level", "warning"]
    url = f"http://127.0.0.1:{port}"
    return Service(name, command, work / f"{name}.log", ROOT), url


# --- one row of the table ------------------------------------------------------------------


@dataclass
class Row:
    """One cell of the matrix, in the same figures whatever measured it."""

    part: str  # sqlite | pg | ceiling | bgio
    key: str  # file stem of its raw JSON, e.g. "sqlite-closed-on"
    setup: str
    mode: str  # "closed" | "offered"
    rate: float | None  # offered moves/s (None: closed loop)
    compression: bool | None
    clients: int
    moves_per_second: float | None = None
    latency_ms: dict[str, float | None] = field(default_factory=dict)  # p50 p95 p99 max
    errors: int | None = None
    errors_by_code: dict[str, int] = field(default_factory=dict)
    errors_outside: int = 0
    server_cpu_cores: float | None = None
    memory_per_game_bytes: float | None = None
    server_rss_end_bytes: float | None = None
    load_tool_cpu_cores: float | None = None
    database_cpu_cores: float | None = None  # PostgreSQL's processes (pg cells)
    machine_busy_cores: float | None = None  # whole machine, inside the window
    other_cpu_cores: float | None = None  # busy - server - load tool
    loadavg_before: list[float] | None = None
    loadavg_after: list[float] | None = None
    warmup_seconds: float | None = None
    window_seconds: float | None = None
    seconds: float | None = None  # the whole cell, setup included
    ratio_to_ceiling: float | None = None
    ceiling_key: str | None = None
    raw_file: str | None = None
    failed: str | None = None
    raw: Any = None

    @property
    def mode_text(self) -> str:
        if self.rate is None:
            return "closed loop"
        return f"offered {self.rate:,.0f}/s"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["mode_text"] = self.mode_text
        return out


def _other(row: Row) -> None:
    busy, server, tool = row.machine_busy_cores, row.server_cpu_cores, row.load_tool_cpu_cores
    if busy is not None and server is not None and tool is not None:
        row.other_cpu_cores = round(busy - server - tool - (row.database_cpu_cores or 0.0), 3)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def fill_from_loadtest(row: Row, document: dict[str, Any]) -> None:
    """The load tool's ``--json`` document into ``row``."""
    results = document["results"]
    row.moves_per_second = results["moves_per_second"]
    lat = results["latency_ms"]
    row.latency_ms = {q: _round(lat.get(q)) for q in ("p50", "p95", "p99", "max")}
    row.errors = int(results["error_count"])
    row.errors_by_code = dict(results["errors"])
    row.errors_outside = sum(int(n) for n in results["errors_outside"].values())
    row.load_tool_cpu_cores = results["client_cpu_cores"]
    server = results.get("server")
    if server is not None:
        row.server_cpu_cores = server["cpu_cores"]
        row.memory_per_game_bytes = server["memory_per_game_bytes"]
        row.server_rss_end_bytes = server["rss_end_bytes"]
    _other(row)


def fill_from_ceiling(row: Row, line: dict[str, Any]) -> None:
    """A row printed by the ceiling's ``load.py`` into ``row``."""
    row.moves_per_second = float(line["msgs_s"])
    row.latency_ms = {
        "p50": line.get("p50_ms"),
        "p95": line.get("p95_ms"),
        "p99": line.get("p99_ms"),
        "max": line.get("max_ms"),
    }
    row.errors = int(line.get("errors", 0))
    row.server_cpu_cores = line.get("server_cpu")
    row.load_tool_cpu_cores = line.get("loadgen_cpu")
    row.machine_busy_cores = line.get("machine_busy_cores")
    rss = line.get("server_rss_mb")
    row.server_rss_end_bytes = None if rss is None else rss * MIB
    _other(row)


def fill_from_bgio(row: Row, result: dict[str, Any]) -> None:
    """A boardgame.io peer result (``results/<storage>-<games>.json``) into ``row``."""
    row.moves_per_second = float(result["moves_per_s"])
    lat = result.get("lat_ms", {})
    row.latency_ms = {q: lat.get(q) for q in ("p50", "p95", "p99", "max")}
    row.errors = int(result.get("errors", 0)) + int(result.get("move_timeouts", 0))
    server = result.get("server") or {}
    if "cpu_pct" in server:
        row.server_cpu_cores = round(server["cpu_pct"] / 100.0, 3)
    if "rss_mb_end" in server:
        row.server_rss_end_bytes = server["rss_mb_end"] * MIB
    row.load_tool_cpu_cores = round(result.get("loadgen_cpu_pct", 0.0) / 100.0, 3)
    if "machine_cpu_pct" in result:
        row.machine_busy_cores = round(result["machine_cpu_pct"] / 100.0, 3)
    _other(row)


def set_ratios(rows: Sequence[Row]) -> None:
    """Each non-ceiling row's moves/s as a ratio of the ceiling's msgs/s: closed loop
    against closed loop, an offered rate against the same offered rate; a row with
    compression on against the ceiling with deflate when that was measured."""
    ceilings = {
        (r.rate, bool(r.compression)): r
        for r in rows
        if r.part == "ceiling" and r.moves_per_second and not r.failed
    }
    for row in rows:
        if row.part == "ceiling" or row.moves_per_second is None:
            continue
        ref = ceilings.get((row.rate, bool(row.compression))) or ceilings.get((row.rate, False))
        if ref is not None and ref.moves_per_second:
            row.ratio_to_ceiling = round(row.moves_per_second / ref.moves_per_second, 3)
            row.ceiling_key = ref.key


def target_lines(rows: Sequence[Row], games: int) -> list[str]:
    """The issue's figures (for 250 tables x 4 seats) met or missed, one line a row."""
    lines = []
    for row in rows:
        least, most = TARGETS.get((row.part, row.rate), (None, None))
        if row.failed or (least is None and most is None):
            continue
        where = f"{row.setup}, {row.mode_text}, compression {_on(row.compression)}"
        if least is not None and row.moves_per_second is not None:
            ok = row.moves_per_second >= least
            gap = "" if ok else f", missed by {100 * (1 - row.moves_per_second / least):.0f}%"
            lines.append(
                f"{'met' if ok else 'MISSED'}: {where}: {row.moves_per_second:,.0f} moves/s "
                f"against >= {least:,.0f}{gap}"
            )
        p99 = row.latency_ms.get("p99")
        if most is not None and p99 is not None:
            ok = p99 <= most
            gap = "" if ok else f", missed by {p99 - most:.1f} ms"
            lines.append(
                f"{'met' if ok else 'MISSED'}: {where}: p99 {p99:.1f} ms against "
                f"<= {most:g} ms{gap}"
            )
    if lines and games != 250:
        lines.append(f"(the figures are asked for 250 tables; this run had {games})")
    return lines


# --- formatting ----------------------------------------------------------------------------


def _on(value: bool | None) -> str:
    return "-" if value is None else ("on" if value else "off")


def _num(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _latency(lat: dict[str, float | None]) -> str:
    if not lat or lat.get("p50") is None:
        return "-"
    return " / ".join(_num(lat.get(q), ".1f") for q in ("p50", "p95", "p99"))


def _errors(row: Row) -> str:
    if row.errors is None:
        return "-"
    text = f"{row.errors:,}"
    if row.errors_by_code:
        text += " (" + ", ".join(f"{k} {v}" for k, v in row.errors_by_code.items()) + ")"
    if row.errors_outside:
        text += f" +{row.errors_outside} outside"
    return text


def _memory(row: Row) -> str:
    if row.memory_per_game_bytes is not None:
        return f"{row.memory_per_game_bytes / 1024:,.1f} KiB"
    if row.server_rss_end_bytes is not None:
        return f"(RSS {row.server_rss_end_bytes / MIB:,.0f} MiB)"
    return "-"


def _loadavg(row: Row) -> str:
    before = "-" if row.loadavg_before is None else f"{row.loadavg_before[0]:.2f}"
    after = "-" if row.loadavg_after is None else f"{row.loadavg_after[0]:.2f}"
    return f"{before} -> {after}"


def results_table(rows: Sequence[Row], title: str) -> Table:
    table = Table(title=title)
    for name in ("setup", "mode", "compression"):
        table.add_column(name)
    for name in ("clients", "moves/s", "p50/p95/p99 ms", "errors", "server CPU"):
        table.add_column(name, justify="left" if name == "errors" else "right")
    for name in ("memory per game", "ratio to ceiling"):
        table.add_column(name, justify="right")
    for row in rows:
        head = [row.setup, row.mode_text, _on(row.compression), f"{row.clients:,}"]
        if row.failed:
            failed = "FAILED: " + row.failed.splitlines()[0][:60]
            table.add_row(*head, "-", "-", failed, "-", "-", "-")
            continue
        ratio = "-" if row.ratio_to_ceiling is None else f"{row.ratio_to_ceiling:.2f}"
        table.add_row(
            *head,
            _num(row.moves_per_second),
            _latency(row.latency_ms),
            _errors(row),
            _num(row.server_cpu_cores, ".2f"),
            _memory(row),
            ratio,
        )
    return table


def machine_table(rows: Sequence[Row]) -> Table:
    table = Table(title="machine load per cell (cores; 2.00 = both cores of a 2-core machine)")
    for name in ("setup", "mode", "compression", "loadavg 1 min before -> after"):
        table.add_column(name)
    for name in ("load tool CPU", "database CPU", "machine busy (window)", "other processes"):
        table.add_column(name, justify="right")
    table.add_column("cell s", justify="right")
    for row in rows:
        table.add_row(
            row.setup,
            row.mode_text,
            _on(row.compression),
            _loadavg(row),
            _num(row.load_tool_cpu_cores, ".2f"),
            _num(row.database_cpu_cores, ".2f"),
            _num(row.machine_busy_cores, ".2f"),
            _num(row.other_cpu_cores, ".2f"),
            _num(row.seconds, ".0f"),
        )
    return table


def markdown_table(rows: Sequence[Row]) -> str:
    """The results and the machine's load as one Markdown table (for the docs)."""
    head = (
        "| setup | mode | compression | clients | moves/s | p50 / p95 / p99 ms | errors "
        "| server CPU | memory per game | ratio to ceiling | load tool CPU "
        "| machine busy | loadavg before → after |"
    )
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for row in rows:
        if row.failed:
            failed = "FAILED: " + row.failed.splitlines()[0].replace("|", "/")
            cells = [row.setup, row.mode_text, _on(row.compression), f"{row.clients:,}", failed]
            cells += [""] * 8
        else:
            ratio = "-" if row.ratio_to_ceiling is None else f"{row.ratio_to_ceiling:.2f}"
            cells = [
                row.setup,
                row.mode_text,
                _on(row.compression),
                f"{row.clients:,}",
                _num(row.moves_per_second),
                _latency(row.latency_ms),
                _errors(row),
                _num(row.server_cpu_cores, ".2f"),
                _memory(row),
                ratio,
                _num(row.load_tool_cpu_cores, ".2f"),
                _num(row.machine_busy_cores, ".2f"),
                _loadavg(row).replace("->", "→"),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rows_from_json(document: dict[str, Any]) -> list[Row]:
    """The rows of a ``--json`` file, to print them again."""
    names = {f.name for f in dataclasses.fields(Row)}
    return [Row(**{k: v for k, v in cell.items() if k in names}) for cell in document["cells"]]


def summary(row: Row) -> str:
    if row.failed:
        return f"{row.key}: FAILED: {row.failed.splitlines()[0]}"
    return (
        f"{row.key}: {_num(row.moves_per_second)} moves/s, p50/p95/p99 "
        f"{_latency(row.latency_ms)} ms, errors {_errors(row)}, server CPU "
        f"{_num(row.server_cpu_cores, '.2f')}, load {_loadavg(row)}"
    )


# --- the runs ------------------------------------------------------------------------------


@dataclass
class Settings:
    games: int
    players: int
    duration: float
    warmup: float
    pg_warmup: float
    preset: str
    seed: int
    procs: int | None
    spread: str
    out: Path
    work: Path
    console: Console


def _start_row(row: Row) -> float:
    row.loadavg_before = loadavg()
    return clock()


def _end_row(row: Row, began: float) -> None:
    row.loadavg_after = loadavg()
    row.seconds = round(clock() - began, 1)


READY = re.compile(r"tables ready in [0-9.]+ s; warm-up")


def run_loadtest(
    s: Settings,
    row: Row,
    urls: list[str],
    pids: list[int],
    spread: str = "game",
    database_pid: int | None = None,
) -> None:
    """``maumau loadtest`` against ``urls``; its ``--json`` goes into ``s.out`` and
    ``row``.  The machine's busy cores are sampled inside the measuring window: it
    starts 0.1 s + the warm-up after the tool says the tables are ready."""
    raw = s.out / f"{row.key}.json"
    raw.unlink(missing_ok=True)
    command = [sys.executable, "-m", "maumau", "loadtest"]
    for url in urls:
        command += ["--url", url]
    command += ["--games", str(s.games), "--players", str(s.players), "--preset", s.preset]
    command += ["--duration", f"{s.duration:g}", "--warmup", f"{s.warmup:g}"]
    command += ["--closed"] if row.rate is None else ["--rate", f"{row.rate:g}"]
    command += ["--compression" if row.compression else "--no-compression"]
    # (it runs in the repository: a path inside it is given relative, so that the
    # document, which repeats its parameters, names no machine's directories)
    where = raw.relative_to(ROOT) if raw.is_relative_to(ROOT) else raw
    command += ["--seed", str(s.seed), "--spread", spread, "--json", str(where)]
    if s.procs is not None:
        command += ["--procs", str(s.procs)]
    for pid in pids:
        command += ["--server-pid", str(pid)]
    row.warmup_seconds, row.window_seconds = s.warmup, s.duration
    log = s.work / f"{row.key}-loadtest.log"
    meter = WindowMeter(() if database_pid is None else (database_pid,))
    limit = 300.0 + s.warmup + s.duration
    env = {**os.environ, "COLUMNS": "200"}  # one progress line = one line
    with open(log, "w") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env
        )
        watchdog = threading.Timer(limit, proc.send_signal, (signal.SIGINT,))
        watchdog.daemon = True
        watchdog.start()
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                out.write(line)
                if READY.search(line):
                    meter.arm(0.1 + s.warmup, 0.1 + s.warmup + s.duration)
                s.console.print(f"  [dim]{escape(line.rstrip())}[/dim]", highlight=False)
            code = proc.wait()
            if code == 0:
                meter.finish(5.0)
        finally:
            watchdog.cancel()
            meter.cancel()
            if proc.poll() is None:  # interrupted: let it stop its client processes
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    if code != 0:
        raise BenchError(f"maumau loadtest exited {code}:\n{tail(log)}")
    document = json.loads(raw.read_text())
    row.raw = document
    row.raw_file = portable(raw)
    row.machine_busy_cores = meter.cores()
    row.database_cpu_cores = meter.pid_cores()
    fill_from_loadtest(row, document)


def sqlite_cell(s: Settings, row: Row) -> None:
    data = s.work / f"data-{row.key}"
    if data.exists():
        shutil.rmtree(data)
    server, url = maumau_server(row.key, s.work, ["--data-dir", str(data)])
    with services(server):
        server.start()
        server.wait_ready(url + "/api/health")
        run_loadtest(s, row, [url], [server.pid])
    shutil.rmtree(data, ignore_errors=True)


def pg_cell(s: Settings, row: Row, cluster: Cluster, number: int) -> None:
    name = f"bench_{number}"
    cluster.sql(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"')
    db = ["--database-url", cluster.url(name)]
    first, first_url = maumau_server(f"{row.key}-a", s.work, db)
    second, second_url = maumau_server(f"{row.key}-b", s.work, db)
    with services(first, second):
        # one after the other: the first one creates the tables (migrations)
        first.start()
        first.wait_ready(first_url + "/api/health")
        second.start()
        second.wait_ready(second_url + "/api/health")
        urls, pids = [first_url, second_url], [first.pid, second.pid]
        pg = dataclasses.replace(s, warmup=s.pg_warmup)
        run_loadtest(pg, row, urls, pids, s.spread, cluster.postmaster())
    with contextlib.suppress(Exception):
        cluster.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def python_versions(python: str) -> dict[str, str]:
    """Versions of the ceiling's stack in ``python``."""
    code = (
        "import json, platform, importlib.metadata as m\n"
        "out = {'python': platform.python_version()}\n"
        "for name in ('uvicorn', 'starlette', 'websockets', 'uvloop', 'httptools'):\n"
        "    try:\n"
        "        out[name] = m.version(name)\n"
        "    except m.PackageNotFoundError:\n"
        "        out[name] = 'missing'\n"
        "print(json.dumps(out))\n"
    )
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
        return dict(json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"error": str(exc)}


def ceiling_cell(s: Settings, row: Row, ceiling: Path, python: str) -> None:
    """The ceiling's durable FULL + group commit server under its ``load.py``."""
    port = free_port()
    db = s.work / f"{row.key}.db"
    command = [python, str(ceiling / "server.py"), "--mode", "durable", "--sync", "FULL"]
    command += ["--commit", "group", "--port", str(port), "--db", str(db)]
    server = Service(row.key, command, s.work / f"{row.key}.log", s.work)
    raw = s.out / f"{row.key}.jsonl"
    raw.unlink(missing_ok=True)
    load = [python, str(ceiling / "load.py"), "--conns", str(row.clients), "--port", str(port)]
    load += ["--warmup", f"{s.warmup:g}", "--duration", f"{s.duration:g}"]
    load += ["--label", f"bench/server.py {row.key}", "--out", str(raw)]
    if row.rate is not None:
        load += ["--think-ms", f"{1000.0 * row.clients / row.rate:g}"]
    if row.compression:
        load += ["--deflate"]
    with services(server):
        server.start()
        server.wait_ready(f"http://127.0.0.1:{port}/stats")
        load += ["--server-pid", str(server.pid)]
        try:
            done = subprocess.run(
                load,
                capture_output=True,
                text=True,
                cwd=s.work,
                timeout=300 + s.warmup + s.duration,
            )
        except subprocess.TimeoutExpired:
            raise BenchError("the ceiling's load.py did not finish") from None
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    found = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not found:
        err = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise BenchError(f"the ceiling's load.py exited {done.returncode}:\n{err}")
    line = json.loads(found[-1])
    row.raw = line
    row.raw_file = portable(raw)
    fill_from_ceiling(row, line)


def bgio_prepare(s: Settings, source: Path) -> Path:
    """A copy of the peer in the work directory with its packages installed."""
    target = s.work / "bgio-peer"
    ignore = shutil.ignore_patterns("node_modules", "results", "flatfile-db")
    shutil.copytree(source, target, ignore=ignore)
    for path in target.rglob("*"):  # the shared copy may be read-only
        path.chmod(path.stat().st_mode | 0o200)
    target.chmod(target.stat().st_mode | 0o200)
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise BenchError("node and npm are needed for --bgio")
    log = s.work / "bgio-npm-ci.log"
    with open(log, "w") as out:
        code = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=target,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=900,
        ).returncode
    if code != 0:
        raise BenchError(f"npm ci exited {code}:\n{tail(log)}")
    return target


def bgio_cell(s: Settings, row: Row, peer: Path, storage: str) -> None:
    result = peer / "results" / f"{storage}-{s.games}.json"
    result.unlink(missing_ok=True)
    command = ["bash", "./bench.sh", storage, str(s.games), f"{s.warmup:g}", f"{s.duration:g}"]
    env = {**os.environ, "PORT": str(free_port())}
    log = s.work / f"{row.key}.log"
    with open(log, "w") as out:
        try:
            code = subprocess.run(
                command,
                cwd=peer,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=300 + s.warmup + s.duration,
            ).returncode
        except subprocess.TimeoutExpired:
            raise BenchError(f"bench.sh {storage} did not finish") from None
    if code != 0 or not result.exists():
        raise BenchError(f"bench.sh {storage} exited {code}:\n{tail(log)}")
    raw = s.out / f"{row.key}.json"
    shutil.copyfile(result, raw)
    document = json.loads(result.read_text())
    row.raw = document
    row.raw_file = portable(raw)
    fill_from_bgio(row, document)


# --- the plan ------------------------------------------------------------------------------


def plan(args: argparse.Namespace, parts: Sequence[str]) -> list[Row]:
    """Every cell of the run, in the order they are measured."""
    clients = args.games * args.players
    offered = "offered" in args.cells
    closed = "closed" in args.cells
    compressions = {"on": [True], "off": [False], "both": [True, False]}[args.compression]
    rows: list[Row] = []

    def add(part: str, setup: str, rate: float | None, comp: bool | None, key: str) -> None:
        mode = "closed" if rate is None else "offered"
        rows.append(Row(part, key, setup, mode, rate, comp, clients))

    def modes(rate: float) -> list[float | None]:
        return ([None] if closed else []) + ([rate] if offered else [])

    if "ceiling" in parts:
        rates: list[float | None] = [None] if closed else []
        if offered:
            if "sqlite" in parts or "pg" not in parts:
                rates.append(args.sqlite_rate)
            if "pg" in parts and args.pg_rate not in rates:
                rates.append(args.pg_rate)
        deflates = [False, True] if args.ceiling_deflate else [False]
        for rate in rates:
            for deflate in deflates:
                name = "closed" if rate is None else f"rate{rate:g}"
                key = f"ceiling-{name}" + ("-deflate" if deflate else "")
                add("ceiling", CEILING_SETUP, rate, deflate, key)
    if "sqlite" in parts:
        for rate in modes(args.sqlite_rate):
            for comp in compressions:
                name = "closed" if rate is None else f"rate{rate:g}"
                key = f"sqlite-{name}-{_on(comp)}"
                add("sqlite", "SQLite, 1 proc", rate, comp, key)
    if "pg" in parts:
        pg_compressions = [True, False] if args.compression_off_too else [True]
        for rate in modes(args.pg_rate):
            for comp in pg_compressions:
                name = "closed" if rate is None else f"rate{rate:g}"
                key = f"pg-{name}-{_on(comp)}"
                add("pg", "PostgreSQL, 2 procs", rate, comp, key)
    if "bgio" in parts:
        for storage in ("memory", "flatfile"):
            add("bgio", f"boardgame.io {storage}", None, False, f"bgio-{storage}-{args.games}")
    return rows


def _cells(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in ("closed", "offered"):
            raise argparse.ArgumentTypeError(f"unknown cell kind {name!r} (closed, offered)")
    return names


def _parts(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in PARTS:
            raise argparse.ArgumentTypeError(f"unknown part {name!r} ({', '.join(PARTS)})")
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Measure the server matrix (SQLite, PostgreSQL, the ceiling, the "
        "boardgame.io peer) in one run and print one table.",
    )
    parser.add_argument(
        "--only",
        type=_parts,
        help="parts to run, comma-separated: sqlite,pg,ceiling,bgio (default: sqlite and "
        "pg, plus ceiling and bgio when their directory is given)",
    )
    parser.add_argument(
        "--cells",
        type=_cells,
        default=["closed", "offered"],
        help="closed, offered or both (default: closed,offered)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 s warm-up, 5 s")
    parser.add_argument("--duration", type=float, help="seconds measured (default 20, quick 5)")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up (default 5, quick 2)")
    parser.add_argument(
        "--pg-warmup",
        type=float,
        help="warm-up of the PostgreSQL cells (default: --warmup); their tables start "
        "after the load tool's go, so a busy machine may need more",
    )
    parser.add_argument("--games", type=int, default=250, help="tables at once (default 250)")
    parser.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--preset", default="penalty-100", help="rule preset of the tables")
    parser.add_argument("--sqlite-rate", type=float, default=2000.0, help="offered moves/s")
    parser.add_argument("--pg-rate", type=float, default=1500.0, help="offered moves/s")
    parser.add_argument(
        "--compression",
        choices=["on", "off", "both"],
        default="both",
        help="permessage-deflate in the SQLite cells (default both)",
    )
    parser.add_argument(
        "--compression-off-too",
        action="store_true",
        help="also run the PostgreSQL cells with compression off",
    )
    parser.add_argument(
        "--spread",
        choices=["game", "seat"],
        default="game",
        help="PostgreSQL: a table's seats on one process (game) or round-robin (seat)",
    )
    parser.add_argument("--procs", type=int, help="the load tool's client processes")
    parser.add_argument("--seed", type=int, default=1, help="the load tool's seed")
    parser.add_argument("--ceiling", type=Path, metavar="DIR", help="the ceiling benchmark")
    parser.add_argument(
        "--ceiling-python",
        default=sys.executable,
        metavar="PY",
        help="interpreter with uvicorn, starlette, websockets, uvloop (default: this one)",
    )
    parser.add_argument(
        "--ceiling-deflate",
        action="store_true",
        help="also measure the ceiling with deflate; compression-on cells are compared to it",
    )
    parser.add_argument("--bgio", type=Path, metavar="DIR", help="the boardgame.io peer")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="directory for each cell's raw JSON"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the table as Markdown too"
    )
    parser.add_argument(
        "--show",
        type=Path,
        metavar="JSON",
        help="only print the tables of an earlier run's --json file (nothing is run)",
    )
    parser.add_argument("--keep-work", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 5.0 if args.quick else 20.0
    if args.warmup is None:
        args.warmup = 2.0 if args.quick else 5.0
    if args.games < 1 or not 2 <= args.players <= 8 or args.duration <= 0 or args.warmup < 0:
        parser.error("--games >= 1, --players 2..8, --duration > 0, --warmup >= 0")
    if not args.cells:
        parser.error("--cells needs closed, offered or both")
    if args.only is None:
        args.only = ["sqlite", "pg"]
        args.only += ["ceiling"] if args.ceiling else []
        args.only += ["bgio"] if args.bgio else []
    if "ceiling" in args.only and args.ceiling is None:
        parser.error("the ceiling part needs --ceiling DIR")
    if "bgio" in args.only and args.bgio is None:
        parser.error("the bgio part needs --bgio DIR")
    for name, path in (("--ceiling", args.ceiling), ("--bgio", args.bgio)):
        if path is not None and not path.is_dir():
            parser.error(f"{name} {path}: not a directory")
    return args


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def run(args: argparse.Namespace, console: Console) -> tuple[list[Row], dict[str, Any]]:
    parts = [part for part in PARTS if part in args.only]
    rows = plan(args, parts)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="maumau-bench-server-"))
    s = Settings(
        games=args.games,
        players=args.players,
        duration=args.duration,
        warmup=args.warmup,
        pg_warmup=args.warmup if args.pg_warmup is None else args.pg_warmup,
        preset=args.preset,
        seed=args.seed,
        procs=args.procs,
        spread=args.spread,
        out=args.out.resolve(),  # the ceiling's load tool runs in another folder
        work=work,
        console=console,
    )
    info: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "sqlite": "WAL, synchronous=FULL (maumau's store)",
    }
    cluster: Cluster | None = None
    peer: Path | None = None
    pg_number = 0
    try:
        for row in rows:
            what = f"{row.setup}, {row.mode_text}, compression {_on(row.compression)}"
            console.rule(f"{row.key}: {what}")
            began = _start_row(row)
            try:
                if row.part == "sqlite":
                    sqlite_cell(s, row)
                elif row.part == "pg":
                    if cluster is None:
                        # PostgreSQL's default durability (fsync on, synchronous_commit on)
                        cluster = Cluster("maumau-bench-pg-")
                        cluster.init()
                        cluster.start()
                        info["postgresql"] = cluster.settings()
                        console.print(f"  PostgreSQL settings: {info['postgresql']}")
                    elif not cluster.running:
                        raise BenchError("the PostgreSQL cluster did not start (see above)")
                    pg_number += 1
                    pg_cell(s, row, cluster, pg_number)
                elif row.part == "ceiling":
                    if "ceiling" not in info:
                        info["ceiling"] = python_versions(args.ceiling_python)
                        console.print(f"  ceiling stack: {info['ceiling']}")
                    ceiling_cell(s, row, args.ceiling, args.ceiling_python)
                else:
                    if peer is None:
                        console.print("  copying the peer and running npm ci")
                        peer = bgio_prepare(s, args.bgio)
                    bgio_cell(s, row, peer, row.key.split("-")[1])
            except (
                BenchError,
                ClusterError,
                OSError,
                ValueError,
                KeyError,
                subprocess.SubprocessError,
            ) as exc:
                named = not isinstance(exc, BenchError | ClusterError)
                row.failed = f"{type(exc).__name__}: {exc}" if named else str(exc)
            _end_row(row, began)
            console.print(summary(row), highlight=False)
    finally:
        if cluster is not None:
            cluster.remove()
        if args.keep_work:
            console.print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    set_ratios(rows)
    return rows, info


def document(args: argparse.Namespace, rows: Sequence[Row], info: dict[str, Any]) -> dict[str, Any]:
    params = {
        key: (portable(value) if isinstance(value, Path) else value)
        for key, value in vars(args).items()
    }
    params["ceiling_python"] = portable(args.ceiling_python)
    command = [portable(arg) if arg.startswith("/") else arg for arg in sys.argv[1:]]
    return {
        "command": ["bench/server.py", *command],
        "params": params,
        "machine": info,
        "cells": [row.to_json() for row in rows],
        "targets": target_lines(rows, args.games),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    if args.show is not None:
        earlier = json.loads(args.show.read_text())
        rows = rows_from_json(earlier)
        console.print(results_table(rows, f"server under load ({args.show.name})"))
        console.print(machine_table(rows))
        if args.markdown:
            args.markdown.write_text(markdown_table(rows))
        return 0
    signal.signal(signal.SIGTERM, _terminate)
    rows, info = run(args, console)
    title = (
        f"server under load: {args.games} tables x {args.players} seats, preset "
        f"{args.preset}, {args.warmup:g} s warm-up + {args.duration:g} s"
        + (" (quick: a smoke run)" if args.quick else "")
    )
    console.print(results_table(rows, title))
    console.print(machine_table(rows))
    for line in target_lines(rows, args.games):
        console.print(line, highlight=False)
    if args.json:
        out = document(args, rows, info)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        console.print(f"every figure: {args.json}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown_table(rows))
    return 1 if any(row.failed for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
