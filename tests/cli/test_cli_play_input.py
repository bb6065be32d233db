"""``maumau play``'s notation, and its session played in-process (the catch offer)."""

from __future__ import annotations

import io
import random
import re

import pytest
from rich.console import Console

from maumau.bots import EasyBot
from maumau.cli.play import Session
from maumau.cli.play_input import MAX_INPUT, NotAMove, notation, read_move
from maumau.engine import Catch, Draw, Game, Pass, parse_action
from maumau.engine.replay import record_of


def test_the_short_notation() -> None:
    legal = (parse_action("play 7H"), parse_action("play JC>H"), Draw(4))
    assert read_move("7H", legal) == parse_action("play 7H")
    assert read_move("7h", legal) == parse_action("play 7H")
    assert read_move("play JC>H mau", legal) == parse_action("play JC>H mau")
    assert read_move("jc>h MAU", legal) == parse_action("play JC>H mau")
    assert read_move("d", legal) == Draw(4)  # the draw the rules make, whatever its count
    assert read_move("draw 4", legal) == Draw(4)
    assert read_move("draw 2", legal) == Draw(2)  # not legal: the engine will say so
    assert read_move("p", legal) == Pass()
    assert read_move("c 2", legal) == Catch(2)
    assert read_move("c", (Catch(1),)) == Catch(1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a move"),
        ("7Z", "'7Z' is not a card"),
        ("7H mao", "'mao' is not a call"),
        ("7H mau now", "is not a move"),
        ("p now", "pass takes nothing"),
        ("d x", "draw takes no more than a number"),
        ("c", "nobody can be caught now"),
        ("c two", "catch a seat by its number"),
        ("7" * (MAX_INPUT + 1), f"that is {MAX_INPUT + 1} characters"),
    ],
)
def test_what_is_not_a_move_is_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(NotAMove, match=message):
        read_move(text, (Draw(1),))


@pytest.mark.parametrize("preset", ["standard", "penalty-100", "traditional", "gamerules"])
def test_every_legal_move_reads_back_from_its_notation(preset: str) -> None:
    rng = random.Random(preset)
    for game_number in range(3):
        game = Game.new(preset, players=3, seed=game_number)
        while not game.round_over:
            legal = game.legal_actions()
            for action in legal:
                assert read_move(notation(action), legal) == action
            game.apply(rng.choice(legal))


class Scripted(Session):
    """The player always catches when asked, else types the first move shown."""

    asked_help = False

    def ask(self, prompt: str) -> str:
        if prompt.startswith("Catch"):
            if not self.asked_help:  # help at the catch prompt lists the moves, and asks again
                self.asked_help = True
                return "?"
            return "c"
        if prompt.startswith("Your move"):
            return notation(self.game.legal_actions(self.me)[0])
        return ""


def test_the_player_is_offered_a_missed_call_to_catch() -> None:
    # out of turn: seat 1 forgets, seat 2 is to move, and the player (seat 0) is asked
    game = Game.new("gamerules", players=["You", "easy#1", "easy#2"])
    bots = {1: EasyBot(3), 2: EasyBot(4)}
    for bot in bots.values():
        bot.forget_rate = 1.0  # never calls: every last-but-one card can be caught
    out = io.StringIO()
    session = Scripted(game, 0, bots, 7, 0.0, Console(file=out, width=100, markup=False))
    session.play()
    assert game.finished
    caught = [
        action
        for dealt in record_of(game).rounds
        for seat, action in dealt.actions
        if seat == 0 and isinstance(action, Catch)
    ]
    assert caught
    text = out.getvalue()
    assert re.search(r"easy#\d forgot to say “Mau”: c \d catches", text)
    assert re.search(r"You caught easy#\d", text)
    assert re.search(r"Type a move in the record notation.*\nMoves: c \d\n", text, re.S)
