"""Worlds sampled for search agree with everything the seat knows."""

from __future__ import annotations

import random

from maumau.bots.world import WorldSampler, infer_avoidances
from maumau.engine import Game
from maumau.engine.cards import JACKS, SUIT_MASKS, cards_of
from maumau.engine.round import OVER
from support.scenarios import act, rigged


def test_sampled_worlds_keep_what_the_seat_knows() -> None:
    rng = random.Random(3)
    for seed in range(30):
        game = Game.new({"preset": "penalty-100", "nine_reverses": True}, players=4, seed=seed)
        for _ in range(seed % 23):
            if game.round_over:
                break
            acts = game.legal_actions()
            game.apply(acts[int(rng.random() * len(acts))])
        if game.round_over:
            continue
        seat = game.to_move
        view = game.view(seat)
        real = game.round
        world = WorldSampler(view).sample(rng)
        assert world.hands[seat] == real.hands[seat]
        assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in real.hands]
        assert len(world.stock) == len(real.stock)
        assert world.discard == real.discard
        assert (world.turn, world.direction, world.pending, world.named, world.step) == (
            real.turn, real.direction, real.pending, real.named, real.step,
        )  # fmt: skip
        everything = [c for h in world.hands for c in cards_of(h)] + world.stock + world.discard
        assert sorted(everything) == sorted(range(52))
        # the world plays on by the same rules: the seat's legal actions are the same
        assert world.legal_actions(seat) == real.legal_actions(seat)


def test_worlds_differ_in_what_the_seat_cannot_see() -> None:
    game = Game.new("standard", players=3, seed=5)
    sampler = WorldSampler(game.view(0))
    rng = random.Random(1)
    seen = {tuple(sampler.sample(rng).hands) for _ in range(20)}
    assert len(seen) > 15


def test_a_player_who_drew_is_believed_to_hold_nothing_that_fitted() -> None:
    # seat 1 draws on the Nine of hearts instead of playing: it holds no heart and no Nine
    game = rigged("penalty-100", hands=["9C 2C 3C", "4S 5S 6S", "KD QD 8D"], start="9H")
    act(game, "play 9C")
    act(game, "draw")  # seat 1 (a fresh card; not playable or it would have to decide)
    if game.round.step == 1:
        act(game, "pass")
    view = game.view(0)
    beliefs = dict(infer_avoidances(view, WorldSampler(view).table))
    avoid, covered = beliefs[1]
    assert covered == 3  # the three cards seat 1 held when it drew
    clubs_and_nines = SUIT_MASKS[0] | sum(1 << (s * 13 + 7) for s in range(4))
    assert avoid == clubs_and_nines & ~JACKS  # a Jack it may have kept for later
    rng = random.Random(2)
    sampler = WorldSampler(view)
    for _ in range(50):
        world = sampler.sample(rng)
        # at most one club or Nine in seat 1's hand: only the card it drew may be one
        assert (world.hands[1] & avoid).bit_count() <= 1
        assert world.step != OVER


def test_without_inference_any_hand_may_be_dealt() -> None:
    game = rigged("penalty-100", hands=["9C 2C 3C", "4S 5S 6S", "KD QD 8D"], start="9H")
    act(game, "play 9C")
    act(game, "draw")
    if game.round.step == 1:
        act(game, "pass")
    sampler = WorldSampler(game.view(0), infer=False)
    rng = random.Random(2)
    clubs = SUIT_MASKS[0]
    assert any((sampler.sample(rng).hands[1] & clubs).bit_count() >= 2 for _ in range(200))
