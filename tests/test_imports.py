"""The import graph of kiaule_env, agents and experiments: no circles, no upward imports.

Every module of the three packages is parsed with `ast` (nothing is imported), and every import
statement counts: module level and inside functions, absolute and relative, including those under
``if TYPE_CHECKING:`` (a circle there is still a circle for the reader and for a refactor).

The rule for edges, so that a package re-exporting its submodules is not a circle:

- ``import a.b.c`` and ``from a.b import c`` (when ``a/b/c`` is a module) give an edge to
  ``a.b.c`` only, not to the packages ``a`` and ``a.b`` that Python runs on the way.
- ``from a.b import name`` (when ``name`` is not a submodule) gives an edge to ``a.b``, the
  package whose ``__init__`` defines the name.

So ``pkg/__init__.py`` importing ``pkg.sub`` is an edge ``pkg -> pkg.sub``; it closes a circle only
when ``pkg.sub`` (or something it imports) takes a name from ``pkg`` itself.

The layers (docs/ARCHITECTURE.md): ``kiaule_env`` imports neither ``agents`` nor ``experiments``;
``agents`` does not import ``experiments``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kiaule_env", "agents", "experiments")
LAYER = {"kiaule_env": 0, "agents": 1, "experiments": 2}


def module_name(path: Path, root: Path) -> str:
    """The dotted module name of a source file below `root` (a package is its `__init__`)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_sources(root: Path, packages: Iterable[str]) -> dict[str, str]:
    """Every module of `packages` below `root`, as {dotted name: source text}."""
    sources = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            sources[module_name(path, root)] = path.read_text(encoding="utf-8")
    return sources


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name a `from .x import y` in `module` refers to."""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def imported_modules(module: str, source: str, is_package: bool, known: set[str]) -> set[str]:
    """The project modules `module` imports, by the edge rule of this file's docstring."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = _resolve_relative(module, is_package, node.level, node.module)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else base)
    return {name for name in found if name in known and name != module}


def import_graph(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """{module: the project modules it imports} for every module in `sources`."""
    known = set(sources)
    packages = {name for name in known if any(other.startswith(name + ".") for other in known)}
    return {
        name: imported_modules(name, text, name in packages, known)
        for name, text in sources.items()
    }


def find_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component of `graph` that has one, as a module path
    ``[a, b, ..., a]``; a module importing itself is a circle too. Empty when there are none."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:
        # Tarjan's algorithm, recursive: the project's graph is a few hundred modules deep at most.
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_through(graph, component) for component in components]


def _cycle_through(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """A shortest circle through the first (sorted) module of a strongly connected component."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    return [*paths[node], start]
                if nxt in component and nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise ValueError(f"component {sorted(component)} holds no circle")


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Every edge from a lower layer to a higher one, as ``"a.b -> c.d"``."""
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if LAYER[target.split(".")[0]] > LAYER[source.split(".")[0]]
    )


def test_the_project_has_no_import_circle() -> None:
    cycles = find_cycles(import_graph(project_sources(ROOT, PACKAGES)))
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_layer_imports_a_higher_one() -> None:
    upward = upward_imports(import_graph(project_sources(ROOT, PACKAGES)))
    assert not upward, "upward imports (kiaule_env < agents < experiments):\n" + "\n".join(upward)


def test_the_graph_sees_every_package() -> None:
    graph = import_graph(project_sources(ROOT, PACKAGES))
    assert {name.split(".")[0] for name in graph} == set(PACKAGES)
    # the parser finds real edges: the engine of a game imports its rules
    assert "kiaule_env.kozel.rules" in graph["kiaule_env.kozel.engine"]


# The finder itself, on small made-up packages shaped like the circles it must catch.

LAZY_RENDER = {
    "g": "",
    "g.game": "",
    "g.game.engine": "def render(s):\n    from g.game.env import render_table\n    return 1\n",
    "g.game.env": "from g.game.engine import Engine\n\ndef render_table(s):\n    return s\n",
}


def test_a_function_level_import_closes_a_circle() -> None:
    assert find_cycles(import_graph(LAZY_RENDER)) == [
        ["g.game.engine", "g.game.env", "g.game.engine"]
    ]


def test_relative_and_private_name_imports_close_a_circle() -> None:
    sources = {
        "t": "",
        "t.runner": "def run():\n    from .ray_backend import go\n    return go\n",
        "t.ray_backend": "from t.runner import _chunks, _play_chunk\n",
    }
    assert find_cycles(import_graph(sources)) == [["t.ray_backend", "t.runner", "t.ray_backend"]]


def test_a_longer_circle_is_named_in_order() -> None:
    sources = {
        "p": "",
        "p.a": "import p.b\n",
        "p.b": "from p import c\n",
        "p.c": "from p.a import x",
    }
    assert find_cycles(import_graph(sources)) == [["p.a", "p.b", "p.c", "p.a"]]


def test_a_package_re_exporting_its_submodules_is_not_a_circle() -> None:
    sources = {
        "p": "from p.rules import Config\nfrom . import env\n",
        "p.rules": "X = 1\n",
        "p.env": "from p import rules\nfrom p.rules import X\n",
    }
    assert find_cycles(import_graph(sources)) == []


def test_a_submodule_taking_a_name_from_its_package_that_imports_it_is_a_circle() -> None:
    sources = {"p": "from p.env import Env\nNAME = 1\n", "p.env": "from p import NAME\n"}
    assert find_cycles(import_graph(sources)) == [["p", "p.env", "p"]]


def test_an_import_under_type_checking_still_counts() -> None:
    sources = {
        "p": "",
        "p.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import B\n",
        "p.b": "from p.a import A\n",
    }
    assert find_cycles(import_graph(sources)) == [["p.a", "p.b", "p.a"]]


def test_an_upward_import_is_named() -> None:
    sources = {
        "kiaule_env": "",
        "agents": "",
        "agents.train": "def f():\n    from experiments.cli_args import fail\n",
        "experiments": "",
        "experiments.cli_args": "import agents.train\n",
        "kiaule_env.core": "from agents import train\n",
    }
    assert upward_imports(import_graph(sources)) == [
        "agents.train -> experiments.cli_args",
        "kiaule_env.core -> agents.train",
    ]
