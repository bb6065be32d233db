"""Many games stepped at once: the batched environment for self-play and population
methods (numpy; the ``rl`` extra).

>>> import numpy as np
>>> from maumau.env.batch import BatchEnv, random_actions
>>> env = BatchEnv(num_envs=256, rules="standard", players=2, seed=0)
>>> obs, mask, to_move = env.reset()       # float32 [N, 364], bool [N, 145], int [N]
>>> actions = random_actions(mask, np.random.default_rng(0))
>>> obs, mask, to_move, rewards, done = env.step(actions)

Each of the ``num_envs`` games is a game of ``maumau_v0``: the same rules engine, the
same observation (of the seat to move, :mod:`maumau.env.encoding`), the same action ids
(:mod:`maumau.env.actions`) and the same rewards (:mod:`maumau.env.rewards`, per seat:
``rewards[i, s]`` is what seat ``s`` of game ``i`` earned in the step).  The game that
slot ``i`` plays now is the ``maumau_v0`` game of ``reset(seed=env.game_seeds[i])``; the
seeds come from one stream per game slot that the constructor's ``seed`` fixes, so the same
seed plays the same games whatever ``num_envs`` is, and an unseeded ``reset()`` carries
on the streams.

* Self-play (``opponents=None``): the caller plays every seat; ``to_move[i]`` says
  which seat the observation and mask of game ``i`` are for.
* Against bots (``opponents=("normal", ...)``, one level per other seat, seat order):
  the caller plays ``seat``, the bots (:mod:`maumau.bots`, from their own seat's view)
  the others; ``rewards`` include what happened during the bots' moves.

A game that ends (or is truncated after ``max_steps`` actions: ``env.truncated``) is
reset at once: ``done[i]`` is set, ``rewards[i]`` are the finished game's last rewards,
and ``obs[i]``/``mask[i]`` are the first decision of the next game.  The masks of live
games are never empty.  The arrays returned are copies unless ``copy=False``, in which
case they are the environment's own buffers, overwritten by the next ``step``.

The rules are the engine's own: each game slot holds a :class:`~maumau.env.session.Session`
(its :class:`~maumau.engine.Round`), and everything an observation reads is folded
into one row of ints per game (:mod:`maumau.env.batch_encoding`) from which numpy
writes all observations at once; no :class:`~maumau.engine.SeatView` is built.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

from maumau.bots import Bot, make_bot
from maumau.engine import Action, Round
from maumau.engine.actions import DRAWS, JACK_PLAYS, PASS, PLAYS
from maumau.engine.cards import JACK
from maumau.env.actions import ACTION_COUNT, DRAW, legal_indices, play_index
from maumau.env.actions import PASS as PASS_INDEX
from maumau.env.batch_encoding import (
    LOG_KINDS,
    NO_ACTION,
    OVER,
    discard_mask,
    encode_rows,
    row_width,
)
from maumau.env.encoding import OBS_SIZE
from maumau.env.session import MAX_STEPS, RulesSpec, Session

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]


def _index_table() -> dict[int, int]:
    """id -> action index of the engine's interned actions (every action its
    ``legal_actions`` hands out but catches), by :func:`~maumau.env.actions.play_index`,
    as ``maumau_v0`` maps them.  They live as long as the engine: their ids stay theirs."""
    table: dict[int, int] = {}
    for plays in PLAYS:
        for card, play in enumerate(plays):
            if card % 13 != JACK:
                table[id(play)] = play_index(card, None)
    for jacks in JACK_PLAYS:
        for card, suits in enumerate(jacks):
            if card % 13 == JACK:
                for suit, play in enumerate(suits):
                    table[id(play)] = play_index(card, suit)
    for draw in DRAWS:
        table[id(draw)] = DRAW
    table[id(PASS)] = PASS_INDEX
    return table


_INDEX = _index_table()


def random_actions(mask: Bools, rng: np.random.Generator) -> Ints:
    """One uniformly random legal action per row of ``mask`` (every row has one)."""
    count = mask.sum(axis=1)
    legal = np.flatnonzero(mask)
    first = np.cumsum(count) - count
    pick = first + (rng.random(len(count)) * count).astype(np.int64)
    return legal[pick] % mask.shape[1]  # type: ignore[no-any-return]


class _Slot:
    """What a game slot keeps between steps: the round it follows, how much of that
    round's log is folded into the seats' last-action codes, the codes, the discard pile
    (bitmask, size, top card), and its legal actions with their indices."""

    __slots__ = (
        "codes",
        "indices",
        "legal",
        "logged",
        "pile",
        "round",
        "round_index",
        "size",
        "top",
    )

    def __init__(self, players: int) -> None:
        self.round: Round | None = None
        self.round_index = 0
        self.logged = 0
        self.codes = [NO_ACTION] * players
        self.pile = 0
        self.size = 0
        self.top = -1
        self.legal: Sequence[Action] = ()
        self.indices: tuple[int, ...] = ()


class BatchEnv:
    """``num_envs`` games of ``players`` seats under ``rules``, stepped together."""

    def __init__(
        self,
        num_envs: int,
        rules: RulesSpec = "standard",
        players: int = 2,
        seed: int | None = None,
        *,
        opponents: Sequence[str] | None = None,
        seat: int = 0,
        max_steps: int = MAX_STEPS,
        copy: bool = True,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs: must be a whole number >= 1, not {num_envs!r}")
        if opponents is not None:
            if isinstance(opponents, str):
                raise ValueError(f"opponents: give a sequence of bot levels, not {opponents!r}")
            opponents = tuple(opponents)
            if len(opponents) != players - 1:
                raise ValueError(
                    f"opponents: {players} players need {players - 1} bot levels, "
                    f"not {len(opponents)}"
                )
            for level in opponents:
                make_bot(level)  # raises ValueError naming a bad level
            if not 0 <= seat < players:
                raise ValueError(f"seat: must be 0..{players - 1}, not {seat!r}")
        self.num_envs = num_envs
        self.players = players
        self.opponents = opponents
        self.seat = seat
        self.copy = copy
        self.sessions = [Session(rules, players, max_steps) for _ in range(num_envs)]
        self.rules = self.sessions[0].rules
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        self._seed_streams(seed)
        #: the seed of the game each slot plays now (``maumau_v0``'s ``reset(seed=...)``)
        self.game_seeds = [0] * num_envs
        self.bots: list[dict[int, Bot]] = [{} for _ in range(num_envs)]
        self.obs = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((num_envs, ACTION_COUNT), dtype=np.bool_)
        self.to_move = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros((num_envs, players), dtype=np.float32)
        self.done = np.zeros(num_envs, dtype=np.bool_)
        #: which of the games that ended in the last step were truncated
        self.truncated = np.zeros(num_envs, dtype=np.bool_)
        self._carry = np.zeros((num_envs, players), dtype=np.float32)
        self._width = row_width(players)
        self._rows: list[tuple[int, ...]] = []
        self._totals = np.zeros((num_envs, players), dtype=np.int64)
        self._won = np.zeros((num_envs, players), dtype=np.int64)
        self._slots = [_Slot(players) for _ in range(num_envs)]
        self._every = np.arange(num_envs)
        self._started = False

    def _seed_streams(self, seed: int) -> None:
        master = random.Random(seed)
        self._streams = [random.Random(master.getrandbits(63)) for _ in range(self.num_envs)]

    # --- the loop ----------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> tuple[Floats, Bools, Ints]:
        """New games in every slot (``seed``: reseed the streams first); returns the
        observations, masks and seats to move."""
        if seed is not None:
            self._seed_streams(seed)
        self._carry[:] = 0.0
        for i in range(self.num_envs):
            self._new_game(i)
        self._started = True
        self._advance(None)
        obs, mask, to_move, _rewards, _done = self._output()
        return obs, mask, to_move

    def step(self, actions: npt.ArrayLike) -> tuple[Floats, Bools, Ints, Floats, Bools]:
        """Apply one action per game (for the seat ``to_move`` names); returns the next
        observations, masks and seats to move, each seat's rewards and which games
        ended (and were reset)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        n = self.num_envs
        if chosen.shape != (n,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions: give {n} integer action ids, not {chosen!r}")
        bad = (chosen < 0) | (chosen >= ACTION_COUNT)
        if not bad.any():
            bad = ~self.mask[self._every, chosen]
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"action {int(chosen[i])} is not legal in game {i} (seat {self.to_move[i]}); "
                f"legal: {sorted(self._slots[i].indices)}"
            )
        self.rewards[:] = self._carry
        self._carry[:] = 0.0
        self.done[:] = False
        self.truncated[:] = False
        self._advance(chosen.tolist())
        return self._output()

    # --- the slots ---------------------------------------------------------------------

    def _new_game(self, i: int) -> None:
        self._slots[i].round = None
        session = self.sessions[i]
        stream = self._streams[i]
        if self.opponents is None:
            self.game_seeds[i] = stream.getrandbits(63)
            session.reset(self.game_seeds[i])
        else:
            others = [s for s in range(self.players) if s != self.seat]
            while True:
                self.bots[i] = {
                    s: make_bot(level, seed=stream.getrandbits(63))
                    for s, level in zip(others, self.opponents, strict=True)
                }
                self.game_seeds[i] = stream.getrandbits(63)
                session.reset(self.game_seeds[i])
                self._carry[i] = 0.0
                self._play_bots(i, self._carry[i])
                if not session.game.finished and session.steps < session.max_steps:
                    break  # (else the bots ended the game before the caller moved: anew)

    def _play_bots(self, i: int, rewards: Floats) -> None:
        """Let game ``i``'s bots move until the caller's seat is to move (or the game
        ends), adding their rewards to ``rewards``."""
        session = self.sessions[i]
        game = session.game
        mine = self.seat
        bots = self.bots[i]
        while not game.finished and session.steps < session.max_steps:
            seat = game.to_move
            if seat == mine:
                return
            result = session.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
            if result is not None:
                rewards += result

    def _advance(self, chosen: list[int] | None) -> None:
        """Apply ``chosen`` (an action index per slot; ``None``: none, as after a reset)
        and bring every slot's row and legal actions up to date with its game.  The hot
        loop, hence written out in one piece."""
        rows: list[tuple[int, ...]] = []
        append = rows.append
        kinds = LOG_KINDS
        table = _INDEX
        silent = self.sessions[0].silent
        bots = self.opponents is not None
        n = self.players
        rewards = self.rewards
        for i, (session, slot) in enumerate(zip(self.sessions, self._slots, strict=True)):
            if chosen is not None:
                result = session.apply(slot.legal[slot.indices.index(chosen[i])])
                if result is not None:
                    rewards[i] += result
                game = session.game
                if bots and not game.finished:
                    self._play_bots(i, rewards[i])
                if game.finished or session.steps >= session.max_steps:
                    self.done[i] = True
                    self.truncated[i] = not game.finished
                    self._new_game(i)
            state = slot.round
            codes = slot.codes
            if state is None or state.step == OVER:  # a new round: follow it from its start
                game = session.game
                slot.round = state = game.round
                slot.round_index = len(game.rounds) - 1
                codes[:] = [NO_ACTION] * n
                slot.logged = 0
                slot.pile = discard_mask(state)
                slot.size = len(state.discard)
                self._totals[i] = game.totals
                self._won[i] = game.rounds_won
            discard = state.discard
            size = len(discard)
            if size == slot.size + 1 and discard[-2] == slot.top:
                slot.pile |= 1 << discard[-1]  # one card played on the pile
            elif size != slot.size or discard[-1] != slot.top:
                slot.pile = discard_mask(state)  # reshuffled (or a new round)
            slot.size = size
            slot.top = top = discard[-1]
            # the public log's new entries: each seat's last action, and its last play
            log = state.log
            end = len(log)
            k = slot.logged
            while k < end:
                entry = log[k]
                k += 1
                kind = kinds.get(entry[0])
                if kind is None:  # a reshuffle or the end of the round: no seat's action
                    continue
                who = entry[1]
                if kind:
                    codes[who] = codes[who] & ~7 | kind
                else:
                    suit = entry[3] if entry[3] >= 0 else entry[2] // 13
                    codes[who] = (suit + 1) << 3 | (entry[4] is not None) << 6
            slot.logged = end
            seat = state.to_move
            legal = state.legal_actions()
            if silent:  # catch mode: silent plays and catches, as maumau_v0 maps them
                found = legal_indices(legal, seat, n, True)
                slot.indices = tuple(found)
                slot.legal = tuple(found.values())
            else:
                slot.legal = legal
                try:
                    slot.indices = tuple(map(table.__getitem__, map(id, legal)))
                except KeyError:  # an action the table does not know
                    slot.indices = tuple(legal_indices(legal, seat, n, False))
            append(
                (
                    seat,
                    top,
                    state.named,
                    state.drawn if state.turn == seat else -1,
                    state.step,
                    state.pending,
                    state.direction,
                    len(state.stock),
                    slot.round_index,
                    state.catchable,
                    state.leader,
                    slot.pile,
                    *state.hands,
                    *codes,
                )
            )
        self._rows = rows

    # --- the arrays --------------------------------------------------------------------

    def _output(self) -> tuple[Floats, Bools, Ints, Floats, Bools]:
        count = self.num_envs
        width = self._width
        rows = np.fromiter(
            chain.from_iterable(self._rows), dtype=np.int64, count=count * width
        ).reshape(count, width)
        rules = self.rules
        encode_rows(rows, self._totals, self._won, rules.deck, rules.effective_limit, self.obs)
        self.to_move[:] = rows[:, 0]
        legal = [slot.indices for slot in self._slots]
        mask = self.mask
        mask[:] = False
        mask[
            np.repeat(self._every, list(map(len, legal))),
            np.fromiter(chain.from_iterable(legal), dtype=np.int64),
        ] = True
        out = (self.obs, mask, self.to_move, self.rewards, self.done)
        if self.copy:
            return tuple(a.copy() for a in out)  # type: ignore[return-value]
        return out


__all__ = ["BatchEnv", "random_actions"]
