"""Game records (``docs/record.md``): read, check and write the JSON form of a game.

A record holds a game's options, its seats and, for every round, the seed (and
optionally a hand-made layout and the shuffle commitment) and the actions in order.

* :func:`parse_record` reads JSON text (or a decoded dict) into a :class:`Record` and
  raises :class:`RecordFormatError`, naming the place, for anything that is not a record
  at all (bad JSON, wrong ``format``, unknown keys, wrong JSON types, an action without
  exactly one verb).
* :meth:`Record.to_json` / :meth:`Record.dumps` write it back; ``dumps`` is stable, so
  ``parse_record(record.dumps()) == record``.
* :mod:`maumau.engine.replay` plays a record through the engine and writes any game as
  a record (``record_of``).

A record can be well formed and still wrong: an unknown option, a card code that is
not a card, an illegal action.  Parsing keeps those; replaying reports them with the
round and action where they happen.  Card codes that cannot be read are kept as
:class:`UnreadableAction` / :class:`UnreadableLayout` until the replay reaches them.

Pure: no files, no clock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from maumau.engine.actions import (
    MAU,
    MAUMAU,
    PASS,
    Action,
    Catch,
    draw_action,
    play_action,
)
from maumau.engine.cards import parse_card, parse_suit
from maumau.engine.errors import EngineError
from maumau.engine.game import Layout
from maumau.engine.jsontext import dumps_json

FORMAT = "maumau-record/1"
VERBS = ("play", "draw", "pass", "catch")
_HEX = frozenset("0123456789abcdef")


class RecordFormatError(EngineError):
    """The data is not a record at all; the message starts with where it is wrong,
    e.g. ``rounds[1].actions[3]: ...``."""

    code = "not_a_record"

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where


# --- well-formed but unreadable parts (reported when the replay reaches them) ---------


class UnreadableAction(Action):
    """An action of the right shape whose card or suit is not one (``bad_card`` or
    ``bad_suit``).  Replaying it raises :meth:`error`."""

    __slots__ = ("code", "data", "message")
    kind = "unreadable"
    data: dict[str, Any]
    code: str
    message: str

    def __init__(self, data: Mapping[str, Any], code: str, message: str) -> None:
        object.__setattr__(self, "data", dict(data))
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnreadableAction) and (self.data, self.code, self.message) == (
            other.data,
            other.code,
            other.message,
        )

    def __hash__(self) -> int:
        return hash((self.code, self.message))

    def __str__(self) -> str:
        return "unreadable " + json.dumps(self.data)

    def __repr__(self) -> str:
        return f"UnreadableAction({self.data!r}, {self.code!r}, {self.message!r})"

    def error(self) -> EngineError:
        return EngineError(self.message, self.code)

    def to_json(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, **{k: v for k, v in self.data.items() if k != "seat"}}


@dataclass(frozen=True, slots=True)
class UnreadableLayout:
    """A layout of the right shape holding a card code that is not a card."""

    data: dict[str, Any]
    message: str
    code: str = "bad_card"

    def error(self) -> EngineError:
        return EngineError(self.message, self.code)

    def to_json(self) -> dict[str, Any]:
        return dict(self.data)


# --- the record -------------------------------------------------------------------


@dataclass(frozen=True)
class RecordRound:
    """One round: its seed, optional layout and commitment, and the actions so far."""

    seed: int
    layout: Layout | UnreadableLayout | None = None
    actions: tuple[tuple[int, Action], ...] = ()
    commitment: str | None = None
    salt: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed}
        if self.commitment is not None:
            out["commitment"] = self.commitment
        if self.salt is not None:
            out["salt"] = self.salt
        if self.layout is not None:
            out["layout"] = self.layout.to_json()
        out["actions"] = [action.to_json(seat) for seat, action in self.actions]
        return out


@dataclass(frozen=True)
class Record:
    """A whole game record.  ``options`` is kept as written (a preset plus overrides);
    it is checked when the record is replayed."""

    players: tuple[str, ...]
    rounds: tuple[RecordRound, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: str | bytes | Mapping[str, Any]) -> Record:
        return parse_record(data)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "options": dict(self.options),
            "players": list(self.players),
            "rounds": [r.to_json() for r in self.rounds],
        }

    def dumps(self) -> str:
        """The record as JSON text in the project's stable layout."""
        return dumps_json(self.to_json())


# --- reading ------------------------------------------------------------------------


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers keys given twice."""

    twice: tuple[str, ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> _Object:
        obj = cls(pairs)
        if len(obj) != len(pairs):
            keys = [k for k, _ in pairs]
            obj.twice = tuple(k for i, k in enumerate(keys) if k in keys[:i])
        return obj


def _no_constant(name: str) -> NoReturn:
    raise RecordFormatError("", f"not JSON: {name} is not a JSON number")


def parse_record(data: str | bytes | Mapping[str, Any]) -> Record:
    """Read and check a record from JSON text (or bytes, UTF-8) or a decoded object."""
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordFormatError(
                "", f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
    if isinstance(data, str):
        try:
            data = json.loads(
                data, object_pairs_hook=_Object.from_pairs, parse_constant=_no_constant
            )
        except RecordFormatError:
            raise
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}"
            raise RecordFormatError(where, f"not JSON: {exc.msg}") from None
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
            raise RecordFormatError("", f"not a JSON text this reader accepts: {exc}") from None
    obj = _object(data, "record", ("format", "options", "players", "rounds"), ("format",))
    if obj["format"] != FORMAT:
        _fail("format", f"must be {_show(FORMAT)}, not {_show(obj['format'])}")
    _object(obj, "record", None, ("players", "rounds"))
    options = obj.get("options")
    options = {} if options is None else dict(_object(options, "options"))
    players = tuple(
        _string(p, f"players[{i}]") for i, p in enumerate(_array(obj["players"], "players"))
    )
    rounds = tuple(_round(r, f"rounds[{i}]") for i, r in enumerate(_array(obj["rounds"], "rounds")))
    return Record(players, rounds, options)


def _round(value: Any, where: str) -> RecordRound:
    obj = _object(value, where, ("seed", "commitment", "salt", "layout", "actions"), ("seed",))
    seed = _integer(obj["seed"], f"{where}.seed")
    commitment = _hex(obj.get("commitment"), f"{where}.commitment", 64)
    salt = _hex(obj.get("salt"), f"{where}.salt", None)
    raw_layout = obj.get("layout")
    layout = None if raw_layout is None else _layout(raw_layout, f"{where}.layout")
    raw_actions = obj.get("actions")
    actions = () if raw_actions is None else _array(raw_actions, f"{where}.actions")
    return RecordRound(
        seed,
        layout,
        tuple(_action(a, f"{where}.actions[{j}]") for j, a in enumerate(actions)),
        commitment,
        salt,
    )


def _layout(value: Any, where: str) -> Layout | UnreadableLayout:
    keys = ("hands", "start", "stock", "hand_size_free")
    obj = _object(value, where, keys, keys[:3])
    hands = [
        [
            _string(c, f"{where}.hands[{i}][{j}]")
            for j, c in enumerate(_array(h, f"{where}.hands[{i}]"))
        ]
        for i, h in enumerate(_array(obj["hands"], f"{where}.hands"))
    ]
    start = _string(obj["start"], f"{where}.start")
    stock = [
        _string(c, f"{where}.stock[{i}]")
        for i, c in enumerate(_array(obj["stock"], f"{where}.stock"))
    ]
    free = obj.get("hand_size_free")
    if free is not None and not isinstance(free, bool):
        _fail(f"{where}.hand_size_free", f"must be true or false, not {_kind(free)}")
    data: dict[str, Any] = {"hands": hands, "start": start, "stock": stock}
    if free:
        data["hand_size_free"] = True
    places = [(f"hands[{i}][{j}]", c) for i, h in enumerate(hands) for j, c in enumerate(h)]
    places += [("start", start)] + [(f"stock[{i}]", c) for i, c in enumerate(stock)]
    for place, code in places:
        try:
            parse_card(code)
        except EngineError as exc:
            return UnreadableLayout(data, f"layout.{place}: {exc.message}", exc.code)
    return Layout.parse(hands, start, stock, bool(free))


def action_from_json(value: Any, where: str = "action") -> tuple[int, Action]:
    """Read one action object of a record (``{"seat": 0, "play": "7H"}``...) as
    ``(seat, action)``.  A malformed object raises :class:`RecordFormatError`; a card or
    suit that is not one gives an :class:`UnreadableAction` whose :meth:`error` says so."""
    return _action(value, where)


def _action(value: Any, where: str) -> tuple[int, Action]:
    obj = _object(value, where)
    verbs = [v for v in VERBS if v in obj]
    if len(verbs) != 1:
        found = f"; it has {', '.join(verbs)}" if verbs else ""
        _fail(where, f"an action needs exactly one of play, draw, pass, catch{found}")
    verb = verbs[0]
    for key in obj:
        if key in ("suit", "call") and verb != "play":
            _fail(where, f'"{key}" goes only with "play", not with "{verb}"')
    _object(obj, where, ("seat", verb, "suit", "call"), ("seat",))
    seat = _integer(obj["seat"], f"{where}.seat")
    arg = obj[verb]
    if verb == "draw":
        count = _integer(arg, f"{where}.draw")
        if count < 0:
            _fail(f"{where}.draw", f"must be 0 or more, not {count}")
        return seat, draw_action(count)
    if verb == "pass":
        if arg is not True:
            _fail(f"{where}.pass", f"must be true, not {_show(arg)}")
        return seat, PASS
    if verb == "catch":
        return seat, Catch(_integer(arg, f"{where}.catch"))
    code = _string(arg, f"{where}.play")
    call = obj.get("call")
    if call not in (None, MAU, MAUMAU):
        _fail(f"{where}.call", f'must be "mau", "maumau" or null, not {_show(call)}')
    suit = obj.get("suit")
    if suit is not None:
        suit = _string(suit, f"{where}.suit")
    try:
        return seat, play_action(parse_card(code), None if suit is None else parse_suit(suit), call)
    except EngineError as exc:
        data = {"seat": seat, "play": code, "suit": suit, "call": call}
        data = {k: v for k, v in data.items() if v is not None}
        return seat, UnreadableAction(data, exc.code, exc.message)


# --- checking JSON shapes -------------------------------------------------------------


def _fail(where: str, message: str) -> NoReturn:
    raise RecordFormatError(where, message)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return type(value).__name__


def _show(value: Any) -> str:
    if isinstance(value, str | bool | int | float) or value is None:
        return json.dumps(value)
    return _kind(value)


def _object(
    value: Any, where: str, allowed: Sequence[str] | None = None, required: Sequence[str] = ()
) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        _fail(where, f"must be an object, not {_kind(value)}")
    twice = getattr(value, "twice", ())
    if twice:
        _fail(where, f'the key "{twice[0]}" is given twice')
    if allowed is not None:
        for key in value:
            if key not in allowed:
                _fail(where, f"unknown key {_show(key)}; the keys here are {', '.join(allowed)}")
    for key in required:
        if key not in value:
            _fail(where, f'the key "{key}" is missing')
    return value


def _array(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        _fail(where, f"must be an array, not {_kind(value)}")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        _fail(where, f"must be a string, not {_kind(value)}")
    return value


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(where, f"must be a whole number, not {_kind(value)}")
    return value


def _hex(value: Any, where: str, length: int | None) -> str | None:
    if value is None:
        return None
    text = _string(value, where)
    if not text or not set(text) <= _HEX or (length is not None and len(text) != length):
        size = f"{length} " if length else ""
        _fail(where, f"must be {size}lowercase hex digits, not {_show(text)}")
    return text
