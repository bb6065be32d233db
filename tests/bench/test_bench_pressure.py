"""A sample of the hostile load campaign (``bench/pressure.py``, its code in
``bench/lab/pressure/``): the long game it seeds, its percentiles, report and
before/after comparison, the attacks' arguments, and short runs of every phase against
a real ``maumau serve`` of this tree (on SQLite, and two on PostgreSQL).

The run checks that each part works and reports, not how fast the server is: the
figures are ``docs/performance.md``'s business.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from lab.paths import ROOT
from lab.postgres import NOT_INSTALLED, pg_bin
from lab.pressure import attacks, cli
from lab.pressure import server as serving
from lab.pressure.campaign import GAME_SEED, PHASES, Config, attack_args, health_loops, run
from lab.pressure.compare import CompareError, compare, load
from lab.pressure.http_floods import long_host, status_class
from lab.pressure.report import markdown, print_report
from lab.pressure.seed import LONGEST_OPTIONS, build, most_seats, seed_database
from lab.pressure.socket_floods import chat_address
from lab.pressure.stats import INF, NO_ANSWER, Sample, percentile, ratio, show_ms, summary, within
from maumau.engine import replay
from maumau.engine.verify import commitment_of, verify_report
from maumau.server.live.table import Table
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


@pytest.mark.system
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
            phase("qr", {"loops": 4, "servers": 1, "path": "/api/games/x/qr.svg",
                         "requests": 40, "statuses": {"200": 38, "500": 2},
                         "classes": {"2xx": 38, "5xx": 2}, "mb_received": 2.0,
                         "mean_ms": 400.0, "host_length": 2300}, 600.0),
            phase("hello", {"sockets": 32, "servers": 1, "hellos_sent": 5000,
                            "connections": 40, "refused": {},
                            "closed_by_server": {"closed bad_token": 8},
                            "replies": {"error bad_token": 4992}}, 30.0),
            phase("chat", {"tables_wanted": 30, "tables": 30, "servers": 1,
                           "create_refused": {}, "setup_s": 1.0, "lines_sent": 2000,
                           "lines_accepted": 1170, "connections": 30, "refused": {},
                           "closed_by_server": {},
                           "replies": {"hello: welcome": 30, "error rate_limited": 830}}, 40.0),
            phase("ping", {"pings_sent": 90000, "pongs": 89744, "overdue": 0,
                           "messages": {"state": 3}, "connections": 1, "refused": {},
                           "closed_by_server": {}}, 50.0),
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
    assert len(rows) == 9  # the header and one row per phase
    assert "| replay | 5.0 | 900 | 900 | 90.0x |" in text
    assert "3 whole replays to 10 clients" in text
    assert "980 sockets open (then: handshake timeout (5 s))" in text
    assert "10 tables running (then: the campaign's cap of 10, nothing refused)" in text
    assert "GET /api/health ReadError x2" in text
    assert "40 answers to 4 loops: 2xx x38, 5xx x2" in text
    hello = "5,000 hellos on 40 sockets: error bad_token x4992; closed by the server: closed"
    assert hello + " bad_token x8" in text
    assert "1,170 of 2,000 lines accepted at 30 tables; refused: error rate_limited x830" in text
    assert "89,744 of 90,000 pings answered; closed by the server: none" in text
    assert "host_length 2300" in text  # (a flood's figures in full)
    print_report(result)
    printed = capsys.readouterr().out
    assert "sockets" in printed and "(1024, 20000)" in printed


def _with_figures(
    result: dict[str, Any], moves_p99: float, health_p99: float | str
) -> dict[str, Any]:
    """``result`` with every phase but quiet at these p99s (p50s stay 5.0)."""
    copy: dict[str, Any] = json.loads(json.dumps(result))
    for phase in copy["phases"]:
        if phase["name"] != "quiet":
            phase["moves"]["p99_ms"] = moves_p99
            phase["health"]["p99_ms"] = health_p99
    return copy


def test_the_comparison_puts_two_runs_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _with_figures(_result(), 2000.0, NO_ANSWER)
    after = _with_figures(_result(), 20.0, 15.0)
    after["revision"] = "def5678"
    after["phases"] = [p for p in after["phases"] if p["name"] != "bots"]
    (tmp_path / "before.json").write_text(json.dumps(before))
    (tmp_path / "after.json").write_text(json.dumps(after))
    text = compare(load(tmp_path / "before.json"), load(tmp_path / "after.json"))
    assert "**before**: tree . at abc1234" in text and "**after**: tree . at def5678" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| phase | move p50 before | after | move p99 before | after |")
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| quiet", "| replay", "| sockets", "| qr", "| hello", "| chat", "| ping", "| bots"
    ]  # fmt: skip
    # quiet: p50 5.0, p99 10.0 in both; a phase's ratios are to its own run's quiet
    assert rows[1] == "| quiet" + " | 5.0 (1.0x)" * 2 + " | 10.0 (1.0x)" * 2 + (
        " | 5.0 (1.0x)" * 2 + " | 10.0 (1.0x)" * 2 + " |"
    )
    assert rows[4] == (
        "| qr | 5.0 (1.0x) | 5.0 (1.0x) | 2,000 (200x) | 20.0 (2.0x) | 5.0 (1.0x) | "
        "5.0 (1.0x) | no answer (no answer) | 15.0 (1.5x) |"
    )
    assert rows[-1].startswith("| bots | 5.0 (1.0x) | not run | 2,000 (200x) | not run |")
    assert "not alike" not in text
    out = tmp_path / "compare.md"
    code = cli.main(["--compare", str(tmp_path / "before.json"), str(tmp_path / "after.json"),
                     "--markdown", str(out)])  # fmt: skip
    assert code == 0 and out.read_text() == text == capsys.readouterr().out
    after["database"], after["phases"][1]["moves"]["p50_ms"] = "postgresql", None
    text = compare(before, after)
    assert "- **not alike**: database sqlite before, postgresql after" in text
    assert "| replay | 5.0 (1.0x) | - |" in text


def test_the_comparison_refuses_what_is_not_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.json").write_text('{"when": "today"}')
    with pytest.raises(CompareError, match="no 'phases' list"):
        load(tmp_path / "notes.json")
    with pytest.raises(CompareError, match="not a run's JSON results"):
        load(tmp_path / "missing.json")
    assert cli.main(["--compare", str(tmp_path / "notes.json"), str(tmp_path / "x")]) == 2
    assert "notes.json: no 'phases' list" in capsys.readouterr().err


def test_the_attacks_arguments() -> None:
    args = attacks.parse([
        "qr", "--url", "http://a", "--ws", "ws://a", "--url", "http://b", "--ws", "ws://b",
        "--seconds", "2", "--game-id=-x1", "--loops", "3",
    ])  # fmt: skip
    assert (args.url, args.ws, args.game_id, args.loops) == (
        ["http://a", "http://b"],
        ["ws://a", "ws://b"],
        "-x1",
        3,
    )
    assert args.host_length == 2300
    refusals = [
        ["qr", "--url", "http://a", "--ws", "ws://a", "--seconds", "1"],  # no table
        ["health", "--url", "http://a", "--url", "http://b", "--ws", "ws://a", "--seconds", "1"],
        ["health", "--url", "http://a", "--ws", "ws://a", "--seconds", "1", "--loops", "0"],
        ["flood", "--url", "http://a", "--ws", "ws://a", "--seconds", "1"],
    ]
    for argv in refusals:
        with pytest.raises(SystemExit):
            attacks.parse(argv)
    for phase in PHASES[1:]:  # every attack the campaign starts parses
        attacks.parse([phase, "--url", "u", "--ws", "w", "--seconds", "1",
                       *attack_args(phase, Config(), "long", "target", "victim")])  # fmt: skip


def test_the_campaigns_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert health_loops(Config()) == 16
    assert health_loops(Config(database="postgresql")) == 64
    assert health_loops(Config(database="postgresql", health_loops=5)) == 5
    config = Config(qr_loops=2, host_length=100, hello_sockets=3, chat_tables=4)
    assert attack_args("qr", config, "g", "t", "v") == [
        "--game-id=v", "--loops=2", "--host-length=100"
    ]  # fmt: skip
    assert attack_args("hello", config, "g", "t", "v") == ["--game-id=v", "--sockets=3"]
    assert attack_args("chat", config, "g", "t", "v") == ["--tables=4"]
    assert cli.phase_list("quiet, ping,info") == ("quiet", "ping", "info")
    with pytest.raises(argparse.ArgumentTypeError, match="not \\['flood'\\]"):
        cli.phase_list("quiet,flood")
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--sockets", "0"])
    assert "--sockets: must be at least 1, not 0" in capsys.readouterr().err
    host = long_host(2300)
    assert len(host) == 2300 and max(len(label) for label in host.split(".")) <= 63
    assert [len(long_host(n)) for n in (1, 63, 64, 65)] == [1, 63, 64, 65]
    assert not long_host(64).endswith(".")
    assert [status_class(s) for s in ("200", "429", "503", "ReadTimeout")] == [
        "2xx", "4xx", "5xx", "no answer"
    ]  # fmt: skip
    assert [chat_address(i) for i in (0, 9, 10, 29)] == [
        "127.0.0.11", "127.0.0.11", "127.0.0.12", "127.0.0.13"
    ]  # fmt: skip


@pytest.mark.system
def test_a_short_run_of_every_phase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """About 35 s: this tree's server, 1.5-second phases, small attacks."""
    config = Config(
        source=ROOT, phase_seconds=1.5, replay_clients=2, bot_tables=2, bot_level="random",
        max_sockets=30, game_options=SHORT, warmup=1.0, settle_max=10.0, qr_loops=1,
        hello_sockets=2, health_loops=2, chat_tables=2, info_loops=2,
    )  # fmt: skip
    result = run(config, tmp_path, say=lambda _: None)
    assert result["nofile_given"][0] == serving.NOFILE_SOFT
    assert result["nofile"] is not None
    phases = {phase["name"]: phase for phase in result["phases"]}
    assert tuple(phases) == PHASES
    quiet = phases["quiet"]
    assert quiet["health"]["n"] >= 10 and quiet["moves"]["n"] >= 5, quiet
    assert quiet["health"]["p99_ratio"] == 1.0
    for name in PHASES[1:]:
        assert "failed" not in phases[name]["attack"], phases[name]
    assert sum(phases["replay"]["attack"]["statuses"].values()) >= 1
    assert phases["sockets"]["attack"]["handshakes_ok"] >= 1
    assert phases["bots"]["attack"]["tables_started"] >= 1
    for name in ("qr", "health", "info"):
        assert phases[name]["attack"]["requests"] >= 1, phases[name]
    assert phases["qr"]["attack"]["host_length"] == 2300
    for name in ("qr", "hello", "ping", "info"):  # at the human table itself
        assert phases[name]["attack"]["victim_is_the_table"] is True, phases[name]
    assert phases["hello"]["attack"]["hellos_sent"] >= 1
    assert "error bad_token" in phases["hello"]["attack"]["replies"]
    assert phases["chat"]["attack"]["tables"] == 2
    assert phases["chat"]["attack"]["lines_accepted"] >= 1
    assert phases["ping"]["attack"]["pongs"] >= 1
    assert result["server_log"]["tracebacks"] == 0, result["server_log"]
    print_report(result)
    assert "bots" in capsys.readouterr().out


@pytest.mark.system
@pytest.mark.pg
def test_a_short_run_on_postgresql(tmp_path: Path) -> None:
    """About 20 s: a throwaway cluster, two servers of this tree, the human table at
    both, two phases."""
    if pg_bin() is None:
        pytest.skip(NOT_INSTALLED)
    config = Config(
        source=ROOT, database="postgresql", phase_seconds=2.0, phases=("quiet", "info"),
        game_options=SHORT, warmup=1.0, settle_max=10.0, info_loops=2,
    )  # fmt: skip
    result = run(config, tmp_path, say=lambda _: None)
    assert (result["database"], result["servers"]) == ("postgresql", 2)
    assert result["server_exits"] == [0, 0]
    quiet, info = result["phases"]
    assert quiet["moves"]["n"] >= 5 and quiet["health"]["n"] >= 10, quiet
    assert info["attack"]["servers"] == 2 and info["attack"]["requests"] >= 1, info
    assert result["server_log"]["tracebacks"] == 0, result["server_log"]
