"""Hypothesis strategies and random-play helpers shared by the property tests.

* :func:`option_dicts` draws option mappings over every key and value range of
  docs/rules.md#options, optionally starting from a preset; :func:`setups` adds a player
  count the options allow and a seed.
* :func:`choose_action` is a random legal player (with a taste for forgetful plays and
  for catches) driven by a plain ``random.Random``, so a whole game is reproduced from
  one integer that hypothesis can print.
* :func:`snapshot` / :func:`check_conservation` look at a round's state.

The settings profiles ``maumau-fast`` (default) and ``maumau-thorough`` are chosen with
the environment variable ``MAUMAU_TEST_HYPOTHESIS_PROFILE``; tests apply them with
``@PROFILE`` so other test files' hypothesis settings are left alone.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from maumau.engine import PRESETS, Action, BadOption, Catch, Game, Play, Round, Rules
from maumau.engine.cards import deck_mask

# --- settings profiles -------------------------------------------------------------------

settings.register_profile(
    "maumau-fast",
    max_examples=25,  # per test, scaled by @scaled(...)
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "maumau-thorough",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
PROFILE = settings(
    settings.get_profile(os.environ.get("MAUMAU_TEST_HYPOTHESIS_PROFILE", "maumau-fast"))
)


def scaled(factor: float) -> settings:
    """The active profile with ``max_examples`` scaled (at least 5)."""
    return settings(PROFILE, max_examples=max(5, int(PROFILE.max_examples * factor)))


# --- options -------------------------------------------------------------------------

#: every option key with a strategy over its whole value range (docs/rules.md#options)
OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "deck": st.sampled_from([52, 32]),
    "hand_size": st.integers(3, 10),
    "draw_when_able": st.booleans(),
    "seven_draw": st.sampled_from([2, 3]),
    "seven_stacking": st.booleans(),
    "eight_skips": st.booleans(),
    "nine_reverses": st.booleans(),
    "ace_skips": st.booleans(),
    "jack_on_jack": st.booleans(),
    "mau_penalty": st.sampled_from(["auto", "catch", "off"]),
    "mau_penalty_cards": st.integers(1, 5),
    "scoring": st.sampled_from(["single", "penalty", "deals", "reward"]),
    "limit": st.integers(50, 1000),
    "deals": st.integers(1, 50),
    "jack_value": st.integers(0, 50),
    "ace_value": st.integers(0, 50),
    "card_values": st.sampled_from(["face", "traditional"]),
}

#: shorter multi-round games: small limits and few deals, high card values
SHORT_GAME_VALUES: dict[str, st.SearchStrategy[Any]] = {
    **OPTION_VALUES,
    "limit": st.one_of(st.integers(50, 80), st.integers(50, 1000)),
    "deals": st.one_of(st.integers(1, 4), st.integers(1, 50)),
    "jack_value": st.one_of(st.integers(20, 50), st.integers(0, 50)),
    "ace_value": st.one_of(st.integers(11, 50), st.integers(0, 50)),
}


@st.composite
def option_dicts(
    draw: st.DrawFn,
    values: dict[str, st.SearchStrategy[Any]] | None = None,
    *,
    forced: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A valid options mapping: maybe a preset, then any subset of the keys with any
    allowed values.  ``forced`` keys are set as given (e.g. ``{"mau_penalty": "auto"}``)."""
    values = OPTION_VALUES if values is None else values
    options: dict[str, Any] = {}
    preset = draw(st.one_of(st.none(), st.sampled_from(sorted(PRESETS))))
    if preset is not None:
        options["preset"] = preset
    keys = draw(st.sets(st.sampled_from(sorted(values))))
    for key in sorted(keys):
        options[key] = draw(values[key])
    if forced:
        options.update(forced)
    return options


def player_counts(rules: Rules) -> list[int]:
    """The player counts these rules accept (docs/rules.md#cards-and-deal)."""
    counts = []
    for n in range(2, 9):
        try:
            rules.check_players(n)
        except BadOption:
            continue
        counts.append(n)
    return counts


@dataclass(frozen=True)
class Setup:
    """Options, a compatible player count, the first round's seed and a policy seed."""

    options: dict[str, Any]
    players: int
    seed: int
    policy: int

    @property
    def rules(self) -> Rules:
        return Rules.from_dict(self.options)

    def new_game(self) -> Game:
        return Game.new(self.options, players=self.players, seed=self.seed)


seeds = st.integers(0, 2**64 - 1)


@st.composite
def setups(
    draw: st.DrawFn,
    values: dict[str, st.SearchStrategy[Any]] | None = None,
    *,
    forced: dict[str, Any] | None = None,
) -> Setup:
    """A :class:`Setup` whose player count the options allow."""
    options = draw(option_dicts(values, forced=forced))
    counts = player_counts(Rules.from_dict(options))
    assert counts, f"no player count fits {options}"  # two players always fit
    players = draw(st.sampled_from(counts))
    return Setup(options, players, draw(seeds), draw(seeds))


# --- looking at a round -------------------------------------------------------------


def snapshot(r: Round, *, rng: bool = True) -> tuple[Any, ...]:
    """Everything an action can change in a round (the reshuffle generator's state only
    with ``rng``: it is the slow part)."""
    return (
        tuple(r.hands),
        tuple(r.stock),
        tuple(r.discard),
        r.match,
        r.named,
        r.pending,
        r.direction,
        r.turn,
        r.step,
        r.drawn,
        r.catchable,
        r.out,
        len(r.log),
        r.log[-1:],
        len(r.actions),
        r.actions[-1:],
        r.rng.getstate() if rng else None,
    )


def drawn_cards(r: Round) -> dict[int, tuple[int, tuple[int, ...]]]:
    """What each draw in the round's log drew: ``{log index: (seat, cards)}``.  The
    engine keeps the cards apart from the public log (``Round.private``); an older log
    held them in the entry itself."""
    private = getattr(r, "private", None)
    if private is not None:
        return {i: (seat, tuple(got)) for seat, mine in enumerate(private) for i, got in mine}
    return {i: (e[1], tuple(e[2])) for i, e in enumerate(r.log) if e[0] in ("draw", "penalty")}


def check_conservation(game: Game) -> None:
    """Every card of the game's pack is exactly once in a hand, the draw pile or the
    discard pile, and no card of another pack size appears."""
    r = game.round
    deck = deck_mask(game.rules.deck)
    size = bin(deck).count("1")
    seen = 0
    count = 0
    where: dict[int, str] = {}
    places: list[tuple[str, list[int]]] = [
        (f"hand {s}", [c for c in range(52) if h >> c & 1]) for s, h in enumerate(r.hands)
    ]
    places += [("stock", r.stock), ("discard", r.discard)]
    for name, cards in places:
        for c in cards:
            assert 0 <= c < 52, f"{c!r} in {name} is not a card"
            assert deck >> c & 1, f"card {c} in {name} is not in the {game.rules.deck}-card pack"
            assert not seen >> c & 1, f"card {c} is in {where[c]} and in {name}"
            seen |= 1 << c
            where[c] = name
            count += 1
    assert seen == deck, f"missing cards: {[c for c in range(52) if (deck & ~seen) >> c & 1]}"
    assert count == size
    assert r.discard, "the discard pile is never empty"


# --- a random player -------------------------------------------------------------------

OTHER_CALLS: dict[str | None, tuple[str | None, ...]] = {
    None: ("mau", "maumau"),
    "mau": (None, "maumau"),
    "maumau": (None, "mau"),
}


def choose_action(
    game: Game, rng: random.Random, forget: float = 0.1, catch: float = 0.5
) -> tuple[int, Action]:
    """A random legal (seat, action) for the current state: a listed action of the seat
    to move (plays preferred), or now and then a catch by another seat, or a listed play
    made with another call (a forgetful player; legal but not listed,
    docs/rules.md#calling-mau)."""
    r = game.round
    if r.catchable >= 0 and rng.random() < catch:
        seat = rng.choice([s for s in range(game.n) if s != r.catchable])
        return seat, Catch(r.catchable)
    seat = game.to_move
    acts = [a for a in game.legal_actions(seat) if not isinstance(a, Catch)]
    assert acts, f"seat {seat} has no legal action while the round runs"
    plays = [a for a in acts if isinstance(a, Play)]
    action = rng.choice(plays) if plays and rng.random() < 0.75 else rng.choice(acts)
    if isinstance(action, Play) and rng.random() < forget:
        action = Play(action.card, action.suit, rng.choice(OTHER_CALLS[action.call]))
    return seat, action


Hook = Callable[[Game, int, Action], None]


def play_round(
    game: Game,
    rng: random.Random,
    *,
    cap: int = 3000,
    forget: float = 0.1,
    before: Hook | None = None,
    after: Hook | None = None,
) -> list[tuple[int, Action]]:
    """Play the current round with :func:`choose_action` until it ends or ``cap``
    actions were taken; ``before``/``after`` see every action.  Returns the inputs."""
    inputs: list[tuple[int, Action]] = []
    while not game.round_over and len(inputs) < cap:
        seat, action = choose_action(game, rng, forget)
        if before is not None:
            before(game, seat, action)
        game.apply(action, seat)
        inputs.append((seat, action))
        if after is not None:
            after(game, seat, action)
    return inputs
