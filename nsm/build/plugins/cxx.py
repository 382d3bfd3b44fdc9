"""The `cxx` plug-in: a package's `[native]` C/C++ sources -> a shared library, plus the Neve
bindings of its headers (LANGUAGE.md 11.2).

Ninja sees content stamps, never the sources themselves (nsm.build.stamps): each compile edge
takes its source's stamp as input, and the compiler's make-style depfile is rewritten to name
the stamps of the headers it read, so a `touch` or a date in the future compiles nothing while
a real edit rebuilds exactly the sources including the header. The library is linked with
`-shared`. Outputs are written to a temporary name and renamed, so a failed compile or link
leaves the previous library in place. Bindings come from `nsm.build.bindgen`, written only when
they change (`restat`): a header edit that leaves the declarations alone rebuilds no Neve
module; they are built with the [native] cflags bindgen understands (-D, -U, -I, -std).

Each profile has its objects and library (`debug/`: `-O0 -g`, `release/`: `-O2`; the
[native] cflags come after, so they win). The ninja file holds the edges of both and a build
asks for its profile's library, so switching profiles compiles nothing already built, while a
change of flags changes the command ninja records and recompiles. `compile_commands()` gives
the same command lines for editors (compile_commands.json).
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from ..stamps import native_stamp
from . import Edge, Products, Rule

C_SUFFIXES = (".c",)
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".C")
BASE_FLAGS = ["-fPIC"]
PROFILE_FLAGS = {"debug": ["-O0", "-g"], "release": ["-O2"]}


def _q(items) -> str:
    return " ".join(shlex.quote(str(x)) for x in items)


class CxxPlugin:
    name = "cxx"
    suffixes = C_SUFFIXES + CXX_SUFFIXES

    def version(self) -> str:
        try:
            out = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
        except OSError:
            return "g++-missing"
        return out.splitlines()[0] if out else "g++"

    def rules(self, ctx) -> list[Rule]:
        py = shlex.quote(sys.executable)
        stamped = f"&& {py} -m nsm.build.stamps $out.raw.d $out.d $stamps && mv -f $out.tmp $out"
        return [
            Rule("cc", f"gcc -MMD -MT $out -MF $out.raw.d $cflags -c $src -o $out.tmp {stamped}",
                 "CC $src", depfile="$out.d", deps="gcc"),
            Rule("cxx", f"g++ -MMD -MT $out -MF $out.raw.d $cflags -c $src -o $out.tmp {stamped}",
                 "CXX $src", depfile="$out.d", deps="gcc"),
            Rule("cxx_shared", "g++ -shared -o $out.tmp $in $ldflags && mv -f $out.tmp $out",
                 "LINK $out"),
            Rule("bindgen", f"{py} -m nsm.build.bindgen_edge --out $out --depfile $out.d "
                            "--stamps $stamps $bindflags $headers", "BINDGEN $out",
                 depfile="$out.d", deps="gcc",
                 restat=True),
        ]

    def edges(self, ctx, package: Path) -> tuple[list[Edge], Products]:
        """Edges for the native part of the package at `package` (nsm.build.native)."""
        spec = ctx.natives.get(package)
        if spec is None:
            return [], Products()
        out = spec.out_dir
        stamps = out / "stamps"
        incs = [f"-I{d}" for d in spec.include]
        edges = []
        for release in (False, True):
            objs = []
            for src, obj, cflags in _compiles(spec, release):
                rule = "cc" if src.suffix in C_SUFFIXES else "cxx"
                edges.append(Edge([obj], rule, [str(native_stamp(stamps, str(src)))],
                                  variables={"cflags": _q(cflags), "src": shlex.quote(str(src)),
                                             "stamps": shlex.quote(str(stamps))}))
                objs.append(obj)
            if spec.sources:
                edges.append(Edge([str(spec.library_of(release))], "cxx_shared", objs, variables={
                    "ldflags": _q(link_flags(spec))}))
        # always an edge, so a package whose headers declare nothing still has its bindings file
        files = [str(h) for h in spec.headers if isinstance(h, Path)]
        edges.append(Edge([str(spec.bindings)], "bindgen", [str(native_stamp(stamps, h)) for h in files],
                          variables={"bindflags": _q(incs + bindgen_flags(spec.cflags)),
                                     "headers": _q(spec.headers),
                                     "stamps": shlex.quote(str(stamps))}))
        libraries = [str(spec.library)] if spec.library is not None else []
        return edges, Products(link_args=spec.link_args(), libraries=libraries)


def _compiles(spec, release: bool):
    """(source, object, flags) of each compile of the native part for one profile."""
    profile = "release" if release else "debug"
    flags = BASE_FLAGS + PROFILE_FLAGS[profile] + [f"-I{d}" for d in spec.include] + list(spec.cflags)
    for src in spec.sources:
        try:
            rel = src.relative_to(spec.root)
        except ValueError:
            rel = Path(src.name)
        yield src, str(spec.out_dir / profile / "obj" / rel.with_suffix(".o")), flags


def link_flags(spec) -> list[str]:
    """The shared library's link flags: its SONAME (so programs record `lib<name>.so`, found
    through their rpath, not the path it was linked from), the system libraries."""
    return [f"-Wl,-soname,{spec.soname}", *(f"-l{x}" for x in spec.libs), *spec.ldflags]


def compile_commands(spec) -> list[dict]:
    """compile_commands.json entries (clang's format) for the sources of `spec` in its profile:
    the compiler, the flags of the ninja edge (its depfile options aside), the source."""
    out = []
    for src, obj, flags in _compiles(spec, spec.release):
        cc = "gcc" if src.suffix in C_SUFFIXES else "g++"
        out.append({"directory": str(spec.root), "file": str(src), "output": obj,
                    "arguments": [cc, *flags, "-c", str(src), "-o", obj]})
    return out


def bindgen_flags(cflags) -> list[str]:
    """The [native] cflags that change what a header declares: -D, -U, -I (joined forms) and
    -std=; bindgen's preprocessor run gets them too."""
    return [f for f in cflags if (f.startswith(("-D", "-U", "-I")) and len(f) > 2)
            or f.startswith("-std=")]
