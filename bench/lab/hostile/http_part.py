"""The HTTP part of the live campaign: schemathesis cases and raw malformed requests."""

from __future__ import annotations

from collections import Counter

from lab.hostile.examples import draw_examples
from lab.hostile.games import Context
from lab.hostile.raw_http import raw_requests
from lab.hostile.schema import (
    case_json,
    prepare_case,
    run_schemathesis_checks,
    schema_cases,
    schemathesis_checks,
)
from lab.hostile.server import Server
from lab.hostile.verdicts import Tally, judge_http, judge_reply


def run_http(
    server: Server, ctx: Context, count: int, seed: int
) -> tuple[Tally, Tally, Counter[str]]:
    """schemathesis cases and raw malformed requests; their tallies, and the
    schemathesis checks that failed (by name)."""
    import requests
    import schemathesis

    session = requests.Session()
    session.trust_env = False
    schema = schemathesis.openapi.from_url(f"{server.base}/openapi.json", timeout=30)
    checks = schemathesis_checks()
    spec = Tally()
    checks_failed: Counter[str] = Counter()
    cases = draw_examples(schema_cases(schema, ctx), count, seed)
    for case, game_id, authorization in cases:
        case = prepare_case(case, game_id, authorization)
        label = f"{case.operation.label}"
        try:
            response = case.call(base_url=server.base, session=session, timeout=30)
        except Exception as exc:  # the client could not even send it
            spec.add("(not sendable)", "ok", type(exc).__name__, {})
            continue
        content_type = (response.headers.get("content-type") or [""])[0]
        verdict, answer = judge_http(response.status_code, content_type, response.content)
        spec.add(label, verdict, answer, {"case": case_json(case), "status": response.status_code})
        for name in run_schemathesis_checks(case, response, checks):
            checks_failed[name] += 1
            if checks_failed[name] <= 3:
                example = {"case": case_json(case), "status": response.status_code}
                example["reply"] = response.content[:300].decode(errors="replace")
                spec.check_examples.append({"check": name, **example})
    raw = Tally()
    for request in draw_examples(raw_requests(ctx), max(200, count // 3), seed + 1):
        try:
            reply = session.request(
                request.method,
                server.base + request.path,
                headers=dict(request.headers),
                data=request.content(),
                timeout=30,
            )
        except Exception as exc:
            raw.add(request.category, "ok", f"not sendable: {type(exc).__name__}", {})
            continue
        verdict, answer = judge_reply(reply, request)
        raw.add(request.category, verdict, answer, request.describe())
    session.close()
    return spec, raw, checks_failed
