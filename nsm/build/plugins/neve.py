"""The `neve` plug-in: each build unit (a module, or an import cycle) -> one object, one
interface (`.nvi`) and one PTX file (empty without kernels) per module, by
`python -m nsm.build.neve_edge` (see there for the content store and the early cut-off)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from . import Edge, Products, Rule


def ptx_file(ctx, m) -> str:
    """Where the compile of m's unit writes the PTX of m's kernels."""
    return str(Path(ctx.build_dir) / "ptx" / f"{m.key}.ptx")


class NevePlugin:
    name = "neve"
    suffixes = (".nv",)

    def version(self) -> str:
        from ..cas import compiler_version
        return compiler_version()

    def rules(self, ctx) -> list[Rule]:
        py = shlex.quote(sys.executable)
        flags = "--release" if ctx.release else ""
        # run where nsm was run (else the package root), so diagnostics name files as the user
        # does; traces hold real paths, so objects do not depend on it
        cd = f'cd "$${{NSM_CWD:-{ctx.root}}}" && '

        return [Rule("neve", f"{cd}{py} -m nsm.build.neve_edge --build-dir {shlex.quote(str(ctx.build_dir))}"
                             f" --cv {self.version()} {flags} $imports --keys $keys --depfile $dep -- $srcs",
                     "NEVE $name", depfile="$dep", deps="gcc", restat=True)]

    def edges(self, ctx, package: Path) -> tuple[list[Edge], Products]:
        edges: list[Edge] = []
        objects: list[str] = []
        for u in ctx.graph.units:
            if u.modules[0].package != package:
                continue
            mine = set(u.modules)
            objs = [ctx.obj(m) for m in u.modules]
            inputs, implicit, imports = [], [], []
            for m in u.modules:
                inputs.append(str(m.path) if m.generated else ctx.stamp(m))
                implicit += m.extra_inputs
                for d in m.imports:
                    if d not in mine and d.key not in imports:
                        imports.append(d.key)
                        implicit.append(ctx.nvi(d))
            edges.append(Edge(objs, "neve", inputs, implicit=implicit,
                              implicit_outputs=[ctx.nvi(m) for m in u.modules]
                              + [ptx_file(ctx, m) for m in u.modules],
                              variables={"srcs": " ".join(shlex.quote(str(m.path)) for m in u.modules),
                                         "imports": " ".join(f"--import {k}" for k in imports),
                                         "keys": ",".join(m.key for m in u.modules),
                                         "dep": objs[0] + ".d", "name": u.name}))
            objects += objs
        return edges, Products(objects=objects)
