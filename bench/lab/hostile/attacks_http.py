"""HTTP attacks: the replay flood, slowloris, bot-only tables.

**Replay flood.**  ``Plan.replay_clients`` clients, each from an address of its own,
ask for the finished game's ``GET /api/games/{id}/replay`` as fast as they can for
``Plan.replay_seconds`` (and until each was refused once), half of them accepting gzip;
``/api/health`` is timed from the campaign's address meanwhile.  Gate: no 5xx; every
refusal 429 ``rate_limited`` with the documented body; every reply to a client that
accepts gzip sent gzip-compressed, none to one that does not; each the same document.

**Slowloris.**  A raw TCP connection sends half a request's headers, then one byte now
and then; another sends nothing.  Gate: the server closes both (within its
``--header-seconds``; the campaign gives up 15 seconds after).

**Bot-only tables.**  One address creates tables of 7 computer players (``hard``) and
its own seat, and starts them, until the server refuses one (at most
``Plan.bot_tables``).  Gate: refused with ``too_many_live_tables`` (or
``too_many_tables``) before the cap, every table before it set up and started; how many
ran, how many the server paused, and ``/api/health``'s latency while they play are
reported.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from typing import Any

from lab.hostile.attacks import (
    BOTS,
    SLOW,
    Part,
    Plan,
    Target,
    bearer,
    flood_address,
    http_client,
    percentiles,
    poll_health,
)

REPLAY_GATE = "no 5xx, refusals 429 rate_limited as documented, gzip when asked and only then"
SLOW_GATE = "the server closes a connection whose headers trickle, and one that sends nothing"
BOTS_GATE = "refused with too_many_live_tables before the cap, no 5xx"

#: the refusals a bot table may get instead of being created
TABLE_REFUSALS = ("too_many_live_tables", "too_many_tables")


async def replay_flood(target: Target, game_id: str, plan: Plan) -> Part:
    part = Part("replay flood", REPLAY_GATE)
    path = f"/api/games/{game_id}/replay"
    latencies: list[float] = []
    encodings: Counter[str] = Counter()
    digests: set[str] = set()
    wire = 0
    stop = asyncio.Event()
    health = asyncio.get_running_loop().create_task(poll_health(target, stop))

    async def client(i: int) -> None:
        nonlocal wire
        gzip = i % 2 == 0
        headers = {"Accept-Encoding": "gzip" if gzip else "identity"}
        began = time.monotonic()
        refused = False
        async with http_client(target, flood_address(i)) as http:
            while time.monotonic() < began + max(plan.replay_seconds * 10, 30):
                if refused and time.monotonic() > began + plan.replay_seconds:
                    break
                sent = time.monotonic()
                reply = await http.get(path, headers=headers)
                latencies.append(time.monotonic() - sent)
                wire += reply.num_bytes_downloaded
                part.note(reply, ("rate_limited",), must_refuse=False)
                if reply.status_code == 429:
                    refused = True
                    await asyncio.sleep(0.005)
                    continue
                if reply.status_code != 200:
                    continue
                encoding = reply.headers.get("content-encoding") or "identity"
                encodings[f"{'gzip' if gzip else 'identity'} asked, {encoding} sent"] += 1
                if (encoding == "gzip") != gzip:
                    part.fail("replay sent with the wrong encoding", asked=headers, sent=encoding)
                if len(digests) < 2 and "rounds" not in reply.json():
                    part.fail("the replay is not a replay", body=reply.text[:200])
                digests.add(hashlib.sha256(reply.content).hexdigest())
            if not refused:
                part.fail("a client was never refused", client=i)

    began = time.monotonic()
    await asyncio.gather(*(client(i) for i in range(plan.replay_clients)))
    took = time.monotonic() - began
    stop.set()
    health_latencies, health_statuses = await health
    served = part.http.get("200", 0)
    refused = part.http.get("rate_limited", 0)
    if len(digests) > 1:
        part.fail("the replay differed between replies", documents=len(digests))
    part.figures = {
        "clients": plan.replay_clients,
        "seconds": round(took, 1),
        "replies": dict(part.http),
        "encodings": dict(encodings),
        "bytes on the wire": wire,
        "replay latency": percentiles(latencies),
        "health latency": percentiles(health_latencies),
        "health replies": dict(health_statuses),
    }
    part.passed = not part.failures and part.http_5xx == 0 and served > 0 and refused > 0
    h = part.figures["health latency"]
    part.headline = (
        f"{plan.replay_clients} clients, {took:.1f} s: {served:,} served "
        f"({dict(encodings)}), {refused:,} refused 429 rate_limited, {part.http_5xx} 5xx; "
        f"health p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms ({dict(health_statuses)})"
    )
    return part


async def trickle(target: Target, first: bytes, seconds: float) -> dict[str, Any]:
    """A raw connection from :data:`SLOW` that sends ``first`` (nothing if empty), then a
    byte every half second while it sends anything; what it was answered, and when it
    was closed (``None``: not within ``seconds`` + 15)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", target.port, local_addr=(SLOW, 0))
    began = time.monotonic()
    answer = b""
    closed_after: float | None = None
    trickled = 0
    try:
        if first:
            writer.write(first)
            await writer.drain()
        while time.monotonic() < began + seconds + 15:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                if first:
                    writer.write(b"a")
                    await writer.drain()
                    trickled += 1
                continue
            if not chunk:
                closed_after = time.monotonic() - began
                break
            answer += chunk
    except OSError:  # reset, or a write on a closed connection
        closed_after = time.monotonic() - began
    finally:
        writer.close()
    return {
        "closed_after_s": None if closed_after is None else round(closed_after, 2),
        "bytes trickled": trickled,
        "answer": answer.split(b"\r\n", 1)[0].decode(errors="replace") or "nothing",
    }


async def slowloris(target: Target, header_seconds: float) -> Part:
    part = Part("slowloris", SLOW_GATE)
    half = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\nX-Slow: "
    trickling, silent = await asyncio.gather(
        trickle(target, half, header_seconds), trickle(target, b"", header_seconds)
    )
    part.figures = {
        "header deadline_s": header_seconds,
        "trickling headers": trickling,
        "sending nothing": silent,
    }
    for what, seen in (("trickling headers", trickling), ("sending nothing", silent)):
        if seen["closed_after_s"] is None:
            part.fail("a slow connection was not closed", connection=what, **seen)
    part.passed = not part.failures
    part.headline = (
        f"headers trickled: closed after {trickling['closed_after_s']} s "
        f"({trickling['answer']}, {trickling['bytes trickled']} bytes trickled); nothing "
        f"sent: closed after {silent['closed_after_s']} s (deadline {header_seconds:g} s)"
    )
    return part


async def bot_tables(target: Target, plan: Plan) -> Part:
    part = Part("bot tables", BOTS_GATE)
    tables: list[str] = []
    refusal: str | None = None
    async with http_client(target, BOTS) as http:
        for i in range(plan.bot_tables):
            settings = {"bot_delay_ms": 0, "grace_seconds": 0}
            body = {"name": f"Owner {i}", "preset": "standard", "settings": settings}
            reply = await http.post("/api/games", json=body)
            if reply.status_code == 429:
                part.note(reply, TABLE_REFUSALS)
                refusal = reply.json().get("error", {}).get("code")
                break
            part.note(reply)
            if reply.status_code != 201:
                continue
            game_id, token = reply.json()["game_id"], reply.json()["token"]
            for _ in range(7):
                added = await http.post(
                    f"/api/games/{game_id}/bots",
                    json={"level": plan.bot_level},
                    headers=bearer(token),
                )
                part.note(added)
            started = await http.post(f"/api/games/{game_id}/start", headers=bearer(token))
            part.note(started)
            if started.status_code == 204:
                tables.append(game_id)
            else:
                part.fail("a bot table did not start", status=started.status_code)
        stop = asyncio.Event()
        health = asyncio.get_running_loop().create_task(poll_health(target, stop))
        await asyncio.sleep(plan.bot_seconds)
        stop.set()
        latencies, statuses = await health
        paused = 0
        for game_id in tables:
            info = await http.get(f"/api/games/{game_id}")
            part.note(info)
            paused += bool(info.json().get("paused"))
    if refusal not in TABLE_REFUSALS:
        part.fail("no bot table was refused", tried=plan.bot_tables)
    part.figures = {
        "tables started": len(tables),
        "refused with": refusal,
        "paused (no human connected)": paused,
        "health latency while they play": percentiles(latencies),
        "health replies": dict(statuses),
        "replies": dict(part.http),
    }
    part.passed = not part.failures and part.http_5xx == 0
    h = part.figures["health latency while they play"]
    part.headline = (
        f"{len(tables)} tables of 7 {plan.bot_level} bots started, then {refusal} "
        f"(of at most {plan.bot_tables} tried); {paused} paused; health p50 {h['p50_ms']} ms, "
        f"p99 {h['p99_ms']} ms while they play"
    )
    return part
