"""A campaign's report as tables: its faults, the ledger and its checks."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

from lab.faults.report import Report


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def print_report(report: Report, console: Console) -> None:
    f = report.figures
    events = RichTable(title=f"{report.name}: faults")
    for column in ("#", "fault", "down s", "moves again after s", "probe tables", "notes"):
        events.add_column(column)
    for n, e in enumerate(report.events, 1):
        if e["kind"] == "kill -9":
            notes = f"pid {e['pid']}, pause {e['pause_s']:.2f} s"
            down = e["downtime_s"]
        else:
            notes = f"move while down: {e['probe_move_while_down']}; health ok after " + ", ".join(
                f"{k} {_fmt(v)} s" for k, v in e["health_ok_after_s"].items()
            )
            down = e["down_s"]
        events.add_row(
            str(n),
            f"{e['kind']} {e['server']}",
            _fmt(down),
            _fmt(e["moves_again_after_s"]),
            f"{e['probe_moves_ok']}/{e['probe_tables']}",
            notes,
        )
    console.print(events)
    ledger = f.get("ledger", {})
    faults = f.get("faults", {})
    load = f.get("load", {})
    table = RichTable(title=f"{report.name}: ledger", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("figure")
    rows = [
        ("acknowledged moves", ledger.get("acknowledged")),
        ("  of which probe moves", ledger.get("probe_moves")),
        ("stored", ledger.get("stored")),
        ("missing", ledger.get("missing")),
        ("doubled", ledger.get("doubled")),
        ("client ids stored twice", ledger.get("client_ids_stored_twice")),
        (
            "stored, never acknowledged (last move / game ended first / other)",
            f"{ledger.get('stored_not_acknowledged')} "
            f"({ledger.get('stored_not_acknowledged_last')}"
            f" / {ledger.get('stored_not_acknowledged_game_ended')}"
            f" / {ledger.get('stored_not_acknowledged_other')})",
        ),
        ("kills", faults.get("kills")),
        ("restarts", faults.get("restarts")),
        ("DB stops", faults.get("db_stops")),
        (
            "downtime per restart s",
            " ".join(f"{d:.2f}" for d in faults.get("downtime_s", [])) or "-",
        ),
        (
            "downtime mean / max s",
            f"{_fmt(faults.get('downtime_mean_s'))} / {_fmt(faults.get('downtime_max_s'))}",
        ),
        ("DB down s", " ".join(f"{d:.2f}" for d in faults.get("db_down_s", [])) or "-"),
        ("reconnects", load.get("reconnects")),
        (
            "moves resent / acknowledged as duplicates",
            f"{load.get('resent')} / {load.get('duplicates')}",
        ),
        ("load errors", ", ".join(f"{k} {v}" for k, v in (load.get("errors") or {}).items())),
        ("moves/s (with the faults)", load.get("moves_per_second")),
        ("games finished", load.get("games_finished")),
    ]
    games = f.get("games", {})
    rows += [
        (
            "unfinished games (playing / lobby)",
            f"{games.get('unfinished')} ({games.get('playing')} / {games.get('lobby')})",
        ),
        ("  replayed through the engine", games.get("replayed")),
        ("  resumed at the stored version (x processes)", games.get("resumed_at_stored_version")),
    ]
    watch = f.get("monitor", {})
    rows += [
        ("longest time without a new ack s", watch.get("longest_without_acks_s")),
        ("longest lock wait in PostgreSQL s", watch.get("max_lock_wait_s")),
        ("longest idle transaction s", watch.get("max_idle_in_transaction_s")),
    ]
    for line in watch.get("stuck_sessions", [])[:3]:
        rows.append(("  stuck session", line))
    for name, logs in f.get("server_logs", {}).items():
        rows.append(
            (f"log of {name}", f"{logs['tracebacks']} tracebacks, {logs['errors']} ERROR lines")
        )
    for label, value in rows:
        table.add_row(label, _fmt(value))
    console.print(table)
    checks = RichTable(title=f"{report.name}: checks")
    checks.add_column("check")
    checks.add_column("result")
    checks.add_column("detail")
    for c in report.checks:
        checks.add_row(c["check"], "[green]ok[/]" if c["ok"] else "[red]FAILED[/]", c["detail"])
    console.print(checks)
