"""Hostile input campaign: malformed and hostile WebSocket messages and HTTP requests
against a real ``maumau serve`` process, with a few games in progress.

It starts the server on a free port with a fresh data directory, sets up games (four
humans mid-round; two humans and two computer players mid-round on a 32-card deck with
catches; a finished game; a table in the lobby), then sends:

- WebSocket: at least ``--messages`` hypothesis-generated hostile messages (random JSON
  of every shape, wrong types, unknown types, text that is not JSON, binary frames,
  oversized and huge frames, text frames of invalid UTF-8, real moves with one field
  mutated, hello with wrong tokens, messages before hello, moves from spectators...),
  spread over many connections.  Every one must be answered with an ``error`` carrying
  a code from ``docs/protocol.md`` (a resent ``action_id`` with its ``ack``, as the
  protocol says; a frame over 64 KiB, or invalid UTF-8, with the socket closed), and
  a ``ping`` after each batch must get its ``pong``.
- HTTP: schemathesis cases generated from the server's ``/openapi.json`` for every
  operation (negative and positive, with real and stranger game ids and tokens), plus
  raw malformed requests (invalid JSON, wrong content types, bodies over 64 KiB with and
  without a length, bad ``Authorization`` headers, unknown paths and methods).  No
  reply may be a 5xx; every 4xx must carry the documented ``{"error": {"code",
  "message"}}`` body with a documented code and its documented status.

Afterwards every game must be exactly as before (its info, every seat's view, the record,
and its rows in the database), the server must still be running and answer
``/api/health``, and its output must hold no traceback and no ERROR line.

    uv run python bench/hostile.py                          # 10,000 messages, seed 1
    uv run python bench/hostile.py --messages 20000 --requests 5000 --seed 7 --json out.json

A script, not a test (``tests/test_hostile.py`` runs a small sample of the same probes
in-process).  Exit status 0 when every check passed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from maumau.engine import Rules
from maumau.engine.actions import Action, Draw, Play
from maumau.engine.cards import CODES, deck_cards
from maumau.server.errors import ServerError
from maumau.server.protocol import Hello, Ping, Ready
from maumau.server.sockets import parse
from maumau.server.table import read_action

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"

#: the server's WebSocket message limit (ServerConfig.max_message_bytes), and the frame
#: size over which ``maumau serve`` drops the connection (uvicorn's ws_max_size)
MESSAGE_LIMIT = 4096
FRAME_LIMIT = 64 * 1024
#: the HTTP body limit (app.MAX_BODY)
BODY_LIMIT = 64 * 1024

TYPES = ("hello", "action", "ping", "ready")
FIELDS = ("type", "token", "version", "action_id", "action", "seat", "game_id", "code")
ACTION_KEYS = ("seat", "play", "draw", "pass", "catch", "suit", "call")
VERBS = ("play", "draw", "pass", "catch")
NAN_LITERALS = ("NaN", "Infinity", "-Infinity")


def documented_codes(doc: Path = PROTOCOL_DOC) -> dict[str, int | None]:
    """Every error code in the protocol's "Error codes" section, with its HTTP status
    (``None`` for the engine's codes, which have none)."""
    section = doc.read_text().split("## Error codes", 1)[1]
    codes: dict[str, int | None] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z_]+)`", cells[0]) if line.startswith("|") else None
        if match:
            status = cells[1] if len(cells) > 2 else ""
            codes[match.group(1)] = int(status) if status.isdigit() else None
    return codes


DOCUMENTED = documented_codes()


# --- what the campaign knows about each game ----------------------------------------------


@dataclass
class GameCtx:
    """A game the probes aim at, as it stands (it must not change)."""

    key: str
    id: str
    status: str  # lobby | playing | finished
    rules: Rules
    #: the human seats the campaign holds: seat -> token
    tokens: dict[int, str]
    version: int | None = None
    #: each held seat's legal actions and hand in the current state
    legal: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    hands: dict[int, list[str]] = field(default_factory=dict)
    #: action ids each seat had accepted (a resend is answered with ack, duplicate)
    accepted_ids: dict[int, list[str]] = field(default_factory=dict)

    @property
    def deck(self) -> list[str]:
        return [CODES[c] for c in deck_cards(self.rules.deck)]


@dataclass
class Context:
    games: dict[str, GameCtx]
    #: seat tokens of another table (no probe goes there): right shape, wrong table
    strangers: list[str]

    def targets(self, game: GameCtx) -> list[str]:
        """The persistent connections a probe may use at ``game``."""
        return [*(f"seat{s}" for s in sorted(game.tokens)), "spectator", "fresh"]


@dataclass(frozen=True)
class Probe:
    """One hostile message, where it goes, and what the answer must be."""

    category: str
    game: str  # a GameCtx key
    #: "seatN" / "spectator" (a connection that said hello so), "fresh" (no hello);
    #: "own-...": a connection of its own, which the server is expected to close
    who: str
    frame: str  # "text" | "binary" | "raw-text" (a text frame of raw, invalid UTF-8 bytes)
    data: str | bytes
    #: the only right answers: error codes, "ack-duplicate", "close:CODE"; () = any
    #: documented error code
    expect: tuple[str, ...] = ()
    #: the action_id an error must echo
    echo: str | None = None
    detail: str = ""

    def text(self) -> str:
        return self.data if isinstance(self.data, str) else self.data.decode("utf-8", "replace")

    def describe(self) -> dict[str, Any]:
        data = self.data if isinstance(self.data, str) else repr(self.data)
        return {
            "category": self.category,
            "detail": self.detail,
            "game": self.game,
            "who": self.who,
            "frame": self.frame,
            "data": data[:300] + ("..." if len(data) > 300 else ""),
            "size": len(self.data),
            "expect": list(self.expect),
        }


def seat_of(who: str) -> int | None:
    who = who.removeprefix("own-")
    return int(who[4:]) if who.startswith("seat") else None


def is_legal(action: Action, seat: int, game: GameCtx) -> bool:
    """Whether the server would accept ``action`` now (a play with any call counts)."""
    for item in game.legal.get(seat, []):
        legal = read_action(seat, dict(item), game.rules)
        if isinstance(action, Play) and isinstance(legal, Play):
            if (action.card, action.suit) == (legal.card, legal.suit):
                return True
        elif isinstance(action, Draw) and isinstance(legal, Draw):
            if action.count is None or action.count == legal.count:
                return True
        elif action == legal:
            return True
    return False


def outcome(ctx: Context, probe: Probe) -> str:
    """What the protocol makes the server do with ``probe``: ``"refused"`` (an error),
    ``"duplicate"`` (ack, duplicate), ``"closed"``, or ``"accepted"`` (a message that is
    not hostile at all: a ping, a good hello, a legal move; such probes are dropped)."""
    if probe.who.startswith("own-") or probe.frame == "raw-text":
        return "closed" if probe.expect and probe.expect[0].startswith("close:") else "refused"
    text = probe.text()
    if len(text) > MESSAGE_LIMIT or len(text.encode()) > MESSAGE_LIMIT:
        return "refused"
    try:
        data = json.loads(text)
        message = parse(data)
    except (ValueError, RecursionError, ServerError):
        return "refused"
    game = ctx.games[probe.game]
    greeted = probe.who != "fresh"
    seat = seat_of(probe.who)
    if isinstance(message, Ping):
        return "accepted"
    if isinstance(message, Hello):
        if greeted:
            return "refused"
        if message.token is None or message.token in game.tokens.values():
            return "accepted"
        return "refused"
    if isinstance(message, Ready) or not greeted or seat is None:
        return "refused"  # never between rounds here; before hello; a spectator
    try:
        action = read_action(seat, dict(message.action), game.rules)
    except ServerError:
        return "refused"
    except Exception:  # the server would fail too: let the judge see it
        return "refused"
    if game.status == "lobby":
        return "refused"
    if message.action_id in game.accepted_ids.get(seat, ()):
        return "duplicate"
    if message.version != game.version or game.status != "playing":
        return "refused"
    return "accepted" if is_legal(action, seat, game) else "refused"


# --- verdicts -----------------------------------------------------------------------------


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


# --- hypothesis: drawing many examples outside a test ---------------------------------------


def draw_examples(
    strategy: st.SearchStrategy[Any], count: int, seed: int | None = None
) -> list[Any]:
    """``count`` examples of ``strategy`` (fewer only if it cannot make more); with
    ``seed=None`` derandomized (the same examples every run)."""
    found: list[Any] = []
    config = settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=seed is None,
    )

    @config
    @given(strategy)
    def collect(example: Any) -> None:
        found.append(example)

    if seed is not None:
        collect = hypothesis_seed(seed)(collect)
    collect()
    return found


#: the kinds of change to a real move (near-valid probes)
NEAR_VALID_KINDS = (
    "stale-version", "negative-version", "version-not-int", "version-lax", "missing-field",
    "extra-field", "bad-action-id", "duplicate-id", "action-not-object", "action-empty",
    "two-verbs", "unknown-action-key", "card-off-deck", "card-malformed", "card-not-string",
    "card-not-in-hand", "bad-suit", "suit-not-string", "suit-on-non-jack", "bad-call",
    "bad-draw", "draw-count", "bad-pass", "bad-catch", "catch-range", "other-seat",
    "type-variant", "truncated", "nan-literal", "deep-nesting", "surrogate", "bom",
    "duplicate-keys", "huge-number",
)  # fmt: skip

#: types the server does not take (some of them its own messages' types)
OTHER_TYPES = (
    "pong", "welcome", "state", "error", "closed", "lobby", "ack", "HELLO", "Ping", " ping",
    "ping ", "act", "actions", "ready\x00", "", "hello\u200b", "game_end",
)  # fmt: skip
ACTION_TYPOS = ("Action", "ACTION", " action", "action ", "actions", "act", "action\x00")
#: text that is not JSON (as Python's parser reads it)
NOT_JSON = (
    "{", "}", "{not json", '{"type": "ping"', "{'type': 'ping'}", '{"type": "ping",}',
    '{"type": ping}', "\ufeff{}", '\ufeff{"type": "ping"}', "nan", "inf", "None", "True",
    '{"type": "ping"} {"type": "ping"}', "[" * 2000, '{"a": ' * 1000, "// x\n{}",
    '{"type": "ping" /* c */}', '"unterminated', "0x10", "+1", ".5", "1.", "--1",
    '{"type": "\\x41"}', '{"type": "\\ud800\\"}', "\x00", "", " ", "\n", "<xml/>",
)  # fmt: skip
#: binary frames with bytes that are not UTF-8 (the server reads them with U+FFFD)
BINARY_SAMPLES = (
    b'{"type": "ping", "x": "\xff"}', b'{"type": "hello", "token": "\xff\xfe\xfd"}',
    b'{"type": "\xc0\xaf"}', b"\xef\xbb\xbf{}", b"\x00" * 10,
    b'{"type": "action", "version": 1, "action_id": "\xed\xa0\x80", "action": {"draw": 1}}',
)  # fmt: skip

# --- hypothesis: WebSocket probes ------------------------------------------------------------


def dumps(value: Any, ascii_only: bool = True) -> str:
    """JSON text of ``value``; NaN and Infinity as Python writes them (valid for the
    server's parser); lone surrogates always as escapes (they cannot go on the wire)."""
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, allow_nan=True)
    return text


SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
TEXT = st.text(max_size=24) | st.text(st.characters() | SURROGATES, max_size=8)
NUMBERS = (
    st.integers()
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 2**31, 2**63, -(2**63) - 1, 10**100, 1e308, -0.0, 5e-324])
)
CARDISH = st.sampled_from(
    ["7H", "JC", "AS", "2C", "TH", "10H", "qh", "J", "", "XX", "JC ", "7h", "1S", "ZZ"]
)


@functools.cache
def json_values(max_leaves: int = 16) -> st.SearchStrategy[Any]:
    """Any JSON value (NaN and Infinity included), with keys the protocol uses mixed in."""
    scalars = st.none() | st.booleans() | NUMBERS | TEXT | CARDISH | st.sampled_from(TYPES)
    keys = TEXT | st.sampled_from(FIELDS + ACTION_KEYS)
    return st.recursive(
        scalars,
        lambda kids: st.lists(kids, max_size=5) | st.dictionaries(keys, kids, max_size=5),
        max_leaves=max_leaves,
    )


def _fits(text: str) -> bool:
    return len(text.encode()) <= MESSAGE_LIMIT


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


@dataclass
class Builder:
    """Builds the probe strategies for one campaign's games."""

    ctx: Context
    live: bool = True
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    # - where probes go -

    def games(self) -> list[GameCtx]:
        return list(self.ctx.games.values())

    def anywhere(self) -> st.SearchStrategy[tuple[GameCtx, str]]:
        pairs = [(g, who) for g in self.games() for who in self.ctx.targets(g)]
        return st.sampled_from(pairs)

    def seated(self) -> st.SearchStrategy[tuple[GameCtx, int]]:
        return st.sampled_from([(g, s) for g in self.games() for s in sorted(g.tokens)])

    def greeted(self) -> st.SearchStrategy[tuple[GameCtx, str]]:
        pairs = [(g, w) for g in self.games() for w in self.ctx.targets(g) if w != "fresh"]
        return st.sampled_from(pairs)

    # - pieces -

    def cached(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """Strategies are built once per game and seat (building them is slow)."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def fresh_id(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        return self.cached(("id", game.key, seat), lambda: self._fresh_id(game, seat))

    def _fresh_id(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        used = set(game.accepted_ids.get(seat, ())) if seat is not None else set()
        ids = st.text(min_size=1, max_size=64) | st.integers(0, 2**64).map(lambda n: f"h-{n:x}")
        return ids.filter(lambda i: i not in used)

    def plausible(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[dict[str, Any]]:
        """An action object the server reads without complaint (legal or not)."""
        return self.cached(("plausible", game.key, seat), lambda: self._plausible(game, seat))

    def _plausible(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[dict[str, Any]]:
        deck = game.deck
        jacks = [c for c in deck if c[0] == "J"]
        options: list[st.SearchStrategy[dict[str, Any]]] = [
            st.sampled_from(deck).map(lambda c: {"play": c}),
            st.tuples(st.sampled_from(jacks), st.sampled_from("CDHS")).map(
                lambda t: {"play": t[0], "suit": t[1]}
            ),
            st.sampled_from(deck).map(lambda c: {"play": c, "call": "mau"}),
            st.just({"draw": 1}),
            st.just({"draw": None}),
            st.just({"pass": True}),
            st.integers(0, 7).map(lambda k: {"catch": k}),
        ]
        legal = game.legal.get(seat, []) if seat is not None else []
        if legal:
            options.append(st.sampled_from(legal))
            options.append(st.sampled_from(legal))
        return st.one_of(options).map(dict)

    def hand_or_deck(self, game: GameCtx, seat: int) -> st.SearchStrategy[str]:
        hand = game.hands.get(seat) or game.deck
        return st.sampled_from(hand)

    def expect_valid(
        self, game: GameCtx, seat: int, version: int, action_id: str
    ) -> tuple[str, ...]:
        """The answer to a well-formed move whose action object reads fine."""
        if game.status == "lobby":
            return ("game_not_started",)
        if action_id in game.accepted_ids.get(seat, ()):
            return ("ack-duplicate",)
        if version != game.version:
            return ("stale_version",)
        if game.status == "finished":
            return ("game_over",)
        return ()  # an engine code

    # - categories -

    def random_json(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            value = draw(json_values())
            text = dumps(value, draw(st.booleans()))
            return Probe("random-json", game.key, who, "text", text)

        return build()

    def wrong_types(self) -> st.SearchStrategy[Probe]:
        """A known type with its fields (and others) of any type."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            kind = draw(st.sampled_from(TYPES))
            names = {
                "hello": ("token",),
                "action": ("version", "action_id", "action"),
                "ping": (),
                "ready": (),
            }[kind]
            message: dict[str, Any] = {"type": kind}
            for name in names:
                if draw(st.integers(0, 5)):
                    message[name] = draw(json_values(8))
            extra = draw(
                st.dictionaries(TEXT | st.sampled_from(FIELDS), json_values(4), max_size=2)
            )
            if kind in ("ping", "ready") or draw(st.booleans()):
                message.update({k: v for k, v in extra.items() if k != "type"})
            if kind in ("ping", "ready") and len(message) == 1:
                message["extra"] = draw(json_values(4))
            return Probe("wrong-types", game.key, who, "text", dumps(message, draw(st.booleans())))

        return build()

    def unknown_type(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            named = draw(st.booleans())
            if named:
                kind: Any = draw(
                    st.sampled_from(OTHER_TYPES) | TEXT.filter(lambda t: t not in TYPES)
                )
                expect = ("unknown_type",)
            else:
                kind = draw(json_values(4).filter(lambda v: not isinstance(v, str)))
                expect = ("bad_message",)
            fields = draw(st.dictionaries(st.sampled_from(FIELDS[1:]), json_values(4), max_size=3))
            text = dumps({"type": kind, **fields}, draw(st.booleans()))
            return Probe("unknown-type", game.key, who, "text", text, expect)

        return build()

    def not_json(self) -> st.SearchStrategy[Probe]:

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            text = draw(
                st.sampled_from(NOT_JSON)
                | st.text(max_size=60)
                | json_values(8)
                .map(dumps)
                .flatmap(lambda t: st.integers(0, max(0, len(t) - 1)).map(lambda k: t[:k]))
            )
            return Probe("not-json", game.key, who, "text", text, ("bad_json",))

        return build().filter(lambda p: not _parses(p.text()) and _fits(p.text()))

    def binary(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            data = draw(
                st.binary(max_size=200)
                | json_values(8).map(lambda v: dumps(v, False).encode())
                | st.sampled_from(BINARY_SAMPLES)
            )
            return Probe("binary", game.key, who, "binary", data)

        return build()

    def oversized(self) -> st.SearchStrategy[Probe]:
        """Over the 4096-byte message limit, under the 64 KiB frame limit."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            size = draw(st.integers(MESSAGE_LIMIT + 1, 60_000))
            how = draw(st.sampled_from(["padded", "junk", "multibyte", "binary"]))
            if how == "padded":
                text = dumps({"type": "ping", "pad": "x" * size})
            elif how == "junk":
                text = "x" * size
            else:  # few characters, many bytes
                text = "é" * (size // 2 + 1) if how == "multibyte" else "ä" * (size // 2 + 1)
            if how == "binary":
                return Probe(
                    "oversized", game.key, who, "binary", text.encode(), ("message_too_large",)
                )
            return Probe("oversized", game.key, who, "text", text, ("message_too_large",))

        return build()

    def huge_frame(self) -> st.SearchStrategy[Probe]:
        """Over 64 KiB: ``maumau serve`` drops the connection (close 1009); in-process
        there is no frame limit, and the message limit answers."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            size = draw(st.integers(FRAME_LIMIT + 1, 400_000))
            frame = draw(st.sampled_from(["text", "binary"]))
            text = dumps({"type": "ping", "pad": "y" * size})
            data: str | bytes = text if frame == "text" else text.encode()
            if self.live:
                return Probe("huge-frame", game.key, f"own-{who}", frame, data, ("close:1009",))
            return Probe("huge-frame", game.key, who, frame, data, ("message_too_large",))

        return build()

    def bad_utf8(self) -> st.SearchStrategy[Probe]:
        """A text frame that is not UTF-8: the WebSocket layer fails the connection with
        1007 (RFC 6455) before the application sees it.  Live only."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            bad = draw(
                st.sampled_from([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
            )
            data = b'{"type": "ping", "x": "' + bad + b'"}' if draw(st.booleans()) else bad
            return Probe("bad-utf8", game.key, f"own-{who}", "raw-text", data, ("close:1007",))

        return build()

    def hello_bad_token(self) -> st.SearchStrategy[Probe]:
        """hello on a connection that has not said hello, with a token that holds no
        seat here."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            real = list(game.tokens.values())
            how = draw(
                st.sampled_from(
                    ["random", "stranger", "altered", "empty", "long", "not-string", "extra"]
                )
            )
            message: dict[str, Any] = {"type": "hello"}
            if how == "random":
                message["token"] = draw(
                    st.text(st.characters(codec="utf-8"), min_size=1, max_size=128).filter(
                        lambda t: t not in real
                    )
                )
                expect: tuple[str, ...] = ("bad_token",)
            elif how == "stranger":
                message["token"] = draw(st.sampled_from(self.ctx.strangers))
                expect = ("bad_token",)
            elif how == "altered":
                token = draw(st.sampled_from(real))
                change = draw(st.sampled_from(["upper", "cut", "space", "bearer", "flip", "dup"]))
                message["token"] = {
                    "upper": token.upper() if token.upper() != token else token + "A",
                    "cut": token[:-1],
                    "space": f" {token} ",
                    "bearer": f"Bearer {token}",
                    "flip": token[:-1] + ("A" if token[-1] != "A" else "B"),
                    "dup": token + token,
                }[change]
                expect = ("bad_token",)
            elif how == "empty":
                message["token"] = ""
                expect = ("no_token",)
            elif how == "long":
                message["token"] = "t" * draw(st.integers(129, 3000))
                expect = ("bad_message",)
            elif how == "not-string":
                message["token"] = draw(
                    json_values(4).filter(lambda v: v is not None and not isinstance(v, str))
                )
                expect = ("bad_message",)
            else:
                message["token"] = draw(st.sampled_from([None, *real]))
                message[draw(TEXT.filter(lambda k: k not in ("type", "token")))] = draw(
                    json_values(4)
                )
                expect = ("bad_message",)
            text = dumps(message, draw(st.booleans()))
            return Probe("hello-bad-token", game.key, "fresh", "text", text, expect, detail=how)

        return build().filter(lambda p: _fits(p.text()))

    def hello_again(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.greeted())
            token = draw(st.sampled_from([None, *game.tokens.values(), *self.ctx.strangers]))
            message = {"type": "hello"} if token is None and draw(st.booleans()) else None
            text = dumps(message or {"type": "hello", "token": token})
            return Probe("hello-again", game.key, who, "text", text, ("already_greeted",))

        return build()

    def well_formed_move(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        """A move of the right shape (its action object may not read)."""
        action = self.plausible(game, seat) | st.dictionaries(TEXT, json_values(4), max_size=3)
        message = st.fixed_dictionaries(
            {
                "type": st.just("action"),
                "version": st.integers(0, 10**6),
                "action_id": self.fresh_id(game, seat),
                "action": action,
            }
        )
        return st.one_of(message.map(dumps), st.just(dumps({"type": "ready"})))

    def before_hello(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            text = draw(self.well_formed_move(game, None))
            return Probe("before-hello", game.key, "fresh", "text", text, ("hello_required",))

        return build()

    def spectator_acts(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            text = draw(self.well_formed_move(game, None))
            return Probe("spectator-acts", game.key, "spectator", "text", text, ("not_seated",))

        return build()

    def ready(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, seat = draw(self.seated())
            if draw(st.booleans()):
                text, expect = dumps({"type": "ready"}), ("not_between_rounds",)
            else:
                extra = draw(
                    st.dictionaries(
                        TEXT.filter(lambda k: k != "type"), json_values(4), min_size=1, max_size=3
                    )
                )
                text, expect = dumps({"type": "ready", **extra}), ("bad_message",)
            return Probe("ready", game.key, f"seat{seat}", "text", text, expect)

        return build()

    def near_valid(self, kind: str | None = None) -> st.SearchStrategy[Probe]:
        """A real move of a seated connection with one thing changed (``kind``: which
        change; any if ``None``)."""
        kinds = NEAR_VALID_KINDS if kind is None else (kind,)
        seats = self.seated()
        resent = [(g, s) for g in self.games() for s, ids in g.accepted_ids.items() if ids]
        if kind == "duplicate-id" and resent:  # where a move was accepted
            seats = st.sampled_from(resent)
        return seats.flatmap(
            lambda gs: self.cached(
                ("near", gs[0].key, gs[1], kind), lambda: self.near_valid_at(*gs, kinds)
            )
        )

    def near_valid_at(
        self, game: GameCtx, seat: int, kinds: Sequence[str]
    ) -> st.SearchStrategy[Probe]:
        """Near-valid probes for one seat's connection, with one of ``kinds`` of change."""
        version = game.version if game.version is not None else 1

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            kind = draw(st.sampled_from(kinds))
            action = draw(self.plausible(game, seat))
            action_id = draw(self.fresh_id(game, seat))
            message: dict[str, Any] = {
                "type": "action",
                "version": version,
                "action_id": action_id,
                "action": action,
            }
            expect: tuple[str, ...] = ()
            raw: str | None = None
            echo: str | None = action_id
            valid = self.expect_valid
            if kind == "stale-version":
                message["version"] = draw(
                    st.integers(0, version + 50) | st.integers(version + 1, 10**30)
                )
                if message["version"] == version:
                    message["version"] += 1
                expect = valid(game, seat, message["version"], action_id)
            elif kind == "negative-version":
                message["version"] = draw(st.integers(max_value=-1))
                expect = ("bad_message",)
            elif kind == "version-not-int":
                message["version"] = draw(
                    st.sampled_from(
                        [
                            1.5,
                            "one",
                            [version],
                            {"v": version},
                            None,
                            "",
                            "1e3",
                            -0.5,
                            "0x1",
                            version + 0.25,
                        ]
                    )
                )
                expect = ("bad_message",)
            elif kind == "version-lax":  # close to an integer, but no JSON integer: refused
                message["version"] = draw(
                    st.sampled_from([True, False, str(version), float(version), f" {version} "])
                )
                expect = ("bad_message",)
            elif kind == "missing-field":
                del message[draw(st.sampled_from(["version", "action_id", "action", "type"]))]
                expect = ("bad_message",)
                echo = message.get("action_id")
            elif kind == "extra-field":
                message[draw(TEXT.filter(lambda k: k not in message))] = draw(json_values(4))
                expect = ("bad_message",)
            elif kind == "bad-action-id":
                bad = draw(
                    st.sampled_from(["", 7, None, [action_id], {"id": 1}, True, -1.5])
                    | st.integers(65, 300).map(lambda n: "x" * n)
                    | SURROGATES
                )
                message["action_id"] = bad
                expect = ("bad_message",)
                echo = bad[:64] if isinstance(bad, str) and bad.isprintable() else None
                if isinstance(bad, str) and not bad.isprintable():
                    echo = None  # a lone surrogate cannot be echoed
            elif kind == "duplicate-id" and game.accepted_ids.get(seat):
                message["action_id"] = draw(st.sampled_from(game.accepted_ids[seat]))
                message["version"] = draw(st.integers(0, 10**6))
                message["action"] = draw(self.plausible(game, seat))
                expect = valid(game, seat, message["version"], message["action_id"])
                echo = message["action_id"]
            elif kind in ("duplicate-id", "action-not-object"):
                message["action"] = draw(json_values(6).filter(lambda v: not isinstance(v, dict)))
                expect = ("bad_message",)
            elif kind == "action-empty":
                message["action"] = {}
                expect = ("bad_action",)
            elif kind == "two-verbs":
                first, second = draw(st.permutations(VERBS))[:2]
                message["action"] = {first: draw(json_values(2)), second: draw(json_values(2))}
                if "seat" in message["action"]:
                    del message["action"]["seat"]
                expect = ("bad_action",)
            elif kind == "unknown-action-key":
                key = draw(TEXT.filter(lambda k: k not in ACTION_KEYS))
                message["action"] = {**action, key: draw(json_values(3))}
                message["action"].pop("seat", None)
                expect = ("bad_action",)
            elif kind == "card-off-deck" and game.rules.deck == 32:
                off = [c for c in CODES if c not in game.deck]
                message["action"] = {"play": draw(st.sampled_from(off))}
                expect = ("bad_card",)
            elif kind in ("card-off-deck", "card-malformed"):
                bad_card = draw(
                    st.sampled_from(
                        [
                            "",
                            "1H",
                            "10H",
                            "qh",
                            "7h",
                            "JC ",
                            " JC",
                            "XX",
                            "J",
                            "JCC",
                            "j♣",
                            "7♥",
                            "\u0037\u0048\u200b",
                        ]
                    )
                    | TEXT.filter(lambda t: t not in CODES)
                )
                message["action"] = {"play": bad_card}
                expect = ("bad_card",)
            elif kind == "card-not-string":
                message["action"] = {
                    "play": draw(json_values(3).filter(lambda v: not isinstance(v, str)))
                }
                expect = ("bad_action",)
            elif kind == "card-not-in-hand":
                hand = set(game.hands.get(seat, ()))
                message["action"] = {
                    "play": draw(st.sampled_from([c for c in game.deck if c not in hand]))
                }
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-suit":
                jack = draw(st.sampled_from([c for c in game.deck if c[0] == "J"]))
                suit = draw(st.sampled_from(["X", "h", "Hearts", "", "CD", "♥", "0"]))
                message["action"] = {"play": jack, "suit": suit}
                expect = ("bad_suit",)
            elif kind == "suit-not-string":
                jack = draw(st.sampled_from([c for c in game.deck if c[0] == "J"]))
                suit = draw(
                    json_values(3).filter(lambda v: v is not None and not isinstance(v, str))
                )
                message["action"] = {"play": jack, "suit": suit}
                expect = ("bad_action",)
            elif kind == "suit-on-non-jack":
                card = draw(st.sampled_from([c for c in game.deck if c[0] != "J"]))
                message["action"] = {"play": card, "suit": draw(st.sampled_from("CDHS"))}
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-call":
                card = draw(self.hand_or_deck(game, seat))
                call = draw(
                    st.sampled_from(["MAU", "mau mau", "Mau", "", 1, True, ["mau"], "maumaumau"])
                )
                message["action"] = {"play": card, "call": call}
                expect = ("bad_action",)
            elif kind == "bad-draw":
                how = draw(st.sampled_from(["value", "nan", "null-with"]))
                if how == "value":
                    message["action"] = {
                        "draw": draw(st.sampled_from([-1, -(10**20), 1.5, "1", True, [1], {}]))
                    }
                elif how == "nan":
                    message["action"] = {"draw": "__NAN__"}
                    raw = draw(st.sampled_from(NAN_LITERALS))
                else:
                    message["action"] = {
                        "draw": None,
                        draw(st.sampled_from(["suit", "call", "play", "pass", "x"])): "H",
                    }
                expect = ("bad_action",)
            elif kind == "draw-count":
                message["action"] = {"draw": draw(st.sampled_from([0, 2, 3, 7, 10**20]))}
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-pass":
                message["action"] = {
                    "pass": draw(st.sampled_from([False, 1, "true", None, [], {}]))
                }
                expect = ("bad_action",)
            elif kind == "bad-catch":
                if draw(st.booleans()):
                    message["action"] = {"catch": draw(st.sampled_from(["1", 1.5, None, True, []]))}
                else:
                    message["action"] = {"catch": "__NAN__"}
                    raw = draw(st.sampled_from(NAN_LITERALS))
                expect = ("bad_action",)
            elif kind == "catch-range":
                message["action"] = {"catch": draw(st.sampled_from([-1, 8, 99, 10**20, seat]))}
                expect = valid(game, seat, version, action_id)
            elif kind == "other-seat":
                other = draw(
                    st.integers().filter(lambda s: s != seat)
                    | st.sampled_from(["0", str(seat), None, [seat], {"seat": seat}, "__NAN__"])
                )
                if other == "__NAN__":
                    raw = draw(st.sampled_from(NAN_LITERALS))
                message["action"] = {**action, "seat": other}
                expect = ("not_your_seat",)
            elif kind == "type-variant":
                message["type"] = draw(st.sampled_from(ACTION_TYPOS))
                expect = ("unknown_type",)
                echo = action_id
            elif kind == "truncated":
                text = dumps(message)
                raw_text = text[: draw(st.integers(0, len(text) - 1))]
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    raw_text,
                    ("bad_json",),
                    detail=kind,
                )
            elif kind == "nan-literal":
                message["version"] = "__NAN__"
                raw = draw(st.sampled_from(NAN_LITERALS))
                expect = ("bad_message",)
            elif kind == "deep-nesting":
                depth = draw(st.integers(2, 900))
                message["action"] = {"play": json.loads("[" * depth + "]" * depth)}
                expect = ("bad_action", "bad_json")
                echo = None
            elif kind == "surrogate":
                where = draw(st.sampled_from(["action_id", "card", "suit", "type", "key"]))
                lone = draw(SURROGATES)
                if where == "action_id":
                    message["action_id"] = "id-" + lone
                    expect, echo = ("bad_message",), None
                elif where == "card":
                    message["action"] = {"play": "7" + lone}
                    expect = ("bad_card",)
                elif where == "suit":
                    message["action"] = {"play": "JC", "suit": lone}
                    expect = ("bad_suit",)
                elif where == "type":
                    message["type"] = "action" + lone
                    expect = ("unknown_type",)
                else:
                    message["action"] = {**action, "x" + lone: 1}
                    message["action"].pop("seat", None)
                    expect = ("bad_action",)
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    dumps(message, True),
                    expect,
                    echo,
                    detail=kind,
                )
            elif kind == "bom":
                text = "\ufeff" + dumps(message)
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    text,
                    ("bad_json",),
                    detail=kind,
                )
            elif kind == "duplicate-keys":
                text = dumps(message)[:-1] + ', "version": -1}'
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    text,
                    ("bad_message",),
                    echo,
                    detail=kind,
                )
            elif kind == "huge-number":
                where = draw(st.sampled_from(["version", "draw", "catch"]))
                huge = int("9" * draw(st.integers(20, 3800)))
                if where == "version":
                    message["version"] = huge
                    expect = valid(game, seat, huge, action_id)
                else:
                    message["action"] = {where: huge}
                    expect = valid(game, seat, version, action_id)
            text = dumps(message, draw(st.booleans()))
            if raw is not None:
                text = text.replace('"__NAN__"', raw)
            return Probe(
                "near-valid", game.key, f"seat{seat}", "text", text, expect, echo, detail=kind
            )

        return build()

    # - all together -

    def weights(self) -> dict[str, int]:
        weights = {
            "random-json": 18,
            "wrong-types": 12,
            "unknown-type": 6,
            "not-json": 8,
            "binary": 8,
            "oversized": 3,
            "near-valid": 26,
            "hello-bad-token": 6,
            "hello-again": 3,
            "before-hello": 3,
            "spectator-acts": 3,
            "ready": 2,
            "huge-frame": 1,
            "bad-utf8": 1,
        }
        if not self.live:
            del weights["bad-utf8"]
        return weights

    def category(self, name: str) -> st.SearchStrategy[Probe]:
        """The probes of one category (``near-valid:KIND``: one kind of change); those
        the server would accept are left out."""
        name, _, kind = name.partition(":")
        method = getattr(self, name.replace("-", "_"))
        strategy: st.SearchStrategy[Probe] = method(kind) if kind else method()
        return strategy.filter(lambda p: outcome(self.ctx, p) != "accepted")

    def draw_probes(self, count: int, seed: int | None = None) -> list[Probe]:
        """``count`` probes, each category its share by weight (a category with fewer
        distinct probes than its share repeats them), in a mixed order."""
        weights = self.weights()
        total = sum(weights.values())
        shares = {name: max(1, count * weight // total) for name, weight in weights.items()}
        shares["near-valid"] += count - sum(shares.values())
        near = shares.pop("near-valid")  # shared evenly by every kind of change
        for i, kind in enumerate(NEAR_VALID_KINDS):
            shares[f"near-valid:{kind}"] = near // len(NEAR_VALID_KINDS) + (
                i < near % len(NEAR_VALID_KINDS)
            )
        probes: list[Probe] = []
        for i, (name, share) in enumerate(shares.items()):
            if not share:
                continue
            found = draw_examples(self.category(name), share, None if seed is None else seed + i)
            probes += [found[k % len(found)] for k in range(share)]
        order = random.Random(seed or 0)
        order.shuffle(probes)
        return probes


# --- HTTP probes --------------------------------------------------------------------------


@dataclass(frozen=True)
class RawRequest:
    category: str
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    chunked: bool = False
    expect: tuple[str, ...] = ()
    #: not valid HTTP: the server's HTTP parser may refuse it (a plain 400) before the
    #: application sees it
    invalid_http: bool = False

    def describe(self) -> dict[str, Any]:
        body = repr(self.body[:200]) if self.body is not None else None
        return {
            "category": self.category,
            "method": self.method,
            "path": self.path[:200],
            "headers": [list(h) for h in self.headers],
            "body": body,
            "size": len(self.body or b""),
            "expect": list(self.expect),
        }


def http_games(ctx: Context) -> list[GameCtx]:
    """The games HTTP probes may name: never a table in the lobby (a request without a
    token may rightly take a seat there)."""
    return [g for g in ctx.games.values() if g.status != "lobby"]


def auth_headers(ctx: Context) -> list[str]:
    """Authorization values: real tokens of running games (they change nothing there),
    strangers, and malformed ones."""
    real = [t for g in ctx.games.values() if g.status == "playing" for t in g.tokens.values()]
    some = real[0] if real else "x" * 43
    return [
        *(f"Bearer {t}" for t in real),
        *(f"Bearer {t}" for t in ctx.strangers),
        "Bearer " + "A" * 43,
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        f"bearer {some}",
        some,
        f"Bearer {some} extra",
        f"Bearer  {some}",
        "Bearer " + "x" * 5000,
        "Bearer null",
        "Token abc",
        "Bearer \t",
    ]


def raw_requests(ctx: Context) -> st.SearchStrategy[RawRequest]:
    """Malformed HTTP requests built by hand: bodies, content types, sizes, headers,
    paths and methods."""
    ids = [g.id for g in http_games(ctx)]
    game_id = st.sampled_from(ids) | st.text(
        st.characters(codec="ascii", categories=["L", "N"]) | st.sampled_from("-_"),
        min_size=1,
        max_size=40,
    )
    body_paths = st.one_of(
        st.just("/api/games"),
        game_id.map(lambda g: f"/api/games/{g}/seats"),
        game_id.map(lambda g: f"/api/games/{g}/bots"),
    )
    auth = st.sampled_from(auth_headers(ctx))
    json_type = (("content-type", "application/json"),)

    @st.composite
    def bad_json(draw: st.DrawFn) -> RawRequest:
        body = draw(
            st.sampled_from(
                [
                    b"{",
                    b"{bad",
                    b'{"name": "Ana"',
                    b"\xff\xfe",
                    b"[" * 4000,
                    b"{'name': 'x'}",
                    b'{"name": "Ana",}',
                    b"\xef\xbb\xbf{",
                    b"nul",
                    b'{"name": NaN',
                    b"\x00",
                ]
            )
            | st.binary(min_size=1, max_size=300).filter(lambda b: not _parses_bytes(b))
        )
        return RawRequest(
            "bad-json-body", "POST", draw(body_paths), json_type, body, expect=("bad_json",)
        )

    @st.composite
    def wrong_shape(draw: st.DrawFn) -> RawRequest:
        body = dumps(draw(json_values(10)), False).encode()
        return RawRequest("wrong-shape-body", "POST", draw(body_paths), json_type, body)

    @st.composite
    def content_type(draw: st.DrawFn) -> RawRequest:
        kind = draw(
            st.sampled_from(
                [
                    "text/plain",
                    "application/x-www-form-urlencoded",
                    "multipart/form-data",
                    "multipart/form-data; boundary=x",
                    "application/xml",
                    "",
                    "application/jsonx",
                    "application/json; charset=latin-1",
                    "application/vnd.api+json",
                    "*/*",
                    "application/json, text/plain",
                ]
            )
        )
        body = draw(
            st.sampled_from([b'{"name": "Ana"}', b"name=Ana", b"--x\r\n\r\n--x--", b"<a/>", b""])
        )
        headers = (("content-type", kind),) if kind else ()
        return RawRequest("content-type", "POST", draw(body_paths), headers, body)

    @st.composite
    def invalid_http(draw: st.DrawFn) -> RawRequest:
        name, value = draw(
            st.sampled_from(
                [
                    ("content-type", "\x7f"),
                    ("content-type", "application/json\x01"),
                    ("authorization", "Bearer \x01abc"),
                    ("authorization", "Bearer \x7f" + "A" * 42),
                    ("x-junk", "\x00"),
                ]
            )
        )
        headers = ((name, value),) if name == "content-type" else ((name, value), *json_type)
        return RawRequest(
            "invalid-http",
            "POST",
            draw(body_paths),
            headers,
            b'{"name": "Ana"}',
            invalid_http=True,
        )

    @st.composite
    def too_large(draw: st.DrawFn) -> RawRequest:
        size = draw(st.integers(BODY_LIMIT + 1, 400_000))
        body = b'{"name": "Ana", "pad": "' + b"z" * size + b'"}'
        chunked = draw(st.booleans())
        path = draw(body_paths | game_id.map(lambda g: f"/api/games/{g}/start"))
        return RawRequest(
            "too-large-body", "POST", path, json_type, body, chunked, ("message_too_large",)
        )

    @st.composite
    def bad_auth(draw: st.DrawFn) -> RawRequest:
        gid = draw(st.sampled_from(ids))
        method, path, body = draw(
            st.sampled_from(
                [
                    ("POST", f"/api/games/{gid}/start", None),
                    ("POST", f"/api/games/{gid}/bots", b'{"level": "easy"}'),
                    ("POST", f"/api/games/{gid}/seats", b'{"name": "Mallory"}'),
                    ("POST", f"/api/games/{gid}/rematch", None),
                    ("DELETE", f"/api/games/{gid}/seats/1", None),
                    ("DELETE", f"/api/games/{gid}/seats/0", None),
                ]
            )
        )
        headers = (("authorization", draw(auth)), *json_type)
        return RawRequest("bad-auth", method, path, headers, body)

    @st.composite
    def bad_path(draw: st.DrawFn) -> RawRequest:
        gid = draw(game_id)
        path = draw(
            st.sampled_from(
                [
                    f"/api/games/{gid}/nothing",
                    f"/api/games/{gid}/seats/x",
                    f"/api/games/{gid}/seats/-1",
                    f"/api/games/{gid}/seats/99999999999999999999999",
                    f"/api/games/{gid}/seats/1.5",
                    "/api/games/" + "a" * draw(st.integers(33, 5000)),
                    "/api/games/%00",
                    "/api/games/%F0%9F%83%8F",
                    "/api/games/..%2F..%2Fetc",
                    "/api/nothing",
                    "/api/",
                    f"/api/games/{gid}/record/x",
                    f"/api/games/{gid}/qr.svg/x",
                    "/ws/x",
                    "/api/games/%ZZ",
                ]
            )
        )
        method = draw(st.sampled_from(["GET", "POST", "DELETE"]))
        return RawRequest("bad-path", method, path, (), None)

    @st.composite
    def wrong_method(draw: st.DrawFn) -> RawRequest:
        gid = draw(st.sampled_from(ids))
        path = draw(
            st.sampled_from(
                [
                    "/api/health",
                    "/api/games",
                    f"/api/games/{gid}",
                    f"/api/games/{gid}/start",
                    f"/api/games/{gid}/seats",
                    f"/api/games/{gid}/record",
                    f"/api/games/{gid}/bots",
                ]
            )
        )
        method = draw(st.sampled_from(["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"]))
        if (method, path) == ("DELETE", f"/api/games/{gid}/seats"):
            path = f"/api/games/{gid}/start"
        return RawRequest("wrong-method", method, path, (), None, expect=("method_not_allowed",))

    return st.one_of(
        invalid_http(),
        bad_json(),
        wrong_shape(),
        content_type(),
        too_large(),
        bad_auth(),
        bad_path(),
        wrong_method(),
    )


def _parses_bytes(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


def schema_cases(
    schema: Any, ctx: Context
) -> st.SearchStrategy[tuple[Any, str | None, str | None]]:
    """schemathesis cases for every operation of the OpenAPI schema, negative and
    positive, each with (perhaps) a real game id and an Authorization value to put in."""
    from schemathesis import GenerationMode

    operations = [result.ok() for result in schema.get_all_operations()]
    cases = st.one_of(
        [
            op.as_strategy(generation_mode=mode)
            for op in operations
            for mode in (GenerationMode.NEGATIVE, GenerationMode.POSITIVE)
        ]
    )
    ids = st.none() | st.sampled_from([g.id for g in http_games(ctx)])
    auth = st.none() | st.sampled_from(auth_headers(ctx))
    return st.tuples(cases, ids, auth)


def prepare_case(case: Any, game_id: str | None, authorization: str | None) -> Any:
    """Put a real game id and an Authorization value into a generated case."""
    params = case.path_parameters
    if game_id is not None and isinstance(params, dict) and "game_id" in params:
        params["game_id"] = game_id
    if authorization is not None:
        headers = dict(case.headers or {})
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        headers["Authorization"] = authorization
        case.headers = headers
    return case


#: schemathesis' own checks run on every reply; the first is a gate, the others are
#: reported (they compare the replies with the OpenAPI document)
def schemathesis_checks() -> list[Any]:
    from schemathesis.checks import (
        content_type_conformance,
        negative_data_rejection,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ]


def run_schemathesis_checks(case: Any, response: Any, checks: list[Any]) -> list[str]:
    """The names of the schemathesis checks ``response`` fails."""
    failed = []
    for check in checks:
        try:
            case.validate_response(response, checks=[check])
        except (Exception, BaseExceptionGroup):  # schemathesis' FailureGroup
            failed.append(check.__name__)
    return failed


# --- the live campaign ----------------------------------------------------------------------


LOG_RECORD = re.compile(r"(DEBUG|INFO|WARNING|ERROR|CRITICAL):")
#: how uvicorn's websockets-sansio protocol logs a text frame that is not UTF-8 (as an
#: ERROR, with a traceback, although it is the client's fault; it then closes the
#: connection with 1007, as RFC 6455 says)
UVICORN_UTF8 = "Invalid UTF-8 sequence received from client."


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    out_path: Path
    err_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int | None:
        """Stop the server this script started (its own process group only)."""
        if self.process.poll() is None:
            # as a service manager stops it: SIGTERM to ``uv run``, which passes it on
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        return self.process.returncode

    def log_records(self) -> list[str]:
        """The server's output as log records (a record's traceback lines with it)."""
        records: list[str] = []
        for path in (self.out_path, self.err_path):
            lines: list[str] = []
            for line in path.read_text(errors="replace").splitlines():
                if LOG_RECORD.match(line) or not lines:
                    if lines:
                        records.append("\n".join(lines))
                    lines = [line]
                else:
                    lines.append(line)
            if lines:
                records.append("\n".join(lines))
        return records

    def bad_records(self) -> tuple[list[str], list[str]]:
        """Records with a traceback or at ERROR/CRITICAL: (uvicorn's own report of a
        text frame that is not UTF-8, every other one)."""
        utf8, other = [], []
        for record in self.log_records():
            if "Traceback" not in record and not record.startswith(("ERROR", "CRITICAL")):
                continue
            lines = record.splitlines()
            if UVICORN_UTF8 in lines[0] and lines[-1].startswith("UnicodeDecodeError"):
                utf8.append(record)
            else:
                other.append(record[:2000])
        return utf8, other

    def warnings(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for path in (self.out_path, self.err_path):
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("WARNING"):
                    found[re.sub(r"\d+", "N", line)[:120]] += 1
        return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(work: Path) -> Server:
    port = free_port()
    data_dir = work / "data"
    out_path, err_path = work / "server.out", work / "server.err"
    command = [
        "uv", "run", "--quiet", "maumau", "serve", "--data-dir", str(data_dir),
        "--port", str(port), "--tables-per-minute", "100000", "--messages-per-second", "100000",
    ]  # fmt: skip
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(
            command, stdout=out, stderr=err, cwd=ROOT, start_new_session=True
        )
    server = Server(process, port, data_dir, out_path, err_path)
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError(f"the server exited: {err_path.read_text()[-2000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{server.base}/api/health", timeout=2).status_code == 200:
                return server
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("the server did not answer /api/health within 60 s")


class Peer:
    """A WebSocket client connection (the websockets library)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, url: str, compression: str | None = None) -> Peer:
        from websockets.asyncio.client import connect

        ws = await connect(
            url,
            proxy=None,
            max_size=None,
            compression=compression,
            ping_interval=None,
            open_timeout=20,
            close_timeout=5,
        )
        return cls(ws)

    async def send(self, probe: Probe) -> None:
        if probe.frame == "raw-text":
            await self.ws.send(probe.data, text=True)
        elif probe.frame == "binary":
            data = probe.data if isinstance(probe.data, bytes) else probe.data.encode()
            await self.ws.send(data)
        else:
            await self.ws.send(probe.data)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 20) -> dict[str, Any]:
        """The next message; raises :class:`Closed` when the socket closed."""
        from websockets.exceptions import ConnectionClosed

        try:
            text = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed as exc:
            raise Closed(exc.rcvd.code if exc.rcvd else None) from None
        message: dict[str, Any] = json.loads(text)
        return message

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed ({code})")
        self.code = code


async def greet(peer: Peer, game: GameCtx, who: str) -> dict[str, Any] | None:
    """hello as ``who`` (nothing for "fresh"); returns the first state, if any."""
    if who == "fresh":
        return None
    token = None if who == "spectator" else game.tokens[seat_of(who) or 0]
    await peer.send_json({"type": "hello", "token": token})
    welcome = await peer.recv()
    assert welcome["type"] == "welcome", welcome
    while True:
        message = await peer.recv()
        if message["type"] == "state":
            return message
        if message["type"] == "lobby" and message["game"]["status"] == "lobby":
            return None


async def exchange(peer: Peer, probes: Sequence[Probe]) -> tuple[list[dict[str, Any]], str]:
    """Send ``probes`` then a ping; the replies before the pong (lobby updates left
    out), and how it ended: "pong", "closed:CODE" or "timeout"."""
    for probe in probes:
        await peer.send(probe)
    await peer.send_json({"type": "ping"})
    replies: list[dict[str, Any]] = []
    try:
        while True:
            message = await peer.recv()
            if message["type"] == "pong":
                return replies, "pong"
            if message["type"] != "lobby":
                replies.append(message)
    except Closed as exc:
        return replies, f"closed:{exc.code}"
    except TimeoutError:
        return replies, "timeout"


BATCH = 16


async def run_persistent(
    server: Server,
    ctx: Context,
    game: GameCtx,
    who: str,
    probes: list[Probe],
    tally: Tally,
    compression: str | None,
) -> None:
    url = f"{server.ws_base}/ws/{game.id}"
    peer: Peer | None = None

    async def connect() -> Peer:
        fresh = await Peer.open(url, compression)
        await greet(fresh, game, who)
        return fresh

    def record(probe: Probe, verdict: str, answer: str) -> None:
        tally.add(probe.category, verdict, answer, probe.describe())

    try:
        for start in range(0, len(probes), BATCH):
            batch = probes[start : start + BATCH]
            peer = peer or await connect()
            replies, end = await exchange(peer, batch)
            if end == "pong" and len(replies) == len(batch):
                for probe, reply in zip(batch, replies, strict=True):
                    verdict, answer = judge(ctx, probe, reply)
                    record(probe, verdict, answer)
                continue
            # something went wrong in this batch: send its probes one at a time to see
            # which one it was
            if end != "pong":
                await peer.close()
                peer = None
            for probe in batch:
                peer = peer or await connect()
                replies, end = await exchange(peer, [probe])
                if end != "pong":
                    record(probe, "dropped" if end.startswith("closed") else "stalled", end)
                    await peer.close()
                    peer = None
                elif not replies:
                    record(probe, "unanswered", "nothing")
                elif len(replies) > 1:
                    record(probe, "extra-replies", "+".join(r.get("type", "?") for r in replies))
                else:
                    verdict, answer = judge(ctx, probe, replies[0])
                    record(probe, verdict, answer)
    finally:
        if peer is not None:
            await peer.close()


async def run_own(server: Server, ctx: Context, probe: Probe, tally: Tally) -> None:
    """A probe the server should answer by closing the connection."""
    game = ctx.games[probe.game]
    who = probe.who.removeprefix("own-")
    peer = await Peer.open(f"{server.ws_base}/ws/{game.id}")
    replies: list[dict[str, Any]] = []
    code: int | None = None
    try:
        await greet(peer, game, who)
        await peer.send(probe)
        while True:
            message = await peer.recv(10)
            if message["type"] != "lobby":
                replies.append(message)
    except Closed as exc:
        code = exc.code
    except TimeoutError:
        code = None
    finally:
        await peer.close()
    verdict, answer = judge_close(probe, code, replies)
    tally.add(probe.category, verdict, answer, probe.describe())


async def run_ws(server: Server, ctx: Context, probes: list[Probe], workers: int = 6) -> Tally:
    tally = Tally()
    groups: dict[tuple[str, str], list[Probe]] = defaultdict(list)
    own: list[Probe] = []
    for probe in probes:
        if probe.who.startswith("own-"):
            own.append(probe)
        else:
            groups[(probe.game, probe.who)].append(probe)
    jobs: list[Callable[[], Any]] = []
    chunk = 300
    for (key, who), items in groups.items():
        for i in range(0, len(items), chunk):
            part = items[i : i + chunk]
            compression = "deflate" if (i // chunk) % 2 else None
            jobs.append(
                lambda k=key, w=who, p=part, c=compression: run_persistent(
                    server, ctx, ctx.games[k], w, p, tally, c
                )
            )
    jobs.extend(lambda p=probe: run_own(server, ctx, p, tally) for probe in own)
    queue: asyncio.Queue[Callable[[], Any]] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while not queue.empty():
            job = queue.get_nowait()
            await job()

    await asyncio.gather(*(worker() for _ in range(workers)))
    return tally


# - setting up the games -


async def setup_games(server: Server) -> Context:
    import httpx

    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:

        async def create(preset: str, **settings: Any) -> tuple[str, str]:
            body = {
                "name": "Host",
                "preset": preset,
                "settings": {"grace_seconds": None, "next_round_seconds": 600, **settings},
            }
            reply = await http.post("/api/games", json=body)
            assert reply.status_code == 201, reply.text
            return reply.json()["game_id"], reply.json()["token"]

        async def join(game_id: str, name: str) -> str:
            reply = await http.post(f"/api/games/{game_id}/seats", json={"name": name})
            assert reply.status_code == 200, reply.text
            token: str = reply.json()["token"]
            return token

        async def bot(game_id: str, token: str, level: str = "random") -> None:
            reply = await http.post(
                f"/api/games/{game_id}/bots",
                json={"level": level},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert reply.status_code == 200, reply.text

        async def start(game_id: str, token: str) -> None:
            reply = await http.post(
                f"/api/games/{game_id}/start", headers={"Authorization": f"Bearer {token}"}
            )
            assert reply.status_code == 204, reply.text

        strangers_id, stranger = await create("standard")
        strangers = [stranger, await join(strangers_id, "Stranger")]

        games: dict[str, GameCtx] = {}
        for attempt in range(10):
            four = await running_game(
                server, create, join, bot, start, "four-humans", "penalty-100", "hhhh", attempt
            )
            if four is not None:
                games[four.key] = four
                break
        for attempt in range(10):
            mixed = await running_game(
                server, create, join, bot, start, "humans-and-bots", "gamerules", "hbhb", attempt
            )
            if mixed is not None:
                games[mixed.key] = mixed
                break
        assert len(games) == 2, "could not set up the running games"
        games["finished"] = await finished_game(server, create, bot, start)
        lobby_id, host = await create("penalty-100")
        guest = await join(lobby_id, "Guest")
        games["lobby"] = GameCtx(
            "lobby",
            lobby_id,
            "lobby",
            Rules.from_dict({"preset": "penalty-100"}),
            {0: host, 1: guest},
        )
    return Context(games, strangers)


async def running_game(
    server: Server,
    create: Any,
    join: Any,
    bot: Any,
    start: Any,
    key: str,
    preset: str,
    layout: str,
    attempt: int,
) -> GameCtx | None:
    """A game in progress where a held human seat is to move, after one accepted move
    (so a resent action_id has something to be a duplicate of).  ``layout`` gives the
    seats: ``h`` a human the campaign holds, ``b`` a computer player.  ``None`` if the
    deal did not allow that (the caller tries another table)."""
    game_id, host = await create(preset, bot_delay_ms=0)
    tokens = {0: host}
    for seat, kind in enumerate(layout[1:], 1):
        if kind == "b":
            await bot(game_id, host)
        else:
            tokens[seat] = await join(game_id, f"Human {seat}")
    game = GameCtx(key, game_id, "playing", Rules.from_dict({"preset": preset}), tokens)
    peers = {}
    for s in tokens:
        peers[s] = await Peer.open(f"{server.ws_base}/ws/{game_id}")
        await greet(peers[s], game, f"seat{s}")
    await start(game_id, host)
    try:
        latest = await settle(peers)
        view = latest[0]["view"]
        mover = view["to_move"]
        if mover not in tokens or view["step"] not in ("play", "drawn"):
            return None
        state = latest[mover]
        action_id = f"setup-{key}-{attempt}"
        await peers[mover].send_json(
            {
                "type": "action",
                "version": state["version"],
                "action_id": action_id,
                "action": state["legal"][0],
            }
        )
        latest = await settle(peers)
        view = latest[0]["view"]
        now = view["to_move"]
        if now not in tokens or view["step"] not in ("play", "drawn") or view["round"] != 0:
            return None
        if not latest[now]["legal"]:
            return None
        game.accepted_ids[mover] = [action_id]
        game.version = latest[now]["version"]
        for s, state in latest.items():
            game.legal[s] = state["legal"]
            game.hands[s] = state["view"]["hand"]
        return game
    finally:
        for peer in peers.values():
            await peer.close()


async def settle(peers: dict[int, Peer], quiet: float = 0.7) -> dict[int, dict[str, Any]]:
    """Read every peer's messages until none comes for ``quiet`` seconds; the last
    state of each."""
    latest: dict[int, dict[str, Any]] = {}

    async def drain(seat: int, peer: Peer) -> None:
        while True:
            try:
                message = await peer.recv(quiet)
            except TimeoutError:
                return
            if message["type"] == "state":
                latest[seat] = message
            elif message["type"] == "error":
                raise RuntimeError(f"setup move refused: {message}")

    await asyncio.gather(*(drain(s, p) for s, p in peers.items()))
    return latest


async def finished_game(server: Server, create: Any, bot: Any, start: Any) -> GameCtx:
    """A single-deal game against a computer player, played to its end."""
    game_id, host = await create("standard", bot_delay_ms=0, next_round_seconds=0)
    await bot(game_id, host)
    game = GameCtx(
        "finished", game_id, "finished", Rules.from_dict({"preset": "standard"}), {0: host}
    )
    peer = await Peer.open(f"{server.ws_base}/ws/{game_id}")
    ids: list[str] = []
    try:
        await greet(peer, game, "seat0")
        await start(game_id, host)
        while True:
            message = await peer.recv(30)
            if message["type"] == "game_end":
                break
            if message["type"] == "state" and message["legal"] and not message["view"]["finished"]:
                ids.append(f"fin-{len(ids)}")
                await peer.send_json(
                    {
                        "type": "action",
                        "version": message["version"],
                        "action_id": ids[-1],
                        "action": message["legal"][0],
                    }
                )
        final = None
        while final is None:
            message = await peer.recv(10)
            if message["type"] == "lobby" and message["game"]["status"] == "finished":
                final = message
    finally:
        await peer.close()
    fresh = await Peer.open(f"{server.ws_base}/ws/{game_id}")
    try:
        state = await greet(fresh, game, "seat0")
    finally:
        await fresh.close()
    assert state is not None
    game.version = state["version"]
    game.legal[0] = state["legal"]
    game.hands[0] = state["view"]["hand"]
    game.accepted_ids[0] = ids[-200:]
    return game


# - games unchanged -


async def snapshot(server: Server, ctx: Context) -> dict[str, Any]:
    """Everything that would show a change: each table's info (without who is
    connected), its record reply, what each seat and a spectator are shown, and its
    rows in the database."""
    import httpx

    shot: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        for key, game in ctx.games.items():
            info = (await http.get(f"/api/games/{game.id}")).json()
            for seat in info.get("seats", []):
                seat.pop("connected", None)
            record = await http.get(f"/api/games/{game.id}/record")
            views = {}
            for who in ["spectator", *(f"seat{s}" for s in sorted(game.tokens))]:
                peer = await Peer.open(f"{server.ws_base}/ws/{game.id}")
                try:
                    state = await greet(peer, game, who)
                finally:
                    await peer.close()
                if state is not None:
                    views[who] = {k: state[k] for k in ("version", "view", "legal", "commitment")}
            shot[key] = {
                "info": info,
                "record": [record.status_code, record.json()],
                "views": views,
                "rows": database_rows(server.data_dir / "maumau.sqlite3", game.id),
            }
    return shot


def database_rows(path: Path, game_id: str) -> dict[str, Any]:
    """The game's rows (read-only): its table row, seats and every stored step."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        game = db.execute(
            "SELECT id, status, options, settings, host, rematch_of, rematch_id FROM games "
            "WHERE id = ?",
            (game_id,),
        ).fetchall()
        seats = db.execute(
            "SELECT position, name, kind, level, token_hash FROM seats WHERE game_id = ? "
            "ORDER BY position",
            (game_id,),
        ).fetchall()
        steps = db.execute(
            "SELECT seq, kind, data, client_id FROM steps WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
    finally:
        db.close()
    return {"game": game, "seats": seats, "steps": steps}


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Where two snapshots differ (paths), for each game."""
    found: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key), b.get(key), f"{path}.{key}")
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}[{i}]")
        elif a != b:
            found.append(path)

    walk(before, after, "")
    return found


# - HTTP -


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
        spec.add(label, verdict, answer, {"case": _case_json(case), "status": response.status_code})
        for name in run_schemathesis_checks(case, response, checks):
            checks_failed[name] += 1
            if checks_failed[name] <= 3:
                example = {"case": _case_json(case), "status": response.status_code}
                example["reply"] = response.content[:300].decode(errors="replace")
                spec.check_examples.append({"check": name, **example})
    raw = Tally()
    for request in draw_examples(raw_requests(ctx), max(200, count // 3), seed + 1):
        try:
            body: Any = request.body
            if request.chunked and body is not None:
                body = iter([body[i : i + 8192] for i in range(0, len(body), 8192)])
            reply = session.request(
                request.method,
                server.base + request.path,
                headers=dict(request.headers),
                data=body,
                timeout=30,
            )
        except Exception as exc:
            raw.add(request.category, "ok", f"not sendable: {type(exc).__name__}", {})
            continue
        verdict, answer = judge_http(
            reply.status_code,
            reply.headers.get("content-type", ""),
            reply.content,
            request.expect,
            request.invalid_http,
        )
        raw.add(request.category, verdict, answer, request.describe())
    session.close()
    return spec, raw, checks_failed


def _case_json(case: Any) -> dict[str, Any]:
    body = case.body
    with contextlib.suppress(Exception):
        body = json.loads(json.dumps(body, default=repr))
    return {
        "operation": case.operation.label,
        "path_parameters": repr(case.path_parameters)[:200],
        "headers": repr(case.headers)[:300],
        "query": repr(case.query)[:200],
        "body": repr(body)[:300],
    }


# - the report -


def report(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    ws = result["websocket"]
    table = Table(title=f"WebSocket: {ws['total']:,} hostile messages")
    table.add_column("category")
    table.add_column("sent", justify="right")
    table.add_column("right answer", justify="right")
    table.add_column("answers")
    for category, sent in sorted(ws["sent"].items(), key=lambda kv: -kv[1]):
        answers = ws["by_category"][category]
        top = ", ".join(f"{a} {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1])[:6])
        more = len(answers) - 6
        table.add_row(
            category,
            f"{sent:,}",
            f"{ws['ok'].get(category, 0):,}",
            top + (f", +{more} more" if more > 0 else ""),
        )
    console.print(table)

    codes = Table(title="WebSocket answers, by error code (or close code)")
    codes.add_column("answer")
    codes.add_column("count", justify="right")
    for answer, count in sorted(ws["answers"].items(), key=lambda kv: -kv[1]):
        codes.add_row(answer, f"{count:,}")
    console.print(codes)

    for name in ("http_schemathesis", "http_raw"):
        part = result[name]
        title = (
            f"HTTP, schemathesis from /openapi.json: {part['total']:,} requests"
            if name == "http_schemathesis"
            else f"HTTP, raw malformed requests: {part['total']:,}"
        )
        table = Table(title=title)
        table.add_column("operation / category")
        table.add_column("sent", justify="right")
        table.add_column("passed", justify="right")
        table.add_column("answers (code or status)")
        for category, sent in sorted(part["sent"].items()):
            answers = part["by_category"][category]
            top = ", ".join(
                f"{a} {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1])[:5]
            )
            table.add_row(category, f"{sent:,}", f"{part['ok'].get(category, 0):,}", top)
        console.print(table)

    summary = Table(title="Verdict")
    summary.add_column("check")
    summary.add_column("result", justify="right")
    for check, value in result["summary"].items():
        summary.add_row(check, str(value))
    console.print(summary)
    for gate in result["failed_gates"]:
        console.print(f"[bold red]failed:[/] {gate}")
    if result["server_utf8_records"]["count"]:
        console.print(
            "uvicorn (its websockets-sansio protocol) logs every text frame that is not UTF-8 "
            "as an ERROR with a traceback, although the client is at fault; it closes the "
            "connection with 1007 as it should.  `maumau serve` can quiet it with a logging "
            "filter on the 'uvicorn.error' logger (see docs/performance.md)."
        )
    if result["failures"]:
        console.print("[bold red]failures (first ones):[/]")
        for failure in result["failures"][:20]:
            console.print(failure)


# - main -


def campaign(messages: int, requests_count: int, seed: int, work: Path) -> dict[str, Any]:
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
        "wall time, s": round(time.monotonic() - began, 1),
    }
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
        "schemathesis_checks_failed": dict(checks_failed),
        "games": {
            k: {"id": g.id, "status": g.status, "version": g.version} for k, g in ctx.games.items()
        },
        "changed": changed[:50],
        "server_error_records": bad_records[:20],
        "server_utf8_records": {"count": len(utf8_records), "first": utf8_records[:1]},
        "server_warnings": dict(server.warnings().most_common(20)),
        "server_exit_status": code,
        "failures": ws.failures[:20] + spec.failures[:10] + raw.failures[:10],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=10_000, help="WebSocket messages")
    parser.add_argument(
        "--requests", type=int, default=3_000, help="schemathesis HTTP requests (raw: a third)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the server's data directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="maumau-hostile-"))
    try:
        result = campaign(args.messages, args.requests, args.seed, work)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
