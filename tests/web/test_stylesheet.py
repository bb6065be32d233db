"""The client's stylesheet is whole: every block it opens is closed, and no section
starts inside another's block (a brace lost in a merge hid the rules after it inside a
media query, and the chat panel showed on wide screens where it should not)."""

from __future__ import annotations

import re

from support.paths import ROOT

STYLE = ROOT / "src" / "maumau" / "web" / "style.css"


def test_every_block_of_the_stylesheet_is_closed() -> None:
    text = re.sub(
        r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), STYLE.read_text(), flags=re.S
    )
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        depth += line.count("{") - line.count("}")
        assert depth >= 0, f"style.css:{number} closes a block that is not open"
    assert depth == 0, f"style.css leaves {depth} block(s) open"


def test_sections_start_at_the_top_level() -> None:
    depth = 0
    for number, line in enumerate(STYLE.read_text().splitlines(), 1):
        if line.startswith("/* ---"):
            assert depth == 0, f"style.css:{number}: a section starts inside a block"
        depth += line.count("{") - line.count("}")
