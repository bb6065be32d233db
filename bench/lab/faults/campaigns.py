"""The two campaigns: kill -9 on SQLite, and kill -9 and database stops on PostgreSQL."""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path

from lab.faults.finish import finish
from lab.faults.inject import kill_and_restart, stop_database, uniform
from lab.faults.load import Load, LoadSettings
from lab.faults.monitor import Monitor
from lab.faults.options import Options
from lab.faults.probes import Prober, pending_commit_probe
from lab.faults.report import Report, fault_figures
from lab.faults.servers import Say, Server, clock
from lab.postgres import DURABLE, NO_FSYNC, Cluster, ClusterError, ClusterUnavailable


def _load_duration(opts: Options, faults: int, gaps: list[float], restart: float) -> float:
    """Seconds of load that hold every planned fault, the restarts and a tail."""
    return sum(gaps) + faults * (opts.pause[1] + restart + 3.0) + opts.tail + 5.0


def _load_settings(opts: Options, spread: str, seed: int) -> LoadSettings:
    return LoadSettings(opts.games, opts.players, opts.rate, opts.procs, spread, seed)


def sqlite_campaign(opts: Options, workdir: Path, say: Say) -> Report:
    """kill -9 of the one server process on SQLite, ``opts.kills`` times, under load."""
    report = Report("sqlite")
    rng = random.Random(f"sqlite-{opts.seed}")
    workdir.mkdir(parents=True, exist_ok=True)
    server = Server("sqlite", workdir, [])
    url = f"sqlite:///{server.data_dir / 'maumau.sqlite3'}"
    load = Load(workdir, "sqlite", [server.url], _load_settings(opts, "game", opts.seed))
    try:
        began = clock()
        server.start()
        server.wait_ready(opts.start_timeout)
        first_start = clock() - began
        say(f"server up in {first_start:.1f} s on {server.url} (data {server.data_dir})")
        prober = Prober(workdir / "sqlite-probe-ledger.jsonl", [server], opts.seed, say)
        prober.set_up(opts.probe_tables)
        prober.step_all("before the kills")
        if opts.pending_check:
            pending = pending_commit_probe(server)
            report.figures["pending_commit"] = pending
            say(f"hello during a pending commit: {pending}")
            report.check(
                "a client greeted while a move's commit is pending is shown only committed state",
                pending["ok"],
                f"shown version {pending['shown_while_pending']}, "
                f"{pending['steps_stored']} steps stored, the move: {pending['move_answer']}",
            )
        gaps = [uniform(rng, opts.up) for _ in range(opts.kills)]
        restart = max(10.0, 2.0 * first_start + 2.0)
        load.start(_load_duration(opts, opts.kills, gaps, restart))
        load_started = clock()
        monitor = Monitor(load.ledger)
        monitor.start()
        say(f"load: {' '.join(load.command)}")
        load.wait_started(120)
        kill_at = clock()
        for n, gap in enumerate(gaps):
            time.sleep(max(0.0, kill_at + gap - clock()))
            if not load.running() or load.seconds_left(load_started) < 3.0:
                say(f"the load ended before kill {n + 1}")
                break
            report.events.append(kill_and_restart(server, load, prober, rng, opts, say))
            kill_at = clock()
        kills = [e for e in report.events if e["kind"] == "kill -9"]
        report.check("kills", len(kills) >= opts.kills, f"{len(kills)} of {opts.kills}")
        report.check(
            "moves acknowledged again after every restart",
            all(e["moves_again_after_s"] is not None for e in kills),
        )
        report.check(
            "the probe tables took a move after every restart",
            all(e["probe_moves_ok"] == e["probe_tables"] for e in kills),
            "; ".join(str(p) for e in kills for p in e["probe_problems"])[:500],
        )
        finish(
            report,
            load,
            load_started,
            prober,
            [server],
            url,
            say,
            opts.wait_for_load,
            opts.tail,
            monitor,
            opts.tail_moves,
            opts.start_timeout,
        )
        report.figures["faults"] = fault_figures(kills, [server], first_start)
        code = server.stop()
        report.figures["exit_code_after_sigterm"] = code  # uvicorn re-raises the signal: -15
    finally:
        load.stop()
        server.stop()
    return report


def pg_campaign(opts: Options, workdir: Path, say: Say) -> Report:
    """Several server processes on one PostgreSQL: kill -9 of a process and stops of
    the database, in a seeded order, under load."""
    report = Report("postgresql")
    rng = random.Random(f"pg-{opts.seed}")
    workdir.mkdir(parents=True, exist_ok=True)
    cluster = Cluster("faults-pg-", DURABLE if opts.pg_durable else NO_FSYNC)
    servers: list[Server] = []
    load: Load | None = None
    try:
        try:
            cluster.init()
            cluster.start()
        except (ClusterError, OSError, LookupError, subprocess.TimeoutExpired) as exc:
            log = cluster.log
            tail = log.read_text(errors="replace")[-500:] if log.exists() else ""
            raise ClusterUnavailable(f"the PostgreSQL cluster did not start: {exc} {tail}") from exc
        url = cluster.create_database("maumau")
        say(
            f"PostgreSQL {cluster.bin.parent.name} on port {cluster.port} (fsync "
            f"{'on' if opts.pg_durable else 'off'})"
        )
        servers = [
            Server(f"pg-{chr(ord('a') + n)}", workdir, ["--database-url", url])
            for n in range(opts.pg_servers)
        ]
        began = clock()
        for server in servers:
            server.start()
            server.wait_ready(opts.start_timeout)
        first_start = (clock() - began) / len(servers)
        say("servers up: " + ", ".join(s.url for s in servers))
        prober = Prober(workdir / "pg-probe-ledger.jsonl", servers, opts.seed, say)
        prober.set_up(opts.probe_tables)
        prober.step_all("before the faults")
        plan = ["kill"] * opts.pg_kills + ["stop"] * opts.pg_stops
        rng.shuffle(plan)
        gaps = [uniform(rng, opts.up) for _ in plan]
        restart = max(10.0, 2.0 * first_start + 2.0) + opts.stop_for[1]
        spread = opts.pg_spread if len(servers) > 1 else "game"
        load = Load(
            workdir, "pg", [s.url for s in servers], _load_settings(opts, spread, opts.seed)
        )
        load.start(_load_duration(opts, len(plan), gaps, restart))
        load_started = clock()
        monitor = Monitor(load.ledger, url)
        monitor.start()
        say(f"load: {' '.join(load.command)}")
        load.wait_started(120)
        modes = iter(["fast", "immediate"] * len(plan))
        fault_at = clock()
        for n, (kind, gap) in enumerate(zip(plan, gaps, strict=True)):
            time.sleep(max(0.0, fault_at + gap - clock()))
            if not load.running() or load.seconds_left(load_started) < 3.0:
                say(f"the load ended before fault {n + 1}")
                break
            if kind == "kill":
                victim = servers[rng.randrange(len(servers))]
                report.events.append(kill_and_restart(victim, load, prober, rng, opts, say))
            else:
                mode = next(modes)
                report.events.append(
                    stop_database(cluster, mode, servers, load, prober, rng, opts, say)
                )
            fault_at = clock()
        kills = [e for e in report.events if e["kind"] == "kill -9"]
        stops = [e for e in report.events if e["kind"].startswith("DB stop")]
        report.check("kills", len(kills) >= opts.pg_kills, f"{len(kills)} of {opts.pg_kills}")
        report.check("DB stops", len(stops) >= opts.pg_stops, f"{len(stops)} of {opts.pg_stops}")
        report.check(
            "servers answered 503 (database unavailable) during every DB stop",
            all(e["degraded_seen"] for e in stops),
        )
        report.check(
            "a move during every DB stop was refused with store_unavailable",
            all(e["probe_move_while_down"] == "store_unavailable" for e in stops),
            "; ".join(str(e["probe_move_while_down"]) for e in stops),
        )
        report.check(
            "no server process died during the DB stops (none restarted)",
            all(e["servers_alive_while_down"] and e["servers_not_restarted"] for e in stops),
        )
        report.check(
            "every server healthy again by itself after every DB stop",
            all(all(v is not None for v in e["health_ok_after_s"].values()) for e in stops),
        )
        report.check(
            "moves acknowledged again after every fault",
            all(e["moves_again_after_s"] is not None for e in report.events),
        )
        report.check(
            "a move refused during a DB stop is applied once when sent again",
            all((e["refused_move_resent"] or {}).get("ok") for e in stops),
            "; ".join(str(e["refused_move_resent"]) for e in stops)[:500],
        )
        report.check(
            "the probe tables took a move (seen on every process) after every fault",
            all(e["probe_moves_ok"] == e["probe_tables"] for e in report.events),
            "; ".join(str(p) for e in report.events for p in e["probe_problems"])[:500],
        )
        finish(
            report,
            load,
            load_started,
            prober,
            servers,
            url,
            say,
            opts.wait_for_load,
            opts.tail,
            monitor,
            opts.tail_moves,
            opts.start_timeout,
        )
        report.figures["faults"] = {
            **fault_figures(kills, servers, first_start),
            "db_stops": len(stops),
            "db_down_s": [e["down_s"] for e in stops],
            "servers": len(servers),
            "spread": spread,
            "fsync": opts.pg_durable,
        }
    finally:
        if load is not None:
            load.stop()
        for server in servers:
            server.stop()
        cluster.remove("immediate", keep=opts.keep)
        if opts.keep:
            say(f"PostgreSQL cluster kept in {cluster.base} (stopped)")
    return report
