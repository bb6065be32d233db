"""The matrix as tables: the results, the machine's load per cell, Markdown for the docs,
and one line a cell while it runs."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from lab.matrix.rows import MIB, Row, on_off


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


def _head(row: Row) -> list[str]:
    """Setup, mode, compression and clients: which cell it is."""
    return [row.setup, row.mode_text, on_off(row.compression), f"{row.clients:,}"]


def _figures(row: Row) -> list[str]:
    """moves/s, latency, errors, server CPU, memory per game, bytes sent a move and
    ratio to the ceiling."""
    ratio = "-" if row.ratio_to_ceiling is None else f"{row.ratio_to_ceiling:.2f}"
    return [
        _num(row.moves_per_second),
        _latency(row.latency_ms),
        _errors(row),
        _num(row.server_cpu_cores, ".2f"),
        _memory(row),
        _num(row.wire_bytes_per_move),
        ratio,
    ]


def results_table(rows: Sequence[Row], title: str) -> Table:
    table = Table(title=title)
    for name in ("setup", "mode", "compression"):
        table.add_column(name)
    for name in ("clients", "moves/s", "p50/p95/p99 ms", "errors", "server CPU"):
        table.add_column(name, justify="left" if name == "errors" else "right")
    for name in ("memory per game", "bytes sent a move", "ratio to ceiling"):
        table.add_column(name, justify="right")
    for row in rows:
        if row.failed:
            failed = "FAILED: " + row.failed.splitlines()[0][:60]
            table.add_row(*_head(row), "-", "-", failed, "-", "-", "-", "-")
            continue
        table.add_row(*_head(row), *_figures(row))
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
            on_off(row.compression),
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
        "| server CPU | memory per game | bytes sent a move | ratio to ceiling | load tool CPU "
        "| machine busy | loadavg before → after |"
    )
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for row in rows:
        if row.failed:
            failed = "FAILED: " + row.failed.splitlines()[0].replace("|", "/")
            cells = [*_head(row), failed]
            cells += [""] * 9
        else:
            cells = [
                *_head(row),
                *_figures(row),
                _num(row.load_tool_cpu_cores, ".2f"),
                _num(row.machine_busy_cores, ".2f"),
                _loadavg(row).replace("->", "→"),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary(row: Row) -> str:
    if row.failed:
        return f"{row.key}: FAILED: {row.failed.splitlines()[0]}"
    return (
        f"{row.key}: {_num(row.moves_per_second)} moves/s, p50/p95/p99 "
        f"{_latency(row.latency_ms)} ms, errors {_errors(row)}, server CPU "
        f"{_num(row.server_cpu_cores, '.2f')}, load {_loadavg(row)}"
    )
