"""Reads and parses the modules of a compile (LANGUAGE.md 8), each once, in the order the
import map (compiler/imports.py) leads to them: the compiler is fed where every import goes and
searches nothing itself."""
from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from .diagnostics import CompileError, Diagnostics, Span
from .foreign_names import foreign_type_names
from .imports import ImportMap


# Packages of the original Neve implementation that its published examples import; without
# a module of that name here, the import is this one located error (docs/phase2.md).
ORIGINAL_PACKAGES = {
    "nsk_cuda": "'nsk_cuda' is a package of the original Neve implementation, not of this one",
}


@dataclass(eq=False)
class Module:
    """One loaded source file."""
    path: str                      # as shown in diagnostics
    key: str                       # unique, symbol-safe name (used in mangled symbols)
    ast: A.Module | None = None
    imports: dict[str, "Module | None"] = field(default_factory=dict)  # binding -> module
    ambiguous: set[str] = field(default_factory=set)
    from_imports: list[tuple[A.FromImport, "Module"]] = field(default_factory=list)
    deps: list["Module"] = field(default_factory=list)
    source_hash: str = ""
    real: str = ""                 # its real path (where traces point, 13.2)
    declared: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # types, generics


@functools.lru_cache(maxsize=65536)
def _realpath(p: str) -> str:
    return os.path.realpath(p)


def resolved(p) -> Path:
    """`Path(p).resolve()`, remembered per spelling (links are assumed not to change during a
    compile)."""
    return Path(_realpath(os.path.abspath(p)))


def shown_path(p) -> str:
    """How diagnostics name a file: relative to the working directory when under it, else by
    its real path."""
    real = str(resolved(p))
    cwd = os.getcwd()
    return os.path.relpath(real) if real.startswith(cwd + os.sep) else real


class Loader:
    """Loads the root file and every module it imports, transitively, each once: lexed, its
    imports looked up in the map and loaded, then parsed once knowing the names they export."""

    def __init__(self, diags: Diagnostics, imports: ImportMap) -> None:
        _realpath.cache_clear()
        self.diags = diags
        self.map = imports
        self.by_file: dict[Path, Module] = {}
        self.order: list[Module] = []
        self.std: Module | None = None

    def load_root(self, path: str, source: str, tokens=None) -> Module:
        """Load the program: the standard library's Neve part first, then the root file (its
        `tokens` when already lexed) and everything it imports."""
        std = self.map.std
        if std is not None and resolved(std) != resolved(path):
            self.std = self.load(Path(std))
        return self.load(Path(path), path, source, tokens)

    def load(self, file: Path, shown: str | None = None, source: str | None = None,
             tokens=None) -> Module | None:
        """The module at `file` (loaded with what it imports, or found loaded); None after
        reporting why it cannot be read."""
        from .lexer import tokenize
        from .parser import declared_names, import_paths, parse_module
        real = resolved(file)
        if real in self.by_file:
            return self.by_file[real]
        entry = self.map.entry(str(real))
        if entry is None:
            from .diagnostics import InternalError
            raise InternalError(f"module {real} is not in the import map the compile was given")
        shown = shown or shown_path(real)
        if source is None:
            from .source import read_source
            source = read_source(shown, self.diags)
            if source is None:
                return None
        else:
            self.diags.add_source(shown, source)
        mod = Module(shown, entry.key, real=str(real))
        mod.source_hash = hashlib.sha256(source.encode()).hexdigest()
        self.by_file[real] = mod
        bindings = self._bindings(entry.bindings, real)
        if tokens is None:
            tokens = tokenize(source, shown, self.diags)
        types, generics = declared_names(tokens)
        extra = frozenset(foreign_type_names(bindings)) if bindings is not None else frozenset()
        mod.declared = (types | extra, generics)
        lines = import_paths(tokens)
        targets: dict[tuple[str, ...], Module | None] = {}
        for line in lines:
            if line.parts not in targets:
                targets[line.parts] = self._target(entry, line)
        known_t, known_g = set(extra), set()
        for line in lines:
            dep = targets[line.parts]
            if dep is None:
                continue
            t, g = dep.declared
            if line.binding is not None:
                known_t |= {f"{line.binding}.{x}" for x in t}
                known_g |= {f"{line.binding}.{x}" for x in g}
            known_t |= {n for n in line.names if n in t}
            known_g |= {n for n in line.names if n in g}
        try:
            mod.ast = parse_module(tokens, shown, self.diags, frozenset(known_t), frozenset(known_g))
        except CompileError:
            pass
        if mod.ast is None:
            mod.ast = A.Module(Span(shown, 1, 1), shown, ())
        if bindings is not None:     # 11.2: the package's bindings.nv joins its entry module
            mod.ast = A.Module(mod.ast.span, mod.ast.path, tuple(mod.ast.items) + tuple(bindings.items))
        self._link_imports(mod, targets)
        self.order.append(mod)
        return mod

    def _target(self, entry, line) -> Module | None:
        """The module an import line names, loaded; None after reporting why there is none."""
        spec = "/".join(line.parts)
        if spec in entry.errors:
            self.diags.error(line.token.span, entry.errors[spec])
            return None
        where = entry.imports.get(spec)
        if where is None and spec in ORIGINAL_PACKAGES:
            self.diags.error(line.token.span, ORIGINAL_PACKAGES[spec],
                             "remove the import: kernels, layouts and tensor-core intrinsics "
                             "are built in (docs/phase2.md)")
            return None
        if where is None:
            listing = ", ".join(entry.tried.get(spec, []))
            self.diags.error(line.token.span, f"cannot find module '{spec}' (tried {listing})",
                             f"to install a package named '{line.parts[0]}': nsm install "
                             f"<user>/{line.parts[0]}")
            return None
        return self.load(Path(where))

    def _bindings(self, path: str | None, real: Path) -> A.Module | None:
        """The parsed bindings.nv merged into the module at `real` (11.2), if the map names one."""
        if path is None or resolved(path) == real:
            return None
        from .lexer import tokenize
        from .parser import parse_module
        from .source import read_source
        shown = shown_path(path)
        source = read_source(shown, self.diags)
        if source is None:
            return None
        try:
            return parse_module(tokenize(source, shown, self.diags), shown, self.diags)
        except CompileError:
            return None

    @staticmethod
    def _link_imports(mod: Module, targets: dict) -> None:
        for item in mod.ast.items:
            if not isinstance(item, (A.Import, A.FromImport)):
                continue
            target = targets.get(tuple(item.path))
            if target is None:
                continue
            mod.deps.append(target)
            if isinstance(item, A.Import):
                name = item.alias or item.path[-1]
                if name in mod.imports and mod.imports[name] is not target:
                    mod.ambiguous.add(name)
                mod.imports[name] = target
            else:
                mod.from_imports.append((item, target))
