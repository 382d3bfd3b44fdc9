"""Lowering of the phase-2 kernel builtins (docs/phase2.md; typed IR in compiler/check/layouts.py):
layouts, async copies and the warp-wide tensor-core intrinsics, each through the kernel target.

    Builtin "k.layout" [buf] | []          -> the buffer, target.static_smem(lw, info), or
                                              zeroed registers (an [n x T] value)
    Builtin "k.cp_async16" [dst, src]      -> target.cp_async16(lw, dst, src)
    Builtin "k.cp_commit", "k.cp_wait" n   -> target.cp_commit(lw), target.cp_wait(lw, n)
    Builtin "k.ldmatrix" [dst, src] nmat   -> target.ldmatrix(lw, nmat, dst, src)   (NVPTX)
    Builtin "k.mma" [c, a, b] kind         -> target.mma(lw, kind, c, a, b)         (NVPTX)
    Builtin "k.warp_stage" / "k.warp_finish" site
                                           -> the CPU target's split of the two above
                                              (regions.WarpSite)
"""
from __future__ import annotations

from llvmlite import ir


class WarpLowering:
    """Lowering mixin: layouts and the warp intrinsics (ldmatrix, mma, cp_async) for both targets."""
    def bi_k_layout(self, e):
        info = e.extra
        if info.space == "global":
            return self.expr(e.args[0])
        if info.space == "smem":
            return self.kt.static_smem(self, info)
        return ir.Constant(self.llty(e.type), None)

    def bi_k_cp_async16(self, e):
        self.kt.cp_async16(self, self.expr(e.args[0]), self.expr(e.args[1]))

    def bi_k_cp_commit(self, e):
        self.kt.cp_commit(self)

    def bi_k_cp_wait(self, e):
        self.kt.cp_wait(self, e.extra)

    def bi_k_ldmatrix(self, e):
        self.kt.ldmatrix(self, e.extra, self.expr(e.args[0]), self.expr(e.args[1]))

    def bi_k_mma(self, e):
        self.kt.mma(self, e.extra, *(self.expr(a) for a in e.args))

    def bi_k_warp_stage(self, e):
        self.kt.warp_stage(self, e.extra, [self.expr(a) for a in e.args])

    def bi_k_warp_finish(self, e):
        self.kt.warp_finish(self, e.extra, self.expr(e.args[0]))

    def memcpy(self, dst: ir.Value, src: ir.Value, n: int) -> None:
        from . import runtime_abi as R
        fn = self.intrinsic_fn("llvm.memcpy.p0.p0.i64", R.VOID, [R.PTR, R.PTR, R.I64, R.I1])
        self.b.call(fn, [self.b.bitcast(dst, R.PTR), self.b.bitcast(src, R.PTR),
                         ir.Constant(R.I64, n), ir.Constant(R.I1, 0)])
