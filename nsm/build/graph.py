"""The build graph of a package: Neve modules and their imports, build units (a module, or an
import cycle: LANGUAGE.md 13.4), native libraries and executables, and the import map the
compiler is fed (compiler/imports.py).

Imports are found by the parser's own pre-scan (compiler.prescan.scan_imports) and resolved once,
here, in the search order of nsm.project; the scan result is remembered per content hash in the
FileDB.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import project
from .stamps import FileDB


@dataclass(eq=False)
class ModuleNode:
    path: Path                       # resolved source path
    key: str                         # stable module key (nsm.project.module_key)
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
    imports: object = None            # the ImportMap of every module in the graph


class Planner:
    """Finds every module reachable from the roots, resolving each import once, and groups
    them into units."""

    def __init__(self, db: FileDB, root_file: Path) -> None:
        from compiler.imports import ModuleEntry
        project.reset()
        self.Entry = ModuleEntry
        self.db = db
        self.root_file = root_file          # picks installed versions through its package's lock
        self.building = project.package_root(root_file)   # builds its native part in place
        self.natives: dict[Path, object] = {}
        self.bindings: dict[Path, Path] = {}   # generated bindings.nv -> its package root
        self.nodes: dict[Path, ModuleNode] = {}
        self.entries: dict[str, object] = {}     # real path -> compiler.imports.ModuleEntry
        self.std_path = project.resolved(project.std_entry())
        self.std = self.node(self.std_path)

    def node(self, path: Path) -> ModuleNode:
        """The node of the module at `path`, with every module it reaches (iteratively: an
        import chain may be thousands of modules long)."""
        first = self._new(path)
        todo = [first] if str(first.path) not in self.entries else []
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
        path = project.resolved(path)
        if path in self.nodes:
            return self.nodes[path]
        generated = path in self.bindings
        n = ModuleNode(path, project.module_key(path),
                       self.bindings[path] if generated else project.package_root(path),
                       generated=generated)
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
            self.natives[pkg] = spec = spec_of(pkg, self.building)
            if spec is not None:
                self.bindings[project.resolved(spec.bindings)] = pkg
        return self.natives[pkg]

    def _bindings_of(self, entry: Path) -> Path | None:
        """bindings.nv merged into `entry` when it is the entry module of a native package."""
        pkg = project.package_root(entry)
        spec = self.native(pkg)
        if spec is not None and project.resolved(project.package_entry(pkg)) == entry:
            return spec.bindings
        return None

    def _imports_of(self, n: ModuleNode) -> list[Path]:
        """The modules `n` imports (the std first), recording its import-map entry."""
        from compiler.prescan import scan_imports
        s = str(n.path)
        specs = None if n.generated else self.db.fact(s, "imports")
        if specs is None or not self.db.unchanged(s):
            if n.generated:
                specs = []     # bindings hold protos only; they import nothing
            else:
                specs = _scanned(self.db.digest(s), n.path, scan_imports)
                self.db.set_fact(s, "imports", specs)
        bindings = None if n.generated else self._bindings_of(n.path)
        entry = self.Entry(n.key, bindings=str(bindings) if bindings else None)
        self.entries[s] = entry
        out: list[Path] = []
        if n.path != self.std_path:
            out.append(self.std_path)
        for spec in specs:
            if spec in entry.imports:
                continue
            if spec.startswith("<"):                  # import c"zlib.h" (build.cimport)
                found = self.c_header(spec, entry)
                if found is not None:
                    out.append(found)
                continue
            try:
                found, tried = self.resolve(n.path, tuple(spec.split("/")))
            except EscapeError as e:
                entry.imports[spec] = None
                entry.errors[spec] = str(e)
                continue
            entry.imports[spec] = str(found) if found is not None else None
            if found is None:
                entry.tried[spec] = tried
            elif found != n.path:
                out.append(found)
        return out

    def c_header(self, spec: str, entry) -> Path | None:
        """The bindings module of the system header `spec`, or None with the error recorded."""
        from ..errors import NsmError
        from .cimport import header_package
        try:
            pkg = header_package(spec)
            native = self.native(pkg)
        except NsmError as e:
            entry.imports[spec] = None
            entry.errors[spec] = e.message
            return None
        found = project.resolved(native.bindings)
        entry.imports[spec] = str(found)
        return found

    def resolve(self, importer: Path, parts: tuple[str, ...]) -> tuple[Path | None, list[str]]:
        """The real path `import a/b` in `importer` names, or None with the candidates tried."""
        tried = []
        for c in project.candidates(importer, parts, self.root_file):
            tried.append(str(c))
            if c.is_file():
                return _inside_its_package(c), tried
            pkg = project.package_root(c) if c.parent.exists() else None
            spec = self.native(pkg)
            if spec is not None and project.resolved(project.package_entry(pkg)) == project.resolved(c):
                return project.resolved(spec.bindings), tried      # a package of bindings only
            self.db.watch(str(project.resolved(c)))      # created later, it changes the import
        return None, tried

    def import_map(self):
        """The compiler's ImportMap for every module planned so far."""
        from compiler.imports import ImportMap
        return ImportMap(str(self.std_path), dict(self.entries))


def _scanned(digest: str | None, path: Path, scan) -> list[str]:
    """The import paths of the module at `path` with content hash `digest`, remembered in
    $NEVE_HOME/cache/scans/ by content, so a new build folder does not lex std and Frost again."""
    import json
    from .. import paths
    from ..files import write_atomic
    where = paths.cache_dir() / "scans" / digest[:2] / digest if digest else None
    if where is not None:
        try:
            return json.loads(where.read_text())
        except (OSError, ValueError):
            pass
    try:
        specs = scan(path.read_bytes().decode("utf-8", "replace"), str(path))
    except OSError:
        return []
    if where is not None:
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(where, json.dumps(specs))
        except OSError:
            pass                          # a read-only cache only costs the scan
    return specs


class EscapeError(Exception):
    """A module whose real path leaves the package it is found in (through a symbolic link)."""


def _inside_its_package(c: Path) -> Path:
    """The real path of candidate module `c`, refused (EscapeError) when links take it out of
    the package its spelled path lies in: an installed tree must not make the compiler read
    files elsewhere on the machine."""
    import os
    spelled = Path(os.path.abspath(c))
    real = project.resolved(c)
    pkg = next((d for d in spelled.parents if (d / project.MANIFEST).is_file()), None)
    if pkg is not None and not real.is_relative_to(project.resolved(pkg)):
        raise EscapeError(f"module {spelled} leaves its package {pkg} (it is a link to {real}); "
                          f"nsm does not compile files outside a package's folder")
    return real


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
    return Graph(p.nodes, units, exes, {k: v for k, v in natives.items() if v is not None},
                 p.import_map())
