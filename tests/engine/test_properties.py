"""Property tests: random options (every key and range of docs/rules.md#options, presets
included) and random legal play, checked against the rule book after every action.

Each game is driven by :func:`strategies.choose_action` from one policy seed, so a
failing example prints as (options, players, seed, policy) and replays exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from maumau.engine import (
    OPTION_KEYS,
    Action,
    Catch,
    Draw,
    Game,
    IllegalAction,
    Pass,
    Play,
    Round,
)
from maumau.engine.cards import ACE, EIGHT, JACK, NINE, SEVEN, deck_mask
from support.strategies import (
    OPTION_VALUES,
    OTHER_CALLS,
    PROFILE,
    SHORT_GAME_VALUES,
    Setup,
    check_conservation,
    drawn_cards,
    play_round,
    scaled,
    setups,
    snapshot,
)

DRAWN, WAIT, OVER = 1, 2, 3  # Round.step values (round.py)
ROUNDS = 3  # rounds per multi-round game in the walks (the game may end sooner)

# --- helpers ---------------------------------------------------------------------------


def cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def next_seed(rng: random.Random) -> int:
    return rng.getrandbits(64)


def walk(
    setup: Setup,
    rounds: int = ROUNDS,
    *,
    cap: int = 3000,
    forget: float = 0.1,
    before: Any = None,
    after: Any = None,
) -> Game:
    """Play up to ``rounds`` rounds of random legal play, dealing between rounds."""
    game = setup.new_game()
    rng = random.Random(setup.policy)
    for index in range(rounds):
        if index:
            if game.finished:
                break
            game.deal(next_seed(rng))
        play_round(game, rng, cap=cap, forget=forget, before=before, after=after)
        if not game.round_over:
            event("round hit the action cap")
            break
    return game


def due_call(game: Game, seat: int) -> str | None:
    """The call a careful player makes when ``seat`` plays one card now
    (docs/rules.md#calling-mau)."""
    if game.rules.mau_penalty == "off":
        return None
    left = game.round.hands[seat].bit_count() - 1
    return {0: "maumau", 1: "mau"}.get(left)


def fits(game: Game, card: int, r: Round | None = None) -> bool:
    """May ``card`` go on the discard pile of ``r`` (default: the current round), nothing
    pending (docs/rules.md#a-turn, docs/rules.md#action-cards)?  The named suit is read
    from the public log."""
    r = game.round if r is None else r
    rules = game.rules
    top = r.discard[-1]
    if card % 13 == JACK:
        return top % 13 != JACK or rules.jack_on_jack
    if top % 13 != JACK:
        return card // 13 == top // 13 or card % 13 == top % 13
    named = last_named(r)
    return named is None or card // 13 == named  # a start Jack names no suit


def last_named(r: Round) -> int | None:
    for entry in reversed(r.log):
        if entry[0] == "play":
            return entry[3] if entry[2] % 13 == JACK else None
    return None


def pending_from_log(game: Game) -> int:
    """The pending Seven sum, from the public log (docs/rules.md#action-cards)."""
    pending = 0
    for entry in game.round.log:
        if entry[0] == "play" and entry[2] % 13 == SEVEN:
            pending += game.rules.seven_draw
        elif entry[0] == "draw" and pending:
            pending = 0
    return pending


def plays_of(card: int, call: str | None) -> list[Play]:
    if card % 13 == JACK:
        return [Play(card, s, call) for s in range(4)]
    return [Play(card, None, call)]


def expected_legal(game: Game, seat: int) -> Counter[Action]:
    """The listed actions of ``seat``, worked out from the rule book (docs/rules.md#a-turn
    to docs/rules.md#calling-mau)."""
    r = game.round
    rules = game.rules
    out: Counter[Action] = Counter()
    if r.step == OVER:
        return out
    if r.step == WAIT:
        accepter = r.turn if r.turn != r.catchable else (r.turn + 1) % game.n
        if seat == accepter:
            out[Pass()] += 1
        if seat != r.catchable:
            out[Catch(r.catchable)] += 1
        return out
    if r.catchable >= 0 and seat != r.catchable:
        out[Catch(r.catchable)] += 1
    if seat != r.turn:
        return out
    hand = cards(r.hands[seat])
    call = due_call(game, seat)
    avail = len(r.stock) + len(r.discard) - 1
    pending = pending_from_log(game)
    if r.step == DRAWN:
        assert r.drawn in hand and fits(game, r.drawn)
        out.update(plays_of(r.drawn, call))
        out[Pass()] += 1
        return out
    if pending:
        playable = [c for c in hand if c % 13 == SEVEN and rules.seven_stacking]
    else:
        playable = [c for c in hand if fits(game, c)]
    for c in playable:
        out.update(plays_of(c, call))
    if pending:
        out[Draw(min(pending, avail))] += 1
    elif avail and (rules.draw_when_able or not playable):
        out[Draw(1)] += 1
    elif not avail and not playable:
        out[Pass()] += 1
    return out


def game_state(game: Game, *, rng: bool = True) -> tuple[Any, ...]:
    r = game.round
    return (snapshot(r, rng=rng), game.version, tuple(game.totals), len(game.results))


def refused(
    game: Game,
    action: Action,
    seat: int,
    code: str,
    before: tuple[Any, ...] | None = None,
    *,
    rng: bool = True,
) -> None:
    """``action`` by ``seat`` is refused with ``code`` and changes nothing (``before``:
    :func:`game_state` before the attempt, if known)."""
    if before is None:
        before = game_state(game, rng=rng)
    try:
        game.apply(action, seat)
    except IllegalAction as error:
        assert error.code == code, f"{action} by seat {seat}: {error.code} ({error})"
    else:
        raise AssertionError(f"{action} by seat {seat} was accepted, expected {code}")
    assert game_state(game, rng=rng) == before, f"refused {action} by seat {seat} changed the state"


# --- the strategies themselves ----------------------------------------------------------


def test_the_option_strategy_covers_every_key() -> None:
    """strategies.OPTION_VALUES must follow the engine's option keys
    (docs/rules.md#options)."""
    assert set(OPTION_VALUES) == set(OPTION_KEYS)
    assert set(SHORT_GAME_VALUES) == set(OPTION_KEYS)


# --- 1. card conservation ------------------------------------------------------------


@scaled(4)
@given(setups())
def test_every_card_is_exactly_once_in_a_hand_or_a_pile(setup: Setup) -> None:
    def check(game: Game, seat: int, action: Action) -> None:
        check_conservation(game)

    game = setup.new_game()
    check_conservation(game)
    rng = random.Random(setup.policy)
    for index in range(ROUNDS):
        if index:
            if game.finished:
                break
            game.deal(next_seed(rng))
            check_conservation(game)
        play_round(game, rng, after=check)


# --- 2. listed actions: exactly the rule book's (docs/rules.md), and all apply ---------


@scaled(2)
@given(setups())
def test_listed_actions_are_the_rule_books_and_all_apply(setup: Setup) -> None:
    def check(game: Game, seat: int, action: Action) -> None:
        r = game.round
        assert r.pending == pending_from_log(game)
        assert (r.named if r.named >= 0 else None) == (
            last_named(r) if r.discard[-1] % 13 == JACK else None
        )
        for s in range(game.n):
            listed = game.legal_actions(s)
            assert Counter(listed) == expected_legal(game, s), f"seat {s}: {listed}"
            for a in listed:
                r.copy().apply(a, s)
        assert game.legal_actions() == game.legal_actions(game.to_move)

    walk(setup, before=check)


# --- 3. what is not listed is refused with the right code --------------------------------


@scaled(1.5)
@given(setups())
def test_unlisted_actions_are_refused_with_the_right_code(setup: Setup) -> None:
    def check(game: Game, seat: int, action: Action) -> None:
        rng_state = game.round.rng.getstate()
        attempt_all(game)
        assert game.round.rng.getstate() == rng_state

    def attempt_all(game: Game) -> None:
        r = game.round
        n = game.n
        mover = game.to_move
        deck = deck_mask(game.rules.deck)
        state = game_state(game, rng=False)

        def expect_refused(  # the state before is the same for every attempt here
            game: Game, action: Action, seat: int, code: str
        ) -> None:
            refused(game, action, seat, code, state, rng=False)

        for s in range(n):
            listed = set(game.legal_actions(s))
            # catches: whatever is not listed is refused
            for t in range(n):
                if Catch(t) not in listed:
                    expect_refused(game, Catch(t), s, "nothing_to_catch")
            if s != mover:
                hand = cards(r.hands[s])
                for c in hand[:3]:
                    expect_refused(game, plays_of(c, None)[0], s, "not_your_turn")
                expect_refused(game, Draw(), s, "not_your_turn")
                expect_refused(game, Pass(), s, "not_your_turn")
        expect_refused(game, Play(0), n, "not_your_turn")
        listed = set(game.legal_actions(mover))
        if r.step == WAIT:
            for c in [*cards(r.hands[mover])[:3], 0]:
                expect_refused(game, plays_of(c, None)[0], mover, "must_pass")
            expect_refused(game, Draw(), mover, "must_pass")
            return
        hand = r.hands[mover]
        call = due_call(game, mover)
        pending = r.pending
        for c in range(52):
            play = plays_of(c, call)[0]
            if play in listed:
                # a listed card with a wrong suit
                if c % 13 == JACK:
                    expect_refused(game, Play(c, None, call), mover, "suit_required")
                else:
                    expect_refused(game, Play(c, c // 13, call), mover, "bad_suit")
                continue
            if not hand >> c & 1:
                code = "card_not_in_hand"
            elif pending:
                code = "must_draw"
            else:
                code = "card_not_playable"
            assert deck >> c & 1 or code == "card_not_in_hand"
            expect_refused(game, play, mover, code)
        draws = [a for a in listed if isinstance(a, Draw)]
        if draws:
            (draw,) = draws
            assert draw.count is not None
            expect_refused(game, Draw(draw.count + 1), mover, "wrong_draw_count")
            if draw.count:
                expect_refused(game, Draw(draw.count - 1), mover, "wrong_draw_count")
        elif r.step == DRAWN:
            expect_refused(game, Draw(), mover, "already_drawn")
        elif len(r.stock) + len(r.discard) == 1:
            expect_refused(game, Draw(), mover, "cannot_draw")
        else:
            assert not game.rules.draw_when_able
            expect_refused(game, Draw(), mover, "must_play")
        if Pass() not in listed:
            expect_refused(game, Pass(), mover, "cannot_pass")

    game = walk(setup, before=check)
    if not game.round_over:
        with pytest.raises(IllegalAction) as info:
            game.deal(1)
        assert info.value.code == "round_not_over"
        return
    for s in range(game.n):
        refused(game, Draw(), s, "round_over")
        refused(game, Pass(), s, "round_over")
        refused(game, Catch((s + 1) % game.n), s, "round_over")
    if game.finished:
        with pytest.raises(IllegalAction) as info:
            game.deal(1)
        assert info.value.code == "game_over"


# --- 4. forgetful plays: legal but not listed ----------------------------------------------


@scaled(1.5)
@given(setups(), st.sampled_from(["auto", "catch", "off"]))
def test_a_play_with_another_call_is_judged_by_the_mau_mode(setup: Setup, mode: str) -> None:
    setup = Setup({**setup.options, "mau_penalty": mode}, setup.players, setup.seed, setup.policy)
    penalty = setup.rules.mau_penalty_cards

    def check(game: Game, seat: int, action: Action) -> None:
        r = game.round
        mover = r.turn
        plays = [a for a in game.legal_actions(mover) if isinstance(a, Play)]
        left = r.hands[mover].bit_count() - 1
        avail = len(r.stock) + len(r.discard)  # everything under the played card
        for listed in plays[:2]:
            due = listed.call
            assert due == due_call(game, mover)
            for call in OTHER_CALLS[due]:
                q = r.copy()
                q.apply(Play(listed.card, listed.suit, call), mover)
                assert q.discard[-1] == listed.card, "the card played still counts"
                held = q.hands[mover].bit_count()
                if mode == "auto":
                    got = min(penalty, avail)
                    assert held == left + got, f"{call!r} for {due!r}: {held} cards"
                    assert q.log[-1][0] == "penalty" or (left == 0 and got == 0)
                    assert (q.step == OVER) == (left + got == 0)
                    assert q.catchable == -1
                elif mode == "catch":
                    assert held == left, "no penalty without a catch"
                    if due is None:  # a call when none is due is not punished
                        assert q.catchable == -1
                        continue
                    assert q.catchable == mover
                    assert (q.step == WAIT) == (left == 0)
                    for s in range(game.n):
                        assert (Catch(mover) in q.legal_actions(s)) == (s != mover)
                    catcher = (mover + 1) % game.n
                    avail_now = len(q.stock) + len(q.discard) - 1
                    q.apply(Catch(mover), catcher)
                    got = min(penalty, avail_now)
                    assert q.hands[mover].bit_count() == left + got
                    assert (q.step == OVER) == (left + got == 0)
                    assert q.catchable == -1
                    assert Catch(mover) not in q.legal_actions(catcher)
                else:
                    assert held == left
                    assert (q.step == OVER) == (left == 0)
                    assert q.catchable == -1

    walk(setup, before=check, forget=0.3)


@scaled(0.5)
@given(setups(forced={"mau_penalty": "catch"}))
@example(Setup({"mau_penalty": "catch"}, players=2, seed=30, policy=2066))
def test_a_missed_call_can_be_caught_only_until_the_next_action(setup: Setup) -> None:
    """docs/rules.md#calling-mau (catch): after a play that missed "Mau", any opponent
    may catch that player until the next action of anyone; then it is too late."""
    due: list[str | None] = [None]

    def before(game: Game, seat: int, action: Action) -> None:
        due[0] = due_call(game, seat) if seat == game.round.turn else None

    def after(game: Game, seat: int, action: Action) -> None:
        missed = isinstance(action, Play) and due[0] is not None and action.call != due[0]
        r = game.round
        assert r.catchable == (seat if missed else -1), f"after {action} by seat {seat}"
        for s in range(game.n):
            catches = [a for a in game.legal_actions(s) if isinstance(a, Catch)]
            assert catches == ([Catch(seat)] if missed and s != seat else [])

    walk(setup, before=before, after=after, forget=0.3)


# --- 5. determinism and replay ---------------------------------------------------------------


def state_of(game: Game, views: bool = True) -> tuple[Any, ...]:
    """The whole state of ``game`` (with every seat's and a spectator's view)."""
    seats = [None, *range(game.n)] if views else []
    r = game.round
    return (
        snapshot(r),
        tuple(r.log),
        tuple(r.actions),
        r.rng.getstate(),
        tuple(game.totals),
        tuple(game.rounds_won),
        tuple(game.results),
        game.finished,
        game.winners,
        game.version,
        tuple(game.view(s).to_json() for s in seats),
    )


@PROFILE
@given(setups())
def test_same_options_seed_and_actions_give_the_same_game(setup: Setup) -> None:
    states: list[tuple[Any, ...]] = []
    seeds: list[int] = []
    inputs: list[list[tuple[int, Action]]] = []

    def record(game: Game, seat: int, action: Action) -> None:
        # the views are slow to build: every fifth action and at the end of a round
        states.append(state_of(game, views=len(states) % 5 == 0 or game.round_over))

    game = setup.new_game()
    rng = random.Random(setup.policy)
    seeds.append(setup.seed)
    for index in range(ROUNDS):
        if index:
            if game.finished or not game.round_over:
                break
            seeds.append(next_seed(rng))
            game.deal(seeds[-1])
        inputs.append(play_round(game, rng, after=record))

    # the same inputs on a new game: the same state after every action
    again = Game.new(setup.options, players=setup.players)
    replayed: list[tuple[Any, ...]] = []
    for seed, actions in zip(seeds, inputs, strict=True):
        again.deal(seed)
        for seat, action in actions:
            again.apply(action, seat)
            replayed.append(state_of(again, views=len(replayed) % 5 == 0 or again.round_over))
    assert replayed == states

    # the actions as the engine recorded them (draws with their counts) replay too
    third = Game.new(setup.options, players=setup.players)
    for dealt in game.rounds:
        third.deal(dealt.seed)
        for seat, action in dealt.state.actions:
            third.apply(action, seat)
    assert state_of(third) == state_of(game)
    assert [r.state.log for r in third.rounds] == [r.state.log for r in game.rounds]


@scaled(4)
@given(setups())
def test_reshuffles_follow_the_seeded_algorithm(setup: Setup) -> None:
    """docs/rules.md#cards-and-deal: each reshuffle is ``rng.shuffle`` of the discard pile
    without its top card, oldest first, with the round's ``random.Random(seed)`` after the
    deal's shuffle; the result is drawn from its first card."""
    rngs: list[random.Random] = []

    def start_round(game: Game) -> None:
        rng = random.Random(game.rounds[-1].seed)
        rng.shuffle([c for c in range(52) if deck_mask(game.rules.deck) >> c & 1])
        rngs.append(rng)

    before_action: list[tuple[int, list[int], list[int]]] = []

    def before(game: Game, seat: int, action: Action) -> None:
        r = game.round
        before_action.append((len(r.log), r.stock[::-1], r.discard[:]))  # stock: first first

    def after(game: Game, seat: int, action: Action) -> None:
        r = game.round
        log_len, stock, discard = before_action.pop()
        new = r.log[log_len:]
        reshuffles = [e for e in new if e[0] == "reshuffle"]
        got = drawn_cards(r)
        drawn = [c for i in range(log_len, len(r.log)) if i in got for c in got[i][1]]
        expected = stock
        if reshuffles:
            assert len(reshuffles) == 1
            under = discard + ([action.card] if isinstance(action, Play) else [])
            pile = under[:-1]
            rngs[-1].shuffle(pile)
            assert reshuffles[0][1] == len(pile)
            expected = stock + pile
        assert drawn == expected[: len(drawn)]

    game = setup.new_game()
    start_round(game)
    rng = random.Random(setup.policy)
    seen = 0
    for index in range(ROUNDS):
        if index:
            if game.finished or not game.round_over:
                break
            game.deal(next_seed(rng))
            start_round(game)
        play_round(game, rng, before=before, after=after)
        seen += sum(1 for e in game.round.log if e[0] == "reshuffle")
    event(f"reshuffles: {min(seen, 3)}{'+' if seen >= 3 else ''}")


# --- 7. game length and the winners ------------------------------------------------------


def hand_value(rules: Any, hand: int) -> int:
    total = 0
    for c in cards(hand):
        rank = c % 13
        if rank == JACK:
            total += rules.jack_value
        elif rank == ACE:
            total += rules.ace_value
        elif rules.card_values == "face":
            total += 10 if rank >= 8 else rank + 2  # Two..Ten, Queen, King
        else:
            total += {8: 10, 11: 4, 10: 3}.get(rank, 0)  # Ten 10, King 4, Queen 3
    return total


@scaled(4)
@given(setups(SHORT_GAME_VALUES))
def test_the_game_ends_after_the_right_round_with_the_right_winners(setup: Setup) -> None:
    rules = setup.rules
    mode = rules.scoring
    limit = rules.limit if rules.limit is not None else (150 if mode == "reward" else 100)
    n = setup.players
    game = setup.new_game()
    rng = random.Random(setup.policy)
    totals = [0] * n
    won = [0] * n
    for index in range(12):
        if index:
            game.deal(next_seed(rng))
        r = game.round
        assert r.leader == index % n and game.to_move == index % n and r.direction == 1
        play_round(game, rng)
        if not game.round_over:
            event("round hit the action cap")
            return
        r = game.round
        assert r.hands[r.out] == 0
        values = [hand_value(rules, h) for h in r.hands]
        assert list(game.results[-1].hand_values) == values
        won[r.out] += 1
        if mode in ("penalty", "deals"):
            totals = [t + v for t, v in zip(totals, values, strict=True)]
        elif mode == "reward":
            totals[r.out] += sum(values)
        assert list(game.totals) == totals and list(game.rounds_won) == won
        rounds = index + 1
        if mode == "single":
            should_end = rounds == 1
        elif mode == "penalty":
            should_end = max(totals) >= limit
        elif mode == "deals":
            should_end = rounds == rules.deals
        else:
            should_end = totals[r.out] >= limit
        assert game.finished == should_end, f"round {rounds}: totals {totals}"
        if should_end:
            if mode in ("penalty", "deals"):
                low = min(totals)
                tied = [s for s in range(n) if totals[s] == low]
                most = max(won[s] for s in tied)
                winners = tuple(s for s in tied if won[s] == most)
            else:
                winners = (r.out,)
            assert game.winners == winners and game.draw == (len(winners) > 1)
            with pytest.raises(IllegalAction) as info:
                game.deal(next_seed(rng))
            assert info.value.code == "game_over"
            event(f"{mode}: ended after round {rounds}")
            return
        assert game.winners is None
    event(f"{mode}: still running after 12 rounds")


# --- 8. rounds always end; the seat to move always has an action ---------------------------
#
# The random player prefers plays, so rounds end within a few hundred actions.  A player
# who forgets half of their calls under ``mau_penalty: auto`` draws two cards for every
# second play, which makes the round an unbiased random walk that need not end; such
# policies are not drawn here.  A round that still hits the cap is counted as an event
# (``--hypothesis-show-statistics``), not failed; a state without a legal action fails.


@scaled(4)
@given(setups(), st.sampled_from([0.0, 0.1, 0.25]))
def test_rounds_end_and_never_get_stuck(setup: Setup, forget: float) -> None:
    def check(game: Game, seat: int, action: Action) -> None:
        assert game.to_move >= 0
        assert game.legal_actions(game.to_move), "no legal action while the round runs"

    game = setup.new_game()
    rng = random.Random(setup.policy)
    length = 0
    for index in range(ROUNDS):
        if index:
            if game.finished:
                break
            game.deal(next_seed(rng))
        length = len(play_round(game, rng, cap=5000, forget=forget, before=check))
        if not game.round_over:
            event("round hit the cap of 5000 actions")
            return
        assert game.to_move == -1 and not game.legal_actions()
    event(f"last round: {'<100' if length < 100 else '<500' if length < 500 else '500+'} actions")


# --- state transitions after each action ------------------------------------------------


@scaled(4)
@given(setups())
def test_each_action_moves_the_turn_as_the_rule_book_says(setup: Setup) -> None:
    """docs/rules.md#a-turn to docs/rules.md#end-of-a-round: who moves next, the
    direction, the pending sum and the named suit."""
    rules = setup.rules
    saved: list[Round] = []

    def before(game: Game, seat: int, action: Action) -> None:
        saved.append(game.round.copy())

    def after(game: Game, seat: int, action: Action) -> None:
        p = saved.pop()
        q = game.round
        n = game.n
        if isinstance(action, Catch):
            assert q.turn == p.turn and q.direction == p.direction and q.pending == p.pending
            if p.step == WAIT:
                assert q.step == (OVER if not q.hands[action.target] else 0)
            return
        if p.step == WAIT:
            assert isinstance(action, Pass) and q.step == OVER and q.out == p.catchable
            return
        assert seat == p.turn
        if q.step == OVER:
            assert isinstance(action, Play) and q.out == seat and q.hands[seat] == 0
            assert q.pending == 0
            return
        step = 0
        if isinstance(action, Play):
            rank = action.card % 13
            direction = p.direction * (-1 if rank == NINE and rules.nine_reverses else 1)
            skip = (rank == EIGHT and rules.eight_skips) or (rank == ACE and rules.ace_skips)
            turn = (seat + direction * (2 if skip else 1)) % n
            pending = p.pending + rules.seven_draw if rank == SEVEN else 0
            assert q.named == (action.suit if rank == JACK else -1)
            if q.catchable == seat and q.hands[seat] == 0:
                step = WAIT
                assert q.to_move == (turn if turn != seat else (seat + 1) % n)
        elif isinstance(action, Draw):
            direction = p.direction
            got = q.hands[seat] & ~p.hands[seat]
            if p.pending:
                turn, pending = (seat + direction) % n, 0
            else:
                pending = 0
                (card,) = cards(got)
                if fits(game, card, p):
                    turn, step = seat, DRAWN
                    assert q.drawn == card
                else:
                    turn = (seat + direction) % n
        else:
            direction, pending = p.direction, 0
            turn = (seat + direction) % n
        assert (q.turn, q.direction, q.pending, q.step) == (turn, direction, pending, step)

    walk(setup, before=before, after=after)
