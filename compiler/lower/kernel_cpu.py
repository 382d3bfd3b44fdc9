"""The CPU kernel target (LANGUAGE.md 12.4): one function per kernel runs one block.

`void K.cpu(void** args, const nv_block* b)` loads the arguments (args[i] points at parameter
i's value) and the block's indices and dimensions once, then runs the plan of regions.py (made by the checker):
thread loops `for tz, ty, tx` over barrier-free segments (the innermost loop over tx is what
LLVM vectorises), and once-per-block control flow between them. Per-thread locals live in
arrays sized by the block (stack memory of the pool worker running the block). gpu functions
take the thread index (tx, ty, tz) and the nv_block pointer as hidden trailing arguments.
Kernel code has no frames and no checks; atomics are LLVM atomicrmw (correct across workers).
"""
from __future__ import annotations

from llvmlite import ir

from ..types import BOOL
from ..diagnostics import InternalError
from . import runtime_abi as R
from .kernel_target import KernelTarget
from .regions import For, If, Jump, Loop, Once, While

I64 = R.I64
NV_BLOCK = ir.LiteralStructType([ir.ArrayType(I64, 3)] * 3 + [R.PTR])
# nv_kernel {name, cpu, ptx, entry} followed by this back end's flags word and the names of
# the buffer parameters (neve_rt.h's nv_kernel_desc)
KDESC = ir.LiteralStructType([R.PTR, R.PTR, R.PTR, R.PTR, I64, R.PTR])
BLOCK_FIELDS = {"grid_dim": 0, "block_dim": 1, "block": 2}
ZERO = ir.Constant(I64, 0)


class KState:
    """Per-function state of the CPU target."""

    def __init__(self, blk_raw, tid) -> None:
        self.blk_raw = blk_raw           # i8* nv_block
        self.blk = None                  # its typed pointer (entry block)
        self.tid = tid                   # [tx, ty, tz] i64 values in the current context
        self.lin = ZERO                  # linear thread index in the block
        self.cache: dict = {}            # (kind, axis) / 'smem' -> value loaded in the entry
        self.args: list = []             # kernel arguments (KArg)
        self.arrays: dict = {}           # per-thread var -> base of its block array
        self.arr0: dict = {}             # per-thread var -> its thread-0 slot
        self.nthreads = None
        self.on_return = None            # thread loops: `return` ends the thread


class CpuTarget(KernelTarget):
    name = "cpu"

    # -------------------------------------------------------- block and thread values
    def block_ptr(self, lw):
        st = lw.kstate
        if st.blk is None:
            st.blk = lw.fs.entry_builder.bitcast(st.blk_raw, NV_BLOCK.as_pointer())
        return st.blk

    def index(self, lw, kind: str, axis: int) -> ir.Value:
        st = lw.kstate
        if kind == "thread":
            return st.tid[axis]
        key = (kind, axis)
        if key not in st.cache:
            eb = lw.fs.entry_builder
            p = eb.gep(self.block_ptr(lw), [ir.Constant(R.I32, 0),
                                            ir.Constant(R.I32, BLOCK_FIELDS[kind]),
                                            ir.Constant(R.I32, axis)])
            st.cache[key] = eb.load(p)
        return st.cache[key]

    def shared_base(self, lw) -> ir.Value:
        st = lw.kstate
        if "smem" not in st.cache:
            eb = lw.fs.entry_builder
            st.cache["smem"] = eb.load(eb.gep(self.block_ptr(lw), [ir.Constant(R.I32, 0),
                                                                   ir.Constant(R.I32, 3)]))
        return st.cache["smem"]

    def barrier(self, lw) -> None:
        raise InternalError("syncthreads() reached the CPU lowering (the thread-loop "
                            "transform removes barriers)")

    def shuffle(self, lw, kind, value, k, t):
        raise InternalError("a shuffle reached the CPU lowering unsplit")

    def shfl_read(self, lw, site) -> ir.Value:
        """The partner lane's value of a split shuffle (regions.ShflSite)."""
        b, st = lw.b, lw.kstate
        t = st.lin
        k = b.load(b.gep(st.arrays[site.k], [t]))
        lane = b.and_(t, ir.Constant(I64, 31))
        pl = b.xor(lane, k) if site.kind == "xor" else b.add(lane, k)
        partner = b.add(b.sub(t, lane), pl)
        ok = b.and_(b.icmp_unsigned("<", pl, ir.Constant(I64, 32)),
                    b.icmp_unsigned("<", partner, st.nthreads))
        return b.load(b.gep(st.arrays[site.value], [b.select(ok, partner, t)]))

    # -------------------------------------------------------- phase 2 (docs/phase2.md)
    def static_smem(self, lw, info) -> ir.Value:
        """A shared layout: block memory in the kernel's frame (one call runs one block)."""
        st = lw.kstate
        key = ("layout", id(info))
        if key not in st.cache:
            t = ir.ArrayType(lw.mem_ty(info.elem), info.total)
            slot = lw.fs.entry_builder.alloca(t, name="smem")
            slot.align = 16
            st.cache[key] = lw.fs.entry_builder.bitcast(slot, R.PTR)
        return st.cache[key]

    def cp_async16(self, lw, dst, src) -> None:
        lw.rt("nv_cp_async16", dst, src)

    def cp_commit(self, lw) -> None:
        pass                       # the copies are done when issued

    def cp_wait(self, lw, n: int) -> None:
        pass

    def ldmatrix(self, lw, nmat, dst, src):
        raise InternalError("a warp intrinsic reached the CPU lowering unsplit")

    mma = ldmatrix

    def warp_stage(self, lw, site, args: list) -> None:
        """This thread's operands into its scratch slots; lane 31, the warp's last thread
        of the loop, then runs the instruction for the warp's 32 lanes."""
        b, st = lw.b, lw.kstate
        slots = [lw.fs.vars[v] for v in site.scratch]
        if site.op.name == "k.ldmatrix":
            b.store(b.ptrtoint(args[1], I64), slots[0])
        else:
            for slot, src, n in zip(slots, (args[1], args[2], args[0]), (16, 8, 16)):
                lw.memcpy(slot, src, n)
        t = st.lin
        last = b.icmp_unsigned("==", b.and_(t, ir.Constant(I64, 31)), ir.Constant(I64, 31))
        with b.if_then(last):
            first = b.sub(t, ir.Constant(I64, 31))
            lanes = [b.bitcast(b.gep(st.arrays[v], [first]), R.PTR) for v in site.scratch]
            if site.op.name == "k.ldmatrix":
                lw.rt("nv_warp_ldmatrix", ir.Constant(I64, site.op.extra), *lanes)
            else:
                lw.rt("nv_warp_mma_16x8x16", ir.Constant(I64, site.op.extra), lanes[0], lanes[1],
                      lanes[2], lanes[2])

    def warp_finish(self, lw, site, dst) -> None:
        """This thread's results (its lane of the warp's) to where the intrinsic writes them."""
        slot = lw.fs.vars[site.scratch[-1]]
        n = 4 * (site.op.extra if site.op.name == "k.ldmatrix" else 4)
        lw.memcpy(dst, slot, n)

    # -------------------------------------------------------- gpu functions
    def declare_gpu(self, lw, sym) -> ir.Function:
        from .inline_gpu import has_collective
        if has_collective(sym):       # it has no CPU function: the linker would fail later
            raise InternalError(f"a call of gpu function {sym.name}, which holds a barrier or a "
                                "shuffle, reached the CPU lowering without being inlined")
        fn = lw.module.globals.get(sym.symbol)
        if fn is None:
            saved, lw.kt = lw.kt, self
            try:
                params = [lw.llty(p.type) for p in sym.params] + [I64, I64, I64, R.PTR]
                fn = ir.Function(lw.module, ir.FunctionType(lw.llty(sym.ret), params),
                                 name=sym.symbol)
            finally:
                lw.kt = saved
        return fn

    def gpu_call_args(self, lw, sym) -> list:
        st = lw.kstate
        return list(st.tid) + [st.blk_raw]

    def gpu_state(self, fn, sym):
        n = len(sym.params)        # the hidden thread index (3) and block arguments follow
        return KState(fn.args[n + 3], list(fn.args[n:n + 3]))

    # -------------------------------------------------------- kernels
    def define_kernel(self, lw, sym) -> ir.Function:
        from .state import FuncState
        plan = sym.plan                        # made by the checker (check_cpu_shape)
        if plan is None:
            raise InternalError(f"kernel {sym.name} reached lowering without its region plan")
        fn = ir.Function(lw.module, ir.FunctionType(R.VOID, [R.PTR.as_pointer(), R.PTR]),
                         name=sym.symbol + ".cpu")
        fs = FuncState(sym, fn)
        lw.fs = fs
        entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        fs.entry_builder = eb = ir.IRBuilder(entry)
        lw.b = ir.IRBuilder(body)
        fs.exit_block = fn.append_basic_block("exit")
        st = KState(fn.args[1], [ZERO, ZERO, ZERO])
        lw.kt, lw.kstate = self, st
        try:
            for i, p in enumerate(sym.params):
                slot = eb.load(eb.gep(fn.args[0], [ir.Constant(I64, i)]))
                v = eb.load(eb.bitcast(slot, lw.mem_ty(p.type).as_pointer()))
                if p.type == BOOL:
                    v = eb.icmp_unsigned("!=", v, ir.Constant(R.I8, 0))
                st.args.append(v)
            bd = [self.index(lw, "block_dim", a) for a in range(3)]
            st.nthreads = eb.mul(eb.mul(bd[0], bd[1]), bd[2])
            for v in plan.per_thread:
                st.arrays[v] = eb.alloca(lw.llty(v.type), size=st.nthreads, name=v.name)
                st.arr0[v] = st.arrays[v]
            if plan.has_return:
                st.done = eb.alloca(R.I8, size=st.nthreads, name="done")
                memset = lw.intrinsic_fn("llvm.memset.p0.i64", R.VOID, [R.PTR, R.I8, I64, R.I1])
                lw.b.call(memset, [st.done, ir.Constant(R.I8, 0), st.nthreads,
                                   ir.Constant(R.I1, 0)])
            for v in plan.uniform:
                fs.vars[v] = lw.alloca(lw.llty(v.type), v.name)
            self.items(lw, plan, plan.items)
            if not lw.b.block.is_terminated:
                lw.b.branch(fs.exit_block)
            eb.branch(body)
            ir.IRBuilder(fs.exit_block).ret_void()
        finally:
            lw.kt = lw.kstate = lw.fs = None
        return fn

    def once_view(self, lw, plan) -> None:
        """Once-per-block code sees thread 0: its index and its per-thread slots."""
        st = lw.kstate
        st.tid, st.lin = [ZERO, ZERO, ZERO], ZERO
        for v, p in st.arr0.items():
            lw.fs.vars[v] = p

    def items(self, lw, plan, items: list) -> None:
        for it in items:
            if lw.b.block.is_terminated:
                lw.b.position_at_end(lw.b.append_basic_block("dead"))
            if isinstance(it, Loop):
                self.thread_loop(lw, plan, it.stmts)
            elif isinstance(it, Once):
                self.once_view(lw, plan)
                lw.stmt(it.stmt)
            elif isinstance(it, Jump):
                lw.stmt(it.stmt)
            elif isinstance(it, If):
                self.once_view(lw, plan)
                self.structured_if(lw, plan, it)
            elif isinstance(it, While):
                lw.loop(lambda it=it: self.once_expr(lw, plan, it.cond),
                        lambda it=it: self.items(lw, plan, it.body))
            elif isinstance(it, For):
                s = it.stmt
                lw.b.store(self.once_expr(lw, plan, s.start), lw.fs.vars[s.var])
                lw.loop(lambda s=s: self.once_expr(lw, plan, s.cond),
                        lambda it=it: self.items(lw, plan, it.body),
                        lambda s=s: lw.b.store(self.once_expr(lw, plan, s.step), lw.fs.vars[s.var]))

    def once_expr(self, lw, plan, e) -> ir.Value:
        self.once_view(lw, plan)
        return lw.expr(e)

    def structured_if(self, lw, plan, it: If) -> None:
        b = lw.b
        cond = lw.expr(it.cond)
        then = b.append_basic_block("sif.then")
        end = b.append_basic_block("sif.end")
        other = b.append_basic_block("sif.else") if it.orelse is not None else end
        b.cbranch(cond, then, other)
        for blk, body in ((then, it.then), (other, it.orelse)):
            if body is None:
                continue
            b.position_at_end(blk)
            self.items(lw, plan, body)
            if not b.block.is_terminated:
                b.branch(end)
        b.position_at_end(end)

    def thread_loop(self, lw, plan, stmts: list) -> None:
        """for tz, ty, tx over the block: run stmts for each thread not yet returned."""
        b, st = lw.b, lw.kstate
        bd = [self.index(lw, "block_dim", a) for a in range(3)]
        slots = [lw.alloca(I64, n) for n in ("tx", "ty", "tz")]

        def level(axis: int) -> None:
            slot = slots[axis]
            b.store(ZERO, slot)
            body = (lambda: level(axis - 1)) if axis > 0 else (lambda: self.thread_body(lw, plan, stmts, slots))
            lw.loop(lambda: b.icmp_signed("<", b.load(slot), bd[axis]), body,
                    lambda: b.store(b.add(b.load(slot), ir.Constant(I64, 1)), slot))

        level(2)

    def thread_body(self, lw, plan, stmts: list, slots) -> None:
        b, st = lw.b, lw.kstate
        tx, ty, tz = (b.load(s) for s in slots)
        bd = [self.index(lw, "block_dim", a) for a in range(2)]
        t = b.add(b.mul(b.add(b.mul(tz, bd[1]), ty), bd[0]), tx)
        st.tid, st.lin = [tx, ty, tz], t
        for v, base in st.arrays.items():
            lw.fs.vars[v] = b.gep(base, [t])
        nxt = b.append_basic_block("thread.next")
        if plan.has_return:
            flag = b.gep(st.done, [t])
            run = b.append_basic_block("thread.run")
            b.cbranch(b.icmp_unsigned("!=", b.load(flag), ir.Constant(R.I8, 0)), nxt, run)
            b.position_at_end(run)

            def ret():
                b.store(ir.Constant(R.I8, 1), flag)
                b.branch(nxt)
        else:
            def ret():
                b.branch(nxt)
        st.on_return = ret
        for s in stmts:
            if b.block.is_terminated:
                b.position_at_end(b.append_basic_block("dead"))
            lw.stmt(s)
        st.on_return = None
        if not b.block.is_terminated:
            b.branch(nxt)
        b.position_at_end(nxt)
