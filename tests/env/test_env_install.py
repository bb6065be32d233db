"""Every install line of the research environments works as written from a checkout:
the package is not published, so no line installs ``maumau[...]`` from a registry;
every extra a line or a hint names exists in pyproject.toml and holds what it is named
for; every shell variable a command block of the docs uses is set there first."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE = [
    p
    for folder in ("src", "bench", "tests")
    for p in sorted((ROOT / folder).rglob("*.py"))
    if ".venv" not in p.parts and p.name != "test_env_install.py"
]
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
    "optional-dependencies"
]
#: an extra named in an install line: ``uv sync --extra X``, ``pip install ".[X]"``
NAMED_EXTRA = re.compile(r"--extra[ =](\w+)|\.\[(\w+)\]")


def texts() -> list[tuple[Path, str]]:
    return [(p, p.read_text()) for p in DOCS + CODE]


def test_no_line_installs_the_unpublished_package_from_a_registry() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path, text in texts()
        for line in text.splitlines()
        if "maumau[" in line
    ]
    assert not found, "maumau is not published: install from the checkout (uv sync --extra rl)"


def test_every_extra_named_exists() -> None:
    named = {
        (path.relative_to(ROOT), a or b)
        for path, text in texts()
        for a, b in NAMED_EXTRA.findall(text)
    }
    assert {name for _, name in named} >= {"rl", "spiel"}
    assert [(p, n) for p, n in named if n not in EXTRAS] == []


def test_the_extras_hold_what_they_are_named_for() -> None:
    def names(extra: str) -> set[str]:
        return {re.split(r"[<>=\[; ]", req, maxsplit=1)[0] for req in EXTRAS[extra]}

    assert names("rl") >= {"pettingzoo", "gymnasium", "numpy"}
    assert names("spiel") >= {"open-spiel", "numpy"}


def test_the_ismcts_hint_names_the_extra_with_open_spiel(monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.baselines import agents

    def missing(name: str) -> object:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(agents.importlib, "import_module", missing)
    with pytest.raises(agents.AgentUnavailable) as caught:
        agents.make_agent("ismcts:10", 1) if hasattr(
            agents, "make_agent"
        ) else agents._spiel_ismcts("10", 1)
    hinted = {a or b for a, b in NAMED_EXTRA.findall(str(caught.value))}
    assert hinted and all("open-spiel" in " ".join(EXTRAS[name]) for name in hinted)


#: the documents that tell how to install and measure the research environments
RESEARCH_DOCS = [ROOT / "README.md", ROOT / "docs" / "research.md", ROOT / "docs" / "benchmark.md"]


@pytest.mark.parametrize("doc", RESEARCH_DOCS, ids=lambda p: p.name)
def test_every_shell_variable_of_a_command_block_is_set_first(doc: Path) -> None:
    text = doc.read_text()
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", text, flags=re.S)
    unset = []
    for block in blocks:
        for line in block.splitlines():
            for name in re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", line):
                if not re.search(rf"(^|[\s;(]){name}=", text):
                    unset.append(f"${name}: {line.strip()}")
    assert unset == []
