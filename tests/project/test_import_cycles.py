"""No import circles in ``src/maumau``: every module can be read, and loaded, after the
modules it names.

The test reads every module with ``ast`` (as ``test_layering.py`` does) and draws an edge
from a module to each of our modules it imports *at module level*: the statements at the
top of the file, inside a top-level ``if``/``try`` and under ``if TYPE_CHECKING:`` (an
annotation-only import is still a dependency of the design, and ``mypy`` follows it).
Imports inside a function or a method body are not counted: they run later, on demand,
and are the deliberate way to keep a heavy library out of start-up (see
``test_layering.py``); they must not be used to hide a circle.

How an import names its target:

- ``import a.b.c`` and ``from a.b import c`` name module ``a.b.c`` when it exists;
  ``from a.b import Name`` (a name, not a submodule) names the package ``a.b`` itself,
  that is its ``__init__.py``;
- relative imports are resolved against the importing module's package;
- the parent packages Python runs on the way (``a`` and ``a.b`` for ``import a.b.c``) are
  not counted: a package's ``__init__`` that re-exports its modules would otherwise be in
  a circle with each of them.

A circle is a strongly connected component of more than one module (or a module that
imports itself); the failure names each one with the edges that close it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "maumau"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _module_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements run when the module is loaded (or read by a type checker):
    at top level and inside top-level ``if``/``else``/``try`` blocks, not in functions
    or classes."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level(block)
            for handler in node.handlers:
                yield from _module_level(handler.body)


def _targets(name: str, is_package: bool, source: str, modules: set[str]) -> set[str]:
    """The modules in ``modules`` that module ``name`` (whose text is ``source``) imports
    at module level."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _module_level(ast.parse(source).body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            origin = ".".join([*base, *([node.module] if node.module else [])])
        else:
            origin = node.module or ""
        for alias in node.names:
            submodule = f"{origin}.{alias.name}"
            if submodule in modules:
                found.add(submodule)
            elif origin in modules:
                found.add(origin)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: _targets(
            name, path.name == "__init__.py", path.read_text(encoding="utf-8"), set(modules)
        )
        for name, path in modules.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with a circle in them (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _describe(component: list[str], graph: dict[str, set[str]]) -> str:
    members = set(component)
    edges = [
        f"{source} -> {target}"
        for source in component
        for target in sorted(graph[source] & members)
    ]
    return f"{{{', '.join(component)}}}: " + "; ".join(edges)


def test_the_reader_sees_module_level_imports_only() -> None:
    """Absolute, relative, ``from package import module``, ``from package import Name``
    and ``TYPE_CHECKING`` imports count; those inside a function or a class do not."""
    modules = {f"p.{letter}" for letter in "abcdefghijk"} | {"p", "p.sub", "p.sub.x"}
    source = (
        "from __future__ import annotations\n"
        "import json\n"
        "import p.a\n"
        "from p import b\n"
        "from . import c\n"
        "from .d import Thing\n"
        "from p.sub import Name\n"
        "from ..x import y\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from p.e import Other\n"
        "try:\n"
        "    import p.f\n"
        "except ImportError:\n"
        "    import p.g\n"
        "def later() -> None:\n"
        "    import p.h\n"
        "class Later:\n"
        "    from p import i\n"
    )
    assert _targets("p.j", False, source, modules) == {
        *("p.a", "p.b", "p.c", "p.d", "p.e", "p.f", "p.g", "p.sub"),
    }
    assert _targets("p.sub", True, "from . import x\nfrom .. import k\n", modules) == {
        "p.sub.x",
        "p.k",
    }
    graph = import_graph()
    assert "maumau.engine.cards" in graph["maumau.engine.game"]
    assert all(target in graph for targets in graph.values() for target in targets)


def test_the_finder_names_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert circles(graph) == [["a", "b", "c"], ["e"]]
    assert _describe(["a", "b", "c"], graph) == "{a, b, c}: a -> b; b -> c; c -> a"


def test_src_has_no_import_circles() -> None:
    graph = import_graph()
    found = circles(graph)
    assert not found, "import circles in src/maumau:\n" + "\n".join(
        _describe(component, graph) for component in found
    )
