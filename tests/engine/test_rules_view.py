"""What a player may see (docs/rules.md#what-a-player-may-see)."""

from __future__ import annotations

import json

from maumau.engine import Game
from maumau.engine.cards import CODES, cards_of
from support.scenarios import act, rigged


def _game() -> Game:
    game = rigged(
        {"scoring": "penalty", "nine_reverses": True},
        hands=["JD 9S 2C", "5C 6C 3D", "KH 4H"],
        start="9D",
        stock="5D 7S ...",
        seed=1234,
    )
    act(game, "play 9S")  # reverses: seat 2 moves
    act(game, "draw")  # seat 2 draws 5D, which does not fit 9S
    act(game, "draw", 1)  # seat 1 draws 7S, which fits
    return game


def test_a_seat_sees_its_own_hand_and_everybodys_counts() -> None:
    game = _game()
    v = game.view(1)
    assert [str(c) for c in v.hand] == ["5C", "6C", "3D", "7S"]
    assert v.counts == (2, 4, 3)
    assert v.totals == (0, 0, 0)
    assert v.rounds_won == (0, 0, 0)
    assert str(v.top) == "9S"
    assert v.named_suit is None
    assert v.pending == 0
    assert v.direction == -1
    assert v.to_move == 1
    assert v.stock_count == 52 - 8 - 1 - 2
    assert v.hands is None
    assert str(v.drawn) == "7S"  # the drawer sees the card it may play


def test_others_see_how_many_were_drawn_never_what() -> None:
    game = _game()
    for seat in (0, 2, None):
        v = game.view(seat)
        text = repr(v.to_json())
        assert "7S" not in text  # seat 1's drawn card
        assert v.drawn is None
        draws = [e for e in v.to_json()["log"] if "draw" in e]
        assert [e["draw"] for e in draws] == [1, 1]
        assert [e["seat"] for e in draws] == [2, 1]
        if seat != 2:
            assert "5D" not in text
            assert all("cards" not in e for e in draws)
    own = [e for e in game.view(2).to_json()["log"] if "draw" in e and e["seat"] == 2]
    assert own[0]["cards"] == ["5D"]


def test_nobody_sees_other_hands_the_draw_pile_order_or_the_seed() -> None:
    game = _game()
    for seat in (0, 1, 2, None):
        data = game.view(seat).to_json()
        text = json.dumps(data)
        assert "1234" not in text
        assert "seed" not in text
        hidden = [CODES[c] for c in game.round.stock]
        for other in range(3):
            if other != seat:
                hidden += [str(c) for c in cards_of(game.round.hands[other])]
        for card in hidden:
            assert f'"{card}"' not in text, (seat, card)
        assert data["hands"] is None
        assert data["stock_count"] == len(game.round.stock)


def test_the_hands_are_revealed_when_the_round_ends() -> None:
    game = rigged({}, hands=["2D", "KC 3H"], start="8D")
    act(game, "play 2D maumau")
    v = game.view(0)
    assert v.hands is not None
    assert [[str(c) for c in h] for h in v.hands] == [[], ["KC", "3H"]]
    assert v.out == 0
