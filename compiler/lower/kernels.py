"""Lowering of kernels, gpu functions and launches (LANGUAGE.md 12) and of host buffers (14.8).

Kernel and gpu bodies are lowered in kernel mode through a KernelTarget (kernel_target.py);
the CPU target (kernel_cpu.py) is always compiled. Each `kernel` also gets one constant
`nv_kernel` descriptor (neve_rt.h), emitted by `emit_kernel_descriptor` only: the CPU block
function, and the PTX text and `.entry` name from the PTX stage's product the Lowerer is
given (`Lowerer.ptx`, compiler/codegen.py): "" and the reason when no PTX could be made,
NULL when there is no PTX stage. A launch calls the runtime's `nv_launch`, which uses the GPU
when one is in use and the kernel has PTX, and the CPU worker pool otherwise.
"""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import BufferT, Prim, Type, F64, is_float, is_signed
from . import runtime_abi as R
from .exprs import ll_float_name
from .kernel_cpu import CpuTarget, KDESC

FLAG_SHUFFLES = 1        # NV_KERNEL_SHUFFLES: blocks need a multiple of 32 threads


class KernelLowering:
    kt = None            # the KernelTarget while lowering kernel code, else None
    kstate = None        # that target's per-function state

    # ------------------------------------------------------------ functions
    def lower_kernel_function(self, f: T.FuncSym) -> None:
        target = CpuTarget()
        if f.kind == "gpu":
            from .inline_gpu import has_collective
            if not has_collective(f):      # else inlined into its kernels' plans (12.4)
                target.define_gpu(self, f)
            return
        cpu = target.define_kernel(self, f)
        self.emit_kernel_descriptor(f, cpu)

    def kernel_desc(self, f: T.FuncSym) -> ir.GlobalVariable:
        name = f"nvk.{f.symbol}"
        gv = self.module.globals.get(name)
        if gv is None:
            gv = ir.GlobalVariable(self.module, KDESC, name)
            gv.linkage = "external"
        return gv

    def emit_kernel_descriptor(self, f: T.FuncSym, cpu: ir.Function) -> None:
        """The one place an nv_kernel constant is made: {name, cpu, ptx, entry} + flags + the
        parameters as "x,,y" (buffer parameters by name, others empty), for the GPU launch's
        check that buffers are device memory."""
        null = ir.Constant(R.PTR, None)
        ptx, entry = null, null
        if self.ptx is not None and self.ptx.text:    # the PTX stage took this module's kernels
            ptx, entry = self.cstr(self.ptx.text), self.cstr(self.ptx.entries[f])
        elif self.ptx is not None:           # the runtime reports why at a GPU launch
            ptx, entry = self.cstr(""), self.cstr(self.ptx.why)
        flags = FLAG_SHUFFLES if uses_shuffles(f) else 0
        gv = self.kernel_desc(f)
        gv.linkage = ""
        gv.global_constant = True
        params = ",".join(p.name if isinstance(p.type, BufferT) else "" for p in f.params)
        gv.initializer = ir.Constant(KDESC, [self.cstr(f.name), cpu.bitcast(R.PTR), ptx, entry,
                                             ir.Constant(R.I64, flags), self.cstr(params)])

    # ------------------------------------------------------------ kernel mode
    def ex_KArg(self, e) -> ir.Value:
        return self.kstate.args[e.index]

    def kernel_call(self, e: T.CallFn, args: list) -> ir.Value:
        fn = self.kt.declare_gpu(self, e.func)
        return self.b.call(fn, args + self.kt.gpu_call_args(self, e.func))

    def bi_k_index(self, e: T.Builtin):
        return self.kt.index(self, *e.extra)

    def bi_k_warp(self, e: T.Builtin):
        return self.kt.warp(self)

    def bi_k_lane(self, e: T.Builtin):
        return self.kt.lane(self)

    def bi_k_sync(self, e: T.Builtin):
        self.kt.barrier(self)

    def bi_k_shfl(self, e: T.Builtin):
        v, k = self.expr(e.args[0]), self.expr(e.args[1])
        return self.kt.shuffle(self, e.extra, v, k, e.type)

    def bi_k_shfl_read(self, e: T.Builtin):
        return self.kt.shfl_read(self, e.extra)

    def bi_k_shared(self, e: T.Builtin):
        base = self.kt.shared_base(self)
        return self.b.gep(base, [self.expr(e.args[0])])

    def bi_atomic_add(self, e: T.Builtin):
        p = self.expr(e.args[0])
        v = self.expr(e.args[1])
        et: Type = e.extra
        if self.kt is not None:
            ptr = self.b.bitcast(p, self.mem_ty(et).as_pointer())
            return self.kt.atomic_add(self, ptr, v, et)
        data = self.buffer_data(p, e.span, f"atomic_add on nil buffer {e.args[0].type}")
        ptr = self.b.bitcast(data, self.mem_ty(et).as_pointer())
        return self.b.atomic_rmw("fadd" if is_float(et) else "add", ptr, v, "seq_cst")

    def host_math(self, name: str, args: list, t: Type) -> ir.Value:
        """The CPU lowering of kernel math on already lowered arguments."""
        from .intrinsics import LLVM_MATH, MATH_F32, MATH_F64
        b = self.b
        x = args[0]
        if name in LLVM_MATH:
            return self.intrinsic1(LLVM_MATH[name], x)
        if name in ("exp", "log", "tanh", "erf", "pow"):
            return self.rt((MATH_F64 if t == F64 else MATH_F32)[name], *args)
        if name in ("min", "max"):
            y = args[1]
            if is_float(t):
                iname = "llvm.minnum" if name == "min" else "llvm.maxnum"
                fn = self.intrinsic_fn(f"{iname}.{ll_float_name(x.type)}", x.type, [x.type] * 2)
                return b.call(fn, [x, y])
            op = "<" if name == "min" else ">"
            c = b.icmp_signed(op, x, y) if is_signed(t) else b.icmp_unsigned(op, x, y)
            return b.select(c, x, y)
        if name == "abs":
            if is_float(t):
                return self.intrinsic1("llvm.fabs", x)
            if not is_signed(t):
                return x
            return b.select(b.icmp_signed("<", x, ir.Constant(x.type, 0)), b.neg(x), x)
        if name == "isnan":
            return b.fcmp_unordered("uno", x, x)
        ax = self.intrinsic1("llvm.fabs", x)
        return b.fcmp_ordered("==", ax, ir.Constant(x.type, float("inf")))

    # ------------------------------------------------------------ launch (12.3)
    def st_Launch(self, s: T.Launch) -> None:
        b = self.b
        dims = [[self.expr(x) for x in grp] for grp in (s.grid, s.block)]
        smem = self.expr(s.smem)
        stream = self.expr(s.stream) if s.stream is not None else None
        call = s.call
        if isinstance(call, T.Seq):
            for st in call.stmts:
                self.stmt(st)
            call = call.value
        args = [self.expr(a) for a in call.args]
        argv = self.alloca(ir.ArrayType(R.PTR, max(1, len(args))), "launch.args")
        for i, (v, p) in enumerate(zip(args, s.kernel.params)):
            if isinstance(p.type, BufferT):
                v = b.extract_value(v, 0)           # kernels receive the address alone
            elif p.type == Prim("bool"):
                v = b.zext(v, R.I8)
            slot = self.alloca(v.type, f"arg.{p.name}")
            b.store(v, slot)
            b.store(b.bitcast(slot, R.PTR), b.gep(argv, [ir.Constant(R.I32, 0), ir.Constant(R.I32, i)]))
        packed = []
        for vals in dims:
            arr = self.alloca(ir.ArrayType(R.I64, 3), "launch.dims")
            for i, v in enumerate(vals):
                b.store(v, b.gep(arr, [ir.Constant(R.I32, 0), ir.Constant(R.I32, i)]))
            packed.append(b.bitcast(arr, R.PTR))
        site = f"{R.trace_path(s.span.file)}:{s.span.line}:{s.span.col}"
        self.set_site(s.span)
        desc = self.kernel_desc(s.kernel).bitcast(R.PTR)
        if stream is not None:                      # `on s` (docs/phase2.md)
            self.rt("nv_launch_on", desc, b.bitcast(argv, R.PTR), packed[0], packed[1], smem,
                    stream, self.cstr(site))
            return
        self.rt("nv_launch", desc, b.bitcast(argv, R.PTR), packed[0], packed[1], smem,
                self.cstr(site))

    # ------------------------------------------------------------ host buffers (14.8)
    def new_buffer(self, owner: ir.Value) -> ir.Value:
        """{address, owner} of a runtime buffer object (its first word is the address)."""
        addr = self.b.load(self.b.bitcast(owner, R.PTR.as_pointer()))
        return self.b.insert_value(self.b.insert_value(ir.Constant(R.BUFFER, None), addr, 0),
                                   owner, 1)

    def bi_buffer(self, e: T.Builtin, device: int = 0):
        self.set_site(e.span)
        owner = self.rt("nv_buffer_new", self.expr(e.args[0]),
                        ir.Constant(R.I64, self.size_of(e.extra)), ir.Constant(R.I32, device))
        return self.new_buffer(owner)

    def bi_device_buffer(self, e: T.Builtin):
        return self.bi_buffer(e, 1)

    def bi_to_buffer(self, e: T.Builtin, device: int = 0):
        arr = self.expr(e.args[0])
        self.set_site(e.span)
        return self.new_buffer(self.rt("nv_buffer_from_array", arr, self.desc(e.extra),
                                       ir.Constant(R.I32, device)))

    def bi_to_device(self, e: T.Builtin):
        return self.bi_to_buffer(e, 1)

    def bi_to_array(self, e: T.Builtin):
        buf = self.expr(e.args[0])
        n = self.expr(e.args[1])
        self.set_site(e.span)
        return self.rt("nv_buffer_to_array", self.b.extract_value(buf, 0), n, self.desc(e.extra))

    def bi_copy(self, e: T.Builtin):
        dst, src, n = (self.expr(a) for a in e.args)
        self.set_site(e.span)
        self.rt("nv_buffer_copy", self.b.extract_value(dst, 0), self.b.extract_value(src, 0), n,
                ir.Constant(R.I64, self.size_of(e.extra)))

    def bi_gpu_available(self, e: T.Builtin):
        return self.b.icmp_signed("!=", self.rt("nv_gpu_available"), ir.Constant(R.I32, 0))

    def bi_gpu_sync(self, e: T.Builtin):
        self.set_site(e.span)
        self.rt("nv_gpu_sync")

    def bi_gpu_stream(self, e: T.Builtin):
        self.set_site(e.span)
        return self.rt("nv_gpu_stream")

    def bi_gpu_sync_stream(self, e: T.Builtin):
        s = self.expr(e.args[0])
        self.set_site(e.span)
        self.rt("nv_gpu_stream_sync", s)


def uses_shuffles(f: T.FuncSym, seen: frozenset = frozenset()) -> bool:
    """Whether kernel or gpu function f shuffles, itself or in a gpu function it calls."""
    from .regions import walk
    from .tir_walk import is_warp
    if f.body is None or f in seen:
        return False
    return any(isinstance(x, T.Builtin) and x.name == "k.shfl" or is_warp(x) or
               isinstance(x, T.CallFn) and x.func.kind == "gpu" and uses_shuffles(x.func, seen | {f})
               for x in walk(f.body))
