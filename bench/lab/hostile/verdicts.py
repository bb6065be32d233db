"""Verdicts: whether a reply (WebSocket or HTTP) is the one the protocol promises, and
their counts."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lab.hostile.games import Context
from lab.hostile.probes import Probe, outcome
from lab.hostile.protocol import DOCUMENTED
from lab.hostile.raw_http import RawRequest


def judge(ctx: Context, probe: Probe, reply: dict[str, Any]) -> tuple[str, str]:
    """(verdict, what was answered) for one reply; verdict ``"ok"`` when it is right."""
    kind = reply.get("type")
    if outcome(ctx, probe) == "duplicate":
        data = json.loads(probe.text())
        good = (
            kind == "ack"
            and reply.get("duplicate") is True
            and reply.get("action_id") == data.get("action_id")
        )
        return ("ok" if good else "wrong-answer"), ("ack-duplicate" if good else str(kind))
    if kind != "error":
        return "not-an-error", str(kind)
    code = reply.get("code")
    if not isinstance(code, str) or code not in DOCUMENTED:
        return "undocumented-code", str(code)
    if code == "internal_error":
        return "server-error", code
    message = reply.get("message")
    if set(reply) != {"type", "code", "message", "action_id"} or not (
        isinstance(message, str) and message
    ):
        return "bad-error-shape", code
    if probe.expect and code not in probe.expect:
        return "wrong-code", code
    if probe.echo is not None and reply.get("action_id") != probe.echo:
        return "wrong-action-id", code
    return "ok", code


def judge_close(probe: Probe, code: int | None, replies: list[dict[str, Any]]) -> tuple[str, str]:
    answered = f"close:{code}"
    if replies:
        return "unexpected-reply", str(replies[0].get("type"))
    if answered not in probe.expect:
        return "wrong-close-code", answered
    return "ok", answered


class Reply(Protocol):
    """An HTTP reply as ``requests`` and ``httpx`` both give it."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Any: ...
    @property
    def content(self) -> bytes: ...


def judge_reply(reply: Reply, request: RawRequest | None = None) -> tuple[str, str]:
    """:func:`judge_http` of a client's reply; ``request``: the raw request it answers
    (what it expects, whether it was valid HTTP), ``None`` for a schema case."""
    content_type = reply.headers.get("content-type") or ""
    if request is None:
        return judge_http(reply.status_code, content_type, reply.content)
    return judge_http(
        reply.status_code, content_type, reply.content, request.expect, request.invalid_http
    )


def judge_http(
    status: int,
    content_type: str,
    body: bytes,
    expect: Sequence[str] = (),
    invalid_http: bool = False,
) -> tuple[str, str]:
    """(verdict, code or status) of one HTTP reply: no 5xx; every 4xx the documented
    error body with a documented code and its status.  A request that is not valid
    HTTP may be refused by the HTTP parser itself, with a plain 400."""
    if status >= 500:
        return "server-error", str(status)
    if status < 400:
        return ("ok" if not expect else "not-refused"), str(status)
    if not content_type.startswith("application/json"):
        if invalid_http and status == 400:
            return "ok", "400 from the HTTP parser"
        return "not-json", str(status)
    try:
        data = json.loads(body)
    except ValueError:
        return "not-json", str(status)
    error = data.get("error") if isinstance(data, dict) else None
    if not (isinstance(data, dict) and set(data) == {"error"} and isinstance(error, dict)):
        return "bad-error-shape", str(status)
    code, message = error.get("code"), error.get("message")
    if set(error) != {"code", "message"} or not (isinstance(message, str) and message):
        return "bad-error-shape", str(code)
    if not isinstance(code, str) or DOCUMENTED.get(code) is None:
        return "undocumented-code", str(code)
    if DOCUMENTED[code] != status:
        return "wrong-status", f"{code}/{status}"
    if expect and code not in expect:
        return "wrong-code", code
    return "ok", code


@dataclass
class Tally:
    """Counts of one campaign part: per category, verdict and answer."""

    sent: Counter[str] = field(default_factory=Counter)
    ok: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    by_category: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    #: answers per category and detail (e.g. the kind of change of a near-valid move)
    by_detail: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    failures: list[dict[str, Any]] = field(default_factory=list)
    #: replies that failed one of schemathesis' own (reported) checks
    check_examples: list[dict[str, Any]] = field(default_factory=list)
    #: every answer, in the order they were added
    answer_log: list[str] = field(default_factory=list)

    def add(self, category: str, verdict: str, answer: str, example: dict[str, Any]) -> None:
        self.sent[category] += 1
        self.verdicts[verdict] += 1
        self.answers[answer] += 1
        self.answer_log.append(answer)
        self.by_category[category][answer] += 1
        if example.get("detail"):
            self.by_detail[f"{category}:{example['detail']}"][answer] += 1
        if verdict == "ok":
            self.ok[category] += 1
        elif len(self.failures) < 50:
            self.failures.append({**example, "verdict": verdict, "answer": answer})

    @property
    def total(self) -> int:
        return sum(self.sent.values())

    @property
    def failed(self) -> int:
        return self.total - sum(self.ok.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "failed": self.failed,
            "sent": dict(self.sent),
            "ok": dict(self.ok),
            "verdicts": dict(self.verdicts),
            "answers": dict(self.answers),
            "by_category": {k: dict(v) for k, v in self.by_category.items()},
            "by_detail": {k: dict(v) for k, v in sorted(self.by_detail.items())},
            "failures": self.failures,
            "check_examples": self.check_examples,
        }
