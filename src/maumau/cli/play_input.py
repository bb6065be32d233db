"""What a player types in ``maumau play``: the record notation, shortened.

=============  ======================================  =========================
typed          means                                   engine action
=============  ======================================  =========================
``7H``         play the Seven of hearts                ``play 7H``
``7H mau``     play it and call "Mau" (one card left)  ``play 7H mau``
``JC>H``       play the Jack of clubs, wish hearts     ``play JC>H``
``d``          draw (as many as the rules say)         ``draw`` / ``draw 4``
``p``          pass (keep a drawn card, accept)        ``pass``
``c 2``        catch seat 2's missing call             ``catch 2``
=============  ======================================  =========================

The long forms (``play 7H``, ``draw``, ``pass``, ``catch 2``) are read too, and case
does not matter.  A typo is refused with a message that says what was not understood;
whether a move is allowed is the engine's business.
"""

from __future__ import annotations

from collections.abc import Sequence

from maumau.engine import Action, Catch, Draw, Pass, Play, parse_action
from maumau.engine.actions import PASS
from maumau.engine.cards import CODES, SUITS

#: the longest line read as a move (anything longer is not one)
MAX_INPUT = 40


class NotAMove(ValueError):
    """The text is not a move in the notation (the message says why)."""


def notation(action: Action) -> str:
    """The short form of ``action``, as the player types it."""
    if isinstance(action, Play):
        text = CODES[action.card]
        if action.suit is not None:
            text += ">" + SUITS[action.suit]
        return text if action.call is None else f"{text} {action.call}"
    if isinstance(action, Draw):
        return "d"
    if isinstance(action, Pass):
        return "p"
    if isinstance(action, Catch):
        return f"c {action.target}"
    raise TypeError(f"not an action: {action!r}")


def read_move(text: str, legal: Sequence[Action]) -> Action:
    """The action ``text`` names.  ``d`` stands for the draw among ``legal`` (its count
    is the rules' business), ``c`` alone for the only catch there is."""
    if len(text) > MAX_INPUT:
        raise NotAMove(f"that is {len(text)} characters; a move is a few, such as 7H or d")
    words = text.split()
    if not words:
        raise NotAMove("type a move, or ? for help")
    verb = words[0].lower()
    if verb in ("d", "draw"):
        if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
            raise NotAMove(f"{text!r}: draw takes no more than a number, e.g. d or draw 2")
        wanted = int(words[1]) if len(words) == 2 else None
        for action in legal:
            if isinstance(action, Draw) and wanted in (None, action.count):
                return action
        return Draw(wanted)  # not legal now: the engine says why
    if verb in ("p", "pass"):
        if len(words) > 1:
            raise NotAMove(f"{text!r}: pass takes nothing after it")
        return PASS
    if verb in ("c", "catch"):
        return _catch(text, words, legal)
    if verb == "play":
        words = words[1:]
    if not 1 <= len(words) <= 2:
        raise NotAMove(f"{text!r} is not a move: write a card such as 7H, JC>H or 7H mau")
    card = words[0].upper()
    call = words[1].lower() if len(words) == 2 else None
    try:
        return parse_action(f"play {card}" + (f" {call}" if call else ""))
    except ValueError as exc:
        raise NotAMove(str(exc)) from None


def _catch(text: str, words: list[str], legal: Sequence[Action]) -> Action:
    catches = [a for a in legal if isinstance(a, Catch)]
    if len(words) == 1:
        if len(catches) == 1:
            return catches[0]
        raise NotAMove("nobody can be caught now" if not catches else "say whom: c SEAT")
    if len(words) != 2 or not words[1].isdigit():
        raise NotAMove(f"{text!r}: catch a seat by its number, e.g. c 2")
    return Catch(int(words[1]))
