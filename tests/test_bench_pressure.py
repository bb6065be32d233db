"""A sample of the hostile load campaign (``bench/pressure.py``, its code in
``bench/lab/pressure/``): the long game it seeds, its percentiles and report, and a
short run of every phase against a real ``maumau serve`` of this tree.

The run checks that each part works and reports, not how fast the server is: the
figures are ``docs/performance.md``'s business.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

from lab.paths import ROOT
from lab.pressure import server as serving
from lab.pressure.campaign import GAME_SEED, Config, run
from lab.pressure.report import markdown, print_report
from lab.pressure.seed import LONGEST_OPTIONS, build, most_seats, seed_database
from lab.pressure.stats import INF, NO_ANSWER, Sample, percentile, ratio, show_ms, summary, within
from maumau.engine import replay
from maumau.engine.verify import commitment_of, verify_report
from maumau.server.table import Table
from maumau.store import Store, sqlite_url

SHORT = {"scoring": "deals", "deals": 2}


def test_the_longest_game_is_what_the_doc_says() -> None:
    assert most_seats(LONGEST_OPTIONS) == 8
    built = build(LONGEST_OPTIONS, GAME_SEED)
    assert (len(built.names), built.rounds, built.actions) == (8, 50, 16_786)
    assert len(built.steps) == built.actions + built.rounds


def test_a_seeded_game_is_stored_finished_and_replays(tmp_path: Path) -> None:
    db = tmp_path / "maumau.sqlite3"
    said = seed_database(db, "pressure-test-1", seed=5, options=SHORT)
    assert said["seats"] == 8 and said["rounds"] == 2

    async def load() -> Any:
        store = await Store.open(sqlite_url(db))
        try:
            return await store.load("pressure-test-1")
        finally:
            await store.close()

    row, steps = asyncio.run(load())
    assert row.status == "finished"
    assert [s.seq for s in steps] == list(range(said["steps"]))
    deals = [s.data for s in steps if s.kind == "deal"]
    assert len(deals) == 2
    for deal in deals:
        assert deal["commitment"] == commitment_of(deal["seed"], deal["salt"])
    table = Table.load(row, steps)  # as the server loads it
    assert table.game is not None and table.game.finished
    record = table.record()
    assert replay(record).finished
    assert verify_report(record)["ok"] is True


def test_seeding_runs_with_a_trees_own_python(tmp_path: Path) -> None:
    said = serving.seed(ROOT, tmp_path / "data", 2, SHORT, 3)
    assert said["seats"] == 3 and said["game_id"] == "pressure-replay-01"
    assert (tmp_path / "data" / "maumau.sqlite3").exists()


def test_percentiles_count_timeouts_as_the_slowest() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([3.0], 99) == 3.0
    assert percentile([], 99) is None
    assert percentile([*values[:98], INF, INF], 99) == INF
    with pytest.raises(ValueError):
        percentile(values, 0)
    samples = [Sample(0.5, 0.010), Sample(1.0, 0.020), Sample(2.0, INF)]
    assert within(samples, 0.0, 2.0) == [0.010, 0.020]
    got = summary(within(samples, 0.0, 3.0))
    assert got == {
        "n": 3, "unanswered": 1, "p50_ms": 20.0, "p99_ms": NO_ANSWER, "max_ms": NO_ANSWER
    }  # fmt: skip
    assert summary([])["p99_ms"] is None
    assert ratio(40.0, 20.0) == 2.0 and ratio(NO_ANSWER, 20.0) == NO_ANSWER
    assert ratio(40.0, None) is None
    assert show_ms(1234.5) == "1,234" and show_ms(12.34) == "12.3" and show_ms(None) == "-"
    assert not math.isinf(percentile([1.0, INF], 50) or 0.0)


def _result() -> dict[str, Any]:
    def phase(name: str, attack: dict[str, Any] | None, p99: float) -> dict[str, Any]:
        figures = {"n": 10, "unanswered": 0, "p50_ms": 5.0, "p99_ms": p99, "max_ms": p99}
        return {
            "name": name, "seconds": 2.0, "attack": attack, "settle_s": 0.4,
            "server": {"cpu_cores": 0.5, "rss_max_mb": 90.0, "open_files_max": 30},
            "health": {**figures, "p99_ratio": ratio(p99, 10.0)},
            "moves": {**figures, "p99_ratio": ratio(p99, 10.0)},
            "observer_errors": {"health: timeout": 2} if attack else {},
        }  # fmt: skip

    sockets = {
        "handshakes_ok": 980, "refused": "handshake timeout (5 s)", "opening_s": 3.0,
        "open_1s_after": 980, "open_at_end": 980, "closed_by_server": {}, "messages": {},
        "probes": {"/": {"200": 2}, "/api/health": {"ReadError": 2}},
    }  # fmt: skip
    return {
        "when": "2026-12-02T00:00:00+00:00", "source": ".", "revision": "abc1234",
        "machine": "x86_64, 2 cores", "nofile": (1024, 20000),
        "nofile_given": (1024, 20000),
        "config": {"phase_seconds": 2.0},
        "seeded": {"seats": 8, "options": LONGEST_OPTIONS, "rounds": 50, "actions": 16_786},
        "server_log": {"errors": 0, "tracebacks": 0, "warnings": 0, "distinct": []},
        "server_log_at_stop": {"errors": 0, "tracebacks": 0, "warnings": 0, "distinct": []},
        "server_alive_at_end": True,
        "phases": [
            phase("quiet", None, 10.0),
            phase("replay", {"clients": 10, "completed": 3, "statuses": {"200": 3},
                             "mb_received": 40.0, "mean_s": 9.0, "max_s": 12.0}, 900.0),
            phase("sockets", sockets, 20.0),
            phase("bots", {"tables_started": 10, "refused": None, "notes": {},
                           "status_at_end": {"playing": 10}, "setup_s": 4.0, "cap": 10,
                           "level": "hard"}, 300.0),
        ],
    }  # fmt: skip


def test_the_report_names_every_phase_and_what_was_allowed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = _result()
    text = markdown(result, "uv run python bench/pressure.py --phase-seconds 2")
    assert text.startswith("```bash\nuv run python bench/pressure.py --phase-seconds 2\n```")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 5  # the header and one row per phase
    assert "| replay | 5.0 | 900 | 900 | 90.0x |" in text
    assert "3 whole replays to 10 clients" in text
    assert "980 sockets open (then: handshake timeout (5 s))" in text
    assert "10 tables running (then: the campaign's cap of 10, nothing refused)" in text
    assert "GET /api/health ReadError x2" in text
    print_report(result)
    printed = capsys.readouterr().out
    assert "sockets" in printed and "(1024, 20000)" in printed


def test_a_short_run_of_every_phase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """About 20 s: this tree's server, 1.5-second phases, small attacks."""
    config = Config(
        source=ROOT, phase_seconds=1.5, replay_clients=2, bot_tables=2, bot_level="random",
        max_sockets=30, game_options=SHORT, warmup=1.0, settle_max=10.0,
    )  # fmt: skip
    result = run(config, tmp_path, say=lambda _: None)
    assert result["nofile_given"][0] == serving.NOFILE_SOFT
    assert result["nofile"] is not None
    phases = {phase["name"]: phase for phase in result["phases"]}
    assert list(phases) == ["quiet", "replay", "sockets", "bots"]
    quiet = phases["quiet"]
    assert quiet["health"]["n"] >= 10 and quiet["moves"]["n"] >= 5, quiet
    assert quiet["health"]["p99_ratio"] == 1.0
    for name in ("replay", "sockets", "bots"):
        assert "failed" not in phases[name]["attack"], phases[name]
    assert sum(phases["replay"]["attack"]["statuses"].values()) >= 1
    assert phases["sockets"]["attack"]["handshakes_ok"] >= 1
    assert phases["bots"]["attack"]["tables_started"] >= 1
    assert result["server_log"]["tracebacks"] == 0, result["server_log"]
    print_report(result)
    assert "bots" in capsys.readouterr().out
