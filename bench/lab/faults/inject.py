"""The faults: kill -9 of a server process, and a stop of PostgreSQL, each under load
and followed by the proof that the game goes on."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from lab.faults.load import Load, wait_flow
from lab.faults.options import Options
from lab.faults.probes import Pending, Prober
from lab.faults.servers import Say, Server, clock, health
from lab.postgres import Cluster


def uniform(rng: random.Random, bounds: tuple[float, float]) -> float:
    return rng.uniform(*bounds)


def _probe_figures(probes: list[dict[str, Any]]) -> dict[str, Any]:
    """How the probe tables' moves after a fault went."""
    return {
        "probe_moves_ok": sum(1 for p in probes if p["ok"]),
        "probe_tables": len(probes),
        "probe_problems": [p for p in probes if not p["ok"]],
    }


def kill_and_restart(
    server: Server, load: Load, prober: Prober, rng: random.Random, opts: Options, say: Say
) -> dict[str, Any]:
    """kill -9 one server, start it again on the same data after a pause, and see the
    game go on (moves acknowledged again, the probe tables take a move)."""
    pause = uniform(rng, opts.pause)
    pid = server.pid
    at = time.time()
    killed = clock()
    server.kill9()
    time.sleep(pause)
    server.start()
    server.wait_ready(opts.start_timeout)
    ready = clock()
    # acknowledgements from before the kill were written out long ago (every 0.2 s)
    flow = wait_flow(load, load.acked_bytes(), 30)
    probes = prober.step_all(f"after kill of {server.name}")
    event = {
        "kind": "kill -9",
        "server": server.name,
        "at": round(at, 3),
        "pid": pid,
        "pause_s": round(pause, 3),
        "downtime_s": round(ready - killed, 3),
        "moves_again_after_s": None if flow is None else round(flow, 3),
        **_probe_figures(probes),
    }
    say(
        f"kill -9 {server.name} (pid {pid}): down {event['downtime_s']:.2f} s, moves again "
        f"after {event['moves_again_after_s']} s, probes {event['probe_moves_ok']}/{len(probes)}"
    )
    return event


def stop_database(
    cluster: Cluster,
    mode: str,
    servers: list[Server],
    load: Load,
    prober: Prober,
    rng: random.Random,
    opts: Options,
    say: Say,
) -> dict[str, Any]:
    """Stop PostgreSQL for a few seconds under load: the servers must answer errors,
    stay alive, and recover by themselves once it is back."""
    down_for = uniform(rng, opts.stop_for)
    pids = [s.pid for s in servers]
    at = time.time()
    stopped = clock()
    cluster.stop(mode)
    stop_took = clock() - stopped
    answers: dict[str, Counter[str]] = {s.name: Counter() for s in servers}
    pending: Pending | dict[str, Any] | None = None
    down_bytes = load.acked_bytes()
    while clock() - stopped < down_for or (pending is None and prober.tables):
        for server in servers:
            status, body = health(server)
            answers[server.name][f"{status}/{(body or {}).get('database')}"] += 1
        if pending is None and prober.tables:
            pending = prober.refused_move(prober.tables[0])
        time.sleep(0.2)
    acked_while_down = max(0, load.acked_bytes() - down_bytes)
    alive_while_down = all(s.alive() for s in servers)
    cluster.start()
    up = clock()
    # recovery by itself: health ok on every process, moves acknowledged again
    health_back: dict[str, float | None] = {}
    for server in servers:
        deadline = clock() + 60
        health_back[server.name] = None
        while clock() < deadline:
            if health(server)[0] == 200:
                health_back[server.name] = round(clock() - up, 3)
                break
            time.sleep(0.1)
    flow = wait_flow(load, load.acked_bytes(), 30)
    resent = prober.resend(pending) if isinstance(pending, Pending) else None
    probes = prober.step_all(f"after DB stop ({mode})")
    same_pids = [s.pid for s in servers] == pids and all(s.alive() for s in servers)
    refused = pending.answer if isinstance(pending, Pending) else (pending or {}).get("detail")
    event = {
        "kind": f"DB stop -m {mode}",
        "server": "postgresql",
        "at": round(at, 3),
        "down_s": round(up - stopped, 3),
        "pg_stop_took_s": round(stop_took, 3),
        "health_answers": {k: dict(v) for k, v in answers.items()},
        "degraded_seen": all(
            any(a.startswith("503/unavailable") for a in v) for v in answers.values()
        ),
        "probe_move_while_down": refused,
        "servers_alive_while_down": alive_while_down,
        "servers_not_restarted": same_pids,
        "health_ok_after_s": health_back,
        "moves_again_after_s": None if flow is None else round(flow, 3),
        "acked_bytes_while_down": acked_while_down,
        "refused_move_resent": resent,
        **_probe_figures(probes),
    }
    say(
        f"PostgreSQL stop -m {mode}: down {event['down_s']:.2f} s, probe move answered "
        f"{refused}, health ok after {health_back}, moves again after "
        f"{event['moves_again_after_s']} s, probes {event['probe_moves_ok']}/{len(probes)}"
    )
    return event
