"""GPU target of kernel lowering: the builtins of LANGUAGE.md 12.2 as NVVM IR (llvmlite.ir).

`NvvmBuiltins` emits thread/block ids, the barrier, warp shuffles, atomics, dynamic shared
memory and math for one NVPTX module; compiler/backends/nvptx.py turns the module into PTX.

Sources: LLVM "User Guide for NVPTX Back-end" (address spaces, `llvm.nvvm.read.ptx.sreg.*`,
`llvm.nvvm.barrier0`); LLVM IntrinsicsNVVM.td (`llvm.nvvm.shfl.sync.{bfly,down}.{i32,f32}`:
membermask, value, lane operand, clamp 0x1f for a full 32-lane warp); PTX ISA "shfl.sync"
(a lane whose source lane is out of range keeps its own value, which is 12.2's `shfl_down`);
PTX ISA "atom" (relaxed .gpu-scope atom.add for i32/i64/f32/f64, sm_60+); libdevice user's
guide (`__nv_expf`, `__nv_logf`, `__nv_powf`, `__nv_tanhf` and the f64 forms without `f`).
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..backends.nvptx import SHARED

I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
F32, F64 = ir.FloatType(), ir.DoubleType()
VOID = ir.VoidType()
SMEM_NAME = "__neve_smem"       # the block's dynamic shared memory (`extern __shared__`)
FULL_MASK = -1                  # all 32 lanes take part (12.2: shuffles are collective)
CLAMP = 0x1f                    # c operand of shfl.sync for width 32: ((32 - w) << 8) | 31

# LLVM intrinsics that need no library; everything else in MATH comes from libdevice.
_LLVM_MATH = {"sqrt": "llvm.sqrt", "floor": "llvm.floor", "ceil": "llvm.ceil",
              "abs": "llvm.fabs", "min": "llvm.minnum", "max": "llvm.maxnum"}
_LIBDEVICE_MATH = {"exp": "__nv_exp", "log": "__nv_log", "pow": "__nv_pow", "tanh": "__nv_tanh",
                   "erf": "__nv_erf"}
MATH = frozenset(_LLVM_MATH) | frozenset(_LIBDEVICE_MATH)
SREGS = {"tx": ("tid", "x"), "ty": ("tid", "y"), "tz": ("tid", "z"),
         "bx": ("ctaid", "x"), "by": ("ctaid", "y"), "bz": ("ctaid", "z"),
         "bdx": ("ntid", "x"), "bdy": ("ntid", "y"), "bdz": ("ntid", "z"),
         "gdx": ("nctaid", "x"), "gdy": ("nctaid", "y"), "gdz": ("nctaid", "z")}


def mark_kernel(fn: ir.Function) -> None:
    """Make `fn` a PTX `.entry` (without this it becomes a `.func` and ptxas still exits 0)."""
    fn.calling_convention = "ptx_kernel"


class NvvmBuiltins:
    """Builtins of kernel and `gpu` code for one NVPTX module `module`."""

    def __init__(self, module: ir.Module):
        self.module = module

    def _fn(self, name: str, ret, args) -> ir.Function:
        g = self.module.globals.get(name)
        if g is None:
            g = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return g

    # ---------------------------------------------------------------- ids (12.2)
    def special(self, b: ir.IRBuilder, name: str) -> ir.Value:
        """`tx`..`gdz`, `warp`, `lane` as Neve `int` (i64); ids are non-negative, so zext."""
        if name in ("warp", "lane"):
            tx = self._sreg(b, "tid", "x")
            v = b.lshr(tx, I32(5)) if name == "warp" else b.and_(tx, I32(31))
            return b.zext(v, I64)
        reg, axis = SREGS[name]
        return b.zext(self._sreg(b, reg, axis), I64)

    def _sreg(self, b, reg: str, axis: str) -> ir.Value:
        return b.call(self._fn(f"llvm.nvvm.read.ptx.sreg.{reg}.{axis}", I32, []), [])

    # ---------------------------------------------------------------- barrier
    def syncthreads(self, b: ir.IRBuilder) -> None:
        b.call(self._fn("llvm.nvvm.barrier0", VOID, []), [])

    # ---------------------------------------------------------------- shuffles
    def shuffle(self, b: ir.IRBuilder, mode: str, v: ir.Value, k: ir.Value) -> ir.Value:
        """`shfl_xor` (mode 'bfly') or `shfl_down` (mode 'down') of any number type: 32-bit
        values in one shfl.sync, 64-bit ones as two halves, narrower ones widened."""
        k32 = b.trunc(k, I32) if k.type.width > 32 else (b.zext(k, I32) if k.type.width < 32 else k)
        t = v.type
        if t == F32 or t == I32:
            return self._shfl(b, mode, v, k32)
        if isinstance(t, ir.IntType) and t.width < 32:
            return b.trunc(self._shfl(b, mode, b.zext(v, I32), k32), t)
        if isinstance(t, ir.HalfType):
            bits = b.zext(b.bitcast(v, I16), I32)
            return b.bitcast(b.trunc(self._shfl(b, mode, bits, k32), I16), t)
        bits = b.bitcast(v, I64) if t == F64 else v
        lo = self._shfl(b, mode, b.trunc(bits, I32), k32)
        hi = self._shfl(b, mode, b.trunc(b.lshr(bits, I64(32)), I32), k32)
        joined = b.or_(b.shl(b.zext(hi, I64), I64(32)), b.zext(lo, I64))
        return b.bitcast(joined, F64) if t == F64 else joined

    def _shfl(self, b, mode: str, v, k32) -> ir.Value:
        suffix = "f32" if v.type == F32 else "i32"
        fn = self._fn(f"llvm.nvvm.shfl.sync.{mode}.{suffix}", v.type, [I32, v.type, I32, I32])
        return b.call(fn, [I32(FULL_MASK), v, k32, I32(CLAMP)])

    # ---------------------------------------------------------------- atomics
    def atomic_add(self, b: ir.IRBuilder, ptr: ir.Value, v: ir.Value) -> ir.Value:
        """Relaxed atomic add at `ptr`; returns the old value (PTX atom.add, .gpu scope)."""
        op = "fadd" if isinstance(v.type, (ir.FloatType, ir.DoubleType)) else "add"
        return b.atomic_rmw(op, ptr, v, "monotonic")

    # ---------------------------------------------------------------- shared memory
    def shared(self, b: ir.IRBuilder, elem: ir.Type, offset: ir.Value) -> ir.Value:
        """A generic `elem*` `offset` bytes into the block's dynamic shared memory (12.2). LLVM's
        address-space inference turns accesses through it into ld/st.shared."""
        smem = self.module.globals.get(SMEM_NAME)
        if smem is None:
            smem = ir.GlobalVariable(self.module, ir.ArrayType(I8, 0), SMEM_NAME, addrspace=SHARED)
            smem.linkage = "external"
            smem.align = 16
        base = b.gep(smem, [I32(0), I32(0)])
        zero = isinstance(offset, ir.Constant) and offset.constant == 0
        p = base if zero else b.gep(base, [offset])
        return b.bitcast(b.addrspacecast(p, I8.as_pointer()), elem.as_pointer())

    # ---------------------------------------------------------------- math
    def math(self, b: ir.IRBuilder, name: str, args: list[ir.Value]) -> ir.Value:
        """sqrt exp log pow tanh floor ceil, and abs/min/max of floats, in `float` or `f64`."""
        t = args[0].type
        if name in _LLVM_MATH:
            base = _LLVM_MATH[name]
            fn = self._fn(f"{base}.{'f32' if t == F32 else 'f64'}", t, [t] * len(args))
        else:
            base = _LIBDEVICE_MATH[name]
            fn = self._fn(base + ("f" if t == F32 else ""), t, [t] * len(args))
        return b.call(fn, args)


# ==================================================================== the GPU kernel target
# The KernelTarget of compiler/lower/kernel_target.py for NVPTX: kernel and gpu bodies are
# lowered as they are (a GPU thread runs the body once), by a Lowerer of their own whose module
# has the NVPTX triple and data layout; compiler/backends/nvptx.py turns it into PTX.

from .kernel_target import KernelTarget   # noqa: E402 - after the builtins it builds on

_SREG = {"thread": "tid", "block": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}
_LIBDEVICE_NAMES = frozenset(_LIBDEVICE_MATH)


class GState:
    """Per-function state of the GPU target (kernel_target.py's `lw.kstate`)."""
    on_return = None                 # `return` simply leaves the function: the thread ends
    args: list = []


def entry_name(symbol: str) -> str:
    """A PTX identifier for a kernel's `.entry` ([A-Za-z_][A-Za-z0-9_]*, PTX ISA 4.4)."""
    import re
    return re.sub(r"[^A-Za-z0-9_]", "_", symbol)


class GpuTarget(KernelTarget):
    name = "nvptx"

    def __init__(self) -> None:
        self.nv: NvvmBuiltins | None = None
        self.pending: list = []          # gpu functions called but not defined yet

    def builtins(self, lw) -> NvvmBuiltins:
        if self.nv is None or self.nv.module is not lw.module:
            self.nv = NvvmBuiltins(lw.module)
        return self.nv

    # -------------------------------------------------------- builtins (12.2)
    def index(self, lw, kind: str, axis: int) -> ir.Value:
        v = self.builtins(lw)._sreg(lw.b, _SREG[kind], "xyz"[axis])
        return lw.b.zext(v, I64)

    def barrier(self, lw) -> None:
        self.builtins(lw).syncthreads(lw.b)

    def shuffle(self, lw, kind: str, value, k, t):
        return self.builtins(lw).shuffle(lw.b, "bfly" if kind == "xor" else "down", value, k)

    def shared_base(self, lw) -> ir.Value:
        return self.builtins(lw).shared(lw.b, I8, I64(0))

    def math(self, lw, name: str, args: list, t) -> ir.Value:
        if name in _LIBDEVICE_NAMES:        # the host lowering would call the C runtime
            return self.builtins(lw).math(lw.b, name, args)
        return lw.host_math(name, args, t)

    # -------------------------------------------------------- phase 2 (docs/phase2.md)
    def static_smem(self, lw, info) -> ir.Value:
        """A shared layout: one `.shared` array per layout (per block, as CUDA's __shared__),
        addressed generically like every buffer in kernel code."""
        from ..backends.nvptx import SHARED
        if not hasattr(self, "smem"):
            self.smem = {}                  # id(LayoutInfo) -> its .shared array
        gv = self.smem.get(id(info))
        if gv is None:
            name = f"smem.layout{len(self.smem)}"
            t = ir.ArrayType(lw.mem_ty(info.elem), info.total)
            gv = ir.GlobalVariable(lw.module, t, name, addrspace=SHARED)
            gv.linkage = "internal"
            gv.initializer = ir.Constant(t, ir.Undefined)
            gv.align = 16
            self.smem[id(info)] = gv
        return lw.b.addrspacecast(lw.b.bitcast(gv, I8.as_pointer(SHARED)), I8.as_pointer())

    def cp_async16(self, lw, dst, src) -> None:
        from . import warp_ptx
        warp_ptx.cp_async16(lw.b, dst, src)

    def cp_commit(self, lw) -> None:
        from . import warp_ptx
        warp_ptx.cp_commit_group(lw.b)

    def cp_wait(self, lw, n: int) -> None:
        from . import warp_ptx
        warp_ptx.cp_wait_group(lw.b, n)

    def ldmatrix(self, lw, nmat: int, dst, src) -> None:
        from . import warp_ptx
        b = lw.b
        out = b.bitcast(dst, I32.as_pointer())
        for k, r in enumerate(warp_ptx.ldmatrix(b, nmat, src)):
            b.store(r, b.gep(out, [I64(k)]))

    def mma(self, lw, kind: int, c, a, b_) -> None:
        from . import warp_ptx
        b = lw.b
        words = lambda p, t, n: [b.load(b.gep(b.bitcast(p, t.as_pointer()), [I64(k)]))
                                 for k in range(n)]
        cp = b.bitcast(c, F32.as_pointer())
        d = warp_ptx.mma_16x8x16(b, kind, words(a, I32, 4), words(b_, I32, 2),
                                 words(c, F32, 4))
        for k, v in enumerate(d):
            b.store(v, b.gep(cp, [I64(k)]))

    # -------------------------------------------------------- functions
    def declare_gpu(self, lw, sym) -> ir.Function:
        fn = lw.module.globals.get(sym.symbol)
        if fn is None:
            saved, lw.kt = lw.kt, self
            try:
                fty = ir.FunctionType(lw.llty(sym.ret), [lw.llty(p.type) for p in sym.params])
            finally:
                lw.kt = saved
            fn = ir.Function(lw.module, fty, name=sym.symbol)
            if sym not in lw.funcs:
                self.pending.append(sym)
        return fn

    def gpu_state(self, fn, sym):
        return GState()

    def define_kernel(self, lw, sym) -> ir.Function:
        """`.entry` taking each parameter by value as the launch passes it (neve_rt.h
        nv_kernel: buffers as their address, bool as one byte)."""
        from ..types import BOOL
        from .state import FuncState
        lw.kt = self
        try:
            params = [lw.mem_ty(p.type) for p in sym.params]
            fn = ir.Function(lw.module, ir.FunctionType(VOID, params), name=entry_name(sym.symbol))
            mark_kernel(fn)
            fs = FuncState(sym, fn)
            lw.fs, lw.kstate = fs, GState()
            entry = fn.append_basic_block("entry")
            body = fn.append_basic_block("body")
            fs.entry_builder = eb = ir.IRBuilder(entry)
            lw.b = ir.IRBuilder(body)
            fs.exit_block = fn.append_basic_block("exit")
            for p, arg in zip(sym.params, fn.args):
                v = eb.icmp_unsigned("!=", arg, ir.Constant(arg.type, 0)) if p.type == BOOL else arg
                slot = lw.alloca(lw.llty(p.type), p.name)
                eb.store(v, slot)
                fs.vars[p] = slot
            lw.lower_block(sym.body)
            if not lw.b.block.is_terminated:
                lw.b.branch(fs.exit_block)
            eb.branch(body)
            ir.IRBuilder(fs.exit_block).ret_void()
        finally:
            lw.kt = lw.kstate = lw.fs = None
        return fn


def lower_module(program, kernels: list, module_name: str, release: bool = True):
    """One NVPTX llvmlite module holding `kernels` and every gpu function they reach."""
    from ..backends import nvptx
    from .core import Lowerer
    lw = Lowerer(program, nvptx.target_machine().target_data, nvptx.TRIPLE, release=release,
                 module_name=module_name)
    for g in ("nv_top_frame", "nv_stack_limit"):   # host thread-locals: no meaning on a GPU
        lw.module.globals.pop(g, None)
    target = GpuTarget()
    for k in kernels:
        target.define_kernel(lw, k)
    while target.pending:
        sym = target.pending.pop()
        if sym not in lw.funcs:
            if sym.body is None:
                raise nvptx.NvptxError(f"gpu function {sym.name} has no body in this unit")
            target.define_gpu(lw, sym)
    lw.tag_array_accesses()
    return lw.module
