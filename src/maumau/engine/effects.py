"""What a card does when it is played: the one definition of the action cards
(docs/rules.md#action-cards).

:func:`card_effects` reads a rule set's options once and says, for each card int
(0..51), which single effect it has (only one applies per card):

* ``PLAIN``   -- nothing; the next seat moves;
* ``WISH``    -- its player names the suit that must follow (the Jacks, always);
* ``DRAW``    -- the next seat faces a pending draw of ``draw[card]`` more cards (the
  Sevens, ``seven_draw``); while a draw is pending only the cards in ``stack`` may be
  played on it (the Sevens with ``seven_stacking``, else none);
* ``SKIP``    -- the next seat loses its turn (the Eights with ``eight_skips``, the Aces
  with ``ace_skips``);
* ``REVERSE`` -- the direction of play turns round at once (the Nines with
  ``nine_reverses``).

The engine (``moves.py``, ``round.py``), the fast random playout (``playout.py``), the
bots' heuristic playout (``bots/rollout.py``), the ``normal`` bot and the search bots'
reading of the log (``bots/world.py``) read this table, never the option flags, so a new
action-card option is its key in ``options.py`` and a line in :func:`card_effects`.
Which cards *fit* on which (the Jack's wildness, ``jack_on_jack``) is the match tables
of ``table.py``.  tests/bots/test_rollout_differential.py plays the playouts against the
engine over random option sets; tests/engine/test_card_effects_once.py fails where another
module reads these options or names these ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

from maumau.engine.cards import ACE, EIGHT, JACK, NINE, SEVEN
from maumau.engine.options import Rules

#: the effect codes; ``effect < DRAW`` means the next seat simply moves
PLAIN, WISH, DRAW, SKIP, REVERSE = range(5)


@dataclass(frozen=True, slots=True)
class CardEffects:
    """The per-card effects of one rule set (see the module docstring)."""

    #: effect[card]: PLAIN, WISH, DRAW, SKIP or REVERSE
    effect: tuple[int, ...]
    #: draw[card]: how many cards a DRAW card adds to the pending draw (0 for the others)
    draw: tuple[int, ...]
    #: the cards that may be played while a draw is pending (stacking)
    stack: int
    #: the cards that cost the next seat its turn (DRAW and SKIP): what a player hits a
    #: neighbour who is close to going out with
    hits: int


def card_effects(rules: Rules) -> CardEffects:
    """The effect of every card under ``rules`` (docs/rules.md#action-cards)."""
    by_rank = [PLAIN] * 13
    by_rank[JACK] = WISH
    by_rank[SEVEN] = DRAW
    if rules.eight_skips:
        by_rank[EIGHT] = SKIP
    if rules.ace_skips:
        by_rank[ACE] = SKIP
    if rules.nine_reverses:
        by_rank[NINE] = REVERSE
    effect = tuple(by_rank[c % 13] for c in range(52))
    draw = tuple(rules.seven_draw if e == DRAW else 0 for e in effect)
    draws = sum(1 << c for c in range(52) if effect[c] == DRAW)
    return CardEffects(
        effect=effect,
        draw=draw,
        stack=draws if rules.seven_stacking else 0,
        hits=sum(1 << c for c in range(52) if effect[c] in (DRAW, SKIP)),
    )
