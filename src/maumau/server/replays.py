"""A finished game, step by step, with every hand shown: for replays and the QR code of
a table's invite link."""

from __future__ import annotations

import io
from typing import Any

import segno

from maumau.engine import Game
from maumau.engine.cards import CODES, cards_of


def frames_of(finished: Game) -> dict[str, Any]:
    """Every position of a finished game: after each deal and each action, the public
    view (``SeatView.to_json`` of a spectator) with every hand filled in."""
    game = Game(finished.rules, finished.players)
    rounds = []
    for index, dealt in enumerate(finished.rounds):
        game.deal(dealt.seed, dealt.layout, dealt.commitment, dealt.salt)
        frames = [_frame(game, None)]
        for seat, action in dealt.state.actions:
            game.apply(action, seat)
            frames.append(_frame(game, action.to_json(seat)))
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


def _frame(game: Game, action: dict[str, Any] | None) -> dict[str, Any]:
    view = game.view(None).to_json()
    view["hands"] = [[CODES[c] for c in cards_of(hand)] for hand in game.round.hands]
    del view["log"]
    return {"action": action, "view": view}


def qr_svg(text: str) -> bytes:
    """A QR code of ``text`` as SVG."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, dark="#1d2b24")
    return out.getvalue()
