"""A game: the seats, the rounds dealt one after another, and the score
(docs/rules.md#scoring).

>>> from maumau.engine import Game
>>> game = Game.new("penalty-100", players=["Ana", "Ben"], seed=7)
>>> seat = game.to_move
>>> game.apply(game.legal_actions()[0])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from maumau.engine.actions import Action
from maumau.engine.cards import CODES, cards_of, deck_mask, parse_card
from maumau.engine.errors import BadCard, BadLayout, BadOption, IllegalAction
from maumau.engine.options import Rules
from maumau.engine.round import OVER, Round
from maumau.engine.table import table_for
from maumau.engine.view import SeatView, seat_view


@dataclass(frozen=True, slots=True)
class Layout:
    """A round laid out by hand: hands in seat order, the start card, the draw pile
    (first card drawn first), as card ints."""

    hands: tuple[tuple[int, ...], ...]
    start: int
    stock: tuple[int, ...]
    hand_size_free: bool = False

    @classmethod
    def parse(
        cls,
        hands: Sequence[Sequence[str]],
        start: str,
        stock: Sequence[str],
        hand_size_free: bool = False,
    ) -> Layout:
        """A layout from card codes, e.g. ``Layout.parse([["8D"], ["2C"]], "8S", [...])``."""
        return cls(
            tuple(tuple(parse_card(c) for c in hand) for hand in hands),
            parse_card(start),
            tuple(parse_card(c) for c in stock),
            hand_size_free,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hands": [[CODES[c] for c in hand] for hand in self.hands],
            "start": CODES[self.start],
            "stock": [CODES[c] for c in self.stock],
        }
        if self.hand_size_free:
            out["hand_size_free"] = True
        return out


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended and the running score after it."""

    out: int
    hand_values: tuple[int, ...]
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    #: every hand when the round ended, as card codes (revealed for the summary)
    hands: tuple[tuple[str, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "hand_values": list(self.hand_values),
            "totals": list(self.totals),
            "rounds_won": list(self.rounds_won),
        }


@dataclass(slots=True)
class DealtRound:
    """What a game remembers of each round for its record."""

    seed: int
    layout: Layout | None
    state: Round
    commitment: str | None = None
    salt: str | None = None


def check_layout(rules: Rules, players: int, layout: Layout) -> None:
    """Raise :class:`BadLayout` / :class:`BadCard` unless ``layout`` is exactly one deck
    of the game's size dealt to ``players`` seats with the right hand sizes."""
    deck = deck_mask(rules.deck)
    if len(layout.hands) != players:
        raise BadLayout(f"the layout has {len(layout.hands)} hands for {players} players")
    seen = 0
    cards = [c for hand in layout.hands for c in hand] + [layout.start, *layout.stock]
    for card in cards:
        if not deck >> card & 1:
            raise BadCard(f"{CODES[card]} is not in the {rules.deck}-card deck")
        if seen >> card & 1:
            raise BadLayout(f"{CODES[card]} appears twice in the layout")
        seen |= 1 << card
    if seen != deck:
        missing = " ".join(str(c) for c in cards_of(deck & ~seen))
        raise BadLayout(f"the layout is not a whole deck: missing {missing}")
    for seat, hand in enumerate(layout.hands):
        if layout.hand_size_free:
            if not hand:
                raise BadLayout(f"hand {seat} is empty")
        elif len(hand) != rules.hand_size:
            raise BadLayout(
                f"hand {seat} has {len(hand)} cards, hand_size is {rules.hand_size} "
                '(set "hand_size_free": true for a puzzle layout)'
            )


class Game:
    """A whole game of Mau Mau: the rules, the seats, the rounds and the score."""

    def __init__(self, rules: Rules, players: Sequence[str]) -> None:
        rules.check_players(len(players))
        self.rules = rules
        self.players: tuple[str, ...] = tuple(players)
        self.n = len(players)
        self.table = table_for(rules)
        self.rounds: list[DealtRound] = []
        self.results: list[RoundResult] = []
        self.totals = [0] * self.n
        self.rounds_won = [0] * self.n
        self.finished = False
        self.winners: tuple[int, ...] | None = None
        self.draw = False
        #: what decided the winner: "out" (single, reward), "fewest_points",
        #: "rounds_won" (the tie-break) or "draw"
        self.decided_by: str | None = None
        self._state: Round | None = None
        #: counts every accepted action and every deal; a client's "state version"
        self.version = 0

    @classmethod
    def new(
        cls,
        rules: Rules | Mapping[str, Any] | str | None = None,
        players: int | Sequence[str] = 2,
        seed: int | None = None,
        layout: Layout | None = None,
    ) -> Game:
        """A new game.  ``rules`` is a :class:`Rules`, an options mapping or a preset
        name; ``players`` a count or the seat names.  With a ``seed`` (and optionally a
        ``layout``) the first round is dealt at once."""
        if isinstance(rules, str):
            rules = Rules.from_preset(rules)
        elif not isinstance(rules, Rules):
            rules = Rules.from_dict(rules)
        if isinstance(players, int) and not isinstance(players, bool):
            rules.check_players(players)
            names: Sequence[str] = [f"Player {i + 1}" for i in range(players)]
        elif isinstance(players, Sequence) and not isinstance(players, str):
            names = players
        else:
            raise BadOption(f"players: give a count or a list of names, not {players!r}")
        game = cls(rules, names)
        if seed is not None:
            game.deal(seed, layout)
        return game

    # --- rounds ------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        """The current (or last) round's state."""
        if not self.rounds:
            raise IllegalAction("round_not_over", "no round has been dealt yet")
        return self.rounds[-1].state

    @property
    def round_index(self) -> int:
        return len(self.rounds) - 1

    @property
    def next_leader(self) -> int:
        """Seat 0 leads round 1; then the next seat round the table."""
        return len(self.rounds) % self.n

    def deal(
        self,
        seed: int,
        layout: Layout | None = None,
        commitment: str | None = None,
        salt: str | None = None,
    ) -> Round:
        """Deal the next round from ``seed`` (which also drives its reshuffles), or lay
        it out as ``layout`` says."""
        if self.finished:
            raise IllegalAction("game_over", "the game is over: no more rounds")
        if self.rounds and self.rounds[-1].state.step != OVER:
            raise IllegalAction("round_not_over", "the current round has not ended")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise BadOption(f"seed: must be a whole number, not {seed!r}")
        leader = self.next_leader
        if layout is None:
            state = Round.deal(self.table, self.n, seed, leader)
        else:
            check_layout(self.rules, self.n, layout)
            state = Round.from_layout(
                self.table,
                [list(h) for h in layout.hands],
                layout.start,
                list(layout.stock),
                seed,
                leader,
            )
        self.rounds.append(DealtRound(seed, layout, state, commitment, salt))
        self._state = state
        self.version += 1
        return state

    # --- playing -----------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """The seat the game waits for (-1 between rounds and when it is over)."""
        if not self.rounds:
            return -1
        return self.rounds[-1].state.to_move

    @property
    def round_over(self) -> bool:
        """True between rounds (and before the first deal)."""
        state = self._state
        return state is None or state.step == OVER

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """The actions ``seat`` (default: the seat to move) may take now."""
        state = self._state
        if state is None:
            return ()
        return state.legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for ``seat`` (default: the seat to move).  An illegal action
        raises :class:`IllegalAction` and changes nothing."""
        state = self._state
        if state is None:
            raise IllegalAction("round_not_over", "no round has been dealt yet")
        state.apply(action, seat)
        self.version += 1
        if state.step == OVER:
            self._score(state)

    def settle(self) -> None:
        """Score the current round once it was played to its end on its :class:`Round`
        directly (a search's fast playout) rather than through :meth:`apply`."""
        state = self._state
        if state is None or state.step != OVER:
            raise IllegalAction("round_not_over", "the current round has not ended")
        if len(self.results) == len(self.rounds):
            raise IllegalAction("round_not_over", "the current round is scored already")
        self._score(state)

    def _score(self, state: Round) -> None:
        values = self.table.values
        hand_values = []
        hands = []
        for hand in state.hands:
            cards = cards_of(hand)
            hands.append(tuple(CODES[c] for c in cards))
            hand_values.append(sum(values[c] for c in cards))
        out = state.out
        rules = self.rules
        mode = rules.scoring
        if mode in ("penalty", "deals"):
            for seat, value in enumerate(hand_values):
                self.totals[seat] += value
        elif mode == "reward":
            self.totals[out] += sum(hand_values)
        self.rounds_won[out] += 1
        self.results.append(
            RoundResult(
                out, tuple(hand_values), tuple(self.totals), tuple(self.rounds_won), tuple(hands)
            )
        )
        limit = rules.effective_limit
        if mode == "single" or (mode == "reward" and self.totals[out] >= limit):
            self._end((out,), "out")
        elif (mode == "penalty" and max(self.totals) >= limit) or (
            mode == "deals" and len(self.results) >= rules.deals
        ):
            self._end_on_fewest_points()

    def _end_on_fewest_points(self) -> None:
        low = min(self.totals)
        tied = [s for s in range(self.n) if self.totals[s] == low]
        if len(tied) == 1:
            self._end((tied[0],), "fewest_points")
            return
        most = max(self.rounds_won[s] for s in tied)
        winners = tuple(s for s in tied if self.rounds_won[s] == most)
        self._end(winners, "rounds_won" if len(winners) == 1 else "draw")

    def _end(self, winners: tuple[int, ...], decided_by: str) -> None:
        self.finished = True
        self.winners = winners
        self.draw = len(winners) > 1
        self.decided_by = decided_by

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see (``None``: a spectator); see :mod:`maumau.engine.view`."""
        return seat_view(self, seat)
