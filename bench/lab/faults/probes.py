"""Probe tables: the campaign's own tables, whose tokens it keeps.  After every fault it
makes a legal move at each and checks that every seat sees it; and, on SQLite, what a
hello shows while a move's commit is pending."""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.faults.seats import LOST, Seat, answer_to, as_ack, is_state
from lab.faults.servers import Say, Server, clock, http, must

#: table settings of the probe tables: no computer player, no countdown, no stand-in
PROBE_SETTINGS: dict[str, Any] = {
    "bot_delay_ms": 0,
    "next_round_seconds": 0,
    "grace_seconds": None,
}
PROBE_PRESET = "penalty-100"  # several rounds: a probe game does not end in a campaign
#: codes after which a probe resends the same move (it was not applied)
RETRY_CODES = ("store_unavailable", "conflict")


@dataclass
class ProbeTable:
    game_id: str
    tokens: list[str]
    #: the server each seat's WebSocket goes to
    seat_servers: list[Server]
    started: bool = True
    finished: bool = False


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
                seat.pump(is_state, 15)
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
                    seat.pump(is_state, max(0.1, deadline - clock()))
            if all(s.version == top for s in seats) and (
                any(s.legal for s in seats) or any(s.finished for s in seats)
            ):
                return top
            if clock() > deadline:
                raise TimeoutError
            # between rounds the next deal follows at once: wait for it
            for seat in seats:
                with contextlib.suppress(TimeoutError):
                    seat.pump(is_state, 0.2)

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
            mover, action_id, text = self._move(seats, version)
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
                    seat.pump(lambda m: is_state(m) and m["version"] >= acked, 15)
            result.update(ok=True, version=acked, seat=mover, duplicate=answer["duplicate"])
            return result
        except (*LOST, StopIteration) as exc:
            result["detail"] = f"{stage}: {type(exc).__name__} {exc}".strip()
            result["seats"] = [seat.summary() for seat in seats]
            return result
        finally:
            for seat in seats:
                seat.close()

    def _move(self, seats: list[Seat], version: int) -> tuple[int, str, str]:
        """A legal move of the seat that can move: (the seat, a new ``action_id``, the
        message); StopIteration when no seat can move."""
        mover = next(n for n, s in enumerate(seats) if s.legal)
        self.count += 1
        action_id = f"probe-{self.count}"
        action = _choose(seats[mover].legal, self.rng)
        text = json.dumps(
            {"type": "action", "version": version, "action_id": action_id, "action": action}
        )
        return mover, action_id, text

    def _send(self, seat: Seat, text: str, action_id: str, timeout: float) -> dict[str, Any]:
        deadline = clock() + timeout
        while True:
            seat.ws.send(text)
            answer = as_ack(seat.pump(answer_to(action_id), max(0.5, deadline - clock())))
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
            mover, action_id, text = self._move(seats, version)
            seats[mover].ws.send(text)
            answer = as_ack(seats[mover].pump(answer_to(action_id), timeout))
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
            seat.pump(is_state, 15)
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
            seat.pump(is_state, 15)
        mover = next(s for s in seats if s.legal)
        before = mover.version
        db.execute("BEGIN IMMEDIATE")  # the server's next commit waits for this lock
        action = {"type": "action", "version": before, "action_id": "pending-1"}
        mover.ws.send(json.dumps({**action, "action": mover.legal[0]}))
        time.sleep(1.0)
        spectator = Seat(server, game_id, None)
        try:
            shown = int(spectator.pump(is_state, 15)["version"])
        finally:
            spectator.close()
        answer = mover.pump(answer_to("pending-1"), 30)
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
        "move_answer": answer.get("code") or as_ack(answer)["type"],
        "steps_stored": int(stored[0]),
        "ok": shown == int(stored[0]),
    }
