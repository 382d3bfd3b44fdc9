"""A package's native part (LANGUAGE.md 11.2): the `[native]` table of its manifest, where its
shared library and generated bindings live, and building it outside a package build (an
installed package, or a script importing a package).

    [native]
    sources = ["native/*.cpp"]        # globs relative to the package root
    headers = ["include/imgio.h"]     # read by bindgen; default: include/*.h; "<zlib.h>": a
                                      # system header, found in the include path
    include = ["include"]             # -I folders; default: include/ when it exists
    cflags  = ["-O2"]                 # extra compiler flags
    libs    = ["png"]                 # system libraries (-l)
    ldflags = []                      # extra linker flags

In include, cflags, libs and ldflags, `{prefix}` is the Python environment nsm runs in (where
wheels such as onednn-devel put `include/` and `lib/`) and `{site}` its site-packages folder.

Without sources (a system library used directly: headers and libs only) nothing is compiled:
the package has bindings and link flags, no library of its own.

Outputs: `bindings.nv` in `<root>/build/native/` when the package is the one being built, else
in $NEVE_HOME's cache (nsm.project.native_build_dir), and per profile `debug/` or `release/`
below it with `lib<name>.so` (SONAME `lib<name>.so`) and its objects. Globs are expanded afresh
at every build, so a renamed or deleted file never leaves ninja a missing input.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import NsmError

_KEYS = {"sources", "headers", "include", "cflags", "libs", "ldflags"}


@dataclass(frozen=True)
class NativeSpec:
    """The validated `[native]` table of package `name` at `root` (paths resolved)."""
    name: str
    root: Path
    out_dir: Path                       # where it builds (nsm.project.native_build_dir)
    sources: tuple[Path, ...]
    headers: tuple[Path | str, ...]     # a str is a system header, "<name.h>"
    include: tuple[Path, ...]
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    folders: tuple[Path, ...] = ()      # where the globs look: a new or removed file changes one
    release: bool = False               # the profile its library is built for

    @property
    def profile(self) -> str:
        return "release" if self.release else "debug"

    def for_profile(self, release: bool) -> "NativeSpec":
        return replace(self, release=release)

    @property
    def soname(self) -> str:
        return f"lib{self.name}.so"

    def library_of(self, release: bool) -> Path:
        return self.out_dir / ("release" if release else "debug") / self.soname

    @property
    def library(self) -> Path | None:
        """The shared library built from the sources for this profile; None without sources."""
        return self.library_of(self.release) if self.sources else None

    @property
    def inputs(self) -> list[str]:
        """The files of the package the build reads directly (each gets a content stamp)."""
        return [str(p) for p in (*self.sources, *self.headers) if isinstance(p, Path)]

    @property
    def bindings(self) -> Path:
        return self.out_dir / "bindings.nv"

    def link_args(self, exe_dir: Path | None = None) -> list[str]:
        """Linker arguments for a program in `exe_dir` using this package: the library (found
        at run time by its SONAME) with an rpath, so the executable runs without nsm. The rpath
        is `$ORIGIN`-relative when the library lies in the package folder holding the
        executable, so moving that folder keeps it working; else absolute (the cache)."""
        own = [str(self.library), f"-Wl,-rpath,{self.rpath(exe_dir)}"] if self.library else []
        return [*own, *(f"-l{x}" for x in self.libs), *self.ldflags]

    def rpath(self, exe_dir: Path | None) -> str:
        lib_dir = self.library.parent
        if exe_dir is not None and lib_dir.is_relative_to(self.root) and \
                Path(exe_dir).is_relative_to(self.root):
            return "$ORIGIN/" + os.path.relpath(lib_dir, exe_dir)
        return str(lib_dir)


def _strings(where: str, table: dict, key: str) -> list[str]:
    v = table.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise NsmError(f"{where}: [native] {key} must be a list of strings")
    if key in ("sources", "headers"):
        return v
    import sys
    import sysconfig
    site = sysconfig.get_paths()["purelib"]
    return [x.replace("{prefix}", sys.prefix).replace("{site}", site) for x in v]


def _system_header(pattern: str) -> bool:
    return pattern.startswith("<") and pattern.endswith(">") and len(pattern) > 2


def spec_of(root: Path, building: Path | None = None) -> NativeSpec | None:
    """The native spec of the package at `root` (from its validated manifest, its globs
    expanded now), built in its own folder only when it is `building`; None when it has no
    `[native]` table. NsmError for an invalid table or a source glob matching nothing."""
    from ..project import manifest, native_build_dir
    m = manifest(root)
    where = str(m.path)
    table = m.native
    if table is None:
        return None
    if not isinstance(table, dict):
        raise NsmError(f"{where}: [native] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise NsmError(f"{where}: [native] has unknown key '{sorted(unknown)[0]}'",
                       "keys are " + ", ".join(sorted(_KEYS)))
    name = m.name

    folders: set[Path] = set()

    def expand(key: str, default: list[str]) -> list[Path | str]:
        out: list[Path | str] = []
        for pattern in _strings(where, table, key) or default:
            if key == "headers" and _system_header(pattern):
                out.append(pattern)             # bindgen finds it in the include path
                continue
            folders.update(_glob_folders(root, pattern))
            hits = sorted(glob.glob(str(root / pattern), recursive=True))
            if not hits and key == "sources":
                raise NsmError(f"{where}: [native] source '{pattern}' matches no file")
            out += [Path(h).resolve() for h in hits]
        return out

    sources = expand("sources", [])
    headers = expand("headers", ["include/*.h"])
    if not sources and not headers:
        raise NsmError(f"{where}: [native] needs sources or headers",
                       'for example sources = ["native/*.cpp"], or headers = ["<zlib.h>"] '
                       'with libs = ["z"] for a system library')
    include = [root / d for d in _strings(where, table, "include")] or \
        ([root / "include"] if (root / "include").is_dir() else [])
    return NativeSpec(name, root.resolve(), native_build_dir(root, building), tuple(sources),
                      tuple(headers),
                      tuple(p.resolve() for p in include), tuple(_strings(where, table, "cflags")),
                      tuple(_strings(where, table, "libs")), tuple(_strings(where, table, "ldflags")),
                      tuple(sorted(folders)))


def _glob_folders(root: Path, pattern: str) -> list[Path]:
    """The folders whose listing decides what `pattern` matches: those of its fixed prefix
    and, below a `**`, every folder under it."""
    parts = Path(pattern).parts
    fixed = next((i for i, p in enumerate(parts) if glob.has_magic(p)), len(parts))
    top = root.joinpath(*parts[:fixed]) if fixed < len(parts) else (root / pattern).parent
    if "**" not in parts:                       # a/*/b.h: a/ and each folder a/* matches
        dirs = [top] + [Path(d) for i in range(fixed + 1, len(parts))
                        for d in glob.glob(str(root.joinpath(*parts[:i]))) if os.path.isdir(d)]
        return [d.resolve() for d in dirs]
    return [Path(d).resolve() for d, _, _ in os.walk(top)] or [top.resolve()]


def ensure_native(root: Path, verbose: bool = False,
                  building: Path | None = None) -> NativeSpec | None:
    """Build the native part of the package at `root` if it is missing or stale (its own
    ninja file, in its folder when it is `building`, else in the cache); return its spec, None
    without `[native]`. NsmError with the C++ compiler's own message when a source does not
    compile."""
    spec = spec_of(root, building)
    if spec is None:
        return None
    from .orchestrate import build_native_only
    build_native_only(spec, verbose=verbose)
    return spec


def natives_reached(root_file: Path, verbose: bool = False) -> list[NativeSpec]:
    """The native parts of the packages a program reaches from `root_file` (by the build
    planner's import scan), each built first if needed: the compiler reads their bindings."""
    from .graph import Planner
    from .stamps import FileDB
    p = Planner(FileDB(), Path(root_file).resolve())
    p.node(Path(root_file))
    specs = [s for s in p.natives.values() if s is not None]
    for s in specs:
        ensure_native(s.root, verbose, p.building)
    return specs
