"""From records to games and back (``docs/record.md``, "Replaying").

>>> from maumau.engine.replay import replay_report
>>> replay_report('{"format": "maumau-record/1", "players": ["A", "B"], "rounds": []}')["ok"]
True

:func:`replay` builds the :class:`~maumau.engine.game.Game` with the public API only
(``Game.new``, ``Game.deal``, ``Game.apply``); the first thing the engine refuses stops
it with a :class:`ReplayError` that knows the round and action.  :func:`replay_report`
turns either outcome into the JSON object the ``maumau record replay`` command prints.
:func:`record_of` goes the other way: any game, finished or not, as a record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from maumau.engine.actions import Action, Play
from maumau.engine.cards import CODES, deck_mask
from maumau.engine.errors import BadCard, EngineError
from maumau.engine.game import Game
from maumau.engine.options import Rules
from maumau.engine.record import (
    Record,
    RecordRound,
    UnreadableAction,
    UnreadableLayout,
    parse_record,
)


class ReplayError(EngineError):
    """The engine refused part of a record.  ``round`` and ``action`` are zero-based
    indices (``None`` when the options or seats are refused; ``action`` is ``None`` when
    a round cannot be dealt); ``code`` is the engine's stable code."""

    def __init__(self, error: EngineError, round: int | None, action: int | None) -> None:
        super().__init__(error.message, error.code)
        self.round = round
        self.action = action

    def to_json(self) -> dict[str, Any]:
        """The error object of the replay report."""
        return {
            "ok": False,
            "error": {
                "round": self.round,
                "action": self.action,
                "code": self.code,
                "message": self.message,
            },
        }


def replay(record: Record | str | bytes | Mapping[str, Any]) -> Game:
    """The game a record describes.  Text or a dict is parsed first (and may raise
    :class:`~maumau.engine.record.RecordFormatError`); anything the engine refuses
    raises :class:`ReplayError`."""
    if not isinstance(record, Record):
        record = parse_record(record)
    try:
        game = Game.new(record.options, players=list(record.players))
    except EngineError as exc:
        raise ReplayError(exc, None, None) from exc
    deck = deck_mask(game.rules.deck)
    for i, dealt in enumerate(record.rounds):
        try:
            _deal(game, dealt)
        except EngineError as exc:
            raise ReplayError(exc, i, None) from exc
        for j, (seat, action) in enumerate(dealt.actions):
            try:
                _check_cards(action, deck, game.rules.deck)
                game.apply(action, seat)
            except EngineError as exc:
                raise ReplayError(exc, i, j) from exc
    return game


def _deal(game: Game, dealt: RecordRound) -> None:
    layout = dealt.layout
    if isinstance(layout, UnreadableLayout):
        if game.finished or not game.round_over:
            game.deal(dealt.seed)  # refuses: game_over / round_not_over come first
        raise layout.error()
    game.deal(dealt.seed, layout, dealt.commitment, dealt.salt)


def _check_cards(action: Action, deck: int, size: int) -> None:
    if isinstance(action, UnreadableAction):
        raise action.error()
    if isinstance(action, Play) and not deck >> action.card & 1:
        raise BadCard(f"{CODES[action.card]} is not in the {size}-card deck")


def record_of(game: Game) -> Record:
    """The record of ``game`` as it stands (finished or in progress)."""
    rounds = tuple(
        RecordRound(
            dealt.seed, dealt.layout, tuple(dealt.state.actions), dealt.commitment, dealt.salt
        )
        for dealt in game.rounds
    )
    return Record(tuple(game.players), rounds, options_of(game.rules))


def options_of(rules: Rules) -> dict[str, Any]:
    """The shortest options object giving ``rules``: its preset, if it has one, and the
    keys whose values differ from that preset's (or the defaults)."""
    base = Rules.from_preset(rules.preset) if rules.preset is not None else Rules()
    defaults = base.to_dict()
    out: dict[str, Any] = {} if rules.preset is None else {"preset": rules.preset}
    wanted = rules.to_dict()
    out.update((k, v) for k, v in wanted.items() if v != defaults[k])
    # a default that follows another key (``limit`` follows ``scoring``: 150 for reward
    # points) is given too when the preset's value is not what that key now makes it
    again = Rules.from_dict(dict(out)).to_dict()
    out.update((k, v) for k, v in wanted.items() if again[k] != v)
    return out


def report_of(game: Game) -> dict[str, Any]:
    """The replay report of a game: its finished rounds and the score so far."""
    return {
        "ok": True,
        "rounds": [result.to_json() for result in game.results],
        "finished": game.finished,
        "winners": None if game.winners is None else list(game.winners),
        "draw": game.draw,
        "totals": list(game.totals),
        "rounds_won": list(game.rounds_won),
    }


def replay_report(record: Record | str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object ``maumau record replay`` prints: the report of the replayed game,
    or ``{"ok": false, "error": {...}}`` for the first thing the engine refused.  A text
    that is not a record at all still raises
    :class:`~maumau.engine.record.RecordFormatError`."""
    try:
        game = replay(record)
    except ReplayError as exc:
        return exc.to_json()
    return report_of(game)
