"""A sample of the fault campaign (``bench/faults.py``, its code in ``bench/lab/faults/``):
real ``maumau serve`` processes and the real load tool, with faults.

- SQLite: the server is killed with SIGKILL twice under load and started again on the
  same data.
- PostgreSQL: a cluster of the test's own (so that stopping it disturbs no other test)
  is stopped for a couple of seconds under load and started again; the server must
  answer errors meanwhile, stay alive and recover by itself.  Skipped, with the reason,
  where PostgreSQL is not installed or its cluster does not start.

Both check behaviour, not timings: every move the load tool and the campaign's own
probe tables got an ``ack`` for is stored exactly once, and every unfinished game
replays, is resumed at its stored version and takes another move.  To stay short the
sample stops the load tool once the faults are over instead of waiting for the end of
its run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lab.faults.campaigns import pg_campaign, sqlite_campaign
from lab.faults.options import Options
from lab.postgres import ClusterUnavailable


def _say(text: str) -> None:
    print(text, flush=True)


def _assert_nothing_lost(report: Any) -> dict[str, Any]:
    failed = [c for c in report.checks if not c["ok"]]
    assert not failed, failed
    ledger: dict[str, Any] = report.figures["ledger"]
    assert ledger["acknowledged"] > 50, ledger  # the load really played
    assert ledger["probe_moves"] >= 3, ledger
    assert ledger["missing"] == 0 and ledger["doubled"] == 0, ledger
    assert ledger["client_ids_stored_twice"] == 0 and ledger["wrong_seat"] == 0, ledger
    assert ledger["stored"] == ledger["acknowledged"] - ledger["ledger_repeats"], ledger
    games = report.figures["games"]
    assert games["unfinished"] >= 1 and not games["problems"], games
    assert games["replayed"] == games["unfinished"]
    return ledger


@pytest.mark.system
def test_kill9_on_sqlite_loses_and_doubles_no_acknowledged_move(tmp_path: Path) -> None:
    opts = Options(
        seed=3,
        kills=2,
        games=3,
        procs=1,
        probe_tables=1,
        up=(1.0, 2.0),
        pause=(0.2, 0.5),
        tail=1.0,
        wait_for_load=False,
        tail_moves=60,  # (the ledger check below wants more than 50)
    )
    report = sqlite_campaign(opts, tmp_path, _say)
    _assert_nothing_lost(report)
    kills = [e for e in report.events if e["kind"] == "kill -9"]
    assert len(kills) == 2 and report.figures["faults"]["restarts"] == 2
    for event in kills:
        assert event["moves_again_after_s"] is not None  # the load played on
        assert event["probe_moves_ok"] == event["probe_tables"] == 1  # resumed, took a move
    assert report.figures["server_logs"]["sqlite"]["tracebacks"] == 0
    # a hello while a move waits for its commit is shown the committed game only
    pending = report.figures["pending_commit"]
    assert pending["ok"] and pending["shown_while_pending"] == pending["steps_stored"], pending


@pytest.mark.system
@pytest.mark.pg
def test_postgresql_stopped_and_started_under_load(tmp_path: Path) -> None:
    opts = Options(
        seed=5,
        games=2,
        procs=1,
        probe_tables=1,
        up=(1.0, 1.5),
        pg_servers=1,
        pg_kills=0,
        pg_stops=1,
        stop_for=(1.5, 2.0),
        pg_durable=False,  # fsync off: PostgreSQL is stopped, not the machine
        tail=1.0,
        wait_for_load=False,
        tail_moves=60,  # (the ledger check below wants more than 50)
    )
    try:
        report = pg_campaign(opts, tmp_path, _say)
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    _assert_nothing_lost(report)
    (stop,) = report.events
    assert stop["kind"].startswith("DB stop")
    assert stop["degraded_seen"]  # /api/health said 503 "unavailable" meanwhile
    assert stop["probe_move_while_down"] == "store_unavailable"
    assert stop["servers_alive_while_down"] and stop["servers_not_restarted"]
    assert all(v is not None for v in stop["health_ok_after_s"].values())
    assert stop["moves_again_after_s"] is not None
    assert stop["refused_move_resent"]["ok"]  # applied once when sent again
    assert stop["probe_moves_ok"] == stop["probe_tables"] == 1
