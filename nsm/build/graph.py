"""The build graph of a package: Neve modules and their imports, build units (a module, or an
import cycle: LANGUAGE.md 13.4), native libraries and executables.

Imports are found by a line scan (top-level `import`/`from` lines, column 0) and resolved with
the compiler's own search order (compiler.modules.candidates), so the graph and the compiler
agree; the scan result is remembered per content hash in the FileDB.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .stamps import FileDB

_IMPORT = re.compile(r"^(?:import|from)[ \t]+([A-Za-z_]\w*(?:[./][A-Za-z_]\w*)*)", re.M)


@dataclass(eq=False)
class ModuleNode:
    path: Path                       # resolved source path
    key: str                         # stable module key (compiler.unit.stable_module_key)
    package: Path | None             # package root
    imports: list["ModuleNode"] = field(default_factory=list)
    extra_inputs: list[str] = field(default_factory=list)   # generated files it reads
    generated: bool = False          # produced by an edge (bindings.nv), not a stamped source


@dataclass(eq=False)
class Unit:
    """One compiler invocation: a module, or every module of an import cycle."""
    modules: list[ModuleNode]
    deps: list["Unit"] = field(default_factory=list)      # units it imports, outside itself

    @property
    def name(self) -> str:
        return self.modules[0].key


@dataclass
class Executable:
    name: str
    kind: str                         # "bin" or "test"
    root: ModuleNode
    units: list[Unit] = field(default_factory=list)      # every unit linked into it


@dataclass
class Graph:
    modules: dict[Path, ModuleNode]
    units: list[Unit]                 # dependencies first
    executables: list[Executable]
    natives: dict[Path, object]       # package root -> NativeSpec, for packages with [native]


def scan_imports(text: str) -> list[str]:
    """The import paths of a module's top-level `import`/`from` lines, as `a/b/c` (8)."""
    return [m.replace(".", "/") for m in _IMPORT.findall(text)]


class Planner:
    """Finds every module reachable from the roots and groups them into units."""

    def __init__(self, db: FileDB, root_file: Path) -> None:
        from compiler import modules as M
        from compiler.unit import stable_module_key
        self.M = M
        self.key_of = stable_module_key
        self.db = db
        self.root_file = root_file          # picks installed versions through its package's lock
        self.natives: dict[Path, object] = {}
        self.nodes: dict[Path, ModuleNode] = {}
        self.std = self.node(M.package_entry(M.bundled_root() / "std").resolve())

    def node(self, path: Path) -> ModuleNode:
        """The node of the module at `path`, with every module it reaches (iteratively: an
        import chain may be thousands of modules long)."""
        first = self._new(path)
        todo = [first]
        while todo:
            n = todo.pop()
            for p in self._imports_of(n):
                known = self.nodes.get(p)
                if known is None:
                    known = self._new(p)
                    todo.append(known)
                n.imports.append(known)
        return first

    def _new(self, path: Path) -> ModuleNode:
        path = path.resolve()
        if path in self.nodes:
            return self.nodes[path]
        generated = path.name == "bindings.nv" and path.parent.name == "native"
        n = ModuleNode(path, self.key_of(path), self.M.package_root(path), generated=generated)
        self.nodes[path] = n
        if not generated:
            bindings = self._bindings_of(path)
            if bindings is not None:
                n.extra_inputs.append(str(bindings))
        return n

    def native(self, pkg: Path | None):
        """The NativeSpec of package `pkg` (None without [native]), read once."""
        if pkg is None:
            return None
        if pkg not in self.natives:
            from .native import spec_of
            self.natives[pkg] = spec_of(pkg)
        return self.natives[pkg]

    def _bindings_of(self, entry: Path) -> Path | None:
        """bindings.nv merged into `entry` when it is the entry module of a native package."""
        pkg = self.M.package_root(entry)
        spec = self.native(pkg)
        if spec is not None and self.M.package_entry(pkg).resolve() == entry:
            return spec.bindings
        return None

    def _imports_of(self, n: ModuleNode) -> list[Path]:
        s = str(n.path)
        specs = None if n.generated else self.db.fact(s, "imports")
        if specs is None or not self.db.unchanged(s):
            if n.generated:
                specs = []     # bindings hold protos only; they import nothing
            else:
                self.db.digest(s)
                try:
                    specs = scan_imports(n.path.read_text(errors="replace"))
                except OSError:
                    specs = []
                self.db.set_fact(s, "imports", specs)
        out: list[Path] = []
        if n.path != self._std_path():
            out.append(self._std_path())
        for spec in specs:
            found = self.resolve(n.path, tuple(spec.split("/")))
            if found is not None and found != n.path:
                out.append(found)
        return out

    def _std_path(self) -> Path:
        return self.M.package_entry(self.M.bundled_root() / "std").resolve()

    def resolve(self, importer: Path, parts: tuple[str, ...]) -> Path | None:
        for c in self.M.candidates(importer, parts, self.root_file):
            if c.is_file():
                return c.resolve()
            pkg = self.M.package_root(c) if c.parent.exists() else None
            spec = self.native(pkg)
            if spec is not None and self.M.package_entry(pkg).resolve() == c.resolve():
                return spec.bindings.resolve()           # a package of bindings only
            self.db.watch(str(c.resolve()))      # created later, it changes the import
        return None


def plan(db: FileDB, roots: list[tuple[str, str, Path]], root_file: Path,
         libraries: list[Path] = ()) -> Graph:
    """The graph for executables `roots` ((name, kind, root module path)) and library entry
    modules `libraries` (checked and compiled, not linked)."""
    p = Planner(db, root_file)
    starts = [p.node(r) for _, _, r in roots] + [p.node(lib) for lib in libraries]
    order = list(p.nodes.values())
    from compiler.scc import strongly_connected
    comps = [sorted(c, key=lambda m: m.key) for c in strongly_connected(order, lambda m: m.imports)]
    unit_of: dict[ModuleNode, Unit] = {}
    units: list[Unit] = []
    for comp in comps:
        u = Unit(comp)
        for m in comp:
            unit_of[m] = u
        seen: list[Unit] = []
        for m in comp:
            for d in m.imports:
                du = unit_of.get(d)
                if du is not None and du is not u and du not in seen:
                    seen.append(du)
        u.deps = seen
        units.append(u)
    exes = []
    for (name, kind, _), start in zip(roots, starts):
        closure: list[Unit] = []
        todo = [unit_of[start]]
        seen_u: set[int] = set()
        while todo:
            u = todo.pop()
            if id(u) in seen_u:
                continue
            seen_u.add(id(u))
            closure.append(u)
            todo += u.deps
        exes.append(Executable(name, kind, start, [u for u in units if id(u) in seen_u]))
    natives = {pkg: p.native(pkg) for pkg in {m.package for m in order if m.package}}
    return Graph(p.nodes, units, exes, {k: v for k, v in natives.items() if v is not None})
