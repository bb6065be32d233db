"""Imports point one way: the engine is pure and imports nothing outside itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
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
    # evaluation (suites, results, human games as data): on top of the environments,
    # never the server or the store (the command line hands it the store's records)
    "eval": {"engine", "bots", "env", "eval"},
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
                        or (package in ("server", "eval") and name == "maumau")
                    ), f"{path.relative_to(PACKAGE)} imports {name}"


SERVER = PACKAGE / "server"

#: the server's layers, lowest first: a sub-package (or a module at ``server/``'s top) may
#: import only itself and the layers before it.  ``config.py`` (the settings) imports no
#: other server module; the wire protocol's messages and error codes are the vocabulary of
#: everything above; transport is one client's connection and its limits; the live tables
#: run the games; ops reads them (probes, drain, ``/metrics``); http serves them (the
#: routes, the WebSocket endpoint); ``app.py`` puts it all together.
SERVER_LAYERS = ("config", "wire", "transport", "live", "ops", "http", "app")


def _server_imports(path: Path) -> Iterator[tuple[str, int]]:
    """The server layer each ``maumau.server`` import of ``path`` names, with its line:
    ``maumau.server.live.hub`` names ``live``, ``from maumau.server import app`` ``app``;
    a relative import names ``"."`` (none may hide a layer)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["maumau", "server"]:
                    yield (parts[2] if len(parts) > 2 else ""), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                yield ".", node.lineno
                continue
            parts = (node.module or "").split(".")
            if parts[:2] != ["maumau", "server"]:
                continue
            if len(parts) > 2:
                yield parts[2], node.lineno
            else:
                yield from ((alias.name, node.lineno) for alias in node.names)


def server_layer_problems(server: Path) -> list[str]:
    """Every import inside ``server`` that points up (or sideways out of
    :data:`SERVER_LAYERS`), and every module outside the known layers."""
    found = []
    for path in sorted(server.rglob("*.py")):
        where = path.relative_to(server)
        layer = where.parts[0].removesuffix(".py")
        if layer not in SERVER_LAYERS:
            found.append(f"server/{where} is in no layer: add {layer!r} to SERVER_LAYERS")
            continue
        rank = SERVER_LAYERS.index(layer)
        for target, line in _server_imports(path):
            if target not in SERVER_LAYERS or SERVER_LAYERS.index(target) > rank:
                found.append(f"server/{where}:{line} ({layer}) imports {target or 'server'}")
    return found


def test_the_server_layers_import_one_way() -> None:
    assert {p.name for p in SERVER.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "wire",
        "transport",
        "live",
        "ops",
        "http",
    }
    assert server_layer_problems(SERVER) == []


def test_the_server_layer_check_sees_a_wrong_way_import(tmp_path: Path) -> None:
    """The check itself, on a small tree: the wire protocol importing a live table, a
    relative import and a sub-package in no layer are each reported."""
    for folder in ("wire", "live", "extra"):
        (tmp_path / folder).mkdir()
    (tmp_path / "live" / "hub.py").write_text("from maumau.server.wire import protocol\n")
    (tmp_path / "wire" / "protocol.py").write_text(
        "from maumau.server.config import ServerConfig\nfrom maumau.server.live.hub import Hub\n"
    )
    (tmp_path / "wire" / "names.py").write_text("from . import protocol\n")
    (tmp_path / "extra" / "thing.py").write_text("")
    assert server_layer_problems(tmp_path) == [
        "server/extra/thing.py is in no layer: add 'extra' to SERVER_LAYERS",
        "server/wire/names.py:1 (wire) imports .",
        "server/wire/protocol.py:2 (wire) imports live",
    ]


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
        "import sys, maumau, maumau.engine, maumau.bots, maumau.cli.main, maumau.env\n"
        "import maumau.eval\n"
        "import maumau.env.session, maumau.env.actions, maumau.env.rewards\n"
        "heavy = ('numpy', 'pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel')\n"
        "print(','.join(name for name in heavy if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_load_tool_is_a_pure_client() -> None:
    """``maumau loadtest`` needs no server-side library: no web framework, no database,
    no pydantic (it parses each frame with ``json`` alone); of the command line it uses
    the argparse types alone, which import nothing of ours either."""
    server_side = {"fastapi", "starlette", "uvicorn", "pydantic", "sqlalchemy", "alembic"}
    server_side |= {"aiosqlite", "asyncpg", "httpx"}
    command = [PACKAGE / "cli" / "load.py", PACKAGE / "cli" / "types.py"]
    for path in [*sorted((PACKAGE / "loadtest").glob("*.py")), *command]:
        for name in _imports(path):
            assert name.split(".")[0] not in server_side, f"{path.name} imports {name}"
            ours = name.startswith("maumau.")
            assert not ours or name.startswith(("maumau.loadtest", "maumau.cli.types")), (
                f"{path.name} imports {name}"
            )


@pytest.mark.system
def test_the_command_line_loads_the_server_only_to_serve() -> None:
    """``maumau --help``, ``replay`` or ``tournament`` start without the web framework or
    the database layer (they took 1.6 s of every command's start); ``serve`` and
    ``loadtest`` import them when they run."""
    code = (
        "import sys, maumau.cli.main\n"
        "heavy = ('sqlalchemy', 'alembic', 'fastapi', 'starlette', 'uvicorn', 'asyncpg')\n"
        "print(','.join(name for name in heavy if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
