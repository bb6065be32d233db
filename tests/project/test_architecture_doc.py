"""The newcomer's maps name the code as it is: the README's short map names every
package and top-level module under ``src/maumau``, and docs/architecture.md's code map
names every one of them and every module of every package (and the browser client's
modules); neither names a path that no longer exists.

A path is named by writing it in backticks, relative to ``src/maumau``: ``cli.py``,
``engine/``, ``server/live/referee.py``, ``web/js/game.js``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "maumau"
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: the headings the maps live under (each map runs to the next heading of its level)
README_MAP = "### Where the code lives"
ARCHITECTURE_MAP = "## The code map"

#: files that are no module a map need name
NOT_MODULES = {"py.typed"}
#: the folders whose subfolders of code are named module by module (``web/js/main.js``,
#: ``server/live/hub.py``); any other subfolder (``store/migrations/``) is named as a whole
BY_MODULE = {"web": "*.js", "server": "*.py"}
#: a backticked word that is a path: it ends with "/" or with one of these
SUFFIXES = (".py", ".js", ".html", ".css", ".svg", ".webmanifest", ".json")
PATH_LIKE = re.compile(r"^\w[\w./-]*$")


def section(text: str, heading: str) -> str:
    """The text under ``heading`` (a whole line) up to the next heading of its level or
    above; empty when there is no such heading."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    if heading not in lines:
        return ""
    body = []
    for line in lines[lines.index(heading) + 1 :]:
        depth = len(line) - len(line.lstrip("#"))
        if 0 < depth <= level and line[depth : depth + 1] == " ":
            break
        body.append(line)
    return "\n".join(body)


def named(text: str) -> set[str]:
    """The paths a map's text names (backticked, relative to ``src/maumau``)."""
    names = set()
    for word in re.findall(r"`([^`\n]+)`", text):
        word = word.removeprefix("src/maumau/")
        if word and PATH_LIKE.match(word) and (word.endswith("/") or word.endswith(SUFFIXES)):
            names.add(word)
    return names


def _is_code(folder: Path) -> bool:
    return any(p.suffix in (".py", ".js") for p in folder.iterdir() if p.is_file())


def top_level(src: Path) -> set[str]:
    """Every package (or other folder) and top-level module: ``engine/``, ``cli.py``."""
    names = set()
    for path in src.iterdir():
        if path.name.startswith((".", "__pycache__")) or path.name in NOT_MODULES:
            continue
        if path.is_dir():
            names.add(f"{path.name}/")
        elif path.suffix == ".py":
            names.add(path.name)
    return names


def everything(src: Path) -> set[str]:
    """:func:`top_level`, and inside each folder every module, file and subfolder one
    level down; a subfolder of code in :data:`BY_MODULE` (``web/js/``, ``server/live/``)
    by its modules, any other (``store/migrations/``, ``web/icons/``) as a whole."""
    names = top_level(src)
    for folder in sorted(p for p in src.iterdir() if p.is_dir() and p.name != "__pycache__"):
        for path in sorted(folder.iterdir()):
            if path.name.startswith((".", "__pycache__")):
                continue
            inner = f"{folder.name}/{path.name}"
            if path.is_file():
                if path.suffix == ".py" or folder.name == "web":
                    names.add(inner)
            elif folder.name in BY_MODULE and _is_code(path):
                modules = sorted(path.glob(BY_MODULE[folder.name]))
                names.update(f"{inner}/{p.name}" for p in modules)
            else:
                names.add(f"{inner}/")
    return names


def stale(src: Path, names: set[str]) -> list[str]:
    """The names that are no file or folder under ``src``."""
    gone = []
    for name in sorted(names):
        path = src / name
        if not (path.is_dir() if name.endswith("/") else path.is_file()):
            gone.append(name)
    return gone


def problems(src: Path, text: str, heading: str, required: set[str], where: str) -> list[str]:
    """What is wrong with the map under ``heading`` in ``text`` (the file ``where``)."""
    body = section(text, heading)
    if not body.strip():
        return [f"{where} has no map: no section {heading!r}"]
    mentioned = named(body)
    found = []
    missing = sorted(required - mentioned)
    if missing:
        found.append(
            f"{where}, section {heading!r}, does not name: {', '.join(missing)}. "
            "Add each, in backticks and relative to src/maumau, with a line on what it is "
            "for (in docs/architecture.md: a row in its package's table)."
        )
    gone = stale(src, mentioned)
    if gone:
        found.append(
            f"{where}, section {heading!r}, names what does not exist under src/maumau: "
            f"{', '.join(gone)}. Rename or remove each."
        )
    return found


def test_the_readme_map_names_every_package_and_top_level_module() -> None:
    required = {n for n in top_level(SRC) if not n.startswith("__")}
    text = README.read_text(encoding="utf-8")
    found = problems(SRC, text, README_MAP, required, "README.md")
    assert not found, "\n".join(found)
    assert "docs/architecture.md" in section(text, README_MAP), (
        "the README's map points to the complete one, docs/architecture.md"
    )


def test_the_architecture_map_names_every_module() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    found = problems(SRC, text, ARCHITECTURE_MAP, everything(SRC), "docs/architecture.md")
    assert not found, "\n".join(found)


def test_the_check_sees_a_new_module_and_a_stale_name(tmp_path: Path) -> None:
    """The check itself, on a small tree: a module that the map does not name, and a
    name in the map whose module is gone, are each reported by name."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "game.py").write_text("")
    (tmp_path / "engine" / "new.py").write_text("")
    (tmp_path / "cli.py").write_text("")
    (tmp_path / "server" / "live").mkdir(parents=True)
    (tmp_path / "server" / "live" / "hub.py").write_text("")
    (tmp_path / "web" / "js").mkdir(parents=True)
    (tmp_path / "web" / "js" / "main.js").write_text("")
    (tmp_path / "web" / "lang").mkdir()
    (tmp_path / "web" / "lang" / "en.json").write_text("{}")
    text = (
        "## The code map\n\n"
        "| `cli.py` | the command |\n| `engine/` | rules |\n"
        "| `engine/__init__.py` | api |\n| `engine/game.py` | a game |\n"
        "| `engine/old.py` | gone |\n| `server/` | server |\n"
        "| `web/` | client |\n| `web/lang/` | words |\n"
        "\n## Glossary\n\n`web/js/main.js` is named here, outside the map.\n"
    )
    found = problems(tmp_path, text, "## The code map", everything(tmp_path), "the doc")
    assert len(found) == 2
    assert "does not name: engine/new.py, server/live/hub.py, web/js/main.js." in found[0]
    assert "does not exist under src/maumau: engine/old.py." in found[1]
    text = text.replace("engine/old.py", "engine/new.py").replace(
        "\n## Glossary",
        "| `web/js/main.js` | start |\n| `server/live/hub.py` | tables |\n\n## Glossary",
    )
    assert problems(tmp_path, text, "## The code map", everything(tmp_path), "the doc") == []
    assert problems(tmp_path, "# Nothing\n", "## The code map", set(), "the doc") == [
        "the doc has no map: no section '## The code map'"
    ]
