"""NVPTX lowering of the phase-2 warp intrinsics (issue 20): cp.async, ldmatrix and mma.m16n8k16 as NVVM intrinsics.

Each emitter takes the llvmlite builder of a kernel in an NVPTX module and declares what it
calls in that module. Pointers may be generic or already in their address space: shared ones
are cast to addrspace(3), global ones to addrspace(1), as the instructions' state spaces are.
Fragments are those of the PTX ISA ("Matrix fragments for mma.m16n8k16", "ldmatrix"); the
CPU back end's runtime_cpp/kernel/warp.cpp gives the same lanes the same values.

Sources: LLVM IntrinsicsNVVM.td (`llvm.nvvm.cp.async.ca.shared.global.16`,
`llvm.nvvm.cp.async.{commit,wait}.group`, `llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{1,2,4}.b16`,
`llvm.nvvm.mma.m16n8k16.row.col.bf16` and `.f32.f32` for f16 with f32 accumulators); PTX ISA
8.x (cp.async, sm_80+; ldmatrix, sm_75+; mma.sync m16n8k16 bf16, sm_80+).
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..backends.nvptx import GLOBAL, SHARED

I32, F32, VOID = ir.IntType(32), ir.FloatType(), ir.VoidType()
HALF2 = ir.VectorType(ir.HalfType(), 2)
BF16, F16 = 0, 1                       # `kind` of mma_16x8x16, as in kernel/warp.h
NMATS = (1, 2, 4)


def _declare(b: ir.IRBuilder, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    g = b.module.globals.get(name)
    if g is None:
        g = ir.Function(b.module, ir.FunctionType(ret, args), name)
    return g


def _in_space(b: ir.IRBuilder, p: ir.Value, space: int) -> ir.Value:
    """`p` as an i8 pointer in address space `space` (cvta from generic when it is generic)."""
    if p.type.addrspace != space:
        p = b.addrspacecast(p, ir.IntType(8).as_pointer(space))
    return p


def cp_async16(b: ir.IRBuilder, dst_shared: ir.Value, src_global: ir.Value) -> None:
    """cp.async.ca.shared.global [dst], [src], 16: an asynchronous 16-byte copy (both 16-byte
    aligned), complete after the cp_commit_group / cp_wait_group that cover it."""
    dst, src = _in_space(b, dst_shared, SHARED), _in_space(b, src_global, GLOBAL)
    fn = _declare(b, "llvm.nvvm.cp.async.ca.shared.global.16", VOID, [dst.type, src.type])
    b.call(fn, [dst, src])


def cp_commit_group(b: ir.IRBuilder) -> None:
    """cp.async.commit_group: the copies issued since the last commit form one group."""
    b.call(_declare(b, "llvm.nvvm.cp.async.commit.group", VOID, []), [])


def cp_wait_group(b: ir.IRBuilder, n: int) -> None:
    """cp.async.wait_group n: waits until at most `n` (a constant, 0..7 in practice) of this
    thread's committed groups are pending."""
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"cp_wait_group takes a non-negative constant, not {n!r}")
    b.call(_declare(b, "llvm.nvvm.cp.async.wait.group", VOID, [I32]), [I32(n)])


def ldmatrix(b: ir.IRBuilder, nmat: int, shared: ir.Value) -> list[ir.Value]:
    """ldmatrix.sync.aligned.m8n8.x{nmat}.shared.b16: `shared` is this lane's row address (lane
    8i+r: row r of matrix i); returns this lane's nmat i32 words, word i from matrix i."""
    if nmat not in NMATS:
        raise ValueError(f"ldmatrix loads 1, 2 or 4 matrices, not {nmat}")
    p = _in_space(b, shared, SHARED)
    ret = I32 if nmat == 1 else ir.LiteralStructType([I32] * nmat)
    fn = _declare(b, f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{nmat}.b16", ret, [p.type])
    v = b.call(fn, [p])
    return [v] if nmat == 1 else [b.extract_value(v, i) for i in range(nmat)]


def mma_16x8x16(builder: ir.IRBuilder, kind: int, a: list[ir.Value], b: list[ir.Value],
                c: list[ir.Value]) -> list[ir.Value]:
    """mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32: this lane's fragment of
    D = A x B + C from its 4 A words, 2 B words (i32, two 16-bit elements each) and 4 f32 of C;
    returns its 4 f32 of D. kind: BF16 (0) or F16 (1)."""
    if kind not in (BF16, F16):
        raise ValueError(f"mma_16x8x16 kind is 0 (bf16) or 1 (f16), not {kind}")
    if len(a) != 4 or len(b) != 2 or len(c) != 4:
        raise ValueError("mma_16x8x16 takes 4 A words, 2 B words and 4 accumulators")
    if kind == BF16:
        name, word, ops = "llvm.nvvm.mma.m16n8k16.row.col.bf16", I32, list(a) + list(b)
    else:
        name, word = "llvm.nvvm.mma.m16n8k16.row.col.f32.f32", HALF2
        ops = [builder.bitcast(x, HALF2) for x in list(a) + list(b)]
    fn = _declare(builder, name, ir.LiteralStructType([F32] * 4), [word] * 6 + [F32] * 4)
    d = builder.call(fn, ops + list(c))
    return [builder.extract_value(d, i) for i in range(4)]
