"""The attacks of the security issue, run after the hostile input against the same live
server: each on tables of its own (the arena's games must stay as they are) and from
client addresses of its own (127.0.0.x: the server counts every limit per address, so
the attacks neither count against the campaign's 127.0.0.1 nor against each other),
each with a gate on what it must come to.  Latencies are reported, never gated.

- seat hijack (:mod:`lab.hostile.attacks_seats`);
- replay flood, slowloris, bot-only tables (:mod:`lab.hostile.attacks_http`);
- display names, security headers (:mod:`lab.hostile.attacks_input`);
- idle sockets and the hello deadline, presence amplification
  (:mod:`lab.hostile.attacks_ws`).

This module has what they share: the result of one (:class:`Part`), the sizes
(:class:`Plan`), clients bound to an address, a WebSocket read as it comes
(:class:`Tab`), and :func:`run_attacks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lab.hostile.verdicts import judge_http

if TYPE_CHECKING:
    import httpx

    from lab.hostile.games import Context

#: the campaign's own address (its checks of the server while an attack runs)
CAMPAIGN = "127.0.0.1"
#: the hosts of the attacks' tables, and the players the attacks do not trust
HOST = "127.0.0.2"
STRANGER = "127.0.0.3"
#: idle sockets (two addresses: the cap per address, then the cap per table) and the
#: one socket left to its hello deadline
IDLE = ("127.0.0.4", "127.0.0.5")
LONE = "127.0.0.11"
SLOW = "127.0.0.6"
NAMES = "127.0.0.7"
LISTENER = "127.0.0.8"
VISITOR = "127.0.0.9"
BOTS = "127.0.0.10"


def flood_address(i: int) -> str:
    """The address of the replay flood's ``i``-th client (each its own)."""
    return f"127.0.1.{i + 1}"


class Target(Protocol):
    """The server under attack (the campaign's :class:`lab.hostile.server.Server`, or a
    test's server in a thread)."""

    @property
    def base(self) -> str: ...
    @property
    def ws_base(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def data_dir(self) -> Path: ...


@dataclass(frozen=True)
class Plan:
    """The attacks' sizes, and the server's limits they rely on (as it was started)."""

    hijack_rounds: int = 50
    replay_clients: int = 20
    replay_seconds: float = 3.0
    socket_attempts: int = 500
    presence_connects: int = 200
    #: the most bot tables tried (the server must refuse one before)
    bot_tables: int = 20
    bot_level: str = "hard"
    #: seconds /api/health is timed while the bot tables play
    bot_seconds: float = 3.0
    #: the server's ``--hello-seconds`` and ``--header-seconds``
    hello_seconds: float = 10.0
    header_seconds: float = 10.0


@dataclass
class Part:
    """One attack's outcome: its gate, whether it passed, what it measured."""

    name: str
    gate: str
    passed: bool = False
    #: one line for the summary
    headline: str = ""
    figures: dict[str, Any] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    #: every HTTP reply: status (and error code)
    http: Counter[str] = field(default_factory=Counter)
    http_5xx: int = 0

    def fail(self, what: str, **detail: Any) -> None:
        if len(self.failures) < 30:
            self.failures.append({"attack": self.name, "what": what, **detail})

    def note(
        self,
        reply: httpx.Response,
        expect: Sequence[str] = (),
        must_refuse: bool = True,
        **detail: Any,
    ) -> str:
        """Count an HTTP reply; judged as the campaign judges every reply (no 5xx, a 4xx
        the documented body).  ``expect``: the codes a refusal may have; the reply must
        be one unless ``must_refuse`` is false (then a success is as good).  Its verdict."""
        refused = reply.status_code >= 400
        verdict, answer = judge_http(
            reply.status_code,
            reply.headers.get("content-type") or "",
            reply.content,
            expect if refused or must_refuse else (),
        )
        self.http[answer if reply.status_code >= 400 else str(reply.status_code)] += 1
        if reply.status_code >= 500:
            self.http_5xx += 1
        if verdict != "ok":
            self.fail(
                f"HTTP {verdict}",
                request=f"{reply.request.method} {reply.request.url.path}",
                status=reply.status_code,
                answer=answer,
                body=reply.content[:200].decode(errors="replace"),
                **detail,
            )
        return verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "passed": self.passed,
            "headline": self.headline,
            "figures": self.figures,
            "http": dict(self.http),
            "http_5xx": self.http_5xx,
            "failures": self.failures,
        }


# --- clients from an address -----------------------------------------------------------------


def http_client(target: Target, address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from ``address``."""
    import httpx

    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=target.base, transport=transport, timeout=30, trust_env=False)


async def connect(url: str, address: str) -> Any:
    """A WebSocket (the websockets library) from ``address``."""
    from websockets.asyncio.client import connect as ws_connect

    return await ws_connect(
        url,
        proxy=None,
        max_size=None,
        compression=None,
        ping_interval=None,
        open_timeout=20,
        close_timeout=2,
        local_addr=(address, 0),
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Tab:
    """A WebSocket read as its messages come (a player's browser tab)."""

    def __init__(self, ws: Any, name: str = "", token: str | None = None) -> None:
        self.ws = ws
        self.name = name
        self.token = token
        self.messages: list[dict[str, Any]] = []
        self.bytes = 0
        self.done = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, address: str, name: str = "", token: str | None = None) -> Tab:
        return cls(await connect(url, address), name, token)

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for text in self.ws:
                self.bytes += len(text)
                self.messages.append(json.loads(text))
        except ConnectionClosed:
            pass
        finally:
            self.done.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def hello(self) -> None:
        await self.send({"type": "hello", "token": self.token})

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]

    def closed_code(self) -> str | None:
        """The code of the ``closed`` message it got, if any."""
        closed = self.of_type("closed")
        return str(closed[-1].get("code")) if closed else None

    async def wait(self, done: Callable[[Tab], bool], timeout: float = 10) -> bool:
        """Wait until ``done(self)`` (or the socket closed and it is not); whether it is."""
        deadline = time.monotonic() + timeout
        while not done(self):
            if self.done.is_set() or time.monotonic() > deadline:
                return done(self)
            await asyncio.sleep(0.01)
        return True

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 5)


# --- measuring ---------------------------------------------------------------------------------


def percentiles(seconds: Sequence[float]) -> dict[str, float | int | None]:
    """n, p50, p99 and max of durations, in milliseconds."""
    if not seconds:
        return {"n": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(seconds)

    def at(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {"n": len(ordered), "p50_ms": at(0.50), "p99_ms": at(0.99), "max_ms": at(1.0)}


async def poll_health(
    target: Target, stop: asyncio.Event, every: float = 0.05
) -> tuple[list[float], Counter[str]]:
    """``/api/health`` from the campaign's address until ``stop``: the latencies, and
    the replies by status ("no answer" when it failed).  It is timed from a thread of
    its own, not from the event loop the attack's clients keep busy (that loop's delays
    would be counted as the server's)."""
    done = threading.Event()
    task = asyncio.get_running_loop().run_in_executor(None, _poll_health, target, done, every)
    await stop.wait()
    done.set()
    return await task


def _poll_health(
    target: Target, done: threading.Event, every: float
) -> tuple[list[float], Counter[str]]:
    import httpx

    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    transport = httpx.HTTPTransport(local_address=CAMPAIGN)
    with httpx.Client(base_url=target.base, transport=transport, trust_env=False) as client:
        while not done.is_set():
            began = time.monotonic()
            try:
                reply = client.get("/api/health", timeout=30)
                statuses[str(reply.status_code)] += 1
            except httpx.HTTPError as exc:
                statuses[f"no answer: {type(exc).__name__}"] += 1
            latencies.append(time.monotonic() - began)
            done.wait(every)
    return latencies, statuses


# --- the whole part ----------------------------------------------------------------------------


async def guarded(name: str, gate: str, attack: Awaitable[Part]) -> Part:
    """``attack``'s part; a failed part if it raised (the campaign goes on)."""
    began = time.monotonic()
    try:
        part = await attack
    except Exception as exc:
        part = Part(name, gate, headline=f"the attack failed: {type(exc).__name__}: {exc}")
        part.fail("exception", traceback=traceback.format_exc()[-3000:])
    part.figures["seconds"] = round(time.monotonic() - began, 1)
    return part


async def run_attacks(target: Target, ctx: Context, plan: Plan) -> list[Part]:
    """Every attack, one after another (the idle sockets and slowloris at once: both
    wait for a deadline); the bot tables last, as nothing stops them."""
    from lab.hostile import attacks_http as h
    from lab.hostile import attacks_input as i
    from lab.hostile import attacks_seats as s
    from lab.hostile import attacks_ws as w

    finished, lobby = ctx.games["finished"].id, ctx.games["lobby"].id
    parts = [await guarded("seat hijack", s.GATE, s.seat_hijack(target, plan.hijack_rounds))]
    parts.append(
        await guarded("replay flood", h.REPLAY_GATE, h.replay_flood(target, finished, plan))
    )
    parts.extend(
        await asyncio.gather(
            guarded("idle sockets", w.IDLE_GATE, w.idle_sockets(target, plan)),
            guarded("slowloris", h.SLOW_GATE, h.slowloris(target, plan.header_seconds)),
        )
    )
    parts.append(await guarded("display names", i.NAMES_GATE, i.hostile_names(target)))
    parts.append(
        await guarded(
            "security headers", i.HEADERS_GATE, i.security_headers(target, lobby, finished)
        )
    )
    parts.append(
        await guarded(
            "presence amplification",
            w.PRESENCE_GATE,
            w.presence_amplification(target, plan.presence_connects),
        )
    )
    parts.append(await guarded("bot tables", h.BOTS_GATE, h.bot_tables(target, plan)))
    return parts
