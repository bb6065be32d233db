"""Imports point one way: the engine is pure and imports nothing outside itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT

ENGINE = ROOT / "src" / "maumau" / "engine"

# the engine may use only these standard-library modules: no I/O, no clock, no asyncio
ALLOWED_STDLIB = {
    "__future__",
    "abc",
    "collections",
    "dataclasses",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "random",
    "typing",
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_imports_only_itself_and_pure_stdlib() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert files, "the engine package exists"
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            if name.startswith("maumau."):
                assert name.startswith("maumau.engine"), f"{path.name} imports {name}"
            else:
                assert top in ALLOWED_STDLIB, f"{path.name} imports {name}: not pure"


def test_engine_uses_no_global_randomness() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for banned in ("random.random(", "random.shuffle(", "random.choice(", "time.", "os."):
            assert banned not in text, f"{path.name} uses {banned}"


PACKAGE = ENGINE.parent

#: which of our packages each package may import (imports point one way:
#: engine <- bots <- server, store <- server; the command line may use them all).
#: The load tool is a pure client: it speaks the protocol and imports none of them.
MAY_IMPORT = {
    "engine": {"engine"},
    "bots": {"engine", "bots"},
    "store": {"store"},
    "server": {"engine", "bots", "store", "server"},
    "loadtest": {"loadtest"},
    # the research environments: built on the engine and the bots, never the server
    "env": {"engine", "bots", "env"},
}


def test_packages_import_one_way() -> None:
    for package, allowed in MAY_IMPORT.items():
        files = sorted((PACKAGE / package).rglob("*.py"))
        assert files, f"the {package} package exists"
        for path in files:
            for name in _imports(path):
                if name == "maumau" or name.startswith("maumau."):
                    parts = name.split(".")
                    inner = parts[1] if len(parts) > 1 else ""
                    assert (
                        inner in allowed
                        or inner == "__version__"
                        or (package == "server" and name == "maumau")
                    ), f"{path.relative_to(PACKAGE)} imports {name}"


def test_modules_stay_small() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 450, f"{path.relative_to(PACKAGE)} has {lines} lines: split it"


@pytest.mark.system
def test_the_core_needs_none_of_the_research_libraries() -> None:
    """``import maumau``, the engine, the bots, the command line and ``maumau.env``
    itself load no numpy, PettingZoo, Gymnasium or OpenSpiel (the ``rl`` extra is
    optional); only the environment modules do."""
    code = (
        "import sys, maumau, maumau.engine, maumau.bots, maumau.cli, maumau.env\n"
        "import maumau.env.session, maumau.env.actions, maumau.env.rewards\n"
        "heavy = ('numpy', 'pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel')\n"
        "print(','.join(name for name in heavy if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_load_tool_is_a_pure_client() -> None:
    """``maumau loadtest`` needs no server-side library: no web framework, no database,
    no pydantic (it parses each frame with ``json`` alone)."""
    server_side = {"fastapi", "starlette", "uvicorn", "pydantic", "sqlalchemy", "alembic"}
    server_side |= {"aiosqlite", "asyncpg", "httpx"}
    for path in [*sorted((PACKAGE / "loadtest").glob("*.py")), PACKAGE / "cli_load.py"]:
        for name in _imports(path):
            assert name.split(".")[0] not in server_side, f"{path.name} imports {name}"
            assert not name.startswith("maumau.") or name.startswith("maumau.loadtest"), (
                f"{path.name} imports {name}"
            )


@pytest.mark.system
def test_the_command_line_loads_the_server_only_to_serve() -> None:
    """``maumau --help``, ``replay`` or ``tournament`` start without the web framework or
    the database layer (they took 1.6 s of every command's start); ``serve`` and
    ``loadtest`` import them when they run."""
    code = (
        "import sys, maumau.cli\n"
        "heavy = ('sqlalchemy', 'alembic', 'fastapi', 'starlette', 'uvicorn', 'asyncpg')\n"
        "print(','.join(name for name in heavy if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
