"""The reference of the fast random playout: the public API's legal actions, picked with
random numbers drawn the way :func:`maumau.engine.playout.random_playout` documents
(tests/engine/test_playout.py checks the playout against it, and
tests/bots/test_rollout_differential.py starts it where a catch is open)."""

from __future__ import annotations

import random

from maumau.engine import Catch, Draw, Pass, Play
from maumau.engine.cards import JACK
from maumau.engine.round import DRAWN, OVER, Round


def reference_playout(state: Round, rng: random.Random, eager: bool = False) -> int:
    count = 0
    while state.step != OVER:
        # a playout never catches (tests/bots/test_rollout_differential.py starts it where
        # a catch is open)
        acts = [a for a in state.legal_actions() if not isinstance(a, Catch)]
        if state.step == DRAWN:
            if not eager and rng.random() * len(acts) < 1.0:
                state.apply(Pass())
            elif state.drawn % 13 == JACK:
                play = acts[0]
                assert isinstance(play, Play)
                state.apply(Play(state.drawn, int(rng.random() * 4), play.call))
            else:
                state.apply(acts[0])
            count += 1
            continue
        plays = [a for a in acts if isinstance(a, Play)]
        plain = [a for a in plays if a.suit is None]
        jacks = [a for a in plays if a.suit is not None]
        rest = [a for a in acts if isinstance(a, Draw | Pass)]
        ordered = plain + jacks + rest
        assert len(ordered) == len(acts), "only plays, a draw or a pass for the seat to move"
        if eager and plays:  # an eager player plays whenever it can
            ordered = plain + jacks
        state.apply(ordered[int(rng.random() * len(ordered))])
        count += 1
    return count
