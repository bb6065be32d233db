"""What players are told when a round or the game ends."""

from __future__ import annotations

from maumau.engine import Game
from maumau.server.protocol import GameEnd, RoundEnd


def round_end(game: Game, index: int) -> RoundEnd:
    """The ``round_end`` message of finished round ``index``: hands, points, the seed."""
    dealt = game.rounds[index]
    result = game.results[index]
    return RoundEnd(
        round=index,
        out=result.out,
        hands=[list(h) for h in result.hands],
        hand_values=list(result.hand_values),
        totals=list(result.totals),
        rounds_won=list(result.rounds_won),
        seed=dealt.seed,
        salt=dealt.salt,
        commitment=dealt.commitment,
    )


def game_end(game: Game) -> GameEnd:
    return GameEnd(
        winners=list(game.winners or ()),
        draw=game.draw,
        decided_by=game.decided_by or "",
        totals=list(game.totals),
        rounds_won=list(game.rounds_won),
    )
