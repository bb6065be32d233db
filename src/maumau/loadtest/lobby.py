"""Setting a load table up over HTTP: create it, fill its seats, start it.

A small HTTP/1.1 client with kept-alive connections (the runtime has no HTTP client
library, and a thread per request would cost more than the request): JSON bodies,
``Content-Length`` or chunked replies.  Tokens go only into the ``Authorization``
header and never into an exception's text.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from maumau.loadtest.options import TABLE_SETTINGS, Endpoint

#: a kept-alive connection idle longer than this is not reused (uvicorn closes
#: connections idle for 5 s)
IDLE_REUSE = 3.0
TIMEOUT = 15.0


class LobbyError(Exception):
    """An HTTP request failed: ``code`` is the server's error code, or a transport
    problem (``http_<status>``, ``connect``, ``timeout``)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


@dataclass(frozen=True)
class Grant:
    """A seat a load client holds."""

    game_id: str
    seat: int
    token: str


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used = time.monotonic()

    def close(self) -> None:
        self.writer.close()


class HttpClient:
    """Requests to one server, over a pool of kept-alive connections."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.idle: list[_Conn] = []
        self.host_header = endpoint.base.split("://", 1)[1]

    async def _open(self) -> _Conn:
        reader, writer = await asyncio.open_connection(self.endpoint.host, self.endpoint.port)
        return _Conn(reader, writer)

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """Send one request; the status and the decoded JSON body (``None`` if empty)."""
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host_header}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(payload)}")
        if token is not None:
            head.append(f"Authorization: Bearer {token}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        try:
            async with asyncio.timeout(TIMEOUT):
                return await self._exchange(data)
        except TimeoutError:
            raise LobbyError("timeout", f"{method} {path}: no answer in {TIMEOUT:g} s") from None
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise LobbyError("connect", f"{method} {path}: {type(exc).__name__}") from None

    async def _exchange(self, data: bytes) -> tuple[int, Any]:
        now = time.monotonic()
        while self.idle:
            conn = self.idle.pop()
            if now - conn.used > IDLE_REUSE or conn.reader.at_eof():
                conn.close()
                continue
            try:
                return await self._on(conn, data)
            except _NothingRead:
                # a kept-alive connection the server had closed: nothing was read,
                # so the request was never handled; try the next one
                continue
        return await self._on(await self._open(), data)

    async def _on(self, conn: _Conn, data: bytes) -> tuple[int, Any]:
        keep = False
        try:
            try:
                conn.writer.write(data)
                await conn.writer.drain()
            except OSError:
                raise _NothingRead from None
            try:
                head = await conn.reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                if not exc.partial:
                    raise _NothingRead from None
                raise
            status, headers = _parse_head(head)
            if headers.get("transfer-encoding", "").lower() == "chunked":
                raw = await _read_chunked(conn.reader)
            else:
                raw = await conn.reader.readexactly(int(headers.get("content-length", "0")))
            keep = headers.get("connection", "").lower() != "close"
        finally:
            if keep:
                conn.used = time.monotonic()
                self.idle.append(conn)
            else:
                conn.close()
        return status, json.loads(raw) if raw else None

    def close(self) -> None:
        for conn in self.idle:
            conn.close()
        self.idle.clear()


class _NothingRead(ConnectionResetError):
    """The server closed a reused connection before answering."""


def _parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise ValueError("not an HTTP reply")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readexactly(2)


def _check(status: int, reply: Any, what: str) -> Any:
    if 200 <= status < 300:
        return reply
    code = f"http_{status}"
    if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
        code = str(reply["error"].get("code", code))
    raise LobbyError(code, what)


async def open_table(http: HttpClient, preset: str, players: int) -> list[Grant]:
    """A new table with ``players`` seats, all held by the load tool (seat 0 hosts)."""
    body = {"name": "load0", "preset": preset, "settings": TABLE_SETTINGS}
    status, reply = await http.request("POST", "/api/games", body)
    created = _check(status, reply, "creating a table")
    game_id = str(created["game_id"])
    grants = [Grant(game_id, int(created["seat"]), str(created["token"]))]
    for n in range(1, players):
        path = f"/api/games/{game_id}/seats"
        status, reply = await http.request("POST", path, {"name": f"load{n}"})
        seat = _check(status, reply, "taking a seat")
        grants.append(Grant(game_id, int(seat["seat"]), str(seat["token"])))
    return grants


async def start_table(http: HttpClient, host: Grant) -> None:
    status, reply = await http.request("POST", f"/api/games/{host.game_id}/start", None, host.token)
    _check(status, reply, "starting the game")
