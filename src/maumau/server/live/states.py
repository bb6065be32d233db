"""The message every move sends, built for speed: ``state`` to every connection, the
mover's carrying its acknowledgement."""

from __future__ import annotations

import time
from collections.abc import Iterable

import orjson

from maumau.engine import Game
from maumau.engine.actions import Action
from maumau.engine.view import events_json, own_json, public_json
from maumau.server.live.table import Table
from maumau.server.transport.connection import Connection


def state_texts(
    table: Table,
    clocks: tuple[float | None, float | None],
    conns: Iterable[Connection],
    ack: tuple[Connection, str] | None = None,
    now: float | None = None,
) -> list[str]:
    """The ``state`` message for each of ``conns``, as JSON text; ``clocks``: when the
    turn timer runs out and when the next round is dealt at the latest (``None``:
    not); ``ack`` is the connection whose move this state follows, and the move's
    ``action_id``; ``now``: the server's time the clocks are counted by (sent as
    ``server_time``, so that a client whose own clock is off counts them down right).

    It goes to every connection after every move, so it is built for speed: the
    part of the view every seat shares, and the fields after it, are encoded once;
    each connection adds its seat, hand, drawn card, new log entries and legal
    actions.  The fields are exactly :class:`State`'s (a test checks every message
    against the model).
    """
    game = table.require_game()
    public = public_json(game)
    shared = _dumps({k: v for k, v in public.items() if k not in _OWN})[1:-1]
    tail = _dumps(
        {
            "commitment": game.rounds[-1].commitment,
            "turn_deadline": clocks[0],
            "ready": sorted(table.ready),
            "next_round_at": clocks[1],
            "server_time": time.time() if now is None else now,
        }
    )[1:-1]
    head = f'{{"type":"state","version":{game.version},"view":{{'
    round_index, logged = game.round_index, len(game.round.log)
    mover, acked = (None, "") if ack is None else (ack[0], f'"ack":{_dumps(ack[1])}')
    texts = []
    for conn in conns:
        seat = conn.seat
        if conn.round != round_index:
            conn.round, conn.logged = round_index, 0
        events = events_json(game, seat, conn.logged, table.marks)
        conn.logged = logged
        own = _own(game, conn)
        legal = [] if seat is None else [wire(a, seat) for a in game.legal_actions(seat)]
        rest = _dumps({"events": events, "legal": legal})
        last = acked if conn is mover else '"ack":null'
        texts.append(f"{head}{own},{shared}}},{rest[1:-1]},{tail},{last}}}")
    return texts


def _own(game: Game, conn: Connection) -> str:
    """The seat's own fields of its view, as JSON members.  A hand changes only when
    its seat draws or plays, so the text last sent to the connection is kept and
    reused while the hand and the drawn card it shows stay the same."""
    seat = conn.seat
    state = game.round
    if seat is None:
        key: tuple[int, int, int] = (-1, 0, -1)
    else:
        key = (seat, state.hands[seat], state.drawn if seat == state.turn else -1)
    if conn.own_key != key:
        conn.own_key, conn.own_text = key, _dumps(own_json(game, seat))[1:-1]
    return conn.own_text


#: the fields of a view that differ from seat to seat
_OWN = frozenset({"seat", "hand", "drawn"})


def _dumps(value: object) -> str:
    """Compact JSON text, as pydantic writes it.  These messages are small and many
    (every move sends one to every connection), and orjson writes them several times
    faster than the standard library's encoder."""
    return orjson.dumps(value).decode()


def wire(action: Action, seat: int) -> dict[str, object]:
    data = action.to_json(seat)
    del data["seat"]
    return data
