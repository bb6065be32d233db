"""What the campaign measures: a 4-seat human table playing through every phase and
``/api/health`` polled 10 times a second, from their own address (127.0.0.2), so that
per-address limits aimed at the attacker (127.0.0.1) do not count them.

Each seat plays the first legal action after a short think time; a move's round trip
runs from sending the ``action`` until the mover's ``state`` whose ``ack`` is that
action's id.  The table deals the next round at once (``next_round_seconds`` 0: on
PostgreSQL a ``ready`` said at one process was not seen at the other, and each round
waited out the whole countdown, which is not what this measures); were it to wait, every
seat says ``ready`` between rounds.  When a game ends, the table starts a new one.
Every health poll opens a new connection, as a load balancer's check does, so a server
that can no longer accept connections shows it.

With several server processes (on PostgreSQL), the table is created at the first; its
seats connect half to each, in order (two to the first, two to the second, of four),
and the health polls go to each in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from lab.pressure.stats import INF, Sample

OBSERVER = "127.0.0.2"
ATTACKER = "127.0.0.1"
HEALTH_TIMEOUT = 30.0
MOVE_TIMEOUT = 60.0
#: the human table's rules: whole rounds of the standard rules, and 50 deals, so that
#: the game outlasts the run (a new table would have to connect in whatever phase
#: the game ended)
TABLE_OPTIONS: dict[str, Any] = {"scoring": "deals", "deals": 50}
TABLE_SETTINGS: dict[str, Any] = {"next_round_seconds": 0}
clock = time.monotonic


def http_client(
    address: str, timeout: float, fresh: bool = False, connections: int | None = None
) -> httpx.AsyncClient:
    """An HTTP client whose connections come from ``address`` (``fresh``: a new
    connection for every request; ``connections``: that many kept open, for as many
    requests at once); no proxy from the environment."""
    limits = httpx.Limits(max_keepalive_connections=0) if fresh else httpx.Limits()
    if connections is not None:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    transport = httpx.AsyncHTTPTransport(local_address=address, limits=limits)
    return httpx.AsyncClient(transport=transport, timeout=timeout, trust_env=False)


async def ws_connect(url: str, address: str, **options: Any) -> ClientConnection:
    """A WebSocket from ``address``, no proxy, no keepalive pings."""
    return await websockets.connect(
        url, proxy=None, ping_interval=None, local_addr=(address, 0), **options
    )


@dataclass
class Seat:
    number: int
    token: str
    ws: ClientConnection | None = None
    version: int = 0
    ready_round: int = -1
    pending: dict[str, float] = field(default_factory=dict)  # action id -> sent


class Observer:
    """The human table and the health poller, with every sample timestamped."""

    def __init__(
        self, urls: list[str], wss: list[str], think: float = 0.05, health_hz: float = 10.0
    ) -> None:
        self.urls, self.wss, self.think, self.health_hz = urls, wss, think, health_hz
        self.url = urls[0]
        #: the table being played (None before the first)
        self.game_id: str | None = None
        self.health: list[Sample] = []
        self.moves: list[Sample] = []
        self.errors: list[tuple[float, str]] = []
        self.tables = 0
        self.ids = itertools.count(1)
        self.stop = asyncio.Event()
        self.seats: list[Seat] = []
        self.tasks: set[asyncio.Task[None]] = set()  # moves waiting for their think time
        self.started = False

    def error(self, what: str) -> None:
        self.errors.append((clock(), what))

    def errors_in(self, start: float, end: float) -> Counter[str]:
        return Counter(what for at, what in self.errors if start <= at < end)

    async def run(self) -> None:
        """Until :attr:`stop` is set: poll and play; then wait for the answers due."""
        async with http_client(OBSERVER, HEALTH_TIMEOUT, fresh=True) as polls:
            tasks = [asyncio.create_task(self.poll(polls)), asyncio.create_task(self.play())]
            try:
                await asyncio.gather(*tasks)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    # --- /api/health ------------------------------------------------------------------

    async def poll(self, client: httpx.AsyncClient) -> None:
        period = 1 / self.health_hz
        started = clock()
        pending: set[asyncio.Task[None]] = set()
        for tick in itertools.count():
            if self.stop.is_set():
                break
            url = self.urls[tick % len(self.urls)]
            task = asyncio.create_task(self.health_once(client, url))
            pending.add(task)
            task.add_done_callback(pending.discard)
            # a fixed schedule: a slow answer does not delay the next poll
            await asyncio.sleep(max(0.0, started + (tick + 1) * period - clock()))
        if pending:
            await asyncio.wait(pending, timeout=HEALTH_TIMEOUT + 5)

    async def health_once(self, client: httpx.AsyncClient, url: str) -> None:
        sent = clock()
        try:
            reply = await client.get(url + "/api/health")
        except httpx.TimeoutException:
            self.health.append(Sample(sent, INF))
            self.error("health: timeout")
            return
        except httpx.HTTPError as exc:
            self.health.append(Sample(sent, INF))
            self.error(f"health: {type(exc).__name__}")
            return
        self.health.append(Sample(sent, clock() - sent))
        if reply.status_code != 200:
            self.error(f"health: HTTP {reply.status_code}")

    # --- the human table --------------------------------------------------------------

    async def play(self) -> None:
        async with http_client(OBSERVER, 60.0) as client:
            game_id: str | None = None
            while not self.stop.is_set():
                stage = "create"
                try:
                    if game_id is None:
                        game_id = await self.new_table(client)
                        self.game_id = game_id or self.game_id
                    stage = "play"
                    if game_id is not None and await self.play_table(client, game_id):
                        game_id = None  # over: the next game at a new table
                        self.tables += 1
                except (OSError, httpx.HTTPError, websockets.WebSocketException) as exc:
                    self.error(f"table: {stage}: {type(exc).__name__}")
                    await asyncio.sleep(1.0)  # then again, at the same table
        await self.settle_moves()

    async def new_table(self, client: httpx.AsyncClient) -> str | None:
        """A table with four human seats, not started yet."""
        body = {"name": "Ana", "options": TABLE_OPTIONS, "settings": TABLE_SETTINGS}
        reply = await client.post(self.url + "/api/games", json=body)
        if reply.status_code != 201:
            self.error(f"table: create HTTP {reply.status_code}")
            await asyncio.sleep(2.0)
            return None
        game = reply.json()
        game_id: str = game["game_id"]
        self.seats = [Seat(0, game["token"])]
        self.started = False
        for name in ("Ben", "Cleo", "Dan"):
            joined = await client.post(f"{self.url}/api/games/{game_id}/seats", json={"name": name})
            joined.raise_for_status()
            self.seats.append(Seat(joined.json()["seat"], joined.json()["token"]))
        return game_id

    async def play_table(self, client: httpx.AsyncClient, game_id: str) -> bool:
        """Connect the four seats (again), start the game if it is not, and play until
        it is over (True) or a socket is lost (False: the caller connects again)."""
        try:
            for index, seat in enumerate(self.seats):
                seat.ws = None
                ws = self.wss[index * len(self.wss) // len(self.seats)]
                seat.ws = await ws_connect(f"{ws}/ws/{game_id}", OBSERVER, open_timeout=60)
                await seat.ws.send(json.dumps({"type": "hello", "token": seat.token}))
            if not self.started:
                headers = {"Authorization": f"Bearer {self.seats[0].token}"}
                started = await client.post(
                    f"{self.url}/api/games/{game_id}/start", headers=headers
                )
                started.raise_for_status()
                self.started = True
            readers = [asyncio.create_task(self.read(seat)) for seat in self.seats]
            over = False
            while not self.stop.is_set():
                done, _ = await asyncio.wait(
                    readers, timeout=1.0, return_when=asyncio.FIRST_COMPLETED
                )
                if done:
                    over = any(task.result() for task in done)
                    break
                if self.stalled():
                    self.error("table: a move got no ack in time; a new table")
                    over = True
                    break
            if self.stop.is_set():
                await self.settle_moves()
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
            return over
        finally:
            for seat in self.seats:
                if seat.ws is not None:
                    with contextlib.suppress(Exception):
                        await seat.ws.close()
            self.drop_pending()

    async def read(self, seat: Seat) -> bool:
        """One seat's messages; True when the game is over (or its table closed)."""
        assert seat.ws is not None
        try:
            async for raw in seat.ws:
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "state":
                    await self.on_state(seat, message)
                elif kind == "error":
                    self.error(f"move: {message.get('code')}")
                    seat.pending.pop(str(message.get("action_id")), None)
                elif kind == "closed":
                    self.error(f"table: closed {message.get('code')}")
                    return bool(message.get("code") == "table_closed")
                elif kind == "game_end":
                    return True
        except websockets.ConnectionClosed:
            pass
        if not self.stop.is_set():
            self.error("table: socket closed")
        return False

    async def on_state(self, seat: Seat, message: dict[str, Any]) -> None:
        now = clock()
        ack = message.get("ack")
        if ack is not None and ack in seat.pending:
            sent = seat.pending.pop(ack)
            self.moves.append(Sample(sent, now - sent))
        seat.version = message["version"]
        view = message["view"]
        if view["finished"]:
            return
        if view["step"] == "over":
            waits = message.get("next_round_at") is not None
            if waits and seat.ready_round != view["round"] and seat.number not in message["ready"]:
                seat.ready_round = view["round"]
                assert seat.ws is not None
                await seat.ws.send('{"type": "ready"}')
        elif message["legal"]:
            move = self.move_later(seat, message["version"], message["legal"][0])
            task = asyncio.create_task(move)
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def move_later(self, seat: Seat, version: int, action: dict[str, Any]) -> None:
        await asyncio.sleep(self.think)
        if seat.version != version or seat.ws is None or self.stop.is_set():
            return  # the game moved on meanwhile
        action_id = f"s{seat.number}-{next(self.ids)}"
        message = {"type": "action", "version": version, "action_id": action_id, "action": action}
        seat.pending[action_id] = clock()
        with contextlib.suppress(websockets.ConnectionClosed):
            await seat.ws.send(json.dumps(message))

    async def settle_moves(self) -> None:
        """Wait (up to the move timeout) for the moves in flight to be acknowledged."""
        deadline = clock() + MOVE_TIMEOUT
        while any(seat.pending for seat in self.seats) and clock() < deadline:
            await asyncio.sleep(0.05)

    def stalled(self) -> bool:
        now = clock()
        sent = [at for seat in self.seats for at in seat.pending.values()]
        return any(now - at > MOVE_TIMEOUT for at in sent)

    def drop_pending(self) -> None:
        """Moves never acknowledged count as timeouts."""
        for seat in self.seats:
            for action_id, sent in list(seat.pending.items()):
                self.moves.append(Sample(sent, INF))
                self.error("move: no ack")
                del seat.pending[action_id]
