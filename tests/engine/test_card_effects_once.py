"""The action cards are defined once: only engine/effects.py reads their options.

Everything else that needs to know what a card does (the engine's moves, both playouts,
the bots) reads the table :func:`maumau.engine.effects.card_effects` builds, so a new
action-card option cannot be half done in one of them.  This test finds the options
effects.py reads and the action ranks it names, and fails where another module of
``src/`` reads such an option or imports such a rank.
"""

from __future__ import annotations

import re
from pathlib import Path

from maumau.engine import OPTION_KEYS, Rules
from maumau.engine.effects import DRAW, PLAIN, REVERSE, SKIP, WISH, card_effects

SRC = Path(__file__).resolve().parents[2] / "src" / "maumau"
EFFECTS = SRC / "engine" / "effects.py"
#: options.py defines the keys; effects.py is the one reader
ALLOWED = {EFFECTS, SRC / "engine" / "options.py"}


def effect_options() -> set[str]:
    """The option keys that effects.py reads (``rules.<key>``)."""
    read = set(re.findall(r"\brules\.(\w+)", EFFECTS.read_text("utf-8")))
    return read & set(OPTION_KEYS)


def effect_ranks() -> set[str]:
    """The rank constants effects.py imports from cards.py (other than the Jack, whose
    suit naming is part of the action vocabulary everywhere)."""
    text = EFFECTS.read_text("utf-8")
    match = re.search(r"from maumau\.engine\.cards import ([\w, ]+)", text)
    assert match is not None
    return {name.strip() for name in match.group(1).split(",")} - {"JACK"}


def offenders(src: Path, allowed: set[Path], keys: set[str], ranks: set[str]) -> list[str]:
    """Each read of one of ``keys`` and each import of one of ``ranks`` in ``src``."""
    reads = re.compile(r"\.(" + "|".join(sorted(keys)) + r")\b")
    imports = re.compile(r"^from maumau\.engine\.cards import (.*)$", re.M)
    found = []
    for path in sorted(src.rglob("*.py")):
        if path in allowed:
            continue
        text = path.read_text("utf-8")
        where = path.relative_to(src)
        found += [f"{where}: reads .{m.group(1)}" for m in reads.finditer(text)]
        for m in imports.finditer(text):
            named = {name.strip() for name in m.group(1).strip("()").split(",")}
            found += [f"{where}: imports {rank}" for rank in sorted(named & ranks)]
    return found


def test_the_action_card_options_are_read_only_by_effects_py() -> None:
    keys = effect_options()
    ranks = effect_ranks()
    assert {"seven_draw", "seven_stacking", "eight_skips", "ace_skips", "nine_reverses"} <= keys
    assert {"SEVEN", "EIGHT", "NINE", "ACE"} <= ranks
    assert offenders(SRC, ALLOWED, keys, ranks) == []


def test_the_guard_sees_a_second_reader(tmp_path: Path) -> None:
    """The scan finds an option read and a rank import outside effects.py."""
    (tmp_path / "bots.py").write_text(
        "from maumau.engine.cards import JACK, NINE\n"
        "def f(rules):\n    return rules.nine_reverses\n"
    )
    (tmp_path / "fine.py").write_text("from maumau.engine.cards import JACK\nKEY = 'ace_skips'\n")
    assert offenders(tmp_path, set(), effect_options(), effect_ranks()) == [
        "bots.py: reads .nine_reverses",
        "bots.py: imports NINE",
    ]


def test_the_effect_table_follows_the_options() -> None:
    """Spot checks of the table against docs/rules.md#action-cards."""
    standard = card_effects(Rules())
    seven_h, eight_h, nine_h, jack_h, ace_h, two_h = 31, 32, 33, 35, 38, 26
    assert [standard.effect[c] for c in (seven_h, eight_h, nine_h, jack_h, ace_h, two_h)] == [
        DRAW,
        SKIP,
        PLAIN,
        WISH,
        PLAIN,
        PLAIN,
    ]
    assert standard.draw[seven_h] == 2 and standard.draw[eight_h] == 0
    assert standard.stack == sum(1 << (s * 13 + 5) for s in range(4))
    turned = card_effects(
        Rules.from_dict(
            {"eight_skips": False, "ace_skips": True, "nine_reverses": True, "seven_draw": 3}
        )
    )
    assert [turned.effect[c] for c in (eight_h, nine_h, ace_h)] == [PLAIN, REVERSE, SKIP]
    assert turned.draw[seven_h] == 3
    assert card_effects(Rules.from_dict({"seven_stacking": False})).stack == 0
