"""A fast heuristic playout: every seat plays roughly as the ``normal`` bot does.

Search is only as good as its model of how the round goes on.  Uniform random players
draw when they could play and waste their Jacks; this playout instead has every seat
play whenever it can, shed its most expensive card (when cards left in hand cost
points) while keeping a suit it can follow up with, save Jacks until nothing else
fits, hit a neighbour who is close to going out with a Seven or a skip, stack Sevens,
and name the suit it holds most.  A little noise keeps the playouts varied.  It works
on the :class:`Round` internals in one loop, like :func:`maumau.engine.playout.random_playout`.
"""

from __future__ import annotations

from collections.abc import Callable

from maumau.engine.cards import JACKS, SUIT_MASKS
from maumau.engine.effects import DRAW, SKIP, WISH
from maumau.engine.moves import refill_stock
from maumau.engine.round import DRAWN, OVER, PLAY, WAIT, Round


def heuristic_playout(
    state: Round,
    rand: Callable[[], float],
    max_actions: int = 1000,
    *,
    value_weight: float = 1.0,
    noise: float = 4.0,
) -> int:
    """Play ``state`` in place to the end of its round (or ``max_actions``); returns the
    number of actions.  ``rand`` gives the noise (floats in [0, 1): ``rng.random``, or
    a replayable stream so that several playouts see the same luck); reshuffles use the
    round's own generator.  ``value_weight`` is how much shedding points matters (0 when
    cards left cost nothing)."""
    if state.step == OVER:
        return 0
    if state.step == WAIT:  # an accepting seat passes: the player has gone out
        state.out, state.step, state.catchable, state.pending = state.catchable, OVER, -1, 0
        return 1
    t = state.t
    match_of, named_of, values = t.match, t.named, t.values
    fx = t.effects
    effect_of, draw_of, stack, hits = fx.effect, fx.draw, fx.stack, fx.hits
    shuffle = state.rng.shuffle
    hands, stock, discard = state.hands, state.stock, state.discard
    n = state.n
    match, named, pending, direction = state.match, state.named, state.pending, state.direction
    seat = state.turn
    actions = 0
    out = -1
    card = state.drawn if state.step == DRAWN else -1

    while actions < max_actions:
        actions += 1
        hand = hands[seat]
        if card < 0:
            if pending:
                stackable = hand & stack
                if stackable:
                    card = (stackable & -stackable).bit_length() - 1
                else:
                    for _ in range(pending):
                        if not stock:
                            if len(discard) < 2:
                                break
                            refill_stock(stock, discard, shuffle)
                        hand |= 1 << stock.pop()
                    hands[seat] = hand
                    pending = 0
                    seat = (seat + direction) % n
                    continue
            else:
                m = hand & match
                plain = m & ~JACKS
                if plain and not plain & (plain - 1):  # one card fits: no choice to weigh
                    card = plain.bit_length() - 1
                elif plain:
                    nxt = (seat + direction) % n
                    close = hands[nxt].bit_count() <= 2
                    best = -1e9
                    while plain:
                        low = plain & -plain
                        c = low.bit_length() - 1
                        plain ^= low
                        score = (
                            values[c] * value_weight
                            + 2.0 * (hand & SUIT_MASKS[c // 13]).bit_count()
                            + rand() * noise
                        )
                        if close and hits >> c & 1:  # a draw or a skip for the next seat
                            score += 25.0
                        if score > best:
                            best, card = score, c
                elif m:
                    card = (m & -m).bit_length() - 1
                else:
                    if len(stock) + len(discard) < 2:  # nothing to play or draw: pass
                        seat = (seat + direction) % n
                        continue
                    if not stock:
                        refill_stock(stock, discard, shuffle)
                    drawn = stock.pop()
                    hands[seat] = hand | (1 << drawn)
                    if match >> drawn & 1:
                        card = drawn  # play the drawn card in the next step
                        continue
                    seat = (seat + direction) % n
                    continue
        # --- play ``card`` for ``seat`` ---
        hand = hands[seat] ^ (1 << card)
        hands[seat] = hand
        discard.append(card)
        if not hand:
            out = seat
            pending = 0
            break
        effect = effect_of[card]
        if effect == WISH:
            rest = hand & ~JACKS
            suit = card // 13
            most = -1
            for s in range(4):
                k = (rest & SUIT_MASKS[s]).bit_count()
                if k > most:
                    most, suit = k, s
            match = named_of[suit]
            named = suit
        else:
            match = match_of[card]
            named = -1
            if effect:  # the action cards (effects.py)
                if effect == DRAW:
                    pending += draw_of[card]
                elif effect == SKIP:
                    seat = (seat + direction) % n
                else:  # REVERSE
                    direction = -direction
        seat = (seat + direction) % n
        card = -1

    state.match, state.named, state.pending, state.direction = match, named, pending, direction
    state.catchable = -1
    state.drawn = -1
    if out >= 0:
        state.out = out
        state.step = OVER
    else:
        state.turn = seat
        state.step = PLAY
        if card >= 0:
            state.step, state.drawn = DRAWN, card
    return actions
