"""The Mau Mau rules engine: pure rules, no I/O, no clock, no randomness it was not handed.

>>> from maumau.engine import Game
>>> game = Game.new("penalty-100", players=["Ana", "Ben", "Cy"], seed=42)
>>> actions = game.legal_actions()          # for the seat to move
>>> game.apply(actions[0])
>>> view = game.view(1)                     # what seat 1 may see

See ``docs/engine.md`` for a tour.
"""

from maumau.engine.actions import (
    MAU,
    MAUMAU,
    Action,
    Catch,
    Draw,
    Pass,
    Play,
    parse_action,
)
from maumau.engine.cards import CARDS, Card, card_code, parse_card
from maumau.engine.errors import BadCard, BadLayout, BadOption, EngineError, IllegalAction
from maumau.engine.game import Game, Layout, RoundResult, check_layout
from maumau.engine.options import OPTION_KEYS, PRESETS, Rules
from maumau.engine.record import Record, RecordFormatError, action_from_json, parse_record
from maumau.engine.replay import ReplayError, record_of, replay, replay_report
from maumau.engine.round import Round
from maumau.engine.view import SeatView, seat_view

__all__ = [
    "CARDS",
    "MAU",
    "MAUMAU",
    "OPTION_KEYS",
    "PRESETS",
    "Action",
    "BadCard",
    "BadLayout",
    "BadOption",
    "Card",
    "Catch",
    "Draw",
    "EngineError",
    "Game",
    "IllegalAction",
    "Layout",
    "Pass",
    "Play",
    "Record",
    "RecordFormatError",
    "ReplayError",
    "Round",
    "RoundResult",
    "Rules",
    "SeatView",
    "action_from_json",
    "card_code",
    "check_layout",
    "parse_action",
    "parse_card",
    "parse_record",
    "record_of",
    "replay",
    "replay_report",
    "seat_view",
]
