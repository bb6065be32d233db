"""Where probes go and the pieces they are made of (card codes, action objects, action
ids), for one campaign's games."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st

from lab.hostile.games import Context, GameCtx

T = TypeVar("T")


@dataclass
class Pieces:
    """The games, seats and connections probes go to, and the strategies they are made
    of (built once per game and seat)."""

    ctx: Context
    live: bool = True
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    # - where probes go -

    def games(self) -> list[GameCtx]:
        return list(self.ctx.games.values())

    def anywhere(self) -> st.SearchStrategy[tuple[GameCtx, str]]:
        pairs = [(g, who) for g in self.games() for who in self.ctx.targets(g)]
        return st.sampled_from(pairs)

    def seated(self) -> st.SearchStrategy[tuple[GameCtx, int]]:
        return st.sampled_from([(g, s) for g in self.games() for s in sorted(g.tokens)])

    def greeted(self) -> st.SearchStrategy[tuple[GameCtx, str]]:
        pairs = [(g, w) for g in self.games() for w in self.ctx.targets(g) if w != "fresh"]
        return st.sampled_from(pairs)

    # - pieces -

    def cached(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """Strategies are built once per game and seat (building them is slow)."""
        if key not in self.cache:
            self.cache[key] = make()
        made: T = self.cache[key]
        return made

    def fresh_id(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        return self.cached(("id", game.key, seat), lambda: self._fresh_id(game, seat))

    def _fresh_id(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        used = set(game.accepted_ids.get(seat, ())) if seat is not None else set()
        # any text but control characters (an id with one is refused: ``bad_message``)
        text = st.text(st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=64)
        ids = text | st.integers(0, 2**64).map(lambda n: f"h-{n:x}")
        return ids.filter(lambda i: i not in used)

    def plausible(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[dict[str, Any]]:
        """An action object the server reads without complaint (legal or not)."""
        return self.cached(("plausible", game.key, seat), lambda: self._plausible(game, seat))

    def _plausible(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[dict[str, Any]]:
        deck = game.deck
        jacks = [c for c in deck if c[0] == "J"]
        options: list[st.SearchStrategy[dict[str, Any]]] = [
            st.sampled_from(deck).map(lambda c: {"play": c}),
            st.tuples(st.sampled_from(jacks), st.sampled_from("CDHS")).map(
                lambda t: {"play": t[0], "suit": t[1]}
            ),
            st.sampled_from(deck).map(lambda c: {"play": c, "call": "mau"}),
            st.just({"draw": 1}),
            st.just({"draw": None}),
            st.just({"pass": True}),
            st.integers(0, 7).map(lambda k: {"catch": k}),
        ]
        legal = game.legal.get(seat, []) if seat is not None else []
        if legal:
            options.append(st.sampled_from(legal))
            options.append(st.sampled_from(legal))
        return st.one_of(options).map(dict)

    def hand_or_deck(self, game: GameCtx, seat: int) -> st.SearchStrategy[str]:
        hand = game.hands.get(seat) or game.deck
        return st.sampled_from(hand)

    def expect_valid(
        self, game: GameCtx, seat: int, version: int, action_id: str
    ) -> tuple[str, ...]:
        """The answer to a well-formed move whose action object reads fine."""
        if game.status == "lobby":
            return ("game_not_started",)
        if action_id in game.accepted_ids.get(seat, ()):
            return ("ack-duplicate",)
        if version != game.version:
            return ("stale_version",)
        if game.status == "finished":
            return ("game_over",)
        return ()  # an engine code
