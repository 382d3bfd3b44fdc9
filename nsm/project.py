"""Packages as the build sees them (LANGUAGE.md 8): the one package-root finder, module roots and
entry modules from the validated manifest, the import search order, installed and bundled
packages, module keys. The compiler knows none of this: the planner resolves every import here
and hands the compiler an import map (compiler/imports.py)."""
from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

from . import paths
from .errors import NsmError

BUNDLED = ("std", "frost")
MANIFEST = "neve.toml"


@functools.lru_cache(maxsize=65536)
def _realpath(p: str) -> str:
    return os.path.realpath(p)


def resolved(p) -> Path:
    """`Path(p).resolve()`, remembered per spelling: planning asks for the same few folders
    thousands of times (links are assumed not to change during one build)."""
    return Path(_realpath(os.path.abspath(p)))


@functools.cache
def bundled_root() -> Path:
    return resolved(paths.bundled_packages_dir())


def std_entry() -> Path:
    return package_entry(bundled_root() / "std")


_ROOTS: dict[str, Path | None] = {}
_MANIFESTS: dict[Path, object] = {}


def reset() -> None:
    """Forget resolved paths, package roots and manifests: called when a plan starts, so one
    plan sees one consistent file system and the next sees changes."""
    _realpath.cache_clear()
    _ROOTS.clear()
    _MANIFESTS.clear()
    _INSTALLED.clear()


def package_root(start: Path) -> Path | None:
    """The nearest folder holding a neve.toml at or above `start` (a folder, or a file's
    folder); None outside every package. The one place that decides what package a path is in."""
    start = resolved(start)
    folder = str(start if start.is_dir() else start.parent)
    if folder not in _ROOTS:
        _ROOTS[folder] = next((d for d in (Path(folder), *Path(folder).parents)
                               if (d / MANIFEST).is_file()), None)
    return _ROOTS[folder]


def manifest(pkg: Path):
    """The validated Manifest of the package at `pkg`, read once per plan; NsmError (located)
    when it is unreadable or invalid."""
    pkg = resolved(pkg)
    if pkg not in _MANIFESTS:
        from .manifest import load
        try:
            _MANIFESTS[pkg] = load(pkg)
        except NsmError as e:
            _MANIFESTS[pkg] = e
    m = _MANIFESTS[pkg]
    if isinstance(m, NsmError):
        raise m
    return m


def workspace_root(pkg: Path) -> Path | None:
    """The workspace the package at `pkg` belongs to: `pkg` itself when its manifest has a
    [workspace], else the nearest folder above whose [workspace] members name `pkg`; None."""
    pkg = resolved(pkg)
    for d in (pkg, *pkg.parents):
        if (d / MANIFEST).is_file():
            try:
                m = manifest(d)
            except NsmError:
                if d == pkg:
                    raise
                continue                      # an unrelated broken manifest above
            if m.members and (d == pkg or any(resolved(d / x) == pkg for x in m.members)):
                return d
    return None


def workspace_members(ws: Path) -> list[Path]:
    """The package folders of the workspace at `ws` (the root first when it is a package too);
    NsmError naming a member without a neve.toml."""
    m = manifest(ws)
    out = [] if m.virtual else [resolved(ws)]
    for x in m.members:
        d = resolved(Path(ws) / x)
        if not (d / MANIFEST).is_file():
            raise NsmError(f"{m.path}: workspace member '{x}' has no neve.toml",
                           "members are folders (relative to the workspace) holding packages")
        out.append(d)
    return out


def module_root(pkg: Path) -> Path:
    """A package's module root: the manifest's [package] src, by default the package root."""
    src = manifest(pkg).src
    return resolved(Path(pkg) / src) if src else resolved(pkg)


def package_entry(pkg: Path) -> Path:
    """The entry module of the package at `pkg` ([package] entry, default include.nv)."""
    return module_root(pkg) / (manifest(pkg).entry or "include.nv")


def package_name(pkg: Path) -> str:
    return manifest(pkg).name


def native_build_dir(pkg: Path, building: Path | None = None) -> Path:
    """Where the native part (11.2) of the package at `pkg` is built: its own `build/native/`
    only when it is `building` (the package being built) and neither installed nor bundled;
    otherwise $NEVE_HOME/cache/native/<name>-<hash of its real path>/, so a build never writes
    into another package's folder (an installed one, a dependency, a read-only toolchain)."""
    root = resolved(pkg)
    own = building is not None and resolved(building) == root
    if own and not root.is_relative_to(bundled_root()) and \
            not root.is_relative_to(resolved(paths.lib_dir())):
        return root / "build" / "native"
    try:
        name = _symbol_safe(package_name(root))
    except NsmError:
        name = "pkg"
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return paths.cache_dir() / "native" / f"{name}-{tag}"


_INSTALLED: dict = {}       # (name, root file) -> folder or None; None -> names in lib/


def installed_package(name: str, root_file: Path | None) -> Path | None:
    """Installed package `name` (8 (c)): the version the lock of the package holding the
    program's root file records, else the most recently installed version."""
    key = (name, root_file)
    if key not in _INSTALLED:
        if None not in _INSTALLED:           # the installed names, listed once per plan
            try:
                _INSTALLED[None] = {p.split("@")[0] for p in os.listdir(paths.lib_dir())}
            except OSError:
                _INSTALLED[None] = set()
        from .registry.installed import locate
        _INSTALLED[key] = locate(name, root_file) if name in _INSTALLED[None] else None
    return _INSTALLED[key]


def path_dependency(pkg: Path, name: str) -> Path | None:
    """The folder of the path dependency `name` of the package at `pkg` (its manifest's
    `name = { path = "../x" }`, relative to `pkg`), or None when it declares no such one."""
    dep = manifest(pkg).dependencies.get(name)
    return resolved(Path(pkg) / dep.path) if dep is not None and dep.path else None


def candidates(importer: Path, parts: tuple[str, ...], root_file: Path | None) -> list[Path]:
    """Where `import a/b/c` written in `importer` may be found, in search order (8): next to
    the importer, the importer's module root, the importer's package's path dependency `a`,
    the installed package `a`, the bundled one."""
    rel = Path(*parts).with_suffix(".nv")
    out = [importer.parent / rel]
    pkg = package_root(importer)
    head, rest = parts[0], parts[1:]
    roots = []
    if pkg is not None:
        out.append(module_root(pkg) / rel)
        local = path_dependency(pkg, head)
        if local is not None:
            if not (local / MANIFEST).is_file():
                raise NsmError(f"{manifest(pkg).path}: path dependency '{head}' has no neve.toml "
                               f"at {local}", "path is relative to the package's folder")
            roots.append(local)
    inst = installed_package(head, root_file)
    for root in roots + ([inst] if inst else []) + [bundled_root() / b for b in BUNDLED if b == head]:
        out.append(module_root(root) / Path(*rest).with_suffix(".nv") if rest
                   else package_entry(root))
    return out


def _symbol_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def module_key(path: Path) -> str:
    """The symbol-safe key of the module at `path`, whichever build compiles it: the package's
    name and the path relative to the package root (`app__models_user` for models/user.nv of
    package app); a file outside every package by its stem and a hash of its real path."""
    real = resolved(path)
    for name in BUNDLED:                     # named as bundled even if installed elsewhere
        top = bundled_root() / name
        if real.is_relative_to(top):
            return f"{name}__{_symbol_safe(real.relative_to(top).with_suffix('').as_posix())}"
    pkg = package_root(real)
    if pkg is not None:
        rel = real.relative_to(pkg).with_suffix("").as_posix()
        try:
            name = package_name(pkg)
        except NsmError:
            name = pkg.name
        return f"{_symbol_safe(name)}__{_symbol_safe(rel)}"
    tag = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return f"{_symbol_safe(real.stem)}_{tag}"
