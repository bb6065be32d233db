"""The end of a campaign: the load stopped, then every check of the ledgers, the games
and the servers."""

from __future__ import annotations

import time

from lab.faults.checks import check_games, check_ledger, read_ledger, stored_moves
from lab.faults.load import Load
from lab.faults.monitor import Monitor
from lab.faults.probes import Prober
from lab.faults.report import Report
from lab.faults.servers import Say, Server, health


def finish(
    report: Report,
    load: Load,
    load_started: float,
    prober: Prober,
    servers: list[Server],
    url: str,
    say: Say,
    wait_for_load: bool = True,
    tail: float = 0.0,
    monitor: Monitor | None = None,
    tail_moves: int = 0,
    tail_moves_timeout: float = 90.0,
) -> None:
    """Wait for the load to end (or stop it), then check the ledgers and every
    unfinished game."""
    if wait_for_load:
        left = load.seconds_left(load_started)
        say(f"waiting for the load tool to finish ({max(0.0, left):.0f} s left)")
        code, document = load.wait(max(0.0, left) + 180)
        report.check("load tool ran to its end", code == 0, f"exit {code}; {load.log}")
    else:
        time.sleep(tail)
        deadline = time.monotonic() + tail_moves_timeout
        while load.acked_moves() < tail_moves and load.running() and time.monotonic() < deadline:
            time.sleep(0.2)
        say("stopping the load tool")
        load.stop()
        document = None
    if monitor is not None:
        monitor.stop()
        report.figures["monitor"] = monitor.figures()
    results = (document or {}).get("results", {})
    report.figures["load"] = {
        "command": "uv run " + " ".join(load.command),
        "moves": results.get("acked_total"),
        "moves_per_second": results.get("moves_per_second"),
        "latency_ms": results.get("latency_ms"),
        "errors": results.get("errors"),
        "errors_outside": results.get("errors_outside"),
        "reconnects": results.get("reconnects"),
        "resent": results.get("resent"),
        "duplicates": results.get("duplicates"),
        "games_finished": results.get("games_finished"),
        "games_started": results.get("games_started"),
    }
    if document is not None:
        errors = results.get("errors", {})
        given_up = {k: errors.get(k, 0) for k in ("stalled", "reconnect_gave_up")}
        report.check(
            "no load game stalled or was given up (every game kept moving)",
            not any(given_up.values()),
            ", ".join(f"{k} {v}" for k, v in given_up.items()),
        )
    for server in servers:  # every process must be up for the checks below
        if not server.alive():
            report.check(f"server {server.name} alive at the end", False, "it had exited")
            server.start()
            server.wait_ready(90)
    lobby = prober.lobby_game()
    final = prober.step_all("final")
    lines = read_ledger(load.ledger, prober.ledger)
    ledger = check_ledger(lines, stored_moves(url))
    ledger["probe_moves"] = len(read_ledger(prober.ledger))
    report.figures["ledger"] = ledger
    report.check("ledger has moves", ledger["acknowledged"] > 0, f"{ledger['acknowledged']}")
    report.check(
        "every acknowledged move is stored",
        ledger["missing"] == 0,
        f"{ledger['missing']} missing {ledger['missing_examples']}",
    )
    report.check(
        "no acknowledged move is stored twice",
        ledger["doubled"] == 0 and ledger["client_ids_stored_twice"] == 0,
        f"{ledger['doubled']} doubled, {ledger['client_ids_stored_twice']} client ids twice",
    )
    report.check("every move stored for its seat", ledger["wrong_seat"] == 0)
    games = check_games(url, servers)
    report.figures["games"] = games
    report.check(
        "every unfinished game replays, loads on every process at its stored version",
        not games["problems"],
        "; ".join(games["problems"][:5]),
    )
    report.check(
        "every probe table takes a move at the end",
        all(p["ok"] for p in final) and bool(final),
        "; ".join(str(p.get("detail")) for p in final if not p["ok"]),
    )
    report.check(
        "the lobby table starts and takes a move", lobby["ok"], str(lobby.get("detail", ""))
    )
    for server in servers:
        status, body = health(server)
        report.check(f"server {server.name} healthy at the end", status == 200, f"{status} {body}")
    report.figures["server_logs"] = {s.name: s.log_problems() for s in servers}
