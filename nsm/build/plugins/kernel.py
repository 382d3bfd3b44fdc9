"""The `kernel` plug-in: the PTX of each module, `build/<profile>/ptx/<module key>.ptx`.

The compile of a module's unit (the neve plug-in, nsm.build.neve_edge) runs the compiler's
PTX stage (compiler/codegen.py): it lowers the module's `kernel` and `gpu` functions for
NVPTX, checks the PTX with ptxas for sm_80 and sm_90 when ptxas is present, embeds it in the
object (the runtime loads it from there, LANGUAGE.md 12.4) and writes it to `ptx/<key>.ptx`,
a declared output of that edge, empty for a module without kernels. So this plug-in compiles
nothing: it names those files as products of the build and lists the ones of modules with
kernels (`nsm build --emit ptx`) for people and tools (`cuobjdump`, Nsight) to read.
"""
from __future__ import annotations

from pathlib import Path

from . import Products, Rule
from .neve import ptx_file


class KernelPlugin:
    name = "kernel"
    suffixes = (".nv",)

    def version(self) -> str:
        from ..cas import compiler_version
        return compiler_version()

    def rules(self, ctx) -> list[Rule]:
        return []

    def edges(self, ctx, package: Path) -> tuple[list, Products]:
        outs = [ptx_file(ctx, m) for u in ctx.graph.units for m in u.modules
                if m.package == package]
        return [], Products(outputs=outs)


def listed(build_dir: Path) -> list[Path]:
    """The PTX files in `build_dir` of modules with kernels (the others are empty), sorted."""
    return sorted(p for p in (build_dir / "ptx").glob("*.ptx") if p.stat().st_size > 0)
