"""A finished game, step by step, with every hand shown: for replays and the QR code of
a table's invite link.

:func:`documents_of` makes a game's documents (its record, and once it is finished its
replay) from its stored steps, as gzip-compressed JSON; it runs in a worker process
(:mod:`maumau.server.live.workers`), and :mod:`maumau.server.live.archive` keeps what it makes.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Sequence
from typing import Any

import orjson
import segno

from maumau.engine import Game, Rules, action_from_json, record_of
from maumau.engine.cards import CODES, cards_of
from maumau.server.live.marks import split_mark

#: gzip's level for documents: made once, sent often (level 6: a 12,000-action replay
#: of 8 MB shrinks to 0.26 MB in 0.07 s)
GZIP_LEVEL = 6


def game_of(options: dict[str, Any], players: Sequence[str], steps: Sequence[Any]) -> Game:
    """The game that stored steps (``(kind, data, ...)`` sequences, in order) make, as
    a table rebuilds it (:meth:`maumau.server.live.table.Table.accept`)."""
    game = Game(Rules.from_dict(options), list(players))
    for index, (kind, data, *_) in enumerate(steps):
        if kind == "deal":
            game.deal(data["seed"], commitment=data.get("commitment"), salt=data.get("salt"))
        else:
            seat, action = action_from_json(split_mark(data)[0], f"step {index}")
            game.apply(action, seat)
    return game


def documents_of(
    options: dict[str, Any], players: Sequence[str], steps_json: str
) -> tuple[dict[str, bytes], int]:
    """A started game's documents as gzip-compressed JSON: ``"record"`` always,
    ``"replay"`` (:func:`frames_of`) once the game is finished; and the pid of the
    process that made them (a worker's).  ``steps_json``: its steps, a JSON array of
    ``[kind, data, ...]`` (decoded here, in the worker)."""
    game = game_of(options, players, orjson.loads(steps_json))
    documents = {"record": _packed(record_of(game).to_json())}
    if game.finished:
        documents["replay"] = _packed(frames_of(game))
    return documents, os.getpid()


def _packed(document: dict[str, Any]) -> bytes:
    return gzip.compress(orjson.dumps(document), GZIP_LEVEL, mtime=0)


def frames_of(finished: Game) -> dict[str, Any]:
    """Every position of a finished game: after each deal and each action, the public
    view (``SeatView.to_json`` of a spectator) with every hand filled in."""
    game = Game(finished.rules, finished.players)
    rounds = []
    for index, dealt in enumerate(finished.rounds):
        game.deal(dealt.seed, dealt.layout, dealt.commitment, dealt.salt)
        frames = [_frame(game, None, 0)]
        for seat, action in dealt.state.actions:
            seen = len(game.round.log)
            game.apply(action, seat)
            frames.append(_frame(game, action.to_json(seat), seen))
        rounds.append(
            {
                "round": index,
                "seed": dealt.seed,
                "salt": dealt.salt,
                "commitment": dealt.commitment,
                "frames": frames,
            }
        )
    return {
        "players": list(finished.players),
        "rules": finished.rules.to_dict(),
        "rounds": rounds,
        "winners": list(finished.winners or ()),
        "draw": finished.draw,
        "decided_by": finished.decided_by,
        "totals": list(finished.totals),
    }


def _frame(game: Game, action: dict[str, Any] | None, seen: int) -> dict[str, Any]:
    """One position: the action that led to it, the public view with every hand, and
    the public log entries that action added (``seen`` entries came before it)."""
    view = game.view(None).to_json()
    view["hands"] = [[CODES[c] for c in cards_of(hand)] for hand in game.round.hands]
    log = view.pop("log")
    return {"action": action, "view": view, "events": log[seen:]}


def qr_svg(text: str) -> bytes:
    """A QR code of ``text`` as SVG."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, dark="#1d2b24")
    return out.getvalue()
