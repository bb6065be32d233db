"""A real ``maumau serve`` process and real WebSocket clients, for the system tests.

:class:`Server` starts ``python -m maumau serve`` on a free port and a data directory;
:class:`Human` plays a seat from a thread over a real WebSocket; :func:`set_up` makes a
table of two humans and two bots; :func:`check_finished` checks the finished game's
record against what each human saw.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from lab.ports import free_port
from maumau.engine import replay
from maumau.engine.verify import verify_report

DEADLINE = float(
    os.environ.get("LIVE_DEADLINE", 120)
)  # seconds for a whole game; generous for a loaded machine


#: how long a starting server may take to answer its health check
START_SECONDS = 120


class Server:
    """``python -m maumau serve`` on a free port and a data directory."""

    def __init__(self, data_dir: Path, database_url: str | None = None) -> None:
        self.data_dir = data_dir
        self.database_url = database_url
        self.options: list[str] = []  # more `maumau serve` options
        self.log: Path | None = None  # where its stderr goes (default: the test's)
        self.stdout_too = False  # its standard output goes to the log as well
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """Where the WebSockets go (a proxy in front has its own: tests/support/proxies.py)."""
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "maumau", "serve", "--port", str(self.port)]
        command += ["--data-dir", str(self.data_dir), "--log-level", "warning"]
        if self.database_url is not None:
            command += ["--database-url", self.database_url]
        command += self.options
        stderr = None if self.log is None else self.log.open("ab")
        try:
            stdout = stderr if self.stdout_too and stderr is not None else subprocess.DEVNULL
            self.proc = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        finally:
            if stderr is not None:
                stderr.close()
        # (generous: with the suite's workers and browsers on two cores a start can take
        # tens of seconds; a server that exits is reported at once)
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server did not start: it exited ({self.proc.returncode})")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: no answer in {START_SECONDS} s")
            time.sleep(0.1)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=10) as reply:
            text = reply.read()
            return json.loads(text) if text else None


class Human(threading.Thread):
    """A player who plays the first legal move whenever they may, reconnecting with
    their token whenever the connection drops, until the game ends."""

    def __init__(self, server: Server, game_id: str, token: str, tab: str = "") -> None:
        super().__init__(daemon=True)
        self.tab = tab  # tells apart the action ids of two tabs holding one seat
        self.server = server
        self.game_id = game_id
        self.token = token
        self.seat: int | None = None
        self.sent: list[str] = []
        self.acked: list[str] = []
        self.errors: list[dict[str, Any]] = []
        self.versions: list[int] = []
        self.game_end: dict[str, Any] | None = None
        self.welcomes = 0
        self.last: dict[str, Any] | None = None
        self.quit = threading.Event()
        #: why each session ended before the game did
        self.drops: list[str] = []
        #: seconds the player thinks before each move (0: none; a test may change it
        #: while the game goes on)
        self.pace = 0.0
        #: the codes of the ``closed`` messages, and the WebSocket close codes, received
        self.closed: list[str] = []
        self.close_codes: list[int] = []
        #: more options for websockets' ``connect`` (such as the compression offered)
        self.connect_options: dict[str, Any] = {}

    def run(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while self.game_end is None and not self.quit.is_set() and time.monotonic() < deadline:
            try:
                self.session()
            # (InvalidStatus: a proxy answered the handshake with 502 or 503 while no
            # server behind it was up; a browser reconnects after it as after a drop)
            except (ConnectionClosed, InvalidStatus, OSError, TimeoutError) as exc:
                if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
                    self.close_codes.append(exc.rcvd.code)
                self.drops.append(repr(exc))
                time.sleep(0.2)

    def session(self) -> None:
        url = f"{self.server.ws_url}/ws/{self.game_id}"
        with connect(url, open_timeout=5, **self.connect_options) as ws:
            ws.send(json.dumps({"type": "hello", "token": self.token}))
            acted_at = -1
            last_move = ""
            while not self.quit.is_set():
                message = json.loads(ws.recv(timeout=30))
                kind = message["type"]
                self.last = message
                if kind == "welcome":
                    self.seat = message["seat"]
                    self.welcomes += 1
                elif kind == "state":
                    self.versions.append(message["version"])
                    if message["ack"] is not None:
                        self.acked.append(message["ack"])
                    if message["legal"] and message["version"] > acted_at:
                        acted_at = message["version"]
                        action_id = f"{self.token[:6]}{self.tab}-{len(self.sent)}"
                        self.sent.append(action_id)
                        move = {"type": "action", "version": message["version"]}
                        move |= {"action_id": action_id, "action": message["legal"][0]}
                        last_move = json.dumps(move)
                        if self.pace:
                            time.sleep(self.pace)
                        try:
                            ws.send(last_move)
                        except ConnectionClosed:
                            continue  # what came before the close is still to be read

                elif kind == "error":
                    self.errors.append(message)
                    if message["code"] == "rate_limited" and last_move:
                        time.sleep(0.5)  # faster than the server's limit: the move again
                        ws.send(last_move)
                elif kind == "closed":
                    self.closed.append(message["code"])
                elif kind == "game_end":
                    self.game_end = message
                    return


def set_up(
    server: Server, options: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
) -> tuple[str, list[Human]]:
    """A penalty-100 table: two humans (seats 0, 1) and two bots, started.  ``options``:
    each human's options for websockets' ``connect``."""
    created = server.request(
        "POST",
        "/api/games",
        {
            "name": "Ana",
            "preset": "penalty-100",
            "settings": {"bot_delay_ms": 0, "next_round_seconds": 0},
        },
    )
    game_id, host = created["game_id"], created["token"]
    other = server.request("POST", f"/api/games/{game_id}/seats", {"name": "Ben"})["token"]
    for level in ("normal", "easy"):
        server.request("POST", f"/api/games/{game_id}/bots", {"level": level}, host)
    humans = [Human(server, game_id, host), Human(server, game_id, other)]
    for human, connect_options in zip(humans, options, strict=True):
        human.connect_options = connect_options
        human.start()
    deadline = time.monotonic() + 10
    while any(h.welcomes == 0 for h in humans) and time.monotonic() < deadline:
        time.sleep(0.05)
    server.request("POST", f"/api/games/{game_id}/start", None, host)
    return game_id, humans


def stored_client_ids(data_dir: Path, game_id: str) -> Counter[str]:
    with sqlite3.connect(data_dir / "maumau.sqlite3") as db:
        rows = db.execute(
            "SELECT client_id FROM steps WHERE game_id = ? AND client_id IS NOT NULL", (game_id,)
        ).fetchall()
    return Counter(row[0] for row in rows)


def check_finished(server: Server, game_id: str, humans: list[Human]) -> dict[str, Any]:
    for human in humans:
        human.join(DEADLINE)
        assert human.game_end is not None, f"seat {human.seat} never saw the game end"
    info = server.request("GET", f"/api/games/{game_id}")
    assert info["status"] == "finished"
    record = server.request("GET", f"/api/games/{game_id}/record")
    game = replay(record)
    assert game.finished
    end = humans[0].game_end
    assert end is not None and end == humans[1].game_end
    assert list(game.totals) == end["totals"] and list(game.winners or ()) == end["winners"]
    assert min(game.totals) == min(end["totals"][w] for w in end["winners"])
    report = verify_report(record)
    assert report["ok"], report
    # every human move in the record was acknowledged to its player, exactly once
    for human in humans:
        in_record = sum(
            1 for r in record["rounds"] for a in r["actions"] if a["seat"] == human.seat
        )
        assert len(human.acked) == len(set(human.acked))
        assert in_record >= len(human.acked) > 0
    return record
