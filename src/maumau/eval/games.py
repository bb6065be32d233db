"""Human games as data: finished games' records as (observation, mask, action, seat,
outcome) samples in ``maumau_v0``'s encoding, and the file they are kept in.

:func:`samples_of` replays a game record (``docs/record.md``) and, at every decision
of the seat to move, takes the sample ``maumau_v0`` would show that seat: the
observation of :mod:`maumau.env.encoding` (``float32[364]``), the action mask
(``int8[145]``), the action index taken (:mod:`maumau.env.actions`), the seat, and the
game's outcome for that seat (``maumau_v0``'s outcome reward: the winners share
``+1`` in a heads-up game, ``(n/k - 1)/(n - 1)`` each in general, the others get
``-1/(n - 1)``).  What ``maumau_v0`` does not offer is not a sample: a catch made out
of turn, and a play that its index space cannot name.  The record's player names are
never read into the game that is replayed (its seats are ``player_0``...), so no name
can reach a sample.

The file (:func:`save_games`, :func:`load_games`) is a numpy ``.npz`` archive
(``allow_pickle=False`` reads it): the arrays ``observation`` [M, 364] float32,
``action_mask`` [M, 145] int8, ``action`` [M] int16, ``seat`` [M] int8, ``outcome``
[M] float32, ``human`` [M] bool (the seat was a human's at the game's end: a
stand-in's moves for an absent human count as that seat's), ``game`` [M] int32 (the
game's number in the file); and ``meta``, a JSON text: ``schema``
(:data:`GAMES_SCHEMA`) and per game its ``players`` (count), ``options`` (the
record's rules), ``rounds`` and ``samples``.  No name, game id, time or seed.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from maumau.engine import Game, Record, parse_record
from maumau.engine.record import UnreadableAction, UnreadableLayout
from maumau.env.actions import ACTION_COUNT, legal_indices
from maumau.env.encoding import OBS_SIZE, encode
from maumau.env.rewards import game_rewards

GAMES_SCHEMA = "maumau-games/1"
ARRAYS = ("observation", "action_mask", "action", "seat", "outcome", "human", "game")


@dataclass(slots=True)
class HumanGames:
    """Samples of whole games, one row per decision (see the module's docstring)."""

    observation: npt.NDArray[np.float32]
    action_mask: npt.NDArray[np.int8]
    action: npt.NDArray[np.int16]
    seat: npt.NDArray[np.int8]
    outcome: npt.NDArray[np.float32]
    human: npt.NDArray[np.bool_]
    game: npt.NDArray[np.int32]
    games: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.action.shape[0])


def samples_of(
    record: Record | Mapping[str, Any] | str | bytes, humans: Sequence[bool] = ()
) -> HumanGames:
    """The samples of one finished game; ``humans[seat]``: the seat was a human's (all
    ``False`` when not given).  ``ValueError`` for a game that did not finish; the
    engine's own errors for a record it refuses."""
    if not isinstance(record, Record):
        record = parse_record(record)
    n = len(record.players)
    game = Game.new(record.options, players=[f"player_{i}" for i in range(n)])
    silent = game.rules.mau_penalty == "catch"
    rows: list[tuple[npt.NDArray[np.float32], list[int], int, int]] = []
    for dealt in record.rounds:
        if isinstance(dealt.layout, UnreadableLayout):
            raise dealt.layout.error()
        game.deal(dealt.seed, dealt.layout, dealt.commitment, dealt.salt)
        for seat, action in dealt.actions:
            if isinstance(action, UnreadableAction):
                raise action.error()
            if seat == game.to_move:
                legal = legal_indices(game.legal_actions(seat), seat, n, silent)
                index = next((i for i, a in legal.items() if a == action), None)
                if index is not None:
                    rows.append((encode(game.view(seat)), list(legal), index, seat))
            game.apply(action, seat)
    if not game.finished or game.winners is None:
        raise ValueError("the game did not finish: it has no outcome")
    outcome = game_rewards(n, game.winners)
    m = len(rows)
    masks = np.zeros((m, ACTION_COUNT), dtype=np.int8)
    for row, sample in enumerate(rows):
        masks[row, sample[1]] = 1
    seats = np.array([r[3] for r in rows], dtype=np.int8)
    human = [bool(humans[s]) if s < len(humans) else False for s in range(n)]
    return HumanGames(
        observation=np.stack([r[0] for r in rows]) if rows else np.zeros((0, OBS_SIZE), np.float32),
        action_mask=masks,
        action=np.array([r[2] for r in rows], dtype=np.int16),
        seat=seats,
        outcome=np.array([outcome[s] for s in seats], dtype=np.float32),
        human=np.array([human[s] for s in seats], dtype=bool),
        game=np.zeros(m, dtype=np.int32),
        games=[
            {
                "players": n,
                "options": dict(record.options),
                "rounds": len(record.rounds),
                "samples": m,
            }
        ],
    )


def concat(parts: Iterable[HumanGames]) -> HumanGames:
    """The samples of several games in one set (games numbered in order)."""
    parts = list(parts)
    games: list[dict[str, Any]] = []
    numbers = []
    for part in parts:
        numbers.append(part.game + len(games))
        games.extend(part.games)
    if not parts:
        empty = samples_shape()
        return HumanGames(**empty, games=[])
    return HumanGames(
        observation=np.concatenate([p.observation for p in parts]),
        action_mask=np.concatenate([p.action_mask for p in parts]),
        action=np.concatenate([p.action for p in parts]),
        seat=np.concatenate([p.seat for p in parts]),
        outcome=np.concatenate([p.outcome for p in parts]),
        human=np.concatenate([p.human for p in parts]),
        game=np.concatenate(numbers).astype(np.int32),
        games=games,
    )


def samples_shape() -> dict[str, Any]:
    """Empty arrays of every column (a file of no games)."""
    return {
        "observation": np.zeros((0, OBS_SIZE), np.float32),
        "action_mask": np.zeros((0, ACTION_COUNT), np.int8),
        "action": np.zeros(0, np.int16),
        "seat": np.zeros(0, np.int8),
        "outcome": np.zeros(0, np.float32),
        "human": np.zeros(0, bool),
        "game": np.zeros(0, np.int32),
    }


def games_bytes(data: HumanGames) -> bytes:
    """The ``.npz`` file of ``data``, as bytes."""
    meta = json.dumps({"schema": GAMES_SCHEMA, "games": data.games}, separators=(",", ":"))
    buffer = io.BytesIO()
    arrays = {name: getattr(data, name) for name in ARRAYS}
    np.savez_compressed(buffer, meta=np.array(meta), **arrays)
    return buffer.getvalue()


def save_games(path: Path, data: HumanGames) -> None:
    path.write_bytes(games_bytes(data))


def load_games(path: Path) -> HumanGames:
    """The samples in file ``path`` (``ValueError`` if it is not a file of
    :data:`GAMES_SCHEMA`)."""
    with np.load(path, allow_pickle=False) as archive:
        try:
            meta = json.loads(str(archive["meta"]))
            arrays = {name: archive[name] for name in ARRAYS}
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a human games file: {exc}") from None
    if not isinstance(meta, dict) or meta.get("schema") != GAMES_SCHEMA:
        raise ValueError(f"{path}: not a human games file of schema {GAMES_SCHEMA}")
    return HumanGames(**arrays, games=list(meta.get("games", [])))
