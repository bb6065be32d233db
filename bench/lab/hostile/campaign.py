"""The live campaign: the server, the games, its three parts (WebSocket, HTTP, the
attacks), and the gates."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from lab.hostile.arena import setup_games
from lab.hostile.attacks import Part, Plan, run_attacks
from lab.hostile.builder import Builder
from lab.hostile.http_part import run_http
from lab.hostile.server import HEADER_SECONDS, HELLO_SECONDS, start_server
from lab.hostile.snapshot import differences, snapshot
from lab.hostile.ws_part import run_ws


def campaign(
    messages: int, requests_count: int, seed: int, work: Path, plan: Plan | None = None
) -> dict[str, Any]:
    """The whole campaign; ``plan``: the attacks' sizes (``None``: no attacks)."""
    began = time.monotonic()
    times: dict[str, float] = {}
    server = start_server(work)
    try:
        mark = time.monotonic()
        ctx = asyncio.run(setup_games(server))
        before = asyncio.run(snapshot(server, ctx))
        times["setup"] = time.monotonic() - mark

        mark = time.monotonic()
        builder = Builder(ctx, live=True)
        probes = builder.draw_probes(messages, seed)
        times["generate_ws"] = time.monotonic() - mark

        mark = time.monotonic()
        ws = asyncio.run(run_ws(server, ctx, probes))
        times["websocket"] = time.monotonic() - mark
        alive_after_ws = server.alive()

        mark = time.monotonic()
        spec, raw, checks_failed = run_http(server, ctx, requests_count, seed)
        times["http"] = time.monotonic() - mark

        mark = time.monotonic()
        parts: list[Part] = []
        if plan is not None:
            plan = replace(plan, hello_seconds=HELLO_SECONDS, header_seconds=HEADER_SECONDS)
            parts = asyncio.run(run_attacks(server, ctx, plan))
        times["attacks"] = time.monotonic() - mark
        alive_after_attacks = server.alive()

        mark = time.monotonic()
        after = asyncio.run(snapshot(server, ctx))
        changed = differences(before, after)
        import httpx

        health = httpx.get(f"{server.base}/api/health", timeout=10)
        alive = server.alive()
        times["check"] = time.monotonic() - mark
    finally:
        code = server.stop()
    utf8_records, bad_records = server.bad_records()
    http_5xx = spec.verdicts["server-error"] + raw.verdicts["server-error"]
    ws_dropped = ws.verdicts["dropped"] + ws.verdicts["stalled"]
    unanswered = ws.verdicts["unanswered"]
    crashes = ws_dropped + (0 if alive else 1)
    summary = {
        "WebSocket messages sent": f"{ws.total:,}",
        "  answered as the protocol says": f"{ws.total - ws.failed:,}",
        "  wrong or undocumented answers": ws.failed - ws_dropped - unanswered,
        "  unanswered": unanswered,
        "  internal_error answers": ws.verdicts["server-error"],
        "HTTP requests (schemathesis / raw)": f"{spec.total:,} / {raw.total:,}",
        "  5xx replies": http_5xx,
        "  4xx off the documented error body": spec.failed + raw.failed - http_5xx,
        "  schemathesis checks failed (reported, not a gate)": dict(checks_failed) or 0,
        "crashes (server died, connections dropped unexpectedly)": crashes,
        "games changed": len(changed),
        "server alive at the end, /api/health": (
            f"{alive}, {health.status_code} {health.json().get('status')}"
        ),
        "tracebacks / ERROR records in the server output": len(bad_records),
        "  uvicorn's ERROR + traceback for a text frame not UTF-8": len(utf8_records),
    }
    if plan is not None:
        passed_parts = sum(part.passed for part in parts)
        summary["attacks (the security issue), gates passed"] = f"{passed_parts} / {len(parts)}"
        for part in parts:
            summary[f"  {part.name}"] = part.headline
        summary["  attacks' HTTP 5xx replies"] = sum(part.http_5xx for part in parts)
    summary["wall time, s"] = round(time.monotonic() - began, 1)
    gates = {
        "every WebSocket message answered as the protocol says": ws.failed == 0,
        "as many messages as asked": ws.total >= messages,
        "every HTTP reply without 5xx, each 4xx documented": spec.failed + raw.failed == 0,
        "games unchanged": not changed,
        "server alive after the WebSocket part": alive_after_ws,
        "server alive at the end, /api/health 200": alive and health.status_code == 200,
        "no traceback or ERROR record from the application": not bad_records,
        "no traceback or ERROR record from uvicorn": not utf8_records,
    }
    if plan is not None:
        gates["server alive after the attacks"] = alive_after_attacks
        for part in parts:
            gates[f"{part.name}: {part.gate}"] = part.passed
    passed = all(gates.values())
    summary["PASSED"] = passed
    return {
        "passed": passed,
        "failed_gates": [name for name, ok in gates.items() if not ok],
        "seed": seed,
        "messages_asked": messages,
        "summary": summary,
        "times_s": {k: round(v, 1) for k, v in times.items()},
        "websocket": ws.to_json(),
        "http_schemathesis": spec.to_json(),
        "http_raw": raw.to_json(),
        "attacks": {part.name: part.to_json() for part in parts},
        "schemathesis_checks_failed": dict(checks_failed),
        "games": {
            k: {"id": g.id, "status": g.status, "version": g.version} for k, g in ctx.games.items()
        },
        "changed": changed[:50],
        "server_error_records": bad_records[:20],
        "server_utf8_records": {"count": len(utf8_records), "first": utf8_records[:1]},
        "server_warnings": dict(server.warnings().most_common(20)),
        "server_exit_status": code,
        "failures": ws.failures[:20]
        + spec.failures[:10]
        + raw.failures[:10]
        + [f for part in parts for f in part.failures[:5]],
    }
