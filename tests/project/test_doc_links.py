"""Every link between the docs, and every doc the code cites, still leads somewhere:
a doc that moves (``docs/history/``) or a heading that is renamed leaves no dead link.

Two kinds of reference are checked, in every text file of the repository:

- a Markdown link with a relative target, ``[text](../performance.md#results)``, in a
  ``.md`` file: the file must exist, and an anchor into a Markdown file must be one of
  its headings (as GitHub makes anchors);
- a path ``docs/....md`` written anywhere (a docstring, a comment, a config file),
  relative to the repository's root, with or without ``#anchor``: likewise.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
LINK = re.compile(r"\]\(([^)\s]+)\)")
#: a doc cited by its path from the root, not inside a longer path
CITED = re.compile(r"(?<![\w./-])(docs/(?:[\w.-]+/)*[\w.-]+\.md)(?:#([\w-]+))?")
FENCE = re.compile(r"^```.*?^```[ \t]*$", flags=re.M | re.S)
#: files whose references are made-up examples (this one's)
EXAMPLES = {Path(__file__).resolve()}


def _texts(root: Path) -> Iterator[tuple[Path, str]]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(folder, name)
            if path.resolve() in EXAMPLES:
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # not text (an image, a font)


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of every heading of a Markdown file (a repeated one gets ``-1``...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^#{1,6} (.+)$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return frozenset(out)


def dead_ends(root: Path) -> list[str]:
    """Every reference under ``root`` that leads nowhere, as ``file: reference``."""
    found = []
    for path, text in _texts(root):
        where = path.relative_to(root)
        references: list[tuple[Path, str]] = []
        if path.suffix == ".md":
            for match in LINK.finditer(FENCE.sub("", text)):
                target, _, anchor = match.group(1).partition("#")
                if re.match(r"^[a-z][a-z+.-]*:", target):
                    continue  # a URL (https:, mailto:)
                references.append(((path.parent / target) if target else path, anchor))
        for match in CITED.finditer(text):
            references.append((root / match.group(1), match.group(2) or ""))
        for target, anchor in references:
            shown = os.path.relpath(target, root)
            if not target.exists():
                found.append(f"{where}: {shown} does not exist")
            elif anchor and target.suffix == ".md" and anchor not in anchors(target.resolve()):
                found.append(f"{where}: {shown} has no heading #{anchor}")
    return sorted(set(found))


def test_every_link_and_cited_doc_leads_somewhere() -> None:
    found = dead_ends(ROOT)
    assert not found, "dead references (fix the path or the anchor):\n" + "\n".join(found)


def test_the_check_sees_a_moved_doc_and_a_renamed_heading(tmp_path: Path) -> None:
    (tmp_path / "docs" / "history").mkdir(parents=True)
    (tmp_path / "docs" / "history" / "old.md").write_text("# Old\n\n## The first round\n")
    (tmp_path / "docs" / "now.md").write_text(
        "# Now\n\nSee [the past](history/old.md#the-first-round) and "
        "[gone](old.md), [a section](#later) and [ok](https://example.org).\n\n"
        "```\n[not a link](nowhere.md)\n```\n"
    )
    (tmp_path / "code.py").write_text(
        '"""As ``docs/history/old.md#the-first-round`` and ``docs/old.md`` say."""\n'
    )
    assert dead_ends(tmp_path) == [
        "code.py: docs/old.md does not exist",
        "docs/now.md: docs/now.md has no heading #later",
        "docs/now.md: docs/old.md does not exist",
    ]
