"""The import graph of ``engine/`` (with ``engine/ai/``) and ``renderers/``: no module imports
itself back through others, ``engine`` imports nothing outside the standard library, and
``renderers`` never imports ``bot`` or ``telegram`` (README.md, Architecture).

Every import statement counts, wherever it stands: at module level, inside a function (a
deferred import still is a dependency of the design), under ``if TYPE_CHECKING:``. The sources
are read with :mod:`ast`, never imported, so the graph is the one written down.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "renderers")


@dataclass(frozen=True)
class Import:
    """``module`` (at ``line``) imports ``target``, a dotted name made absolute: the module named
    after ``from``, or, for ``from package import name`` where ``name`` is a submodule, that
    submodule."""

    module: str
    target: str
    line: int


def module_name(path: Path, root: Path = ROOT) -> str:
    """``engine/ai/search.py`` → ``engine.ai.search``; a package's ``__init__.py`` is the
    package itself."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` (subpackages included) by its dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def imports_of(
    source: str, module: str, is_package: bool, known: Container[str]
) -> Iterator[Import]:
    """Every import in ``source``, the text of ``module``, at any depth of the syntax tree.
    ``known`` (module names) tells a submodule named after ``from package import`` from a name
    the package defines."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                up = node.level - 1
                assert up < len(parts), f"{module}:{node.lineno}: beyond the top-level package"
                base = ".".join(parts[: len(parts) - up] + ([node.module] if node.module else []))
            else:
                assert node.module is not None
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield Import(module, sub if sub in known else base, node.lineno)


def all_imports(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[Import]:
    modules = package_modules(root, packages)
    known = frozenset(modules)
    out: list[Import] = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        out.extend(imports_of(path.read_text(encoding="utf-8"), name, is_package, known))
    return out


def owner(target: str, known: frozenset[str]) -> str | None:
    """The module of ours that ``target`` names (its longest known prefix), or None."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in known:
            return name
    return None


def import_graph(imports: list[Import], known: frozenset[str]) -> dict[str, dict[str, int]]:
    """module → {module it imports: the first line that does}, over the modules in ``known``."""
    graph: dict[str, dict[str, int]] = {m: {} for m in sorted(known)}
    for imp in imports:
        dst = owner(imp.target, known)
        if dst is not None:
            lines = graph[imp.module]
            lines[dst] = min(lines.get(dst, imp.line), imp.line)
    return graph


def strongly_connected(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``graph``, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return components


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The components that are cycles: two or more modules, or one importing itself."""
    return [c for c in strongly_connected(graph) if len(c) > 1 or c[0] in graph[c[0]]]


def describe(component: list[str], graph: Mapping[str, Mapping[str, int]]) -> str:
    members = set(component)
    edges = [
        f"    {src} -> {dst} (line {line})"
        for src in component
        for dst, line in sorted(graph[src].items())
        if dst in members
    ]
    return f"  {len(component)} modules: {', '.join(component)}\n" + "\n".join(edges)


# -- the checks -------------------------------------------------------------------------------


def test_the_graph_reads_every_kind_of_import() -> None:
    known = frozenset({"pkg", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c", "pkg.sub.d"})
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import pkg.a\n"
        "from . import d, helper\n"
        "from ..b import thing\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.sub import d as dd\n"
        "def late() -> None:\n"
        "    from .. import a\n"
        "    import json\n"
    )
    got = {(i.target, i.line) for i in imports_of(source, "pkg.sub.c", False, known)}
    assert got == {
        ("__future__", 1),
        ("typing", 2),
        ("pkg.a", 3),
        ("pkg.sub.d", 4),  # a submodule named after ``from package import``
        ("pkg.sub", 4),  # a name the package's __init__ defines: the package itself
        ("pkg.b", 5),
        ("pkg.sub.d", 7),  # under TYPE_CHECKING
        ("pkg.a", 9),  # inside a function
        ("json", 10),
    }
    init = {i.target for i in imports_of("from .c import x\n", "pkg.sub", True, known)}
    assert init == {"pkg.sub.c"}  # a package's relative imports start from the package
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 1}, "d": {"d": 1}, "e": {"a": 1}}
    assert cycles(graph) == [["d"], ["a", "b", "c"]]


def test_the_graph_covers_both_packages() -> None:
    modules = package_modules()
    assert {"engine", "engine.game", "engine.ai", "engine.ai.search"} <= set(modules)
    assert {"renderers", "renderers.table_image", "renderers.result_image"} <= set(modules)
    graph = import_graph(all_imports(), frozenset(modules))
    assert "engine.game" in graph["engine.match"]
    assert "engine.ai.baseline" in graph["engine.ai.decision"]  # from . import baseline
    assert "engine.ai" in graph["engine.arena"]  # the package's __init__
    assert "engine.view" in graph["renderers.table_image"]


def test_no_import_cycles_in_engine_and_renderers() -> None:
    graph = import_graph(all_imports(), frozenset(package_modules()))
    found = cycles(graph)
    assert not found, "import cycles (strongly connected modules):\n" + "\n".join(
        describe(c, graph) for c in found
    )


def test_engine_imports_only_the_standard_library() -> None:
    outside = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in all_imports(packages=("engine",))
        if i.target.split(".")[0] not in {"engine", *sys.stdlib_module_names}
    ]
    assert not outside, "engine is pure standard library:\n" + "\n".join(outside)


def test_renderers_import_neither_bot_nor_telegram() -> None:
    banned = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in all_imports(packages=("renderers",))
        if i.target.split(".")[0] in {"bot", "telegram"}
    ]
    assert not banned, "renderers are pure presentation:\n" + "\n".join(banned)


def test_no_import_cycles_in_bot() -> None:
    modules = frozenset(package_modules(packages=("bot",)))
    graph = import_graph(all_imports(packages=("bot",)), modules)
    found = cycles(graph)
    assert not found, "import cycles in bot/:\n" + "\n".join(describe(c, graph) for c in found)


def test_production_never_reaches_the_offline_world() -> None:
    """What ``python -m bot`` runs with a token (the runner, the app and every part) imports
    nothing of ``bot.offline``: the local server and simulated players stay out of it."""
    modules = frozenset(package_modules(packages=("bot",)))
    graph = import_graph(all_imports(packages=("bot",)), modules)
    seen: set[str] = set()
    todo = ["bot.runner", "bot.app"]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, {}))
    offline = sorted(m for m in seen if m.startswith("bot.offline"))
    assert not offline, f"production imports the offline world: {offline}"
    assert {"bot.compose", "bot.router", "bot.lobby", "bot.play"} <= seen
