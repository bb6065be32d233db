"""The fast random playout that search bots run millions of times.

:func:`random_playout` plays a round to its end with uniformly random legal actions,
honouring every rule the round's options switch on, in one tight loop over local
variables (no action objects, no log).  It chooses exactly as a uniform pick from
:meth:`Round.legal_actions` would: each playable card counts once, a Jack once per suit,
plus the draw or pass that is offered.  Players in a playout always make the call that
is due, so no Mau penalty or catch ever arises.

The state is changed in place; copy it first (``state.copy(rng, history=False)``).  Its
log and action list are not extended, so after a playout the state is for reading the
outcome (``out``, ``hands``), not for a record.
"""

from __future__ import annotations

import random

from maumau.engine.cards import JACK, JACKS
from maumau.engine.effects import DRAW, SKIP, WISH
from maumau.engine.moves import refill_stock
from maumau.engine.round import DRAWN, OVER, PLAY, WAIT, Round


def random_playout(
    state: Round, rng: random.Random, max_actions: int = 1_000_000, *, eager: bool = False
) -> int:
    """Play ``state`` to the end of its round with random legal actions chosen by
    ``rng`` (reshuffles still use the round's own generator).  Returns the number of
    actions applied; the round is over afterwards unless ``max_actions`` ran out.

    With ``eager`` the players are less aimless: whoever can play a card plays one
    (chosen uniformly among the plays) and never draws instead, a drawn playable card is
    always played, and a threatened player with a Seven always stacks it."""
    step = state.step
    if step == OVER:
        return 0
    if step == WAIT:  # a catch-mode wait: the accepting seat passes, so the player is out
        state.out = state.catchable
        state.step = OVER
        state.catchable = -1
        state.pending = 0
        return 1
    t = state.t
    match_of = t.match
    named_of = t.named
    effect_of = t.effects.effect
    draw_of = t.effects.draw
    stack = t.effects.stack
    draw_when_able = t.draw_when_able
    rand = rng.random
    shuffle = state.rng.shuffle
    hands = state.hands
    stock = state.stock
    discard = state.discard
    n = state.n
    match = state.match
    named = state.named
    pending = state.pending
    direction = state.direction
    seat = state.turn
    not_jacks = ~JACKS
    actions = 0
    out = -1
    card = -1

    if step == DRAWN:  # finish the turn of a seat that drew a playable card
        card = state.drawn
        # legal: play the drawn card (once, or once per suit for a Jack) or pass
        if not eager and rand() * (5 if card % 13 == JACK else 2) < 1.0:
            card = -1  # pass
            seat = (seat + direction) % n
        actions += 1

    while actions < max_actions:
        if card < 0:
            hand = hands[seat]
            if pending:
                m = hand & stack
                avail = len(stock) + len(discard) - 1
                k = m.bit_count() + 1
                r = int(rand() * (k - 1 if eager and m else k))
                actions += 1
                if r == k - 1:  # draw the pending sum (or what there is)
                    take = pending if pending < avail else avail
                    pending = 0
                    for _ in range(take):
                        if not stock:
                            refill_stock(stock, discard, shuffle)
                        hand |= 1 << stock.pop()
                    hands[seat] = hand
                    seat = (seat + direction) % n
                    continue
                while r:
                    m &= m - 1
                    r -= 1
                card = (m & -m).bit_length() - 1
                suit = -1
            else:
                m = hand & match
                plain = m & not_jacks
                a = plain.bit_count()
                k = a + 4 * (m & JACKS).bit_count()
                avail = len(stock) + len(discard) - 1
                draw_ok = avail and (not m if eager else draw_when_able or not m)
                r = int(rand() * (k + 1 if draw_ok or not m else k))
                actions += 1
                if r >= k:
                    if not draw_ok:  # nothing to play or draw: pass
                        seat = (seat + direction) % n
                        continue
                    if not stock:
                        refill_stock(stock, discard, shuffle)
                    drawn = stock.pop()
                    hands[seat] = hand | (1 << drawn)
                    if match >> drawn & 1:
                        # drew a playable card: play it (a Jack counts four times) or pass
                        if eager or rand() * (5 if drawn % 13 == JACK else 2) >= 1.0:
                            card = drawn
                            actions += 1
                            continue
                        actions += 1
                    seat = (seat + direction) % n
                    continue
                if r < a:
                    while r:
                        plain &= plain - 1
                        r -= 1
                    card = (plain & -plain).bit_length() - 1
                    suit = -1
                else:
                    r -= a
                    jacks = m & JACKS
                    for _ in range(r >> 2):
                        jacks &= jacks - 1
                    card = (jacks & -jacks).bit_length() - 1
                    suit = r & 3
        else:
            suit = int(rand() * 4) if card % 13 == JACK else -1
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

    state.match = match
    state.named = named
    state.pending = pending
    state.direction = direction
    state.drawn = -1
    state.catchable = -1
    if out >= 0:
        state.out = out
        state.step = OVER
    else:
        state.turn = seat
        state.step = PLAY
        if card >= 0:  # stopped by max_actions after drawing a card it meant to play
            state.step = DRAWN
            state.drawn = card
    return actions
