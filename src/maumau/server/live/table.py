"""One table: its seats and settings, and the game as the engine holds it.

A table is rebuilt from its stored rows (the game record: options, seats, and every
deal and accepted action in order) and changes only by steps that the store has
committed.  This module holds no connections and does no I/O; see
:mod:`maumau.server.live.referee` for the code that commits steps and tells the players.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from typing import Any

import orjson

from maumau.engine import Game, Rules, action_from_json, record_of
from maumau.engine.actions import Action, Draw, Play
from maumau.engine.cards import CODES, deck_mask
from maumau.engine.errors import BadOption
from maumau.engine.record import UnreadableAction
from maumau.engine.verify import commitment_of
from maumau.server.live.marks import MOVERS, split_mark
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import GameInfo, SeatInfo, TableSettings
from maumau.store import GameRow, SeatRow, StepRow

#: how many recent client action ids are remembered per seat (duplicate detection)
RECENT_IDS = 256

#: the log entries that name the seat whose move made them
_SEATED = frozenset({"play", "draw", "penalty", "pass", "catch"})


def max_seats(rules: Rules) -> int:
    """The most players these rules allow."""
    for n in range(8, 1, -1):
        try:
            rules.check_players(n)
        except BadOption:
            continue
        return n
    raise BadOption("these options leave no player count from 2 up that can be dealt")


def new_deal() -> dict[str, Any]:
    """A live round's shuffle: a seed from a secure source, a salt, the commitment."""
    seed = secrets.randbits(63)
    salt = secrets.token_hex(32)
    return {"seed": seed, "salt": salt, "commitment": commitment_of(seed, salt)}


def invite_of(game_id: str) -> str:
    return f"/g/{game_id}"


#: the longest table id a request may name (ours are 16 characters)
MAX_ID = 32


def plausible_id(game_id: str) -> bool:
    """Whether ``game_id`` could be a table's id (1 to :data:`MAX_ID` URL-safe
    characters): anything else is unknown without asking the store."""
    return 0 < len(game_id) <= MAX_ID and all(c.isalnum() or c in "-_" for c in game_id)


def read_action(seat: int, data: dict[str, Any], rules: Rules) -> Action:
    """A client's action object (a record action without the seat) for ``seat``.
    ``{"draw": null}`` draws whatever the rules make the seat draw."""
    if "seat" in data and data["seat"] != seat:
        raise ServerError(
            "not_your_seat", f"this connection holds seat {seat}, not seat {data['seat']!r}"
        )
    body = {k: v for k, v in data.items() if k != "seat"}
    if "draw" in body and body["draw"] is None:
        if len(body) != 1:
            raise ServerError("bad_action", "action: a draw takes no other keys")
        return Draw()
    try:
        _, action = action_from_json({"seat": seat, **body}, "action")
    except ValueError as exc:  # RecordFormatError: the shape is wrong
        raise ServerError("bad_action", str(exc)) from None
    if isinstance(action, UnreadableAction):
        error = action.error()
        raise ServerError(error.code, error.message)
    if isinstance(action, Play) and not deck_mask(rules.deck) >> action.card & 1:
        raise ServerError("bad_card", f"{CODES[action.card]} is not in the {rules.deck}-card deck")
    return action


def pack_step(step: StepRow) -> str:
    """A committed step as a table keeps it: its kind, data and client id as JSON.

    A live table holds every step of its game (hundreds), and the server holds hundreds
    of tables.  As text they are not objects the cycle collector has to walk: kept as
    rows, they were a quarter of what each of its collections walked and made them come
    more often (``docs/history/performance-history.md``, "The third round").  The data reads
    back as it would from the store, which also keeps it as JSON; the store's timestamp
    is not kept.  (Text, not orjson's bytes: each of those keeps the allocation it was
    written into, about 4 KiB, where the text copy is its own size.)"""
    packed = orjson.dumps((step.kind, step.data, step.client_id), option=orjson.OPT_NON_STR_KEYS)
    return packed.decode()


def unpack_step(seq: int, packed: str) -> StepRow:
    kind, data, client_id = orjson.loads(packed)
    return StepRow(seq, kind, data, client_id)


class Table:
    """A table's public facts, its seats, and (once started) its game."""

    def __init__(self, row: GameRow) -> None:
        self.id = row.id
        self.status = row.status
        self.options = dict(row.options)
        self.rules = Rules.from_dict(self.options)
        #: every option's effective value, for the lobby (it is sent often; rules never change)
        self.rules_json = self.rules.to_dict()
        self.settings = TableSettings.model_validate(row.settings)
        self.host = row.host
        self.seats: list[SeatRow] = list(row.seats)
        #: token hashes of seats removed from the lobby
        self.removed: set[str] = set(row.removed)
        self.created_at = row.created_at
        self.last_active_at = row.last_active_at
        self.rematch_of = row.rematch_of
        self.rematch_id = row.rematch_id
        self.max_seats = max_seats(self.rules)
        self.game: Game | None = None
        #: this round's log index -> who made that entry's move for its seat (MOVERS)
        self.marks: dict[int, str] = {}
        #: every committed step, in order, packed by :func:`pack_step` (see :meth:`steps`)
        self.packed: list[str] = []
        #: seat -> client action id -> the version after that action
        self.recent: dict[int, OrderedDict[str, int]] = {}
        #: human seats a computer player is playing for right now
        self.stand_in: set[int] = set()
        #: between rounds: seats ready for the next one, and when the last round ended
        self.ready: set[int] = set()
        self.round_ended_at: float | None = None
        #: the server holds back its computer play: nobody is at the table (see
        #: :mod:`maumau.server.live.budget`)
        self.paused = False
        #: one writer per table
        self.lock = asyncio.Lock()

    @classmethod
    def load(cls, row: GameRow, steps: list[StepRow]) -> Table:
        table = cls(row)
        table.rebuild(steps)
        return table

    # --- the game ---------------------------------------------------------------------

    def rebuild(self, steps: list[StepRow]) -> None:
        """Replay committed steps into a fresh game (after loading, or to drop a step
        that could not be committed)."""
        self.game = None
        self.packed = []
        self.recent = {}
        self.marks = {}
        for step in steps:
            self.accept(step)

    @property
    def step_count(self) -> int:
        """How many steps are committed: the number the next step gets."""
        return len(self.packed)

    def steps(self) -> list[StepRow]:
        """Every committed step, in order (the game can be rebuilt from them)."""
        return [unpack_step(seq, packed) for seq, packed in enumerate(self.packed)]

    def steps_json(self) -> str:
        """Every committed step as one JSON array of ``[kind, data, client_id]``, in
        order (the packed steps joined: nothing is decoded)."""
        return "[" + ",".join(self.packed) + "]"

    def accept(self, step: StepRow) -> None:
        """Apply one committed step to the game."""
        if step.seq != self.step_count:
            raise ValueError(f"table {self.id}: step {step.seq} arrived, {self.step_count} due")
        if step.kind == "deal":
            self.try_deal(step.data)
        else:
            game = self.require_game()
            data, mark = split_mark(step.data)
            seat, action = action_from_json(data, f"step {step.seq}")
            logged = len(game.round.log)
            game.apply(action, seat)
            self.mark(seat, logged, mark)
            if step.client_id is not None:
                self.remember(seat, step.client_id, game.version)
        self.packed.append(pack_step(step))

    def remember(self, seat: int, client_id: str, version: int) -> None:
        recent = self.recent.get(seat)
        if recent is None:  # (not setdefault: that would make a dict on every move)
            recent = self.recent[seat] = OrderedDict()
        recent[client_id] = version
        while len(recent) > RECENT_IDS:
            recent.popitem(last=False)

    def require_game(self) -> Game:
        if self.game is None:
            raise ServerError("game_not_started", f"table {self.id} has not started")
        return self.game

    def step(self, kind: str, data: dict[str, Any], client_id: str | None = None) -> StepRow:
        return StepRow(self.step_count, kind, data, client_id)

    def try_action(
        self, seat: int, action: Action, client_id: str | None, by: str | None = None
    ) -> StepRow:
        """Apply ``action`` to the game and return the step to commit; the caller must
        commit it (then :meth:`committed`) or :meth:`rebuild` from :attr:`steps`.
        An illegal action raises and changes nothing.  ``by``: one of :data:`MOVERS`
        when the server made this move for the seat."""
        game = self.require_game()
        if self.status != "playing":
            raise ServerError(
                "game_over" if self.status == "finished" else "table_closed",
                f"table {self.id} is {self.status}",
            )
        logged = len(game.round.log)
        game.apply(action, seat)
        self.mark(seat, logged, by)
        acted, done = game.round.actions[-1]
        data = done.to_json(acted)
        if by is not None:
            if by not in MOVERS:
                raise ValueError(f"a move is made by {by!r}, not one of {MOVERS}")
            data["by"] = by
        return self.step("action", data, client_id)

    def mark(self, seat: int, logged: int, by: str | None) -> None:
        """Mark the log entries from ``logged`` on that ``seat``'s move made for it
        (not a catcher's penalty: that entry's ``by`` is the catcher)."""
        if by is None:
            return
        log = self.require_game().round.log
        for i in range(logged, len(log)):
            entry = log[i]
            if entry[0] in _SEATED and entry[1] == seat:
                self.marks[i] = by

    def try_deal(self, data: dict[str, Any]) -> StepRow:
        """Deal the next round (as :meth:`try_action`, to be committed or undone)."""
        if self.game is None:
            self.game = Game(self.rules, [s.name for s in self.seats])
        self.marks = {}
        self.game.deal(data["seed"], commitment=data.get("commitment"), salt=data.get("salt"))
        return self.step("deal", data)

    def committed(self, step: StepRow) -> None:
        """Record a step that was applied with :meth:`try_action` and is now stored."""
        self.packed.append(pack_step(step))
        if step.client_id is not None and self.game is not None:
            self.remember(step.data["seat"], step.client_id, self.game.version)

    @property
    def version(self) -> int:
        return 0 if self.game is None else self.game.version

    def record(self) -> dict[str, Any]:
        return record_of(self.require_game()).to_json()

    def adopt(self, row: GameRow) -> bool:
        """Take the stored seats, host, status and rematch link (another process may
        have changed them); return whether anything changed."""
        before = (self.seats, self.host, self.status, self.rematch_id)
        self.seats, self.host = list(row.seats), row.host
        self.status, self.rematch_id = row.status, row.rematch_id
        self.removed |= set(row.removed)
        self.name_seats()
        return before != (self.seats, self.host, self.status, self.rematch_id)

    def differs(self, row: GameRow) -> bool:
        """Whether :meth:`adopt` would change anything of this table."""
        return (tuple(self.seats), self.host, self.status, self.rematch_id) != (
            tuple(row.seats),
            row.host,
            row.status,
            row.rematch_id,
        ) or not self.removed.issuperset(row.removed)

    # --- seats ------------------------------------------------------------------------

    def name_seats(self) -> None:
        """The game's players are named as the seats are (a seat taken over by a late
        friend takes the newcomer's name; see :mod:`maumau.server.live.takeover`)."""
        if self.game is not None and len(self.game.players) == len(self.seats):
            self.game.players = tuple(s.name for s in self.seats)

    def seat_of(self, token_hash: str | None) -> int | None:
        if token_hash is None:
            return None
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, token_hash):
                return seat.position
        return None

    def holds(self, seat: int | None, key: str | None) -> bool:
        """Whether ``seat`` is a position of this table held by the token hash ``key``
        (``None`` and ``None``: a spectator)."""
        if seat is None or key is None:
            return seat is None and key is None
        if not 0 <= seat < len(self.seats):
            return False
        held = self.seats[seat].token_hash
        return held is not None and secrets.compare_digest(held, key)

    def is_bot(self, seat: int) -> bool:
        return self.seats[seat].kind == "bot"

    def info(self, connected: set[int], spectators: int = 0) -> GameInfo:
        return GameInfo(
            game_id=self.id,
            invite=invite_of(self.id),
            status=self.status,  # type: ignore[arg-type]
            options=self.options,
            rules=self.rules_json,
            settings=self.settings,
            host=self.host,
            seats=[
                SeatInfo(
                    position=s.position,
                    name=s.name,
                    kind=s.kind,  # type: ignore[arg-type]
                    level=s.level,
                    connected=s.position in connected,
                    stand_in=s.position in self.stand_in,
                )
                for s in self.seats
            ],
            max_seats=self.max_seats,
            rematch_of=self.rematch_of,
            rematch_id=self.rematch_id,
            spectators=spectators,
            paused=self.paused,
        )

    def row(self) -> GameRow:
        return GameRow(
            id=self.id,
            status=self.status,
            options=self.options,
            settings=self.settings.model_dump(),
            host=self.host,
            seats=tuple(self.seats),
            created_at=self.created_at,
            last_active_at=self.last_active_at,
            rematch_of=self.rematch_of,
            rematch_id=self.rematch_id,
            removed=tuple(sorted(self.removed)),
        )
