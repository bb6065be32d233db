"""What players are told when a round or the game ends, and when they arrive."""

from __future__ import annotations

from maumau.engine import Game
from maumau.server.live.table import Table
from maumau.server.wire.protocol import GameEnd, RoundEnd, Welcome


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


def welcome(table: Table, seat: int | None) -> Welcome:
    """The ``welcome`` for a connection that holds ``seat`` (``None``: a spectator),
    with every finished round and the game's end, if it has ended."""
    game = table.game
    return Welcome(
        game_id=table.id,
        seat=seat,
        role="spectator" if seat is None else "player",
        host=seat is not None and seat == table.host,
        results=[] if game is None else [round_end(game, i) for i in range(len(game.results))],
        end=None if game is None or not game.finished else game_end(game),
    )
