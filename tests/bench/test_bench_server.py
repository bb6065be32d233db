"""``bench/server.py``, the server matrix script (its code: ``bench/lab/matrix/``): its
arithmetic and formatting on made-up figures, and one tiny real cell (one SQLite server,
4 tables, 2 s) run as the script is run, checked through the JSON it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lab.matrix.cli import PARTS, parse_args, plan
from lab.matrix.rows import (
    Row,
    _other,
    fill_from_bgio,
    fill_from_ceiling,
    fill_from_loadtest,
    rows_from_json,
    set_ratios,
    target_lines,
)
from lab.matrix.tables import machine_table, markdown_table, results_table
from lab.paths import portable
from support.paths import ROOT

SCRIPT = ROOT / "bench" / "server.py"


def _loadtest_document(moves_per_second: float, p99: float) -> dict[str, Any]:
    return {
        "params": {"rate": None},
        "results": {
            "moves_per_second": moves_per_second,
            "latency_ms": {"p50": 1.234, "p95": 5.0, "p99": p99, "max": 90.0},
            "error_count": 1,
            "errors": {"timeout": 1},
            "errors_outside": {"disconnect": 2},
            "client_cpu_cores": 0.5,
            "moves": 20 * int(moves_per_second),
            "wire": {
                "bytes": 4_321_000 * int(moves_per_second) // 1000,
                "messages": 9,
                "deflated": 9,
            },
            "server": {
                "cpu_cores": 1.0,
                "memory_per_game_bytes": 20480,
                "rss_end_bytes": 100 * 2**20,
            },
        },
    }


def _row(part: str, rate: float | None, compression: bool | None, key: str) -> Any:
    mode = "closed" if rate is None else "offered"
    return Row(part, key, part, mode, rate, compression, 1000)


def test_figures_ratios_and_targets() -> None:
    ceiling = _row("ceiling", None, False, "ceiling-closed")
    fill_from_ceiling(
        ceiling,
        {
            "msgs_s": 4000,
            "p50_ms": 200.0,
            "p95_ms": 230.0,
            "p99_ms": 260.0,
            "max_ms": 300.0,
            "errors": 0,
            "server_cpu": 1.0,
            "loadgen_cpu": 0.6,
            "machine_busy_cores": 1.9,
            "server_rss_mb": 64.0,
        },
    )
    assert ceiling.other_cpu_cores == 0.3
    ours = _row("sqlite", None, True, "sqlite-closed-on")
    fill_from_loadtest(ours, _loadtest_document(1000.0, 40.0))
    ours.machine_busy_cores = 1.75
    _other(ours)
    assert ours.errors == 1 and ours.errors_outside == 2 and ours.latency_ms["p50"] == 1.23
    assert ours.other_cpu_cores == 0.25
    assert ours.wire_bytes_per_move == 216.1  # 4,321,000 bytes over 20,000 moves
    offered = _row("sqlite", 2000.0, True, "sqlite-rate2000-on")
    fill_from_loadtest(offered, _loadtest_document(1990.0, 60.0))
    peer = _row("bgio", None, False, "bgio-memory-250")
    fill_from_bgio(
        peer,
        {
            "moves_per_s": 2000.0,
            "lat_ms": {"p50": 8.0, "p95": 19.0, "p99": 27.0, "max": 40.0},
            "errors": 0,
            "move_timeouts": 0,
            "server": {"cpu_pct": 103.0, "rss_mb_end": 300.0},
            "loadgen_cpu_pct": 64.0,
            "machine_cpu_pct": 170.0,
        },
    )
    rows = [ceiling, ours, offered, peer]
    set_ratios(rows)
    assert ours.ratio_to_ceiling == 0.25 and ours.ceiling_key == "ceiling-closed"
    assert peer.ratio_to_ceiling == 0.5
    assert offered.ratio_to_ceiling is None  # no ceiling at that offered rate
    lines = target_lines(rows, games=250)
    assert any(ln.startswith("MISSED") and "missed by 50%" in ln for ln in lines)
    assert any(ln.startswith("MISSED") and "p99 60.0 ms" in ln for ln in lines)
    console = Console(width=200, record=True)
    console.print(results_table(rows, "t"))
    console.print(machine_table(rows))
    text = console.export_text()
    assert "1,000" in text and "20.0 KiB" in text and "0.25" in text and "timeout 1" in text
    assert "(RSS 300 MiB)" in text and "216" in text
    markdown = markdown_table(rows).splitlines()
    assert len(markdown) == 2 + len(rows)
    assert all(line.count("|") == markdown[0].count("|") for line in markdown)
    again = rows_from_json({"cells": [row.to_json() for row in rows]})
    assert [r.ratio_to_ceiling for r in again] == [r.ratio_to_ceiling for r in rows]


def test_plan_of_the_full_matrix() -> None:
    args = parse_args(["--ceiling", str(ROOT), "--bgio", str(ROOT), "--quick"])
    assert (args.duration, args.warmup) == (5.0, 2.0)
    keys = [row.key for row in plan(args, PARTS)]
    assert keys == [
        "ceiling-closed",
        "ceiling-rate2000",
        "ceiling-rate1500",
        "sqlite-closed-on",
        "sqlite-closed-off",
        "sqlite-rate2000-on",
        "sqlite-rate2000-off",
        "pg-closed-on",
        "pg-rate1500-on",
        "bgio-memory-250",
        "bgio-flatfile-250",
    ]
    assert portable(ROOT / "bench" / "x.json") == "bench/x.json"
    assert not portable("/somewhere/else/deep/x.json").startswith("/")


@pytest.mark.system
def test_one_small_sqlite_cell(tmp_path: Path) -> None:
    out = tmp_path / "all.json"
    command = [sys.executable, str(SCRIPT), "--quick", "--only", "sqlite", "--cells", "closed"]
    command += ["--compression", "on", "--games", "4", "--duration", "2", "--warmup", "1"]
    command += ["--out", str(tmp_path), "--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    (cell,) = document["cells"]
    assert cell["key"] == "sqlite-closed-on" and cell["failed"] is None
    assert cell["moves_per_second"] > 0 and cell["errors"] == 0
    assert cell["server_cpu_cores"] is not None and cell["loadavg_before"] is not None
    assert cell["wire_bytes_per_move"] > 0
    assert (tmp_path / "sqlite-closed-on.json").exists()
