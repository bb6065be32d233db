"""WebSocket attacks: idle sockets (and the hello deadline), presence amplification.

**Idle sockets.**  One address opens sockets to a lobby table and never says
``hello``, until the server refuses one (at most ``Plan.socket_attempts``); then a
second address does the same at that table, until the table's own cap refuses one.
Each socket is opened and sent a ``ping`` (answered before ``hello``): a ``pong``
means it is held, a ``closed`` message that it was refused.  While they are held,
``GET /`` and ``/api/health`` from the campaign's address must answer 200, and the
health's ``pending`` must count them.  Meanwhile one more socket, from an address of
its own, is left without ``hello``: it must get ``closed`` (``hello_timeout``) after
the server's ``--hello-seconds``.

**Presence amplification.**  A player sits at a table of its own; a stranger opens a
socket, says ``hello`` (as a spectator) and closes it, ``Plan.presence_connects``
times.  Every connect and disconnect used to send the whole table (``lobby``) to every
player: now the player may get no ``lobby`` for it, and fewer messages than the
stranger's connects (small ``presence`` messages, at most four a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from typing import Any

from lab.hostile.attacks import (
    CAMPAIGN,
    IDLE,
    LISTENER,
    LONE,
    VISITOR,
    Part,
    Plan,
    Tab,
    Target,
    connect,
    http_client,
)

IDLE_GATE = (
    "refused with too_many_connections (address, then table) before the attempt cap, "
    "/ and /api/health 200 with the sockets pending meanwhile, hello_timeout after the deadline"
)
PRESENCE_GATE = "the player gets no lobby for it, and fewer messages than the stranger's connects"

#: sockets opened at once while looking for the refusal
BATCH = 8


async def probe_socket(url: str, address: str) -> tuple[Any, str, str]:
    """Open a socket and ping it: (the socket if held, else ``None``; "held",
    "refused" or "handshake refused"; the refusal's code and message)."""
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    try:
        ws = await connect(url, address)
    except (InvalidHandshake, OSError, TimeoutError) as exc:
        return None, "handshake refused", f"{type(exc).__name__}: {exc}"[:200]
    # a refused socket is sent ``closed`` and closed at once, maybe before the ping
    # goes: the message that came first is read all the same
    with contextlib.suppress(ConnectionClosed):
        await ws.send(json.dumps({"type": "ping"}))
    try:
        message = json.loads(await asyncio.wait_for(ws.recv(), 20))
    except (ConnectionClosed, TimeoutError) as exc:
        await ws.close()
        return None, "refused", f"no answer: {type(exc).__name__}"
    if message.get("type") == "pong":
        return ws, "held", ""
    await ws.close()
    return None, "refused", f"{message.get('code')}: {message.get('message')}"


async def open_until_refused(
    url: str, address: str, attempts: int, held: list[Any]
) -> tuple[int, str, str]:
    """Sockets from ``address`` until one is refused, ``BATCH`` at a time, at most
    ``attempts``; the held ones are added to ``held``.  (tries, how the refusal came,
    what it said); ("", "") when none was refused."""
    tries = 0
    while tries < attempts:
        batch = min(BATCH, attempts - tries)
        results = await asyncio.gather(*(probe_socket(url, address) for _ in range(batch)))
        tries += batch
        refusal = None
        for ws, outcome, said in results:
            if ws is not None:
                held.append(ws)
            elif refusal is None:
                refusal = (outcome, said)
        if refusal is not None:
            return tries, *refusal
    return tries, "", ""


async def served(target: Target) -> dict[str, Any]:
    """``GET /`` and ``/api/health`` from the campaign's address (new connections)."""
    import httpx

    seen: dict[str, Any] = {}
    async with http_client(target, CAMPAIGN) as client:
        for path in ("/", "/api/health"):
            began = time.monotonic()
            try:
                reply = await client.get(path, timeout=30)
                seen[path] = reply.status_code
                if path == "/api/health":
                    seen["pending"] = reply.json().get("pending")
            except httpx.HTTPError as exc:
                seen[path] = f"no answer: {type(exc).__name__}"
            seen[f"{path} ms"] = round(1000 * (time.monotonic() - began), 1)
    return seen


async def hello_deadline(url: str, seconds: float) -> dict[str, Any]:
    """One socket left without hello: what it got, and when."""
    from websockets.exceptions import ConnectionClosed

    ws = await connect(url, LONE)
    began = time.monotonic()
    got: dict[str, Any] = {}
    after = closed = None
    try:
        got = json.loads(await asyncio.wait_for(ws.recv(), seconds + 20))
        after = round(time.monotonic() - began, 2)
        await asyncio.wait_for(ws.recv(), 5)  # nothing more: the server closes it
        closed = False
    except ConnectionClosed:
        closed = True
    except TimeoutError:
        closed = False
    finally:
        await ws.close()
    return {
        "message": f"{got.get('type')} {got.get('code', '')}".strip() if got else "nothing",
        "after_s": after,
        "deadline_s": seconds,
        "closed": closed,
    }


def _said(refusal: str) -> str:
    """A refusal's code and its subject ("too_many_connections: this table has 100
    connections"), without the advice after it."""
    return refusal.split(" open,")[0]


async def idle_sockets(target: Target, plan: Plan) -> Part:
    part = Part("idle sockets", IDLE_GATE)
    async with http_client(target, IDLE[0]) as creator:
        reply = await creator.post("/api/games", json={"name": "Idle host"})
        part.note(reply)
        reply.raise_for_status()
        game_id = reply.json()["game_id"]
    url = f"{target.ws_base}/ws/{game_id}"
    lone = asyncio.get_running_loop().create_task(hello_deadline(url, plan.hello_seconds))
    held: list[Any] = []
    phases: list[dict[str, Any]] = []
    try:
        for address, says in zip(IDLE, ("this address", "this table"), strict=True):
            before = len(held)
            tries, outcome, said = await open_until_refused(
                url, address, plan.socket_attempts - sum(p["tries"] for p in phases), held
            )
            seen = await served(target)
            await asyncio.sleep(0.05)  # (sockets the server closed meanwhile: seen as closed)
            alive = sum(1 for ws in held if ws.close_code is None)
            phase = {
                "address": address,
                "tries": tries,
                "held": len(held) - before,
                "held alive in all": alive,
                "refusal": outcome or "none",
                "said": said,
                "while held": seen,
            }
            phases.append(phase)
            refused = outcome == "handshake refused" or (
                outcome == "refused" and said.startswith(f"too_many_connections: {says}")
            )
            pending = seen.get("pending")
            ok = (
                refused
                and seen.get("/") == 200
                and seen.get("/api/health") == 200
                and isinstance(pending, int)
                and pending >= alive
            )
            if not ok:
                part.fail(
                    "idle sockets not refused as documented, or the server not served", **phase
                )
    finally:
        for ws in held:
            with contextlib.suppress(Exception):
                await ws.close()
    deadline = await lone
    after = await served(target)
    part.figures = {
        "phases": phases,
        "sockets held at most": len(held),
        "hello deadline": deadline,
        "after closing them": after,
    }
    told = deadline["message"] == "closed hello_timeout" and deadline["closed"]
    if not told:
        part.fail("the socket without hello was not closed with hello_timeout", **deadline)
    part.passed = len(phases) == 2 and not part.failures and told and part.http_5xx == 0
    part.headline = (
        ", ".join(
            f"{p['address']}: {p['held']} held, then {p['refusal']} ({_said(p['said'])})"
            for p in phases
        )
        + f"; / and health 200 meanwhile: {all(p['while held'].get('/') == 200 for p in phases)}"
        + f", pending {[p['while held'].get('pending') for p in phases]}"
        + f"; no hello: {deadline['message']} after {deadline['after_s']} s"
    )
    return part


async def presence_amplification(target: Target, connects: int) -> Part:
    part = Part("presence amplification", PRESENCE_GATE)
    async with http_client(target, LISTENER) as host:
        reply = await host.post("/api/games", json={"name": "Listener"})
        part.note(reply)
        reply.raise_for_status()
        game_id, token = reply.json()["game_id"], reply.json()["token"]
    url = f"{target.ws_base}/ws/{game_id}"
    player = await Tab.open(url, LISTENER, "Listener", token)
    await player.hello()
    await player.wait(lambda t: bool(t.of_type("lobby")))
    lobby_bytes = player.bytes
    await asyncio.sleep(0.6)  # (its own presence, if any, goes out)
    mark, bytes_mark = len(player.messages), player.bytes
    began = time.monotonic()
    failed = 0
    for _ in range(connects):
        try:
            ws = await connect(url, VISITOR)
            await ws.send(json.dumps({"type": "hello", "token": None}))
            while json.loads(await asyncio.wait_for(ws.recv(), 20)).get("type") != "welcome":
                pass
            await ws.close()
        except Exception as exc:
            failed += 1
            part.fail("the stranger's socket failed", error=f"{type(exc).__name__}: {exc}")
    took = time.monotonic() - began
    await asyncio.sleep(1.0)  # the last presence window goes out
    got = player.messages[mark:]
    kinds = Counter(str(m.get("type")) for m in got)
    await player.close()
    part.figures = {
        "connects": connects,
        "failed": failed,
        "connects per second": round(connects / took, 1) if took else None,
        "player's messages": len(got),
        "player's bytes": player.bytes - bytes_mark,
        "by type": dict(kinds),
        "the player's welcome and lobby, bytes (what each connect cost before)": lobby_bytes,
    }
    part.passed = failed == 0 and kinds["lobby"] == 0 and len(got) < connects and part.http_5xx == 0
    part.headline = (
        f"{connects} connects ({part.figures['connects per second']}/s): the player got "
        f"{len(got)} messages, {player.bytes - bytes_mark:,} bytes ({dict(kinds) or 'none'})"
    )
    return part
