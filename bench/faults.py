"""Fault campaign: kill the server and stop its database under load, and prove that no
acknowledged move is lost or doubled and that every game can go on.

Two campaigns, both scripted and repeatable from ``--seed``:

- **SQLite, kill -9.** One ``maumau serve`` process (started as ``python -m maumau
  serve``, so the pid killed is the server itself) on a fresh data directory, and
  ``maumau loadtest`` against it with a ledger of every acknowledged move.  At seeded
  random moments the server is killed with SIGKILL (``--kills`` times) and started
  again on the same data after a short seeded pause.
- **PostgreSQL, kill -9 and database stops.** A throwaway cluster (initdb as the
  ``postgres`` user, a free port, its socket in a temporary directory, PostgreSQL's
  default durability: fsync on), ``--pg-servers`` server processes on one database, the
  load tool spreading every table's seats over them; then, in a seeded order, kill -9
  of a server process (``--pg-kills``) and ``pg_ctl stop`` (``fast`` and ``immediate``
  in turn) for a few seconds followed by ``pg_ctl start`` (``--pg-stops``).  While the
  database is down the servers must stay alive and answer errors (``/api/health`` 503,
  a move refused with ``store_unavailable``); afterwards they must recover by
  themselves (health ok, moves acknowledged again, change notices between processes
  flowing) without being restarted.

Besides the load tool's tables the campaign keeps a few tables of its own ("probe
tables", four human seats, their tokens kept by the script; for PostgreSQL the seats
spread over the processes).  After every restart and every database stop it makes one
legal move at each, checks that every seat (on every process) sees it, and adds it to
its own ledger; a move refused during a database stop is sent again afterwards with the
same ``action_id`` and must then be applied exactly once.

Afterwards, with the servers up:

- every line of both ledgers is in ``steps`` exactly once (``game_id`` and
  ``client_id`` = ``action_id``, for the same seat); no ``client_id`` appears twice in
  one game;
- every game in status ``lobby`` or ``playing`` loads from the store and its record
  replays through the engine to the stored number of steps; ``GET /api/games/{id}``
  answers on every process; a spectator connected to every process gets the game's
  ``state`` at the stored version (the server resumed it where the database says);
- every probe table takes one more legal move, and the probe table left in the lobby
  starts and takes a move.
- no load game stalled (no new state for 30 s) or was given up by the load tool.

Two more observations: before the SQLite load starts, the script holds the SQLite write
lock while a move is being committed and greets a spectator meanwhile, which must be
shown only committed state (the move's commit then fails); and a monitor samples, once
a second, the acknowledged moves and (PostgreSQL) sessions waiting for a lock or idle
inside a transaction, and reports the longest time without an acknowledged move.

    uv run python bench/faults.py                          # both campaigns, seed 1
    uv run python bench/faults.py --only sqlite --kills 20 --games 50 --seed 7
    uv run python bench/faults.py --only pg --pg-kills 4 --pg-stops 3 --json faults.json

A script, not a test (``tests/test_faults.py`` runs a small sample).  Exit status 0
when every check passed, 1 when any failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from lab.ports import free_port
from lab.postgres import DURABLE, NO_FSYNC, Cluster, ClusterError, ClusterUnavailable
from maumau.server.table import Table
from maumau.store import Store

ROOT = Path(__file__).resolve().parent.parent
#: the limits the load tool needs (docs/performance.md, "The load tool")
SERVE_LIMITS = ("--tables-per-minute", "100000", "--messages-per-second", "1000")
#: table settings of the probe tables: no computer player, no countdown, no stand-in
PROBE_SETTINGS: dict[str, Any] = {
    "bot_delay_ms": 0,
    "next_round_seconds": 0,
    "grace_seconds": None,
}
PROBE_PRESET = "penalty-100"  # several rounds: a probe game does not end in a campaign
#: codes after which a probe resends the same move (it was not applied)
RETRY_CODES = ("store_unavailable", "conflict")

Say = Callable[[str], None]
#: what a probe's connection may fail with
LOST = (OSError, TimeoutError, ConnectionError, ValueError, WebSocketException)
clock = time.monotonic


class CampaignError(Exception):
    """The campaign could not go on (a server did not start, the load tool stopped...);
    PostgreSQL failing is a :class:`lab.postgres.ClusterError`."""


# --- HTTP ----------------------------------------------------------------------------------


def http(
    method: str, url: str, body: Any = None, token: str | None = None, timeout: float = 10.0
) -> tuple[int | None, Any]:
    """One request; (status, decoded JSON body); status ``None`` when nothing answered."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            raw = reply.read()
            return reply.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw) if raw else None
        except ValueError:
            return exc.code, None
    except (OSError, ValueError):
        return None, None


def must(status: int | None, reply: Any, what: str) -> Any:
    if status is None or not 200 <= status < 300:
        raise CampaignError(f"{what}: HTTP {status} {reply}")
    return reply


# --- server processes ----------------------------------------------------------------------


class Server:
    """One ``maumau serve`` process, restartable on the same port and data."""

    def __init__(self, name: str, workdir: Path, db_args: list[str]) -> None:
        self.name = name
        self.port = free_port()
        self.data_dir = workdir / f"data-{name}"
        self.log = workdir / f"server-{name}.log"
        self.db_args = db_args
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def start(self) -> None:
        command = [sys.executable, "-m", "maumau", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--data-dir", str(self.data_dir), *self.db_args]
        command += [*SERVE_LIMITS, "--log-level", "warning"]
        with open(self.log, "ab") as out:
            out.write(f"\n=== start {self.starts + 1} at {time.time():.3f}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        self.starts += 1

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        """Until ``/api/health`` answers 200 (the store is open, unfinished games resumed)."""
        deadline = clock() + timeout
        while True:
            status, _ = http("GET", self.url + "/api/health", timeout=2.0)
            if status == 200:
                return
            if not self.alive():
                code = None if self.proc is None else self.proc.returncode
                raise CampaignError(
                    f"server {self.name} exited ({code}) while starting; {self.log}"
                )
            if clock() > deadline:
                raise CampaignError(f"server {self.name} not ready in {timeout:g} s; {self.log}")
            time.sleep(0.05)

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> int | None:
        """SIGTERM (a graceful stop); the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def log_problems(self) -> dict[str, Any]:
        """Tracebacks and ERROR lines in the server's output (over all its starts)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return {"tracebacks": 0, "errors": 0, "first": []}
        lines = text.splitlines()
        errors = [line for line in lines if line.startswith(("ERROR", "CRITICAL"))]
        return {
            "tracebacks": text.count("Traceback (most recent call last)"),
            "errors": len(errors),
            "first": errors[:5],
        }


def health(server: Server) -> tuple[int | None, Any]:
    return http("GET", server.url + "/api/health", timeout=3.0)


# --- the load tool -------------------------------------------------------------------------


@dataclass
class LoadSettings:
    games: int
    players: int
    rate: float | None
    procs: int
    spread: str
    seed: int


class Load:
    """``maumau loadtest`` as a child process, with its ledger."""

    def __init__(self, workdir: Path, name: str, urls: list[str], settings: LoadSettings) -> None:
        self.ledger = workdir / f"{name}-ledger.jsonl"
        self.json = workdir / f"{name}-load.json"
        self.log = workdir / f"{name}-load.log"
        self.urls = urls
        self.settings = settings
        self.proc: subprocess.Popen[bytes] | None = None
        self.duration = 0.0
        self.warmup = 1.0
        self.command: list[str] = []

    def start(self, duration: float) -> None:
        s = self.settings
        self.duration = duration
        command = ["maumau", "loadtest"]
        for url in self.urls:
            command += ["--url", url]
        command += ["--games", str(s.games), "--players", str(s.players)]
        command += ["--duration", f"{duration:.0f}", "--warmup", f"{self.warmup:g}"]
        command += ["--rate", f"{s.rate:g}"] if s.rate else ["--closed"]
        command += ["--procs", str(s.procs), "--spread", s.spread, "--seed", str(s.seed)]
        command += ["--ledger", str(self.ledger), "--json", str(self.json)]
        self.command = command
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", *command],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                start_new_session=True,  # its own process group, with its client processes
            )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def acked_bytes(self) -> int:
        try:
            return self.ledger.stat().st_size
        except OSError:
            return 0

    def wait_started(self, timeout: float) -> None:
        """Until the first acknowledged move is in the ledger."""
        deadline = clock() + timeout
        while self.acked_bytes() == 0:
            if not self.running():
                raise CampaignError(f"the load tool stopped before any move; {self.log}")
            if clock() > deadline:
                raise CampaignError(f"no move acknowledged in {timeout:g} s; {self.log}")
            time.sleep(0.1)

    def seconds_left(self, started: float) -> float:
        return started + self.warmup + self.duration - clock()

    def wait(self, timeout: float) -> tuple[int | None, dict[str, Any] | None]:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None, None
        try:
            document: dict[str, Any] = json.loads(self.json.read_text())
        except (OSError, ValueError):
            return code, None
        return code, document

    def stop(self) -> None:
        """Stop the load tool and its client processes (SIGTERM to its process group).
        Moves acknowledged in the last 0.2 s may miss from the ledger: that can only
        hide a loss, never show one that did not happen."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        with contextlib.suppress(ProcessLookupError):  # its client processes too
            os.killpg(self.proc.pid, signal.SIGKILL)


def wait_flow(load: Load, since: int, timeout: float) -> float | None:
    """Seconds until the ledger grows past ``since`` bytes (a move was acknowledged
    again), ``None`` if it did not within ``timeout`` or the load ended."""
    began = clock()
    while clock() - began < timeout:
        if load.acked_bytes() > since:
            return clock() - began
        if not load.running():
            return None
        time.sleep(0.05)
    return None


# --- probe tables: the campaign's own tables, whose tokens it keeps ------------------------


@dataclass
class ProbeTable:
    game_id: str
    tokens: list[str]
    #: the server each seat's WebSocket goes to
    seat_servers: list[Server]
    started: bool = True
    finished: bool = False


class Seat:
    """One seat's WebSocket (sync), with the latest state it was sent."""

    def __init__(self, server: Server, game_id: str, token: str | None) -> None:
        self.server = server.name
        self.ws: ClientConnection = connect(
            f"{server.ws}/ws/{game_id}",
            open_timeout=10,
            close_timeout=2,
            compression=None,
            legacy=True,  # used directly, closed by close()
        )
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.version = -1
        self.legal: list[dict[str, Any]] = []
        self.finished = False
        self.messages: list[dict[str, Any]] = []

    def pump(self, done: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """Read messages until one makes ``done`` true; raise TimeoutError otherwise."""
        deadline = clock() + timeout
        while True:
            left = deadline - clock()
            if left <= 0:
                raise TimeoutError
            message = json.loads(self.ws.recv(timeout=left))
            kind = message.get("type")
            if kind == "state":
                self.version = int(message["version"])
                self.legal = message["legal"]
                self.finished = bool(message["view"]["finished"])
            elif kind == "closed":
                raise ConnectionError(f"closed: {message.get('code')}")
            self.messages.append(message)
            if done(message):
                return message

    def summary(self) -> str:
        """The server, the latest version and the last messages, for a report."""
        last = []
        for message in self.messages[-4:]:
            kind = str(message.get("type"))
            extra = message.get("version", message.get("code", ""))
            last.append(f"{kind}{'' if extra == '' else ' ' + str(extra)}")
        return f"{self.server}: version {self.version}, legal {len(self.legal)}; {', '.join(last)}"

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def _is_state(message: dict[str, Any]) -> bool:
    return message.get("type") == "state"


def _answer(action_id: str) -> Callable[[dict[str, Any]], bool]:
    """The server's answer to the move ``action_id``: the mover's ``state`` that
    acknowledges it, an ``ack`` (a duplicate), or an ``error``."""

    def done(message: dict[str, Any]) -> bool:
        if message.get("type") == "state":
            return message.get("ack") == action_id
        return message.get("type") in ("ack", "error") and message.get("action_id") == action_id

    return done


def _as_ack(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer of :func:`_answer` with a ``state`` that acknowledges the move
    written as the ``ack`` it stands for."""
    if answer.get("type") != "state":
        return answer
    return {
        "type": "ack",
        "action_id": answer["ack"],
        "version": answer["version"],
        "duplicate": False,
    }


def _choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    plays = [a for a in legal if "play" in a]
    if plays:
        return plays[rng.randrange(len(plays))]
    for key in ("catch", "draw", "pass"):
        for action in legal:
            if key in action:
                return action
    return legal[0]


@dataclass
class Pending:
    """A probe move refused while the database was down, to be sent again."""

    table: ProbeTable
    seat: int
    version: int
    action_id: str
    text: str
    answer: str


class Prober:
    """Sets the probe tables up and moves at them."""

    def __init__(self, ledger: Path, servers: list[Server], seed: int, say: Say) -> None:
        self.ledger = ledger
        self.servers = servers
        self.rng = random.Random(seed)
        self.say = say
        self.tables: list[ProbeTable] = []
        self.lobby: ProbeTable | None = None
        self.count = 0
        ledger.write_text("")

    def _new_table(self, index: int, players: int) -> ProbeTable:
        home = self.servers[index % len(self.servers)]
        body = {"name": "probe0", "preset": PROBE_PRESET, "settings": PROBE_SETTINGS}
        created = must(*http("POST", home.url + "/api/games", body), "creating a probe table")
        tokens = [created["token"]]
        for n in range(1, players):
            joining = self.servers[(index + n) % len(self.servers)]
            path = f"{joining.url}/api/games/{created['game_id']}/seats"
            seat = must(*http("POST", path, {"name": f"probe{n}"}), "taking a probe seat")
            tokens.append(seat["token"])
        seat_servers = [self.servers[(index + n) % len(self.servers)] for n in range(players)]
        return ProbeTable(created["game_id"], tokens, seat_servers, started=False)

    def set_up(self, tables: int, players: int = 4) -> None:
        for index in range(tables):
            table = self._new_table(index, players)
            home = table.seat_servers[0]
            path = f"{home.url}/api/games/{table.game_id}/start"
            must(*http("POST", path, None, table.tokens[0]), "starting a probe table")
            table.started = True
            self.tables.append(table)
        self.lobby = self._new_table(tables, players)

    def _open(self, table: ProbeTable) -> list[Seat]:
        seats: list[Seat] = []
        try:
            for n, token in enumerate(table.tokens):
                seats.append(Seat(table.seat_servers[n], table.game_id, token))
            for seat in seats:
                seat.pump(_is_state, 15)
        except BaseException:
            for seat in seats:
                seat.close()
            raise
        return seats

    def _agree(self, seats: list[Seat], timeout: float = 10.0) -> int:
        """Until every seat has the same, newest version (and one of them can move)."""
        deadline = clock() + timeout
        while True:
            top = max(s.version for s in seats)
            for seat in seats:
                while seat.version < top:
                    seat.pump(_is_state, max(0.1, deadline - clock()))
            if all(s.version == top for s in seats) and (
                any(s.legal for s in seats) or any(s.finished for s in seats)
            ):
                return top
            if clock() > deadline:
                raise TimeoutError
            # between rounds the next deal follows at once: wait for it
            for seat in seats:
                with contextlib.suppress(TimeoutError):
                    seat.pump(_is_state, 0.2)

    def step(self, table: ProbeTable, tag: str, send_timeout: float = 20.0) -> dict[str, Any]:
        """One legal move at ``table``, acknowledged and seen by every seat."""
        result: dict[str, Any] = {"game_id": table.game_id, "tag": tag, "ok": False}
        try:
            seats = self._open(table)
        except LOST as exc:
            result["detail"] = f"could not connect and greet: {type(exc).__name__} {exc}"
            return result
        stage = "agree on a version"
        try:
            version = self._agree(seats)
            if any(s.finished for s in seats):
                table.finished = True
                result.update(ok=True, detail="the game is over")
                return result
            mover = next(n for n, s in enumerate(seats) if s.legal)
            self.count += 1
            action_id = f"probe-{self.count}"
            action = _choose(seats[mover].legal, self.rng)
            text = json.dumps(
                {"type": "action", "version": version, "action_id": action_id, "action": action}
            )
            stage = f"move {action_id} of seat {mover} at version {version}"
            answer = self._send(seats[mover], text, action_id, send_timeout)
            if answer.get("type") != "ack":
                result["detail"] = f"move refused: {answer.get('code')}"
                return result
            acked = int(answer["version"])
            self._write(table.game_id, mover, action_id, acked)
            stage = f"every seat sees version {acked}"
            for seat in seats:  # every seat, on every process, sees the move
                if seat.version < acked:  # (the mover's saw it in its answer)
                    seat.pump(lambda m: _is_state(m) and m["version"] >= acked, 15)
            result.update(ok=True, version=acked, seat=mover, duplicate=answer["duplicate"])
            return result
        except (*LOST, StopIteration) as exc:
            result["detail"] = f"{stage}: {type(exc).__name__} {exc}".strip()
            result["seats"] = [seat.summary() for seat in seats]
            return result
        finally:
            for seat in seats:
                seat.close()

    def _send(self, seat: Seat, text: str, action_id: str, timeout: float) -> dict[str, Any]:
        deadline = clock() + timeout
        while True:
            seat.ws.send(text)
            answer = _as_ack(seat.pump(_answer(action_id), max(0.5, deadline - clock())))
            if answer["type"] == "ack" or answer.get("code") not in RETRY_CODES:
                return answer
            if clock() > deadline:
                return answer
            time.sleep(0.3)

    def _write(self, game_id: str, seat: int, action_id: str, version: int) -> None:
        line = {"game_id": game_id, "seat": seat, "action_id": action_id, "version": version}
        with open(self.ledger, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    def step_all(self, tag: str) -> list[dict[str, Any]]:
        return [self.step(t, tag) for t in self.tables if not t.finished]

    def refused_move(self, table: ProbeTable, timeout: float = 25.0) -> Pending | dict[str, Any]:
        """While the database is down: a legal move, expected to be refused."""
        try:
            seats = self._open(table)
        except LOST as exc:
            return {"ok": False, "detail": f"could not connect: {type(exc).__name__} {exc}"}
        try:
            version = self._agree(seats)
            mover = next(n for n, s in enumerate(seats) if s.legal)
            self.count += 1
            action_id = f"probe-{self.count}"
            action = _choose(seats[mover].legal, self.rng)
            text = json.dumps(
                {"type": "action", "version": version, "action_id": action_id, "action": action}
            )
            seats[mover].ws.send(text)
            answer = _as_ack(seats[mover].pump(_answer(action_id), timeout))
        except (*LOST, StopIteration) as exc:
            return {"ok": False, "detail": f"{type(exc).__name__} {exc}".strip()}
        finally:
            for seat in seats:
                seat.close()
        if answer["type"] == "ack":  # applied after all: it is an acknowledged move
            self._write(table.game_id, mover, action_id, int(answer["version"]))
            return {"ok": False, "detail": "the move was acknowledged while the DB was down"}
        code = str(answer.get("code"))
        return Pending(table, mover, version, action_id, text, code)

    def resend(self, pending: Pending) -> dict[str, Any]:
        """After the outage: the refused move again, same ``action_id`` and version;
        it must now be applied (not a duplicate: nothing was applied before)."""
        table = pending.table
        result: dict[str, Any] = {"game_id": table.game_id, "action_id": pending.action_id}
        try:
            seat = Seat(table.seat_servers[pending.seat], table.game_id, table.tokens[pending.seat])
        except LOST as exc:
            return {**result, "ok": False, "detail": f"could not connect: {exc}"}
        try:
            seat.pump(_is_state, 15)
            answer = self._send(seat, pending.text, pending.action_id, 20)
        except LOST as exc:
            return {**result, "ok": False, "detail": f"{type(exc).__name__} {exc}".strip()}
        finally:
            seat.close()
        if answer["type"] != "ack":
            return {**result, "ok": False, "detail": f"refused again: {answer.get('code')}"}
        self._write(table.game_id, pending.seat, pending.action_id, int(answer["version"]))
        ok = not answer["duplicate"] and int(answer["version"]) == pending.version + 1
        return {**result, "ok": ok, "duplicate": answer["duplicate"], "version": answer["version"]}

    def lobby_game(self) -> dict[str, Any]:
        """The table left in the lobby through the campaign: start it, make a move."""
        table = self.lobby
        assert table is not None
        home = table.seat_servers[0]
        status, reply = http(
            "POST", f"{home.url}/api/games/{table.game_id}/start", None, table.tokens[0]
        )
        if status != 204:
            return {"ok": False, "detail": f"start: HTTP {status} {reply}"}
        table.started = True
        self.tables.append(table)
        return self.step(table, "lobby table")


# --- checks against the database -----------------------------------------------------------


def read_ledger(*paths: Path) -> list[dict[str, Any]]:
    """The lines of the ledgers (a load tool stopped early may have left its last line
    half written: a line that does not parse is skipped)."""
    lines: list[dict[str, Any]] = []
    for path in paths:
        with contextlib.suppress(OSError):
            for text in path.read_text().splitlines():
                with contextlib.suppress(ValueError):
                    lines.append(json.loads(text))
    return lines


@dataclass(frozen=True)
class Stored:
    """A stored step that carries a client's ``action_id``."""

    game_id: str
    client_id: str
    seat: int
    seq: int
    created_at: float
    status: str  # of its game


def stored_moves(url: str) -> list[Stored]:
    """Every stored step with a client id."""
    query = (
        "SELECT s.game_id, s.client_id, s.data, s.seq, s.created_at, g.status"
        " FROM steps s JOIN games g ON g.id = s.game_id WHERE s.client_id IS NOT NULL"
    )
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1]
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            rows = db.execute(query).fetchall()
    else:

        async def fetch() -> list[Any]:
            import asyncpg

            conn = await asyncpg.connect(url, timeout=10)
            try:
                return list(await conn.fetch(query))
            finally:
                await conn.close()

        rows = [tuple(r) for r in asyncio.run(fetch())]
    out = []
    for game_id, client_id, data, seq, created_at, status in rows:
        body = json.loads(data) if isinstance(data, str) else data
        seat = int(body["seat"])
        out.append(Stored(str(game_id), str(client_id), seat, int(seq), created_at, str(status)))
    return out


def check_ledger(lines: list[dict[str, Any]], stored: list[Stored]) -> dict[str, Any]:
    """Every acknowledged move stored exactly once, for its seat."""
    count = Counter((m.game_id, m.client_id) for m in stored)
    seats = {(m.game_id, m.client_id): m.seat for m in stored}
    keys = [(x["game_id"], x["action_id"]) for x in lines]
    missing = [k for k in keys if count[k] == 0]
    doubled = [k for k in keys if count[k] > 1]
    wrong_seat = [
        (x["game_id"], x["action_id"])
        for x in lines
        if count[(x["game_id"], x["action_id"])]
        and seats[(x["game_id"], x["action_id"])] != x["seat"]
    ]
    acked = set(keys)
    # stored moves whose ack never reached the client: the last client move of its
    # game is one in flight when the load tool stopped (or when a kill ended the game's
    # play); in a game that finished, the others played on and ended the game before
    # the sender reconnected to ask again; any other is worth a look
    last: dict[str, int] = {}
    for m in stored:
        last[m.game_id] = max(m.seq, last.get(m.game_id, -1))
    unacked = [m for m in stored if (m.game_id, m.client_id) not in acked]
    ended = [m for m in unacked if m.seq != last[m.game_id] and m.status == "finished"]
    other = [m for m in unacked if m.seq != last[m.game_id] and m.status != "finished"]
    return {
        "acknowledged": len(lines),
        "ledger_repeats": len(keys) - len(acked),
        "stored": sum(1 for k in acked if count[k] >= 1),
        "missing": len(missing),
        "doubled": len(doubled),
        "wrong_seat": len(wrong_seat),
        "client_ids_stored_twice": sum(1 for n in count.values() if n > 1),
        "stored_not_acknowledged": len(unacked),
        "stored_not_acknowledged_last": len(unacked) - len(other) - len(ended),
        "stored_not_acknowledged_game_ended": len(ended),
        "stored_not_acknowledged_other": len(other),
        "other_examples": [
            [m.game_id, m.client_id, m.seq, round(m.created_at, 3)] for m in other[:10]
        ],
        "missing_examples": [list(k) for k in missing[:5]],
        "doubled_examples": [list(k) for k in doubled[:5]],
    }


async def _replay_all(url: str) -> list[dict[str, Any]]:
    """Every lobby/playing game: loaded and replayed through the engine."""
    store = await Store.open(url)
    out: list[dict[str, Any]] = []
    try:
        for game_id in await store.game_ids(("lobby", "playing")):
            entry: dict[str, Any] = {"game_id": game_id}
            try:
                loaded = await store.load(game_id)
                if loaded is None:
                    entry.update(ok=False, detail="vanished")
                else:
                    row, steps = loaded
                    table = Table.load(row, steps)  # every deal and action through the engine
                    version = 0 if table.game is None else table.game.version
                    entry.update(status=row.status, steps=len(steps), version=version)
                    entry["ok"] = version == len(steps)
                    if not entry["ok"]:
                        entry["detail"] = f"replayed to version {version}, {len(steps)} steps"
            except Exception as exc:
                entry.update(ok=False, detail=f"replay failed: {type(exc).__name__}: {exc}")
            out.append(entry)
    finally:
        await store.close()
    return out


def check_games(url: str, servers: list[Server]) -> dict[str, Any]:
    """Every unfinished game replays, answers on every process, and is resumed at the
    stored version there."""
    games = asyncio.run(_replay_all(url))
    problems: list[str] = []
    resumed = 0
    for entry in games:
        game_id = entry["game_id"]
        if not entry["ok"]:
            problems.append(f"{game_id}: {entry.get('detail')}")
            continue
        for server in servers:
            status, info = http("GET", f"{server.url}/api/games/{game_id}")
            if status != 200 or not isinstance(info, dict) or info["status"] != entry["status"]:
                problems.append(f"{game_id} on {server.name}: GET {status} {info}")
                continue
            if entry["steps"] == 0:
                continue  # in the lobby: no state to compare
            try:
                spectator = Seat(server, game_id, None)
                try:
                    state = spectator.pump(_is_state, 15)
                finally:
                    spectator.close()
            except LOST as exc:
                problems.append(f"{game_id} on {server.name}: no state ({type(exc).__name__})")
                continue
            if state["version"] != entry["steps"]:
                problems.append(
                    f"{game_id} on {server.name}: state version {state['version']}, "
                    f"{entry['steps']} steps stored"
                )
            else:
                resumed += 1
    return {
        "unfinished": len(games),
        "playing": sum(1 for g in games if g.get("status") == "playing"),
        "lobby": sum(1 for g in games if g.get("status") == "lobby"),
        "replayed": sum(1 for g in games if g["ok"]),
        "resumed_at_stored_version": resumed,
        "problems": problems,
    }


# --- watching the run ----------------------------------------------------------------------

PG_ACTIVITY = """
SELECT count(*) FILTER (WHERE state = 'idle in transaction') AS idle_in_tx,
       coalesce(max(extract(epoch FROM now() - xact_start))
                FILTER (WHERE state = 'idle in transaction'), 0) AS idle_in_tx_s,
       count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock_waits,
       coalesce(max(extract(epoch FROM now() - query_start))
                FILTER (WHERE wait_event_type = 'Lock'), 0) AS lock_wait_s,
       string_agg(left(query, 80), ' | ') FILTER (WHERE wait_event_type = 'Lock'
                                                  OR state = 'idle in transaction') AS stuck
FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
"""


class Monitor:
    """Samples the run once a second in a thread: acknowledged moves (the ledger's
    lines) and, on PostgreSQL, sessions that wait for a lock or sit idle inside a
    transaction (a write that never ends would stall its server)."""

    def __init__(self, ledger: Path, pg_url: str | None = None) -> None:
        self.ledger = ledger
        self.pg_url = pg_url
        self.samples: list[dict[str, Any]] = []
        self.stuck: list[str] = []
        self._offset = 0
        self._lines = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._began = clock()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _count(self) -> int:
        with contextlib.suppress(OSError), open(self.ledger, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
            end = data.rfind(b"\n") + 1
            self._lines += data.count(b"\n", 0, end)
            self._offset += end
        return self._lines

    def _activity(self) -> dict[str, Any] | None:
        if self.pg_url is None:
            return None
        url = self.pg_url

        async def query() -> dict[str, Any]:
            import asyncpg

            conn = await asyncpg.connect(url, timeout=2)
            try:
                row = await conn.fetchrow(PG_ACTIVITY, url.rsplit("/", 1)[1])
            finally:
                await conn.close()
            return dict(row)

        try:
            return asyncio.run(query())
        except Exception:
            return None  # PostgreSQL is stopped (or starting)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            sample: dict[str, Any] = {"t": round(clock() - self._began, 1), "acked": self._count()}
            activity = self._activity()
            if activity is not None:
                stuck = activity.pop("stuck")
                sample.update({k: round(float(v), 1) for k, v in activity.items()})
                if stuck and activity["lock_wait_s"] + activity["idle_in_tx_s"] > 5:
                    self.stuck.append(f"t={sample['t']}: {stuck}")
            self.samples.append(sample)

    def figures(self) -> dict[str, Any]:
        """The longest time without a new acknowledged move, the worst lock wait and
        idle transaction, and the samples themselves."""
        longest = 0.0
        since = 0.0
        last = -1
        for sample in self.samples:
            if sample["acked"] != last:
                last, since = sample["acked"], sample["t"]
            longest = max(longest, sample["t"] - since)
        return {
            "longest_without_acks_s": round(longest, 1),
            "max_lock_wait_s": max((x.get("lock_wait_s", 0) for x in self.samples), default=0),
            "max_idle_in_transaction_s": max(
                (x.get("idle_in_tx_s", 0) for x in self.samples), default=0
            ),
            "stuck_sessions": self.stuck[:20],
            "samples": self.samples,
        }


# --- the campaigns -------------------------------------------------------------------------


@dataclass
class Options:
    seed: int = 1
    kills: int = 10
    games: int = 30
    players: int = 4
    rate: float | None = None
    procs: int = 2
    probe_tables: int = 3
    up: tuple[float, float] = (2.0, 5.0)  # seconds a server runs before the next kill
    pause: tuple[float, float] = (0.3, 1.5)  # seconds dead before the restart
    start_timeout: float = 90.0
    pg_servers: int = 2
    pg_kills: int = 4
    pg_stops: int = 3
    pg_spread: str = "seat"
    stop_for: tuple[float, float] = (2.0, 5.0)  # seconds PostgreSQL stays down
    pg_durable: bool = True
    keep: bool = False  # keep the PostgreSQL cluster's files (with --workdir)
    tail: float = 8.0  # seconds of load after the last fault
    #: wait for the load tool's run to end (its figures); else stop it after the tail
    wait_for_load: bool = True
    #: check what a hello during a pending commit shows (SQLite; holds its write lock)
    pending_check: bool = True


@dataclass
class Report:
    """What one campaign found."""

    name: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        return ok

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "campaign": self.name,
            "ok": self.ok,
            "checks": self.checks,
            "events": self.events,
            "figures": self.figures,
        }


def _uniform(rng: random.Random, bounds: tuple[float, float]) -> float:
    return rng.uniform(*bounds)


def _load_duration(opts: Options, faults: int, gaps: list[float], restart: float) -> float:
    """Seconds of load that hold every planned fault, the restarts and a tail."""
    return sum(gaps) + faults * (opts.pause[1] + restart + 3.0) + opts.tail + 5.0


def _kill_and_restart(
    server: Server, load: Load, prober: Prober, rng: random.Random, opts: Options, say: Say
) -> dict[str, Any]:
    """kill -9 one server, start it again on the same data after a pause, and see the
    game go on (moves acknowledged again, the probe tables take a move)."""
    pause = _uniform(rng, opts.pause)
    pid = server.pid
    at = time.time()
    killed = clock()
    server.kill9()
    time.sleep(pause)
    server.start()
    server.wait_ready(opts.start_timeout)
    ready = clock()
    # acknowledgements from before the kill were written out long ago (every 0.2 s)
    flow = wait_flow(load, load.acked_bytes(), 30)
    probes = prober.step_all(f"after kill of {server.name}")
    event = {
        "kind": "kill -9",
        "server": server.name,
        "at": round(at, 3),
        "pid": pid,
        "pause_s": round(pause, 3),
        "downtime_s": round(ready - killed, 3),
        "moves_again_after_s": None if flow is None else round(flow, 3),
        "probe_moves_ok": sum(1 for p in probes if p["ok"]),
        "probe_tables": len(probes),
        "probe_problems": [p for p in probes if not p["ok"]],
    }
    say(
        f"kill -9 {server.name} (pid {pid}): down {event['downtime_s']:.2f} s, moves again "
        f"after {event['moves_again_after_s']} s, probes {event['probe_moves_ok']}/{len(probes)}"
    )
    return event


def _stop_database(
    cluster: Cluster,
    mode: str,
    servers: list[Server],
    load: Load,
    prober: Prober,
    rng: random.Random,
    opts: Options,
    say: Say,
) -> dict[str, Any]:
    """Stop PostgreSQL for a few seconds under load: the servers must answer errors,
    stay alive, and recover by themselves once it is back."""
    down_for = _uniform(rng, opts.stop_for)
    pids = [s.pid for s in servers]
    at = time.time()
    stopped = clock()
    cluster.stop(mode)
    stop_took = clock() - stopped
    answers: dict[str, Counter[str]] = {s.name: Counter() for s in servers}
    pending: Pending | dict[str, Any] | None = None
    down_bytes = load.acked_bytes()
    while clock() - stopped < down_for or (pending is None and prober.tables):
        for server in servers:
            status, body = health(server)
            answers[server.name][f"{status}/{(body or {}).get('database')}"] += 1
        if pending is None and prober.tables:
            pending = prober.refused_move(prober.tables[0])
        time.sleep(0.2)
    acked_while_down = max(0, load.acked_bytes() - down_bytes)
    alive_while_down = all(s.alive() for s in servers)
    cluster.start()
    up = clock()
    # recovery by itself: health ok on every process, moves acknowledged again
    health_back: dict[str, float | None] = {}
    for server in servers:
        deadline = clock() + 60
        health_back[server.name] = None
        while clock() < deadline:
            if health(server)[0] == 200:
                health_back[server.name] = round(clock() - up, 3)
                break
            time.sleep(0.1)
    flow = wait_flow(load, load.acked_bytes(), 30)
    resent = prober.resend(pending) if isinstance(pending, Pending) else None
    probes = prober.step_all(f"after DB stop ({mode})")
    same_pids = [s.pid for s in servers] == pids and all(s.alive() for s in servers)
    refused = pending.answer if isinstance(pending, Pending) else (pending or {}).get("detail")
    event = {
        "kind": f"DB stop -m {mode}",
        "server": "postgresql",
        "at": round(at, 3),
        "down_s": round(up - stopped, 3),
        "pg_stop_took_s": round(stop_took, 3),
        "health_answers": {k: dict(v) for k, v in answers.items()},
        "degraded_seen": all(
            any(a.startswith("503/unavailable") for a in v) for v in answers.values()
        ),
        "probe_move_while_down": refused,
        "servers_alive_while_down": alive_while_down,
        "servers_not_restarted": same_pids,
        "health_ok_after_s": health_back,
        "moves_again_after_s": None if flow is None else round(flow, 3),
        "acked_bytes_while_down": acked_while_down,
        "refused_move_resent": resent,
        "probe_moves_ok": sum(1 for p in probes if p["ok"]),
        "probe_tables": len(probes),
        "probe_problems": [p for p in probes if not p["ok"]],
    }
    say(
        f"PostgreSQL stop -m {mode}: down {event['down_s']:.2f} s, probe move answered "
        f"{refused}, health ok after {health_back}, moves again after "
        f"{event['moves_again_after_s']} s, probes {event['probe_moves_ok']}/{len(probes)}"
    )
    return event


def _finish(
    report: Report,
    load: Load,
    load_started: float,
    prober: Prober,
    servers: list[Server],
    url: str,
    say: Say,
    wait_for_load: bool = True,
    tail: float = 0.0,
    monitor: Monitor | None = None,
) -> None:
    """Wait for the load to end (or stop it), then check the ledgers and every
    unfinished game."""
    if wait_for_load:
        left = load.seconds_left(load_started)
        say(f"waiting for the load tool to finish ({max(0.0, left):.0f} s left)")
        code, document = load.wait(max(0.0, left) + 180)
        report.check("load tool ran to its end", code == 0, f"exit {code}; {load.log}")
    else:
        time.sleep(tail)
        say("stopping the load tool")
        load.stop()
        document = None
    if monitor is not None:
        monitor.stop()
        report.figures["monitor"] = monitor.figures()
    results = (document or {}).get("results", {})
    report.figures["load"] = {
        "command": "uv run " + " ".join(load.command),
        "moves": results.get("acked_total"),
        "moves_per_second": results.get("moves_per_second"),
        "latency_ms": results.get("latency_ms"),
        "errors": results.get("errors"),
        "errors_outside": results.get("errors_outside"),
        "reconnects": results.get("reconnects"),
        "resent": results.get("resent"),
        "duplicates": results.get("duplicates"),
        "games_finished": results.get("games_finished"),
        "games_started": results.get("games_started"),
    }
    if document is not None:
        errors = results.get("errors", {})
        given_up = {k: errors.get(k, 0) for k in ("stalled", "reconnect_gave_up")}
        report.check(
            "no load game stalled or was given up (every game kept moving)",
            not any(given_up.values()),
            ", ".join(f"{k} {v}" for k, v in given_up.items()),
        )
    for server in servers:  # every process must be up for the checks below
        if not server.alive():
            report.check(f"server {server.name} alive at the end", False, "it had exited")
            server.start()
            server.wait_ready(90)
    lobby = prober.lobby_game()
    final = prober.step_all("final")
    lines = read_ledger(load.ledger, prober.ledger)
    ledger = check_ledger(lines, stored_moves(url))
    ledger["probe_moves"] = len(read_ledger(prober.ledger))
    report.figures["ledger"] = ledger
    report.check("ledger has moves", ledger["acknowledged"] > 0, f"{ledger['acknowledged']}")
    report.check(
        "every acknowledged move is stored",
        ledger["missing"] == 0,
        f"{ledger['missing']} missing {ledger['missing_examples']}",
    )
    report.check(
        "no acknowledged move is stored twice",
        ledger["doubled"] == 0 and ledger["client_ids_stored_twice"] == 0,
        f"{ledger['doubled']} doubled, {ledger['client_ids_stored_twice']} client ids twice",
    )
    report.check("every move stored for its seat", ledger["wrong_seat"] == 0)
    games = check_games(url, servers)
    report.figures["games"] = games
    report.check(
        "every unfinished game replays, loads on every process at its stored version",
        not games["problems"],
        "; ".join(games["problems"][:5]),
    )
    report.check(
        "every probe table takes a move at the end",
        all(p["ok"] for p in final) and bool(final),
        "; ".join(str(p.get("detail")) for p in final if not p["ok"]),
    )
    report.check(
        "the lobby table starts and takes a move", lobby["ok"], str(lobby.get("detail", ""))
    )
    for server in servers:
        status, body = health(server)
        report.check(f"server {server.name} healthy at the end", status == 200, f"{status} {body}")
    report.figures["server_logs"] = {s.name: s.log_problems() for s in servers}


def _load_settings(opts: Options, spread: str, seed: int) -> LoadSettings:
    return LoadSettings(opts.games, opts.players, opts.rate, opts.procs, spread, seed)


def pending_commit_probe(server: Server) -> dict[str, Any]:
    """What a client is shown when it says ``hello`` while a move's commit is still
    pending (SQLite).  The script holds the database's write lock, so the server's
    commit of a move waits and finally fails (``store_unavailable``, nothing stored);
    a spectator greeted meanwhile must be shown the committed game, not the move that
    is then withdrawn."""
    body = {"name": "pend0", "preset": "standard", "settings": PROBE_SETTINGS}
    created = must(*http("POST", server.url + "/api/games", body), "creating a table")
    game_id = created["game_id"]
    path = f"{server.url}/api/games/{game_id}/seats"
    other = must(*http("POST", path, {"name": "pend1"}), "taking a seat")
    start = f"{server.url}/api/games/{game_id}/start"
    must(*http("POST", start, None, created["token"]), "starting")
    seats = [Seat(server, game_id, t) for t in (created["token"], other["token"])]
    db = sqlite3.connect(server.data_dir / "maumau.sqlite3", isolation_level=None, timeout=30)
    try:
        for seat in seats:
            seat.pump(_is_state, 15)
        mover = next(s for s in seats if s.legal)
        before = mover.version
        db.execute("BEGIN IMMEDIATE")  # the server's next commit waits for this lock
        action = {"type": "action", "version": before, "action_id": "pending-1"}
        mover.ws.send(json.dumps({**action, "action": mover.legal[0]}))
        time.sleep(1.0)
        spectator = Seat(server, game_id, None)
        try:
            shown = int(spectator.pump(_is_state, 15)["version"])
        finally:
            spectator.close()
        answer = mover.pump(_answer("pending-1"), 30)
        db.execute("ROLLBACK")
        stored = db.execute("SELECT count(*) FROM steps WHERE game_id = ?", (game_id,)).fetchone()
    finally:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        db.close()
        for seat in seats:
            seat.close()
    return {
        "game_id": game_id,
        "version_before": before,
        "shown_while_pending": shown,
        "move_answer": answer.get("code") or _as_ack(answer)["type"],
        "steps_stored": int(stored[0]),
        "ok": shown == int(stored[0]),
    }


def sqlite_campaign(opts: Options, workdir: Path, say: Say) -> Report:
    """kill -9 of the one server process on SQLite, ``opts.kills`` times, under load."""
    report = Report("sqlite")
    rng = random.Random(f"sqlite-{opts.seed}")
    workdir.mkdir(parents=True, exist_ok=True)
    server = Server("sqlite", workdir, [])
    url = f"sqlite:///{server.data_dir / 'maumau.sqlite3'}"
    load = Load(workdir, "sqlite", [server.url], _load_settings(opts, "game", opts.seed))
    try:
        began = clock()
        server.start()
        server.wait_ready(opts.start_timeout)
        first_start = clock() - began
        say(f"server up in {first_start:.1f} s on {server.url} (data {server.data_dir})")
        prober = Prober(workdir / "sqlite-probe-ledger.jsonl", [server], opts.seed, say)
        prober.set_up(opts.probe_tables)
        prober.step_all("before the kills")
        if opts.pending_check:
            pending = pending_commit_probe(server)
            report.figures["pending_commit"] = pending
            say(f"hello during a pending commit: {pending}")
            report.check(
                "a client greeted while a move's commit is pending is shown only committed state",
                pending["ok"],
                f"shown version {pending['shown_while_pending']}, "
                f"{pending['steps_stored']} steps stored, the move: {pending['move_answer']}",
            )
        gaps = [_uniform(rng, opts.up) for _ in range(opts.kills)]
        restart = max(10.0, 2.0 * first_start + 2.0)
        load.start(_load_duration(opts, opts.kills, gaps, restart))
        load_started = clock()
        monitor = Monitor(load.ledger)
        monitor.start()
        say(f"load: {' '.join(load.command)}")
        load.wait_started(120)
        kill_at = clock()
        for n, gap in enumerate(gaps):
            time.sleep(max(0.0, kill_at + gap - clock()))
            if not load.running() or load.seconds_left(load_started) < 3.0:
                say(f"the load ended before kill {n + 1}")
                break
            report.events.append(_kill_and_restart(server, load, prober, rng, opts, say))
            kill_at = clock()
        kills = [e for e in report.events if e["kind"] == "kill -9"]
        report.check("kills", len(kills) >= opts.kills, f"{len(kills)} of {opts.kills}")
        report.check(
            "moves acknowledged again after every restart",
            all(e["moves_again_after_s"] is not None for e in kills),
        )
        report.check(
            "the probe tables took a move after every restart",
            all(e["probe_moves_ok"] == e["probe_tables"] for e in kills),
            "; ".join(str(p) for e in kills for p in e["probe_problems"])[:500],
        )
        _finish(
            report,
            load,
            load_started,
            prober,
            [server],
            url,
            say,
            opts.wait_for_load,
            opts.tail,
            monitor,
        )
        report.figures["faults"] = _fault_figures(kills, [server], first_start)
        code = server.stop()
        report.figures["exit_code_after_sigterm"] = code  # uvicorn re-raises the signal: -15
    finally:
        load.stop()
        server.stop()
    return report


def _fault_figures(
    kills: list[dict[str, Any]], servers: list[Server], first_start: float
) -> dict[str, Any]:
    """What both campaigns report of their kills: how many, the restarts, the downtimes."""
    downtimes = [e["downtime_s"] for e in kills]
    return {
        "kills": len(kills),
        "restarts": sum(s.starts - 1 for s in servers),
        "downtime_s": downtimes,
        "downtime_mean_s": round(sum(downtimes) / len(downtimes), 3) if downtimes else None,
        "downtime_max_s": max(downtimes, default=None),
        "first_start_s": round(first_start, 3),
    }


def pg_campaign(opts: Options, workdir: Path, say: Say) -> Report:
    """Several server processes on one PostgreSQL: kill -9 of a process and stops of
    the database, in a seeded order, under load."""
    report = Report("postgresql")
    rng = random.Random(f"pg-{opts.seed}")
    workdir.mkdir(parents=True, exist_ok=True)
    cluster = Cluster("faults-pg-", DURABLE if opts.pg_durable else NO_FSYNC)
    servers: list[Server] = []
    load: Load | None = None
    try:
        try:
            cluster.init()
            cluster.start()
        except (ClusterError, OSError, LookupError, subprocess.TimeoutExpired) as exc:
            log = cluster.log
            tail = log.read_text(errors="replace")[-500:] if log.exists() else ""
            raise ClusterUnavailable(f"the PostgreSQL cluster did not start: {exc} {tail}") from exc
        url = cluster.create_database("maumau")
        say(
            f"PostgreSQL {cluster.bin.parent.name} on port {cluster.port} (fsync "
            f"{'on' if opts.pg_durable else 'off'})"
        )
        servers = [
            Server(f"pg-{chr(ord('a') + n)}", workdir, ["--database-url", url])
            for n in range(opts.pg_servers)
        ]
        began = clock()
        for server in servers:
            server.start()
            server.wait_ready(opts.start_timeout)
        first_start = (clock() - began) / len(servers)
        say("servers up: " + ", ".join(s.url for s in servers))
        prober = Prober(workdir / "pg-probe-ledger.jsonl", servers, opts.seed, say)
        prober.set_up(opts.probe_tables)
        prober.step_all("before the faults")
        plan = ["kill"] * opts.pg_kills + ["stop"] * opts.pg_stops
        rng.shuffle(plan)
        gaps = [_uniform(rng, opts.up) for _ in plan]
        restart = max(10.0, 2.0 * first_start + 2.0) + opts.stop_for[1]
        spread = opts.pg_spread if len(servers) > 1 else "game"
        load = Load(
            workdir, "pg", [s.url for s in servers], _load_settings(opts, spread, opts.seed)
        )
        load.start(_load_duration(opts, len(plan), gaps, restart))
        load_started = clock()
        monitor = Monitor(load.ledger, url)
        monitor.start()
        say(f"load: {' '.join(load.command)}")
        load.wait_started(120)
        modes = iter(["fast", "immediate"] * len(plan))
        fault_at = clock()
        for n, (kind, gap) in enumerate(zip(plan, gaps, strict=True)):
            time.sleep(max(0.0, fault_at + gap - clock()))
            if not load.running() or load.seconds_left(load_started) < 3.0:
                say(f"the load ended before fault {n + 1}")
                break
            if kind == "kill":
                victim = servers[rng.randrange(len(servers))]
                report.events.append(_kill_and_restart(victim, load, prober, rng, opts, say))
            else:
                mode = next(modes)
                report.events.append(
                    _stop_database(cluster, mode, servers, load, prober, rng, opts, say)
                )
            fault_at = clock()
        kills = [e for e in report.events if e["kind"] == "kill -9"]
        stops = [e for e in report.events if e["kind"].startswith("DB stop")]
        report.check("kills", len(kills) >= opts.pg_kills, f"{len(kills)} of {opts.pg_kills}")
        report.check("DB stops", len(stops) >= opts.pg_stops, f"{len(stops)} of {opts.pg_stops}")
        report.check(
            "servers answered 503 (database unavailable) during every DB stop",
            all(e["degraded_seen"] for e in stops),
        )
        report.check(
            "a move during every DB stop was refused with store_unavailable",
            all(e["probe_move_while_down"] == "store_unavailable" for e in stops),
            "; ".join(str(e["probe_move_while_down"]) for e in stops),
        )
        report.check(
            "no server process died during the DB stops (none restarted)",
            all(e["servers_alive_while_down"] and e["servers_not_restarted"] for e in stops),
        )
        report.check(
            "every server healthy again by itself after every DB stop",
            all(all(v is not None for v in e["health_ok_after_s"].values()) for e in stops),
        )
        report.check(
            "moves acknowledged again after every fault",
            all(e["moves_again_after_s"] is not None for e in report.events),
        )
        report.check(
            "a move refused during a DB stop is applied once when sent again",
            all((e["refused_move_resent"] or {}).get("ok") for e in stops),
            "; ".join(str(e["refused_move_resent"]) for e in stops)[:500],
        )
        report.check(
            "the probe tables took a move (seen on every process) after every fault",
            all(e["probe_moves_ok"] == e["probe_tables"] for e in report.events),
            "; ".join(str(p) for e in report.events for p in e["probe_problems"])[:500],
        )
        _finish(
            report,
            load,
            load_started,
            prober,
            servers,
            url,
            say,
            opts.wait_for_load,
            opts.tail,
            monitor,
        )
        report.figures["faults"] = {
            **_fault_figures(kills, servers, first_start),
            "db_stops": len(stops),
            "db_down_s": [e["down_s"] for e in stops],
            "servers": len(servers),
            "spread": spread,
            "fsync": opts.pg_durable,
        }
    finally:
        if load is not None:
            load.stop()
        for server in servers:
            server.stop()
        cluster.remove("immediate", keep=opts.keep)
        if opts.keep:
            say(f"PostgreSQL cluster kept in {cluster.base} (stopped)")
    return report


# --- output --------------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def print_report(report: Report, console: Console) -> None:
    f = report.figures
    events = RichTable(title=f"{report.name}: faults")
    for column in ("#", "fault", "down s", "moves again after s", "probe tables", "notes"):
        events.add_column(column)
    for n, e in enumerate(report.events, 1):
        if e["kind"] == "kill -9":
            notes = f"pid {e['pid']}, pause {e['pause_s']:.2f} s"
            down = e["downtime_s"]
        else:
            notes = f"move while down: {e['probe_move_while_down']}; health ok after " + ", ".join(
                f"{k} {_fmt(v)} s" for k, v in e["health_ok_after_s"].items()
            )
            down = e["down_s"]
        events.add_row(
            str(n),
            f"{e['kind']} {e['server']}",
            _fmt(down),
            _fmt(e["moves_again_after_s"]),
            f"{e['probe_moves_ok']}/{e['probe_tables']}",
            notes,
        )
    console.print(events)
    ledger = f.get("ledger", {})
    faults = f.get("faults", {})
    load = f.get("load", {})
    table = RichTable(title=f"{report.name}: ledger", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("figure")
    rows = [
        ("acknowledged moves", ledger.get("acknowledged")),
        ("  of which probe moves", ledger.get("probe_moves")),
        ("stored", ledger.get("stored")),
        ("missing", ledger.get("missing")),
        ("doubled", ledger.get("doubled")),
        ("client ids stored twice", ledger.get("client_ids_stored_twice")),
        (
            "stored, never acknowledged (last move / game ended first / other)",
            f"{ledger.get('stored_not_acknowledged')} "
            f"({ledger.get('stored_not_acknowledged_last')}"
            f" / {ledger.get('stored_not_acknowledged_game_ended')}"
            f" / {ledger.get('stored_not_acknowledged_other')})",
        ),
        ("kills", faults.get("kills")),
        ("restarts", faults.get("restarts")),
        ("DB stops", faults.get("db_stops")),
        (
            "downtime per restart s",
            " ".join(f"{d:.2f}" for d in faults.get("downtime_s", [])) or "-",
        ),
        (
            "downtime mean / max s",
            f"{_fmt(faults.get('downtime_mean_s'))} / {_fmt(faults.get('downtime_max_s'))}",
        ),
        ("DB down s", " ".join(f"{d:.2f}" for d in faults.get("db_down_s", [])) or "-"),
        ("reconnects", load.get("reconnects")),
        (
            "moves resent / acknowledged as duplicates",
            f"{load.get('resent')} / {load.get('duplicates')}",
        ),
        ("load errors", ", ".join(f"{k} {v}" for k, v in (load.get("errors") or {}).items())),
        ("moves/s (with the faults)", load.get("moves_per_second")),
        ("games finished", load.get("games_finished")),
    ]
    games = f.get("games", {})
    rows += [
        (
            "unfinished games (playing / lobby)",
            f"{games.get('unfinished')} ({games.get('playing')} / {games.get('lobby')})",
        ),
        ("  replayed through the engine", games.get("replayed")),
        ("  resumed at the stored version (x processes)", games.get("resumed_at_stored_version")),
    ]
    watch = f.get("monitor", {})
    rows += [
        ("longest time without a new ack s", watch.get("longest_without_acks_s")),
        ("longest lock wait in PostgreSQL s", watch.get("max_lock_wait_s")),
        ("longest idle transaction s", watch.get("max_idle_in_transaction_s")),
    ]
    for line in watch.get("stuck_sessions", [])[:3]:
        rows.append(("  stuck session", line))
    for name, logs in f.get("server_logs", {}).items():
        rows.append(
            (f"log of {name}", f"{logs['tracebacks']} tracebacks, {logs['errors']} ERROR lines")
        )
    for label, value in rows:
        table.add_row(label, _fmt(value))
    console.print(table)
    checks = RichTable(title=f"{report.name}: checks")
    checks.add_column("check")
    checks.add_column("result")
    checks.add_column("detail")
    for c in report.checks:
        checks.add_row(c["check"], "[green]ok[/]" if c["ok"] else "[red]FAILED[/]", c["detail"])
    console.print(checks)


# --- command line --------------------------------------------------------------------------


def _pair(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    a, b = float(low), float(high or low)
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(f"want MIN,MAX seconds, not {text!r}")
    return a, b


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["sqlite", "pg"], help="run one campaign only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kills", type=int, default=10, help="kill -9 on SQLite (default 10)")
    parser.add_argument("--games", type=int, default=30, help="load tables at once (default 30)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rate", type=float, help="offered moves/s (default: closed loop)")
    parser.add_argument("--procs", type=int, default=2, help="load tool processes")
    parser.add_argument("--probe-tables", type=int, default=3)
    parser.add_argument(
        "--up",
        type=_pair,
        default=(2.0, 5.0),
        metavar="MIN,MAX",
        help="seconds a server runs between faults (default 2,5)",
    )
    parser.add_argument(
        "--pause",
        type=_pair,
        default=(0.3, 1.5),
        metavar="MIN,MAX",
        help="seconds a killed server stays dead (default 0.3,1.5)",
    )
    parser.add_argument("--pg-servers", type=int, default=2)
    parser.add_argument("--pg-kills", type=int, default=4)
    parser.add_argument("--pg-stops", type=int, default=3)
    parser.add_argument(
        "--pg-spread",
        choices=["game", "seat"],
        default="seat",
        help="a table's seats on one process or over all (default seat)",
    )
    parser.add_argument(
        "--stop-for",
        type=_pair,
        default=(2.0, 5.0),
        metavar="MIN,MAX",
        help="seconds PostgreSQL stays stopped (default 2,5)",
    )
    parser.add_argument("--workdir", type=Path, help="keep logs, ledgers and data here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    return parser.parse_args(argv)


@contextlib.contextmanager
def _workdir(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    path = Path(tempfile.mkdtemp(prefix="faults-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    opts = Options(
        seed=args.seed,
        kills=args.kills,
        games=args.games,
        players=args.players,
        rate=args.rate,
        procs=args.procs,
        probe_tables=args.probe_tables,
        up=args.up,
        pause=args.pause,
        pg_servers=args.pg_servers,
        pg_kills=args.pg_kills,
        pg_stops=args.pg_stops,
        pg_spread=args.pg_spread,
        stop_for=args.stop_for,
        keep=args.workdir is not None,
    )
    console = Console()

    def say(text: str) -> None:
        console.log(text)

    reports: list[Report] = []
    errors: list[str] = []
    with _workdir(args.workdir) as workdir:
        say(f"fault campaign, seed {opts.seed}, work directory {workdir}")
        campaigns = [("sqlite", sqlite_campaign), ("pg", pg_campaign)]
        for name, campaign in campaigns:
            if args.only not in (None, name):
                continue
            try:
                report = campaign(opts, workdir / name, say)
            except (CampaignError, ClusterError) as exc:
                errors.append(f"{name}: {exc}")
                console.print(f"[red]{name} campaign failed: {exc}[/]")
                continue
            print_report(report, console)
            reports.append(report)
        document = {
            "seed": opts.seed,
            "command": "uv run python bench/faults.py " + " ".join(argv or sys.argv[1:]),
            "options": {k: v for k, v in vars(args).items() if k not in ("json", "workdir")},
            "campaigns": [r.to_json() for r in reports],
            "errors": errors,
            "ok": not errors and bool(reports) and all(r.ok for r in reports),
        }
        if args.json is not None:
            args.json.write_text(json.dumps(document, indent=2, default=str) + "\n")
    verdict = "[green]every check passed[/]" if document["ok"] else "[red]a check failed[/]"
    console.print(verdict)
    return 0 if document["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
