"""Hidden information never leaves the server (docs/rules.md#what-a-player-may-see).

Whole games are played through the server: bots, absent humans played by stand-ins,
and humans at sockets who pick random legal moves (sometimes forgetting a call, and
sometimes trying a move that is refused).  Every socket -- each playing seat, a
spectator, and a late spectator and a late second tab that join mid-game -- keeps every
message it receives.  After the game the stored record is replayed with the engine,
version by version, and every message is checked against what its receiver may know
at that version:

* a ``state`` holds exactly the engine's view and legal actions of its seat;
* no card code appears in a message (anywhere in its text) unless it is in the
  receiver's hand, was played in public this round, was drawn by the receiver, or the
  round is over; a spectator sees no hand card at all;
* no card of the draw pile appears in any list (its order never leaves the server);
* ``seed`` and ``salt`` are only keys of ``round_end``; no 64-hex value other than a
  commitment appears before its round ends, nor the seed of a round still running;
* other seats' draws are counts only, and ``legal`` lists only the receiver's actions;
* a log entry has only its documented fields, each of its documented type (a skipped
  seat, a penalty's reason and catcher, ``kept``/``accept``: none can carry a card or a
  secret), and the server's mark (``"by": "stand_in"``) is only on the moves of a seat
  a stand-in plays for; without the marks the log is exactly the engine's.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import WebSocketTestSession

from maumau.engine import Game, parse_record
from maumau.engine.cards import CODES, iter_cards
from maumau.server.wire.protocol import State
from support.serverkit import add_bot, create_table, hello, join, make_client, start

Message = dict[str, Any]

#: seconds to wait for one message that must come
TIMEOUT = 20.0
#: seconds a whole game may take
GAME_TIMEOUT = 90.0
#: how often a playing human leaves out the call that is due
FORGET = 0.3

CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][CDHS])(?![A-Za-z0-9])")
HEX64 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")


@dataclass(frozen=True)
class Table:
    """One game: its rules and its seats, seat 0 first (the host, always human).
    A seat is ``play`` (a human at a socket), ``absent`` (a human who never comes: a
    stand-in plays) or ``bot:<level>``."""

    preset: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    stand_in_level: str = "easy"


GAMES: tuple[Table, ...] = (
    Table("penalty-100", {}, ("absent", "bot:normal", "bot:easy", "bot:random")),
    Table("gamerules", {}, ("play", "absent", "bot:normal", "bot:easy")),
    Table("traditional", {}, ("play", "play", "bot:random", "absent", "bot:easy")),
    Table("penalty-100", {"mau_penalty": "catch", "draw_when_able": False}, ("play", "play")),
    Table(
        "standard",
        {"scoring": "deals", "deals": 3, "ace_skips": True},
        ("play", "absent", "bot:easy", "bot:normal", "bot:random", "play", "bot:easy", "absent"),
        "normal",
    ),
    Table(
        "penalty-100",
        {"deck": 32, "mau_penalty": "catch", "jack_on_jack": True, "hand_size": 6},
        ("absent", "play", "bot:normal", "bot:random"),
    ),
    Table("gamerules", {"limit": 60}, ("play", "bot:random", "bot:random")),
    Table("standard", {"mau_penalty_cards": 3, "seven_stacking": False}, ("absent", "play")),
)
#: how many games are played (each is its own test)
N_GAMES = len(GAMES)


# --- sockets ----------------------------------------------------------------------------


def recv_text(ws: WebSocketTestSession, timeout: float = TIMEOUT) -> str:
    """The next text message on ``ws`` (TimeoutError if none comes in time)."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    raw = ws.portal.call(get)
    assert raw["type"] == "websocket.send", raw
    text: str = raw["text"]
    return text


class Listener(threading.Thread):
    """Keeps every message one socket receives, in a background thread, until the game
    ends.  With ``play`` set it also plays for ``seat``: a random legal action on each
    new state that offers one, sometimes without the call that is due, and once in the
    game an illegal move first."""

    def __init__(
        self,
        ws: WebSocketTestSession,
        seat: int | None,
        play: bool = False,
        rng: random.Random | None = None,
        hold: threading.Event | None = None,
        ended: bool = False,
    ) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.seat = seat
        self.play = play
        self.rng = rng or random.Random(0)
        #: a player makes no move before this is set
        self.hold = hold
        #: the welcome already said the game is over (it ended before this socket came)
        self.ended = ended
        self.texts: list[str] = []
        #: the cards this socket named in its own moves (an error may repeat them)
        self.named: set[str] = set()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            last, tried, count = -1, False, 0
            deadline = time.monotonic() + GAME_TIMEOUT
            if self.ended:
                self.drain()
                return
            while time.monotonic() < deadline:
                text = recv_text(self.ws)
                self.texts.append(text)
                message = json.loads(text)
                if message["type"] == "game_end":
                    self.drain()
                    return
                if not (self.play and message["type"] == "state" and message["legal"]):
                    continue
                if message["version"] <= last:
                    continue
                last = message["version"]
                if self.hold is not None:
                    self.hold.wait(GAME_TIMEOUT)
                moves = []
                if not tried:
                    tried = True
                    moves.append(self.illegal(message))
                moves.append(self.choose(message["legal"]))
                for action in moves:
                    count += 1
                    if "play" in action:
                        self.named.add(action["play"])
                    self.ws.send_json(
                        {
                            "type": "action",
                            "version": last,
                            "action_id": f"{self.seat}-{count}",
                            "action": action,
                        }
                    )
            raise AssertionError("the game did not end in time")
        except BaseException as exc:
            self.failure = exc

    def drain(self) -> None:
        """Keep what still arrives just after the end (the last ack, the lobby)."""
        while True:
            try:
                self.texts.append(recv_text(self.ws, 0.3))
            except TimeoutError:
                return

    def choose(self, legal: list[Message]) -> Message:
        action = dict(self.rng.choice(legal))
        if "call" in action and self.rng.random() < FORGET:
            del action["call"]
        return action

    def illegal(self, state: Message) -> Message:
        """A move the server refuses: a card of the hand that is not offered, else a
        draw of the wrong number."""
        offered = {a.get("play") for a in state["legal"]}
        unplayable = [c for c in state["view"]["hand"] if c not in offered and c[0] != "J"]
        if unplayable:
            return {"play": self.rng.choice(unplayable)}
        return {"draw": 9}

    def result(self) -> list[str]:
        self.join(GAME_TIMEOUT + TIMEOUT)
        assert not self.is_alive(), "the listener is still running"
        if self.failure is not None:
            # what it saw last, to tell a stalled game from a slow one
            last = "\n".join(text[:600] for text in self.texts[-3:])
            raise AssertionError(
                f"seat {self.seat}: {self.failure!r}; its last messages:\n{last}"
            ) from self.failure
        return self.texts


# --- the truth: the record, replayed version by version ---------------------------------


@dataclass
class Truth:
    """What the engine says at one version."""

    round: int
    over: bool
    hands: list[set[str]]
    played: set[str]
    top: str
    stock: set[str]
    draws: list[set[str]]
    views: dict[int | None, Message]
    logs: dict[int | None, list[Message]]
    legal: dict[int, list[Message]]

    def visible(self, seat: int | None) -> set[str]:
        """Every card ``seat`` (``None``: a spectator) may have heard of."""
        cards = self.played | {self.top}
        if seat is not None:
            cards |= self.hands[seat] | self.draws[seat]
        if self.over:
            cards = cards.union(*self.hands)
        return cards


def truth_of(game: Game, start: str) -> Truth:
    state = game.round
    n = game.n
    played = {start} | {CODES[e[2]] for e in state.log if e[0] == "play"}
    draws: list[set[str]] = [set() for _ in range(n)]
    for who, mine in enumerate(state.private):
        for _, cards in mine:
            draws[who] |= {CODES[c] for c in cards}
    legal = {}
    for seat in range(n):
        legal[seat] = []
        for action in game.legal_actions(seat):
            wire = action.to_json(seat)
            del wire["seat"]
            legal[seat].append(wire)
    seats: list[int | None] = [None, *range(n)]
    return Truth(
        round=game.round_index,
        over=game.round_over,
        hands=[{CODES[c] for c in iter_cards(h)} for h in state.hands],
        played=played,
        top=CODES[state.discard[-1]],
        stock={CODES[c] for c in state.stock},
        draws=draws,
        views={seat: game.view(seat).to_json(log=False) for seat in seats},
        logs={seat: game.view(seat).log_json() for seat in seats},
        legal=legal,
    )


def replay_versions(record: Message) -> tuple[dict[int, Truth], list[tuple[int, str, str]]]:
    """The truth at every version of a recorded game, and each round's (seed, salt,
    commitment)."""
    parsed = parse_record(record)
    game = Game.new(parsed.options, players=list(parsed.players))
    truths: dict[int, Truth] = {}
    secrets = []
    for dealt in parsed.rounds:
        assert dealt.salt is not None and dealt.commitment is not None
        secrets.append((dealt.seed, dealt.salt, dealt.commitment))
        game.deal(dealt.seed, dealt.layout, dealt.commitment, dealt.salt)
        start = CODES[game.round.discard[0]]
        truths[game.version] = truth_of(game, start)
        for seat, action in dealt.actions:
            game.apply(action, seat)
            truths[game.version] = truth_of(game, start)
    assert game.finished
    return truths, secrets


# --- the checks ------------------------------------------------------------------------------


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) in a JSON document, containers included."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}[{index}]")


def keys_of(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from keys_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys_of(item)


#: each kind of log entry (its first key that is one of these) and the fields it may
#: have, with their types (docs/protocol.md, "Log entries")
ENTRY_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "play": {"seat": int, "play": str, "suit": str, "call": str, "skipped": int, "reversed": bool},
    "draw": {"seat": int, "draw": int, "cards": list},
    "penalty": {"seat": int, "penalty": int, "cards": list, "reason": str, "by": int},
    "pass": {"seat": int, "pass": bool, "kept": bool, "accept": bool},
    "catch": {"seat": int, "catch": int},
    "reshuffle": {"reshuffle": int},
    "out": {"out": int},
}


def unmarked(entry: Message, where: str, stood_in: set[int]) -> Message:
    """Check one log entry's fields and the server's mark on it; the entry without it."""
    kind = next(k for k in ENTRY_FIELDS if k in entry)
    fields = ENTRY_FIELDS[kind]
    mark = entry.get("by")
    if isinstance(mark, str):
        assert mark == "stand_in" and entry["seat"] in stood_in, f"{where}: {entry}"
        entry = {k: v for k, v in entry.items() if k != "by"}
    assert set(entry) <= set(fields), f"{where}: {entry}"
    for key, value in entry.items():
        assert (isinstance(value, fields[key]) and not isinstance(value, bool)) or (
            fields[key] is bool and value is True
        ), f"{where}: {key} in {entry}"
    if kind == "penalty":
        assert entry["reason"] in ("missed", "false", "caught"), f"{where}: {entry}"
        assert ("by" in entry) == (entry["reason"] == "caught"), f"{where}: {entry}"
    if "kept" in entry or "accept" in entry:
        assert not ("kept" in entry and "accept" in entry), f"{where}: {entry}"
    return entry


def check_socket(
    listener: Listener,
    texts: list[str],
    truths: dict[int, Truth],
    secrets: list[tuple[int, str, str]],
    tokens: list[str],
    stood_in: set[int],
) -> int:
    """Check every message one socket received; returns how many states it saw."""
    seat = listener.seat
    who = "spectator" if seat is None else f"seat {seat}"
    commitments = {c for _, _, c in secrets}
    revealed: set[int] = set()
    truth: Truth | None = None
    versions = []
    log_round: int | None = None
    log: list[Message] = []
    for number, text in enumerate(texts):
        message = json.loads(text)
        kind = message["type"]
        where = f"{who}, message {number} ({kind})"

        # no seat's token, ever (not even the receiver's own)
        assert not any(token in text for token in tokens), where
        # seeds and salts: only in round_end, only of that round
        keys = set(keys_of(message))
        if kind == "round_end":
            assert message["round"] not in revealed, where
            assert truth is not None and truth.over and truth.round == message["round"], where
            seed, salt, commitment = secrets[message["round"]]
            assert (message["seed"], message["salt"], message["commitment"]) == (
                seed,
                salt,
                commitment,
            )
            assert set(HEX64.findall(text)) <= {salt, commitment}, where
            revealed.add(message["round"])
        else:
            assert not keys & {"seed", "salt"}, f"{where}: {text}"
            assert set(HEX64.findall(text)) <= commitments, f"{where}: {text}"
        for index, (seed, salt, _) in enumerate(secrets):
            if index not in revealed:
                assert str(seed) not in text, f"{where}: the seed of round {index}"
                assert salt not in text, f"{where}: the salt of round {index}"

        if kind == "state":
            State.model_validate(message)  # exactly the documented fields and types
            truth = truths[message["version"]]
            versions.append(message["version"])
            view = message["view"]
            assert view == truth.views[seat], where
            # the events, appended round by round, are exactly the seat's log
            if log_round != view["round"]:
                log_round, log = view["round"], []
            log += [unmarked(e, where, stood_in) for e in message["events"]]
            assert log == truth.logs[seat], where
            assert message["legal"] == ([] if seat is None else truth.legal[seat]), where
            for action in message["legal"]:
                assert "seat" not in action and action.get("catch") != seat, where
            for entry in message["events"]:
                if "cards" in entry:
                    assert seat is not None and entry["seat"] == seat, f"{where}: {entry}"
            if seat is None:
                assert view["hand"] == [] and view["drawn"] is None, where
            assert view["hands"] is None or truth.over, where
            for path, value in walk(message):
                # (a seat's own past draws may since have been played and reshuffled)
                if isinstance(value, list) and not path.endswith(".cards"):
                    listed = {v for v in value if isinstance(v, str)}
                    assert not listed & truth.stock, f"{where}: stock cards at {path}"
            seen = set(CARD.findall(text))
            assert seen <= truth.visible(seat), f"{where}: {seen - truth.visible(seat)}"
        elif kind == "error":
            assert truth is not None, where
            allowed = truth.visible(seat) | listener.named
            seen = set(CARD.findall(text))
            assert seen <= allowed, f"{where}: {seen - allowed}: {text}"
        elif kind in ("ack", "game_end", "pong"):
            assert CARD.findall(text) == [], where
    # this socket was told about every change from its first state on
    assert versions, who
    assert sorted(set(versions)) == list(range(versions[0], max(truths) + 1)), who
    return len(versions)


# --- the games -------------------------------------------------------------------------------


def wait_for(listener: Listener, version: int) -> None:
    """Until ``listener`` has seen a state of ``version`` or later (or the game ended)."""
    deadline = time.monotonic() + GAME_TIMEOUT
    while time.monotonic() < deadline:
        for text in list(listener.texts):
            message = json.loads(text)
            if message["type"] == "game_end" or message.get("version", -1) >= version:
                return
        time.sleep(0.02)
    raise AssertionError(f"version {version} never came")


@pytest.mark.parametrize("index", range(N_GAMES))
def test_no_hidden_information_leaks(tmp_path: Path, index: int) -> None:
    spec = GAMES[index]
    assert not spec.seats[0].startswith("bot:") and len(spec.seats) >= 2
    rng = random.Random(index)
    with make_client(tmp_path) as client, ExitStack() as stack:
        game_id, host = create_table(
            client,
            "Ana",
            spec.preset,
            spec.options,
            grace_seconds=0,
            stand_in_level=spec.stand_in_level,
        )
        tokens: dict[int, str] = {0: host}
        for seat, kind in enumerate(spec.seats[1:], start=1):
            if kind.startswith("bot:"):
                assert add_bot(client, game_id, host, kind[4:]) == seat
            else:
                joined, tokens[seat] = join(client, game_id, f"Human {seat}")
                assert joined == seat

        def connect(token: str | None, seat: int | None, **play: Any) -> Listener:
            ws = stack.enter_context(client.websocket_connect(f"/ws/{game_id}"))
            # a late socket may come after the end: its welcome says so, no game_end follows
            ended = hello(ws, token)["end"] is not None
            return Listener(ws, seat, ended=ended, **play)

        # the players hold their first move until the mid-game checks below are done,
        # so that a short game cannot be over before them
        hold = threading.Event()
        listeners = [connect(None, None)]
        for seat, kind in enumerate(spec.seats):
            if kind == "play":
                player = connect(
                    tokens[seat], seat, play=True, rng=random.Random(rng.random()), hold=hold
                )
                listeners.append(player)
        for listener in listeners:
            listener.start()
        start(client, game_id, host)

        # mid-game: nothing secret over HTTP, and late joiners
        wait_for(listeners[0], 12 if len(listeners) == 1 else 1)
        reply = client.get(f"/api/games/{game_id}/record")
        if reply.status_code == 200:
            # nobody holds a game of computer players only: on a slow run a short one can
            # be over by now, and then its record is served; never while it is played
            status = client.get(f"/api/games/{game_id}").json()["status"]
            assert len(listeners) == 1 and status == "finished", (status, reply.text)
        else:
            assert reply.status_code == 409, reply.text
        info = client.get(f"/api/games/{game_id}").text
        assert "seed" not in info and "salt" not in info and not HEX64.search(info)
        assert not any(token in info for token in tokens.values())
        late = [connect(None, None)]
        players = [seat for seat, kind in enumerate(spec.seats) if kind == "play"]
        if players:
            late.append(connect(tokens[players[-1]], players[-1]))
        for one in late:
            one.start()
        listeners += late
        hold.set()
        results = {listener: listener.result() for listener in listeners}

        reply = client.get(f"/api/games/{game_id}/record")
        assert reply.status_code == 200, reply.text
        truths, secrets = replay_versions(reply.json())
        absent = {seat for seat, kind in enumerate(spec.seats) if kind == "absent"}
        for listener, texts in results.items():
            check_socket(listener, texts, truths, secrets, list(tokens.values()), absent)
