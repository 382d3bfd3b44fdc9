"""Structural rules of the source tree: no import circles inside compiler/, compiler/ imports nothing from nsm/.

The import graph is read from the source with `ast`, counting imports at module level and inside
functions (deferred imports are how circles hide), but not those under `if TYPE_CHECKING:`, which
never run.
"""
from __future__ import annotations

import ast
import re
from collections import deque
from pathlib import Path

import pytest

from compiler.scc import strongly_connected

REPO = Path(__file__).resolve().parent.parent

# Edges allowed for now, each with the work that removes it (issue 13, item 4: PTX as a stage
# output). The test fails when one is gone, so that its entry goes too.
TEMPORARY_EDGES: dict[tuple[str, str], str] = {}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(tree: ast.AST):
    """Every Import/ImportFrom node that can run, at any depth."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo.extend(ast.iter_child_nodes(node))


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """module -> {imported module inside `root`'s package: line of the first such import}.

    `from .x import y` names the submodule `x.y` when it exists, else the module `x`
    (a package is its `__init__`)."""
    files = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, dict[str, int]] = {m: {} for m in files}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in files else target
                           for a in node.names]
            for t in targets:
                while t not in files and "." in t:     # `import a.b.c` of a name inside a.b
                    t = t.rpartition(".")[0]
                if t in files and t != mod:
                    graph[mod].setdefault(t, node.lineno)
    return graph


def cycle_in(graph: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    """One shortest circle through the component's first module, as a list of modules."""
    members, start = set(component), component[0]
    prev: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in graph[v]:
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return component


def circles(graph: dict[str, dict[str, int]], allowed=()) -> list[str]:
    """Each import circle, written `a (line) -> b (line) -> ... -> a`."""
    allowed = set(allowed)
    succ = lambda m: [t for t in graph[m] if (m, t) not in allowed]  # noqa: E731
    out = []
    for comp in strongly_connected(sorted(graph), succ):
        if len(comp) > 1:
            ring = cycle_in({m: {t: graph[m][t] for t in succ(m)} for m in graph}, sorted(comp))
            out.append(" -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(ring, ring[1:]))
                       + f" -> {ring[-1]}   [component: {', '.join(sorted(comp))}]")
    return out


def test_no_import_circles_inside_compiler():
    graph = import_graph(REPO / "compiler")
    for (a, b), why in TEMPORARY_EDGES.items():
        assert b in graph[a], f"temporary exception {a} -> {b} is gone ({why}): delete it"
    found = circles(graph, TEMPORARY_EDGES)
    assert not found, "import circles inside compiler/:\n" + "\n".join(found)


def test_lowering_does_not_import_the_driver():
    graph = import_graph(REPO / "compiler")
    bad = [m for m, deps in graph.items()
           if m.startswith(("compiler.lower", "compiler.backends", "compiler.check"))
           and "compiler.driver" in deps]
    assert bad == []


def test_the_graph_sees_deferred_relative_and_package_imports(tmp_path):
    pkg = tmp_path / "p"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("from ..c import x\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from ..c import x\n")
    (pkg / "c.py").write_text("def f():\n    from . import a\n")
    graph = import_graph(pkg)
    assert graph == {"p": {}, "p.a": {"p.sub.b": 1}, "p.c": {"p.a": 2},
                     "p.sub": {"p.c": 1}, "p.sub.b": {}}
    assert circles(graph) == []
    (pkg / "sub" / "b.py").write_text("def g():\n    import p.c\n")
    found = circles(import_graph(pkg))
    assert found == ["p.a (line 1) -> p.sub.b (line 2) -> p.c (line 2) -> p.a   "
                     "[component: p.a, p.c, p.sub.b]"]
    assert circles(import_graph(pkg), allowed={("p.c", "p.a")}) == []


NSM_IMPORT = re.compile(r"^\s*(from|import) nsm\b", re.M)


def test_compiler_imports_nothing_from_nsm():
    """nsm hands the compiler an import map; the compiler never reaches back into nsm."""
    found = [f"{p.relative_to(REPO)}:{src[:m.start()].count(chr(10)) + 1}"
             for p in sorted((REPO / "compiler").rglob("*.py"))
             for src in [p.read_text()] for m in NSM_IMPORT.finditer(src)]
    assert found == []
