"""Finds, reads and parses the modules of a program (LANGUAGE.md 8): the import search order,
packages' module roots, and the bundled std and frost packages."""
from __future__ import annotations

import functools
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from .diagnostics import CompileError, Diagnostics, Span
from .foreign_names import foreign_type_names

BUNDLED = ("std", "frost")


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


@functools.lru_cache(maxsize=65536)
def _realpath(p: str) -> str:
    return os.path.realpath(p)


def resolved(p) -> Path:
    """`Path(p).resolve()`, remembered per spelling: loading a program asks for the same few
    folders thousands of times (symbolic links are assumed not to change during a compile)."""
    return Path(_realpath(os.path.abspath(p)))


@functools.cache
def bundled_root() -> Path:
    return Path(__file__).resolve().parent.parent / "packages"


_ROOTS: dict[str, Path | None] = {}


def package_root(file: Path) -> Path | None:
    """The nearest folder above `file` holding a neve.toml (remembered per folder until
    `reset_path_caches`)."""
    folder = str(resolved(file).parent)
    if folder not in _ROOTS:
        _ROOTS[folder] = next((d for d in (Path(folder), *Path(folder).parents)
                               if (d / "neve.toml").is_file()), None)
    return _ROOTS[folder]


def reset_path_caches() -> None:
    """Forget resolved paths and package roots: called when a compile starts, so one compile
    sees one consistent file system and the next sees changes."""
    _realpath.cache_clear()
    _ROOTS.clear()
    _MANIFESTS.clear()
    _INSTALLED.clear()


def module_root(pkg: Path) -> Path:
    """A package's module root: the manifest's [package] src, by default the package root."""
    src = _manifest(pkg).get("package", {}).get("src")
    return resolved(pkg / src) if isinstance(src, str) else pkg


def package_entry(pkg: Path) -> Path:
    entry = _manifest(pkg).get("package", {}).get("entry")
    return module_root(pkg) / (entry if isinstance(entry, str) else "include.nv")


def native_build_dir(pkg_root: Path) -> Path:
    """Where the native part (11.2) of the package at `pkg_root` is built: its `build/native/`,
    except for the bundled packages, whose folder may be read-only (an installed toolchain):
    theirs goes to $NEVE_HOME/cache/bundled/<name>-<hash of the folder>/native/."""
    root = resolved(pkg_root)
    if root.is_relative_to(resolved(bundled_root())):
        from nsm.paths import cache_dir
        tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
        return cache_dir() / "bundled" / f"{root.name}-{tag}" / "native"
    return Path(pkg_root) / "build" / "native"


def native_bindings_path(pkg_root: Path) -> Path:
    """The generated bindings of a package with native code (11.2): nsm's build runs bindgen
    over the package's headers into this file, merged into the package's entry module."""
    return native_build_dir(pkg_root) / "bindings.nv"


_MANIFESTS: dict[Path, dict] = {}


def _manifest(pkg: Path) -> dict:
    """The parsed neve.toml of `pkg` ({} if unreadable), read once per compile (until
    `reset_path_caches`): a compile asks for its packages' manifests once per module loaded."""
    path = Path(pkg) / "neve.toml"
    if path not in _MANIFESTS:
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            data = {}
        _MANIFESTS[path] = data if isinstance(data, dict) else {}
    return _MANIFESTS[path]


def native_package(entry: Path) -> Path | None:
    """The package root when `entry` (which may not exist) is the entry module of a package
    whose manifest has a [native] table, else None."""
    pkg = package_root(entry)
    if pkg is None or not isinstance(_manifest(pkg).get("native"), dict):
        return None
    return pkg if resolved(package_entry(pkg)) == resolved(entry) else None


def package_name(pkg: Path) -> str:
    name = _manifest(pkg).get("package", {}).get("name")
    return name if isinstance(name, str) else pkg.name


_INSTALLED: dict = {}       # (name, root) -> folder or None; None -> names in lib/


def installed_package(name: str, root: Path | None = None) -> Path | None:
    """An installed package `name` (8 (c)): the version the lock of the package holding the
    program's root file `root` records, else the most recently installed version."""
    key = (name, root)
    if key not in _INSTALLED:
        try:
            from nsm.registry.installed import locate
            from nsm.paths import lib_dir
        except ImportError:
            _INSTALLED[key] = None
        else:
            if None not in _INSTALLED:       # the installed names, listed once per compile
                try:
                    _INSTALLED[None] = {p.split("@")[0] for p in os.listdir(lib_dir())}
                except OSError:
                    _INSTALLED[None] = set()
            _INSTALLED[key] = locate(name, root) if name in _INSTALLED[None] else None
    return _INSTALLED[key]


def candidates(importer: Path, parts: tuple[str, ...], root: Path | None = None) -> list[Path]:
    """Where `import a/b/c` may be found, in search order (8); `root` is the program's root
    file (its package's lock picks installed versions)."""
    rel = Path(*parts).with_suffix(".nv")
    out = [importer.parent / rel]
    pkg = package_root(importer)
    if pkg is not None:
        out.append(module_root(pkg) / rel)
    head, rest = parts[0], parts[1:]
    inst = installed_package(head, root)
    for root in ([inst] if inst else []) + [bundled_root() / b for b in BUNDLED if b == head]:
        if rest:
            out.append(module_root(root) / Path(*rest).with_suffix(".nv"))
        else:
            out.append(package_entry(root))
    return out


def module_key(path: Path, root_dir: Path) -> str:
    try:
        rel = resolved(path).relative_to(resolved(root_dir))
    except ValueError:
        rel = Path(*resolved(path).parts[-3:])
    return re.sub(r"[^A-Za-z0-9_]", "_", rel.with_suffix("").as_posix())


class Loader:
    """Loads the root file and every module it imports, transitively, each once."""

    def __init__(self, diags: Diagnostics, parse, key_of=None) -> None:
        reset_path_caches()
        self.diags = diags
        self.parse = parse          # (source, path, known_types, known_generics, diags) -> Module
        # module keys: relative to the root file's folder by default; separate compilation
        # (compiler/unit.py) passes a key that does not depend on the root
        self.key_of = key_of
        self.by_file: dict[Path, Module] = {}
        self.order: list[Module] = []
        self.root_dir = Path.cwd()
        self.root_file: Path | None = None
        self.std: Module | None = None
        self.missing: set[str] = set()      # candidate paths probed and absent
        self.extra_sources: dict[str, str] = {}   # files merged into modules -> sha256

    def load_root(self, path: str, source: str) -> Module:
        """Load the program: the standard library's Neve part first, then the root file and
        everything it imports."""
        self.root_dir = resolved(Path(path)).parent
        self.root_file = resolved(Path(path))
        std_entry = package_entry(bundled_root() / "std")
        if resolved(std_entry) != resolved(Path(path)):
            self.std = self._load(std_entry, str(std_entry))
        return self._load(Path(path), path, source)

    def _load(self, file: Path, shown: str, source: str | None = None) -> Module | None:
        real = resolved(file)
        if real in self.by_file:
            return self.by_file[real]
        if source is None:
            from .source import read_source
            source = read_source(shown, self.diags)
            if source is None:
                return None
        mod = Module(shown, self.key_of(real) if self.key_of else module_key(real, self.root_dir))
        mod.source_hash = hashlib.sha256(source.encode()).hexdigest()
        self.by_file[real] = mod
        bindings = self._native_bindings(real)
        extra = frozenset(foreign_type_names(bindings)) if bindings is not None else frozenset()
        # A first parse finds the imports; it knows no imported type names yet, so its
        # diagnostics are kept aside and only reported if no second parse is needed.
        first = Diagnostics()
        first.sources = self.diags.sources
        try:
            mod.ast = self.parse(source, shown, extra, frozenset(), first)
        except CompileError:
            pass
        if mod.ast is None:
            mod.ast = A.Module(Span(shown, 1, 1), shown, ())
        mod.ast = _merged(mod.ast, bindings)
        self._resolve_imports(mod, real)
        types, generics = self.exported_names(mod)
        if types or generics or extra:
            mod.ast = _merged(self.parse(source, shown, types | extra, generics, self.diags),
                              bindings)
        else:
            for d in first.items:
                self.diags.error(d.span, d.message, d.hint, d.notes)
        self.order.append(mod)
        return mod

    def _native_bindings(self, real: Path) -> A.Module | None:
        """The parsed bindings.nv of a native package whose entry module is `real` (11.2),
        when it exists and is not itself the module being loaded."""
        pkg = native_package(real)
        if pkg is None:
            return None
        path = native_bindings_path(pkg)
        if not path.is_file() or resolved(path) == real:
            return None
        from .source import read_source
        shown = os.path.relpath(path) if str(resolved(path)).startswith(str(Path.cwd())) \
            else str(path)
        source = read_source(shown, self.diags)
        if source is None:
            return None
        self.extra_sources[str(resolved(path))] = hashlib.sha256(source.encode()).hexdigest()
        try:
            return self.parse(source, shown, frozenset(), frozenset(), self.diags)
        except CompileError:
            return None

    def _resolve_imports(self, mod: Module, real: Path) -> None:
        for item in mod.ast.items:
            if not isinstance(item, (A.Import, A.FromImport)):
                continue
            target = self._find(real, item)
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

    def _find(self, importer: Path, item) -> Module | None:
        tried = candidates(importer, item.path, self.root_file)
        for c in tried:
            pkg = native_package(c)
            if pkg is not None:                 # 11.2: native code and its bindings
                bindings = native_bindings_path(pkg)
                if not bindings.is_file():
                    self.missing.add(str(resolved(bindings)))
                    self.diags.error(item.span, f"package '{package_name(pkg)}' has native code "
                                                f"that is not built (run: nsm build in {pkg})")
                    return None
                if not c.is_file():             # the bindings are the whole entry module
                    self.missing.add(str(resolved(c)))
                    return self._load(bindings, os.path.relpath(bindings)
                                      if str(resolved(bindings)).startswith(str(Path.cwd()))
                                      else str(bindings))
            if not c.is_file():
                self.missing.add(str(resolved(c)))   # a file created here later changes the import
                continue
            if c.is_file():
                shown = os.path.relpath(c) if not os.path.isabs(str(c)) or \
                    str(resolved(c)).startswith(str(Path.cwd())) else str(c)
                return self._load(c, shown)
        spelled = "/".join(item.path)
        listing = ", ".join(str(t) for t in tried)
        self.diags.error(item.span, f"cannot find module '{spelled}' (tried {listing})",
                         f"to install a package named '{item.path[0]}': nsm install "
                         f"<user>/{item.path[0]}")
        return None

    def exported_names(self, mod: Module) -> tuple[frozenset[str], frozenset[str]]:
        """Types and generic names visible in `mod` through its imports (for the parser)."""
        types, generics = set(), set()
        for name, dep in mod.imports.items():
            if dep is None or dep.ast is None:
                continue
            t, g = declared_names(dep.ast)
            types |= {f"{name}.{x}" for x in t}
            generics |= {f"{name}.{x}" for x in g}
        for item, dep in mod.from_imports:
            if dep.ast is None:
                continue
            t, g = declared_names(dep.ast)
            for n, _ in item.names:
                if n in t:
                    types.add(n)
                if n in g:
                    generics.add(n)
        return frozenset(types), frozenset(generics)


def _merged(m: A.Module, bindings: A.Module | None) -> A.Module:
    """A module with the items of its package's bindings.nv appended (spans stay in it)."""
    if bindings is None:
        return m
    return A.Module(m.span, m.path, tuple(m.items) + tuple(bindings.items))


def declared_names(m: A.Module) -> tuple[set[str], set[str]]:
    types, generics = set(), set()
    for it in m.items:
        if isinstance(it, A.ClassDef):
            types.add(it.name)
            if it.tparams:
                generics.add(it.name)
        elif isinstance(it, A.TypeAlias):
            types.add(it.name)
        elif isinstance(it, A.FuncDef) and it.tparams:
            generics.add(it.name)
    types |= set(foreign_type_names(m))          # opaque C types of its protos (11.2)
    return types, generics
