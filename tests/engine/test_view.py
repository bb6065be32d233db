"""Hidden information (docs/rules.md#what-a-player-may-see): what a seat's view holds,
and that it does not depend on the cards the seat cannot see."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from maumau.engine import Action, Catch, Draw, Game, Layout, Play, SeatView
from maumau.engine.cards import CODES
from support.strategies import OTHER_CALLS, PROFILE, Setup, drawn_cards, play_round, scaled, setups

CODE_SET = frozenset(CODES)
OVER = 3  # Round.step


def cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def codes(cards_: list[int] | tuple[int, ...]) -> set[str]:
    return {CODES[c] for c in cards_}


def card_codes(obj: Any) -> Iterator[str]:
    """Every card code anywhere in a JSON-like value (keys and values)."""
    if isinstance(obj, str):
        if obj in CODE_SET:
            yield obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from card_codes(key)
            yield from card_codes(value)
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from card_codes(item)


def ints(obj: Any) -> Iterator[int]:
    if isinstance(obj, int) and not isinstance(obj, bool):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from ints(value)
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from ints(item)


def keys(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from keys(value)
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from keys(item)


def check_view(game: Game, seat: int | None) -> None:
    """``seat``'s view holds what docs/rules.md#what-a-player-may-see lets it see and
    nothing else."""
    r = game.round
    view = game.view(seat)
    data = view.to_json()
    assert json.loads(json.dumps(data)) == data
    over = r.step == OVER
    own = cards(r.hands[seat]) if seat is not None else []
    assert data["hand"] == [CODES[c] for c in own]
    assert data["counts"] == [h.bit_count() for h in r.hands]
    assert data["discard"] == [CODES[c] for c in r.discard] and data["top"] == CODES[r.discard[-1]]
    assert data["stock_count"] == len(r.stock)
    assert data["totals"] == list(game.totals) and data["rounds_won"] == list(game.rounds_won)
    assert data["pending"] == r.pending and data["direction"] == r.direction
    assert data["to_move"] == r.to_move
    if over:
        assert data["hands"] == [[CODES[c] for c in cards(h)] for h in r.hands], "revealed"
        assert data["out"] == r.out
    else:
        assert data["hands"] is None and data["out"] is None
    drawn_shown = r.drawn >= 0 and seat == r.turn and not over
    assert data["drawn"] == (CODES[r.drawn] if drawn_shown else None)

    # the log: plays are public, draws are counts except to the drawer
    assert len(data["log"]) == len(r.log)
    own_drawn: set[str] = set()
    played: set[str] = set()
    got = drawn_cards(r)
    for index, (entry, shown) in enumerate(zip(r.log, data["log"], strict=True)):
        kind = entry[0]
        if kind == "play":
            assert shown["play"] == CODES[entry[2]] and shown["seat"] == entry[1]
            played.add(shown["play"])
        elif kind in ("draw", "penalty"):
            who, drew = got[index]
            assert shown["seat"] == entry[1] == who and shown[kind] == len(drew)
            if who == seat:
                assert shown["cards"] == [CODES[c] for c in drew]
                own_drawn |= codes(drew)
            else:
                public = {"seat", kind} | ({"reason", "by"} if kind == "penalty" else set())
                assert set(shown) <= public, f"{seat} sees {shown}"
            if kind == "penalty":
                assert shown["reason"] == entry[3] in ("missed", "false", "caught")
                assert shown.get("by", -1) == entry[4]
        else:
            assert not set(card_codes(shown)), shown
    # the view object itself (what a bot is handed): other seats' draws are counts only
    for entry in view.log:
        if entry[0] in ("draw", "penalty") and entry[1] != seat:
            assert isinstance(entry[2], int), f"seat {seat}'s view holds {entry}"
    for index, _drew in getattr(view, "my_draws", ()):
        assert got[index][0] == seat

    # outside the log only the own hand and the discard pile show cards
    rest = {k: v for k, v in data.items() if k not in ("log", "hands")}
    visible = codes(own) | codes(r.discard)
    assert set(card_codes(rest)) <= visible
    if not over:
        unseen = codes(r.stock).union(
            *(codes(cards(h)) for s, h in enumerate(r.hands) if s != seat)
        )
        leaked = set(card_codes(data)) & unseen
        # an unseen card may be named only where it was played in public or drawn by
        # this seat earlier (and has since gone back into the piles or another hand)
        assert leaked <= played | own_drawn, f"seat {seat} sees {sorted(leaked)}"

    # no seed, salt or draw-pile order
    assert not {k for k in keys(data) if "seed" in k or "salt" in k or k == "stock"}
    names = {f.name for f in dataclasses.fields(SeatView)}
    assert not names & {"seed", "salt", "stock", "rng", "commitment_seed"}
    for dealt in game.rounds:
        if dealt.seed >= 10_000:
            assert dealt.seed not in set(ints(data)), "the seed shows in the view"


@PROFILE
@given(setups())
def test_a_view_holds_only_what_the_seat_may_see(setup: Setup) -> None:
    sample = random.Random(setup.seed)

    def check(game: Game, seat: int, action: Action) -> None:
        # every view at the start and the end of a round, a sample of them in between
        if game.round_over or not game.round.actions or sample.random() < 0.2:
            for s in [None, *range(game.n)]:
                check_view(game, s)

    game = setup.new_game()
    rng = random.Random(setup.policy)
    for index in range(2):
        if index:
            if game.finished:
                break
            game.deal(rng.getrandbits(64))
        check(game, -1, Draw())
        play_round(game, rng, after=check)


def test_a_spectator_sees_no_hand_and_no_drawn_card() -> None:
    game = Game.new("standard", players=3, seed=2024)
    rng = random.Random(5)
    play_round(game, rng, cap=40)
    data = game.view(None).to_json()
    assert data["seat"] is None and data["hand"] == [] and data["drawn"] is None
    assert all("cards" not in entry for entry in data["log"])
    assert any("draw" in entry for entry in data["log"])


def test_another_seats_draw_is_a_count() -> None:
    stock = [c for c in CODES if c not in {"8D", "KD", "3C", "2C", "9S", "4H", "9D", "5H"}]
    layout = Layout.parse(
        hands=[["8D", "KD", "3C"], ["2C", "9S", "4H"]],
        start="9D",
        stock=["5H", *stock],
        hand_size_free=True,
    )
    game = Game.new({}, players=2, seed=1, layout=layout)
    game.apply(Play(CODES.index("KD")), 0)  # KD: seat 1 cannot follow (2C 9S 4H)
    game.apply(Draw(1), 1)  # draws 5H, not playable on KD: the turn passes
    mine, theirs = game.view(1).to_json(), game.view(0).to_json()
    assert mine["log"][-1] == {"seat": 1, "draw": 1, "cards": ["5H"]}
    assert theirs["log"][-1] == {"seat": 1, "draw": 1}
    assert "5H" not in set(card_codes(theirs)) and "5H" in mine["hand"]


# --- the view does not depend on what the seat cannot see ---------------------------------


def layout_of(game: Game) -> Layout:
    r = game.round
    return Layout(
        tuple(tuple(cards(h)) for h in r.hands),
        r.discard[0],
        tuple(r.stock[::-1]),
    )


def permuted(layout: Layout, seat: int, how: str, rng: random.Random) -> Layout:
    """``layout`` with the cards ``seat`` cannot see shuffled, every count kept: among the
    other hands (``others``), within the draw pile (``stock``), or both (``all``)."""
    hands = [list(h) for h in layout.hands]
    stock = list(layout.stock)
    others = [s for s in range(len(hands)) if s != seat]
    pool: list[int] = []
    if how in ("others", "all"):
        pool += [c for s in others for c in hands[s]]
    if how in ("stock", "all"):
        pool += stock
    rng.shuffle(pool)
    if how in ("others", "all"):
        for s in others:
            size = len(hands[s])
            hands[s], pool = pool[:size], pool[size:]
    if how in ("stock", "all"):
        stock = pool
    return Layout(tuple(tuple(h) for h in hands), layout.start, tuple(stock))


def own_draws(game: Game, seat: int) -> list[Any]:
    return [(i, got) for i, (who, got) in sorted(drawn_cards(game.round).items()) if who == seat]


@scaled(4)
@given(setups(), st.sampled_from(["others", "stock", "all"]), st.data())
def test_a_view_does_not_change_when_unseen_cards_are_moved(
    setup: Setup, how: str, data: st.DataObject
) -> None:
    """Two deals that differ only in cards ``seat`` cannot see, played with the same
    public actions: ``seat``'s view (and a spectator's) is the same in both, and so are
    the actions ``seat`` may take, as long as ``seat``'s own cards are the same."""
    dealt = setup.new_game()
    seat = data.draw(st.integers(0, setup.players - 1), label="seat")
    rng = random.Random(setup.policy)
    layout_a = layout_of(dealt)
    layout_b = permuted(layout_a, seat, how, rng)
    event("layouts differ" if layout_b != layout_a else "layouts are the same")
    a = Game.new(setup.options, players=setup.players, seed=setup.seed, layout=layout_a)
    b = Game.new(setup.options, players=setup.players, seed=setup.seed, layout=layout_b)
    for steps in range(3000):
        ra, rb = a.round, b.round
        public_a, public_b = a.view(None).to_json(), b.view(None).to_json()
        if ra.step == OVER or rb.step == OVER:
            # the summary reveals the hands, which differ, and so do the points they
            # are worth; what happened in public is the same
            assert ra.step == rb.step == OVER
            unseen = ("hands", "totals", "finished", "winners")
            assert {k: v for k, v in public_a.items() if k not in unseen} == {
                k: v for k, v in public_b.items() if k not in unseen
            }
            event("synchronised to the end of the round")
            break
        assert public_a == public_b, f"after {steps} actions"
        private = ra.hands[seat] == rb.hands[seat] and own_draws(a, seat) == own_draws(b, seat)
        if not private:
            event("stopped: the seat drew other cards")
            break
        assert a.view(seat).to_json() == b.view(seat).to_json(), f"after {steps} actions"
        assert a.view(seat) == b.view(seat)
        assert a.legal_actions(seat) == b.legal_actions(seat)
        # a public action legal in both deals
        if ra.catchable >= 0 and rng.random() < 0.3:
            by = rng.choice([s for s in range(a.n) if s != ra.catchable])
            actor, action = by, Catch(ra.catchable)
        else:
            actor = a.to_move
            both = [x for x in a.legal_actions(actor) if x in set(b.legal_actions(actor))]
            both = [x for x in both if not isinstance(x, Catch)]
            if not both:
                event("stopped: no common action")
                break
            plays = [x for x in both if isinstance(x, Play)]
            action = rng.choice(plays) if plays and rng.random() < 0.75 else rng.choice(both)
            if isinstance(action, Play) and rng.random() < 0.1:
                action = Play(action.card, action.suit, rng.choice(OTHER_CALLS[action.call]))
        a.apply(action, actor)
        b.apply(action, actor)
        if isinstance(action, Draw) and (a.round.step, a.to_move) != (b.round.step, b.to_move):
            # whether a drawn card fits shows in what happens next: the public course
            # of the two deals parts here
            event("stopped: a drawn card fitted in one deal only")
            break


def test_the_shared_and_own_parts_make_each_seats_view() -> None:
    """What a server builds once per move (``public_json``) plus each seat's own part
    is exactly that seat's view, and the new log entries exactly its log."""
    from maumau.engine.view import events_json, public_json, seat_json

    rng = random.Random(7)
    for number, preset in enumerate(["penalty-100", "gamerules", "traditional"] * 4):
        game = Game.new(preset, players=rng.choice([2, 3, 4]), seed=number)
        for _ in range(300):
            if game.finished:
                break
            public = public_json(game)
            for seat in [None, *range(game.n)]:
                view = game.view(seat)
                assert seat_json(game, seat, public) == view.to_json(log=False)
                start = rng.randrange(len(view.log) + 1)
                assert events_json(game, seat, start) == view.log_json(start)
            if game.round_over:
                game.deal(rng.randrange(2**32))
                continue
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
