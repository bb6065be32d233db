"""docs/rules.md, the rule book, against the engine and the files that cite it.

The option keys, their allowed values and defaults, and the presets are read from the
engine itself (:mod:`maumau.engine.options`), never from a list kept here, so a key,
a range, a default or a preset that changes in the code without the book fails here.
Every section of the book that a file links to (the path, ``#`` and the anchor) must
be a heading of the book, and every path to a rule book that a file names must exist.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maumau.engine import OPTION_KEYS, PRESETS, BadOption, Rules
from maumau.engine.options import SCORING_MODES
from support.paths import ROOT

BOOK = ROOT / "docs/rules.md"
#: where the project's text lives (the rule book is cited from code, tests and docs)
CITING = [ROOT / "src", ROOT / "tests", ROOT / "docs", ROOT / "bench", ROOT / "scripts"]
#: folders that are no part of the project's own text
SKIP_DIRS = {
    ".git",
    ".venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
}
#: a path to a rule book (the file name, with the folders written before it, if any)
RULES_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*rules\.md)")
#: a citation of a section: the path, then ``#anchor``
RULES_ANCHOR = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*rules\.md)#([\w-]+)")
#: a table row of the options tables: | `key` | values | default | meaning |
ROW = re.compile(r"^\| `([\w-]+)` \|(.*)$")


def _prose(text: str) -> str:
    """A Markdown text without its fenced code blocks."""
    return re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.M | re.S)


def _section(heading: str) -> str:
    """The text of the book's ``## heading`` section, up to the next ``## ``."""
    text = _prose(BOOK.read_text(encoding="utf-8"))
    parts = text.split(f"\n## {heading}\n", 1)
    assert len(parts) == 2, f"docs/rules.md has no '## {heading}' section"
    return parts[1].split("\n## ", 1)[0]


def _rows(heading: str) -> dict[str, list[str]]:
    """The table rows of a section that start with a backticked key, by that key."""
    rows: dict[str, list[str]] = {}
    for line in _section(heading).splitlines():
        match = ROW.match(line)
        if match:
            key = match.group(1)
            assert key not in rows, f"docs/rules.md#{heading.lower()}: {key} has two rows"
            rows[key] = [cell.strip() for cell in match.group(2).rstrip("|").split("|")]
    return rows


def _text(value: Any) -> str:
    """An option value as the book writes it: JSON, with strings unquoted."""
    return value if isinstance(value, str) else json.dumps(value)


def _accepted(key: str, value: Any) -> bool:
    try:
        Rules.from_dict({key: value})
    except BadOption:
        return False
    return True


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors() -> set[str]:
    """The anchors of every heading of the book (a repeated heading gets ``-1``, ...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in _prose(BOOK.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^#{1,6} (.+)$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def _files(*roots: Path) -> Iterator[tuple[Path, str]]:
    """Every text file under ``roots`` (files or folders) with its text."""
    for root in roots:
        if root.is_file():
            paths = [root]
        else:
            paths = []
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                paths.extend(Path(folder, name) for name in sorted(names))
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # not text (an image, a font)
            yield path, text


def _resolves(path: Path, cited: str) -> Path | None:
    """The file a citation ``cited`` in ``path`` means: relative to the file's folder
    (a Markdown link) or to the repository root (a path in code); None if neither."""
    for base in (path.parent, ROOT):
        target = (base / cited).resolve()
        if target.is_file():
            return target
    return None


# --- option keys, values and defaults --------------------------------------------------


def test_every_option_key_has_one_row_in_the_options_tables() -> None:
    rows = _rows("Options")
    assert sorted(rows) == sorted(OPTION_KEYS), (
        "docs/rules.md#options must have one row per option key of the engine: "
        f"missing {sorted(set(OPTION_KEYS) - set(rows))}, "
        f"unknown {sorted(set(rows) - set(OPTION_KEYS))}"
    )
    for key, cells in rows.items():
        assert len(cells) == 3 and all(cells), (
            f"{key}: a row is | key | values | default | meaning |"
        )


@pytest.mark.parametrize("key", OPTION_KEYS)
def test_the_default_of_each_option_is_the_engines(key: str) -> None:
    cells = _rows("Options").get(key)
    assert cells is not None, f"docs/rules.md#options has no row for `{key}`"
    default = cells[1]
    plain = Rules().to_dict()[key]
    assert default.startswith(f"`{_text(plain)}`"), (
        f"{key}: the engine's default is {_text(plain)}, docs/rules.md says {default}"
    )
    # a default that depends on the scoring mode (limit) says so for each such mode
    for mode in SCORING_MODES:
        value = Rules.from_dict({"scoring": mode}).to_dict()[key]
        if key != "scoring" and value != plain:
            assert f"`{_text(value)}`" in default and f"`scoring: {mode}`" in default, (
                f"{key}: with scoring {mode} the default is {_text(value)}; "
                f"docs/rules.md says {default}"
            )


def _documented_values(cell: str) -> tuple[str, ...] | range:
    """The values cell: `a`..`b` (a range) or a list of backticked values."""
    span = re.fullmatch(r"`(-?\d+)`\.\.`(-?\d+)`", cell)
    if span:
        return range(int(span.group(1)), int(span.group(2)) + 1)
    values = tuple(re.findall(r"`([^`]+)`", cell))
    assert values and re.fullmatch(r"(`[^`]+`, )*`[^`]+`", cell), (
        f"a values cell is `a`..`b` or `x`, `y`, ...; not {cell!r}"
    )
    return values


@pytest.mark.parametrize("key", OPTION_KEYS)
def test_the_values_of_each_option_are_exactly_the_engines(key: str) -> None:
    cells = _rows("Options").get(key)
    assert cells is not None, f"docs/rules.md#options has no row for `{key}`"
    documented = _documented_values(cells[0])
    default = Rules().to_dict()[key]
    if isinstance(default, bool):
        assert documented == ("true", "false"), f"{key}: an on/off option is `true`, `false`"
        assert _accepted(key, True) and _accepted(key, False)
    elif isinstance(default, int):
        # every whole number the engine takes in a wide window, against the book's
        accepted = [v for v in range(-10, 2001) if _accepted(key, v)]
        if isinstance(documented, range):
            written = list(documented)
        else:
            written = [int(v) for v in documented]
        assert sorted(written) == accepted, (
            f"{key}: the engine takes {accepted[:3]}..{accepted[-3:]} "
            f"({len(accepted)} values); docs/rules.md says {cells[0]}"
        )
    else:
        assert not isinstance(documented, range), f"{key}: a choice is not a range"
        for value in documented:
            assert _accepted(key, value), f"{key}: the engine refuses {value!r}"
        with pytest.raises(BadOption) as refused:
            Rules.from_dict({key: "no such value"})
        allowed = set(re.findall(r"'(\w+)'", str(refused.value).split(", not ")[0]))
        assert allowed == set(documented), (
            f"{key}: the engine allows {sorted(allowed)}, docs/rules.md says {cells[0]}"
        )


# --- presets ---------------------------------------------------------------------------


def test_every_preset_is_in_the_book_with_exactly_its_options() -> None:
    rows = _rows("Presets")
    assert sorted(rows) == sorted(PRESETS), (
        f"docs/rules.md#presets must list the engine's presets {sorted(PRESETS)}, "
        f"not {sorted(rows)}"
    )
    for name, options in PRESETS.items():
        shown = dict(re.findall(r"`(\w+): ([^`]+)`", rows[name][0]))
        assert shown == {key: _text(value) for key, value in options.items()}, (
            f"preset {name}: the engine sets {options}, docs/rules.md shows {shown}"
        )
        assert set(shown) <= set(OPTION_KEYS)


# --- citations -------------------------------------------------------------------------


def test_the_book_has_the_sections_the_code_cites() -> None:
    """The anchors the code uses for the book's sections (a guard against renaming a
    heading that others point at)."""
    assert {
        "cards-and-deal",
        "a-turn",
        "action-cards",
        "calling-mau",
        "end-of-a-round",
        "scoring",
        "end-of-the-game",
        "what-a-player-may-see",
        "options",
        "presets",
    } <= anchors()


def test_every_cited_section_of_the_book_exists() -> None:
    known = anchors()
    cited: list[str] = []
    bad: list[str] = []
    for path, text in _files(*CITING, ROOT / "README.md"):
        for match in RULES_ANCHOR.finditer(text):
            if _resolves(path, match.group(1)) == BOOK.resolve():
                cited.append(match.group(2))
                if match.group(2) not in known:
                    bad.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    # links inside the book itself
    for match in re.finditer(r"\]\(#([\w-]+)\)", BOOK.read_text(encoding="utf-8")):
        cited.append(match.group(1))
        if match.group(1) not in known:
            bad.append(f"docs/rules.md: #{match.group(1)}")
    assert cited, "nothing cites a section of docs/rules.md (is the pattern still right?)"
    assert not bad, f"these cite a section docs/rules.md does not have: {bad}"


def test_no_file_cites_a_rules_md_that_is_not_there() -> None:
    found = 0
    bad: list[str] = []
    for path, text in _files(ROOT):
        for match in RULES_PATH.finditer(text):
            found += 1
            if _resolves(path, match.group(1)) is None:
                line = text.count("\n", 0, match.start()) + 1
                bad.append(f"{path.relative_to(ROOT)}:{line}: {match.group(1)}")
    assert found, "no file names docs/rules.md (is the pattern still right?)"
    assert not bad, f"these name a rule book that does not exist (use docs/rules.md): {bad}"


def test_the_slugs_are_githubs() -> None:
    assert slug("What a player may see") == "what-a-player-may-see"
    assert slug("Action card options") == "action-card-options"
    assert slug("Calling `Mau`!") == "calling-mau"
