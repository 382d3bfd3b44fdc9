"""The `cxx` plug-in: a package's `[native]` C/C++ sources -> a shared library, plus the Neve
bindings of its headers (LANGUAGE.md 11.2).

Each source is compiled with `-fPIC` and a make-style depfile (so editing a header rebuilds
exactly the sources including it); the library is linked with `-shared`. Outputs are written
to a temporary name and renamed, so a failed compile or link leaves the previous library in
place. Bindings come from `nsm.build.bindgen`, written only when they change (`restat`): a
header edit that leaves the declarations alone rebuilds no Neve module.
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from . import Edge, Products, Rule

C_SUFFIXES = (".c",)
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".C")
BASE_FLAGS = ["-fPIC", "-O2"]


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
        return [
            Rule("cc", "gcc -MMD -MT $out -MF $out.d $cflags -c $in -o $out.tmp && mv -f $out.tmp $out",
                 "CC $in", depfile="$out.d", deps="gcc"),
            Rule("cxx", "g++ -MMD -MT $out -MF $out.d $cflags -c $in -o $out.tmp && mv -f $out.tmp $out",
                 "CXX $in", depfile="$out.d", deps="gcc"),
            Rule("cxx_shared", "g++ -shared -o $out.tmp $in $ldflags && mv -f $out.tmp $out",
                 "LINK $out"),
            Rule("bindgen", f"{py} -m nsm.build.bindgen_edge --out $out --depfile $out.d "
                            "$bindflags $in", "BINDGEN $out", depfile="$out.d", deps="gcc",
                 restat=True),
        ]

    def edges(self, ctx, package: Path) -> tuple[list[Edge], Products]:
        """Edges for the native part of the package at `package` (nsm.build.native)."""
        spec = ctx.natives.get(package)
        if spec is None:
            return [], Products()
        out = spec.out_dir
        incs = [f"-I{d}" for d in spec.include]
        cflags = _q(BASE_FLAGS + incs + list(spec.cflags))
        edges, objs = [], []
        for src in spec.sources:
            try:
                rel = src.relative_to(spec.root)
            except ValueError:
                rel = Path(src.name)
            obj = str(out / "obj" / rel.with_suffix(".o"))
            rule = "cc" if src.suffix in C_SUFFIXES else "cxx"
            edges.append(Edge([obj], rule, [str(src)], variables={"cflags": cflags}))
            objs.append(obj)
        edges.append(Edge([str(spec.library)], "cxx_shared", objs,
                          variables={"ldflags": _q([f"-l{x}" for x in spec.libs] + list(spec.ldflags))}))
        # always an edge, so a package whose headers declare nothing still has its bindings file
        edges.append(Edge([str(spec.bindings)], "bindgen", [str(h) for h in spec.headers],
                          variables={"bindflags": _q(incs)}))
        return edges, Products(link_args=spec.link_args(), libraries=[str(spec.library)])
