"""The figures of a load run: a table for people, a JSON file for scripts."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _mib(value: int | float | None) -> str:
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


def _kib(value: int | float | None) -> str:
    return "-" if value is None else f"{value / 2**10:.1f} KiB"


def _wire(results: dict[str, Any]) -> str:
    wire = results.get("wire")
    if not wire or not wire["messages"]:
        return "-"
    per_move = f"{wire['bytes'] / results['moves']:,.0f} bytes a move, " if results["moves"] else ""
    share = wire["deflated"] / wire["messages"]
    return (
        f"{wire['bytes'] / results['window_seconds'] / 2**20:.2f} MiB/s ({per_move}"
        f"{wire['messages'] / results['window_seconds']:,.0f} messages/s, {share:.0%} compressed)"
    )


def rows(document: dict[str, Any]) -> list[tuple[str, str]]:
    """The report as (label, value) lines."""
    p = document["params"]
    r = document["results"]
    mode = "closed loop" if p["rate"] is None else f"offered {p['rate']:g} moves/s"
    compression = "permessage-deflate" if p["compression"] else "off"
    lat = r["latency_ms"]
    setup = r["setup_ms"]
    errors = ", ".join(f"{code} {n}" for code, n in r["errors"].items()) or "none"
    out = [
        ("servers", ", ".join(p["urls"])),
        ("mode", f"{mode}, compression {compression}, preset {p['preset']}"),
        ("clients", f"{p['clients']} ({p['games']} tables x {p['players']}, {p['procs']} procs)"),
        ("window", f"{r['window_seconds']:g} s after {p['warmup']:g} s warm-up"),
        ("moves/s", f"{r['moves_per_second']:,.1f} ({r['moves']:,} acknowledged moves)"),
        (
            "latency ms p50/p95/p99/max",
            f"{_ms(lat['p50'])} / {_ms(lat['p95'])} / {_ms(lat['p99'])} / {_ms(lat['max'])}",
        ),
        ("games finished", f"{r['games_finished']:,} ({r['games_per_second']:g}/s)"),
        ("table setup ms p50/p99", f"{_ms(setup['p50'])} / {_ms(setup['p99'])}"),
        ("errors", errors),
        (
            "reconnects",
            f"{r['reconnects']} (moves resent {r['resent']}, "
            f"{r['duplicates']} acknowledged as duplicates)",
        ),
        ("server to clients", _wire(r)),
        ("load tool CPU", f"{r['client_cpu_cores']:.2f} cores"),
    ]
    outside = r["errors_outside"]
    if outside:
        shown = ", ".join(f"{code} {n}" for code, n in outside.items())
        out.append(("errors outside window", shown))
    server = r["server"]
    if server is not None:
        cores = server["cpu_cores"]
        out += [
            ("server CPU", "-" if cores is None else f"{cores:.2f} cores"),
            (
                "server RSS",
                f"{_mib(server['rss_before_bytes'])} before, "
                f"{_mib(server['rss_connected_bytes'])} connected, "
                f"{_mib(server['rss_end_bytes'])} at the end",
            ),
            (
                "server memory per game",
                f"{_kib(server['memory_per_game_bytes'])} ({r['live_games']} live games)",
            ),
        ]
    return out


def print_report(document: dict[str, Any], console: Console) -> None:
    table = Table(title="maumau loadtest", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("figure")
    for label, value in rows(document):
        table.add_row(label, value)
    console.print(table)


def write_json(document: dict[str, Any], path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
