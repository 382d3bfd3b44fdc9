"""Kernel targets: how the kernel builtins of LANGUAGE.md 12.2 lower on one back end.

Kernel and gpu function bodies are lowered by the ordinary statement and expression lowering
(compiler/lower/) in *kernel mode* (`Lowerer.kt` is the target): no frames and no runtime
checks, buffers are plain element addresses (`ptr`, not the host's {address, owner} pair), and
every kernel builtin of the typed IR (see compiler/check/kernels.py) goes through the target:

    Builtin "k.index" (kind, axis)   -> index(lw, kind, axis)            i64
    Builtin "k.warp" / "k.lane"      -> computed from index('thread', 0) (override for others)
    Builtin "k.sync"                 -> barrier(lw)
    Builtin "k.shfl" [v, k] 'xor'|'down' -> shuffle(lw, kind, v, k)      same type as v
    Builtin "k.shared" [offset] T    -> shared_base(lw) + offset bytes   ptr
    Builtin "atomic_add" [p, v] T    -> atomic_add(lw, ptr, v, T)        old value
    Builtin sqrt exp log pow tanh floor ceil min max abs isnan isinf
                                     -> math(lw, name, args, result type)
    calls of gpu functions           -> declare_gpu(lw, sym) / gpu_call_args(lw, sym)

A target also defines kernels themselves: `define_kernel(lw, sym)` emits the entry for one
`kernel` (its calling convention and body) and returns the ir.Function. `define_gpu(lw, sym)`
lowers one gpu function. Each function is lowered once per target; the NVPTX back end
(compiler/backends/nvptx.py) implements a target whose index() reads the PTX special
registers, barrier() calls llvm.nvvm.barrier0 and so on, and lowers kernel bodies as they are.

`lw` is the Lowerer (its builder `lw.b`, module `lw.module`, `lw.expr`, `lw.intrinsic_fn`).
The CPU target is CpuTarget in compiler/lower/kernel_cpu.py (thread loops, region transform).
"""
from __future__ import annotations

from llvmlite import ir

from ..types import Type, is_float
from . import runtime_abi as R


class KernelTarget:
    name = "abstract"

    # -------------------------------------------------------- functions
    def define_kernel(self, lw, sym) -> ir.Function:
        raise NotImplementedError

    def define_gpu(self, lw, sym) -> ir.Function:
        """Define gpu function `sym` in lw's module: its body lowered in kernel mode with this
        target's per-function state (`gpu_state`)."""
        fn = self.declare_gpu(lw, sym)
        lw.funcs[sym] = fn
        lw.kt, lw.kstate = self, self.gpu_state(fn, sym)
        try:
            lw.lower_function(sym)
        finally:
            lw.kt = lw.kstate = None
        return fn

    def gpu_state(self, fn: ir.Function, sym):
        """The lowering state of a gpu function's body (thread indices and the like)."""
        raise NotImplementedError

    def declare_gpu(self, lw, sym) -> ir.Function:
        """The ir.Function of gpu function `sym` in lw's module (declared on first use)."""
        raise NotImplementedError

    def gpu_call_args(self, lw, sym) -> list:
        """Hidden arguments appended to every call of a gpu function (none by default)."""
        return []

    # -------------------------------------------------------- builtins
    def index(self, lw, kind: str, axis: int) -> ir.Value:
        """tx.. ('thread'), bx.. ('block'), bdx.. ('block_dim'), gdx.. ('grid_dim'): i64."""
        raise NotImplementedError

    def warp(self, lw) -> ir.Value:
        return lw.b.ashr(self.index(lw, "thread", 0), ir.Constant(R.I64, 5))

    def lane(self, lw) -> ir.Value:
        return lw.b.and_(self.index(lw, "thread", 0), ir.Constant(R.I64, 31))

    def barrier(self, lw) -> None:
        raise NotImplementedError

    def shuffle(self, lw, kind: str, value: ir.Value, k: ir.Value, t: Type) -> ir.Value:
        raise NotImplementedError

    def shared_base(self, lw) -> ir.Value:
        """i8* to the block's dynamic shared memory."""
        raise NotImplementedError

    def atomic_add(self, lw, ptr: ir.Value, value: ir.Value, t: Type) -> ir.Value:
        """Atomic read-modify-write at ptr (typed pointer to t's memory type)."""
        op = "fadd" if is_float(t) else "add"
        return lw.b.atomic_rmw(op, ptr, value, "monotonic")

    def math(self, lw, name: str, args: list, t: Type) -> ir.Value:
        """sqrt exp log pow tanh floor ceil (and min max abs isnan isinf) on lowered args."""
        return lw.host_math(name, args, t)
