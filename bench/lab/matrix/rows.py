"""One cell of the matrix as a row of figures, filled from whatever measured it, its
ratio to the ceiling, and the issue's targets."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

MIB = 2**20


#: figures issue 6 asks for at 250 tables x 4 seats:
#: (part, offered rate or None) -> (least moves/s, most p99 ms)
TARGETS: dict[tuple[str, float | None], tuple[float | None, float | None]] = {
    ("sqlite", None): (2000.0, None),
    ("sqlite", 2000.0): (None, 50.0),
    ("pg", None): (1500.0, None),
    ("pg", 1500.0): (None, 80.0),
}


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
    #: what the server sent its clients (frame headers included) over acknowledged moves
    wire_bytes_per_move: float | None = None
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
    wire = results.get("wire")  # results saved before the load tool counted it have none
    if wire is not None and results["moves"]:
        row.wire_bytes_per_move = round(wire["bytes"] / results["moves"], 1)
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
        where = f"{row.setup}, {row.mode_text}, compression {on_off(row.compression)}"
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


def on_off(value: bool | None) -> str:
    return "-" if value is None else ("on" if value else "off")


def rows_from_json(document: dict[str, Any]) -> list[Row]:
    """The rows of a ``--json`` file, to print them again."""
    names = {f.name for f in dataclasses.fields(Row)}
    return [Row(**{k: v for k, v in cell.items() if k in names}) for cell in document["cells"]]
