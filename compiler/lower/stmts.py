"""Lowering of typed statements: declarations, assignments, branches, loops, returns."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import ArrayT, ChannelT, FixedT, MapT, TupleT, STR
from . import runtime_abi as R
from .loop_bounds import PLAIN, PURE_BUILTINS, expr_key, plan_loop
from .tir_walk import walk

MAX_VERSIONED = 2      # loops lowered twice that may nest (each doubles what it holds)
# nodes that run no code of the program's own, so grow no array (a user-defined operator is a call)
NO_CODE = (T.Const, T.Zero, T.Local, T.Placeholder, T.Unop, T.Binop, T.Cmp, T.Logic, T.IndexGet)


def may_run_code(n) -> bool:
    """Whether evaluating n may call a function or method (which could grow an array)."""
    return any(not (isinstance(x, NO_CODE) or isinstance(x, T.Builtin) and x.name == "field"
                    or isinstance(x, T.Cast) and x.type != STR) for x in walk(n) if x is not n)


class StmtLowering:
    def lower_block(self, blk: T.Block) -> None:
        for s in blk.body:
            if self.b.block.is_terminated:
                # unreachable code after return/break: give it a block of its own
                self.b.position_at_end(self.b.append_basic_block("dead"))
            self.stmt(s)

    def stmt(self, s: T.Stmt) -> None:
        getattr(self, "st_" + type(s).__name__)(s)

    def st_Block(self, s: T.Block) -> None:
        self.lower_block(s)

    def st_ExprStmt(self, s: T.ExprStmt) -> None:
        self.expr(s.expr)

    def st_Decl(self, s: T.Decl) -> None:
        slot = self.fs.vars.get(s.var)
        if slot is None:
            slot = self.alloca(self.llty(s.var.type), s.var.name)
            self.fs.vars[s.var] = slot
        size = self.llty(s.var.type).get_abi_size(self.td)
        if isinstance(s.init, T.Zero) and isinstance(s.var.type, (FixedT, TupleT)) and size > 64:
            # a memset: LLVM's optimiser is slow on stores of large zero aggregates
            fn = self.intrinsic_fn("llvm.memset.p0.i64", R.VOID, [R.PTR, R.I8, R.I64, R.I1])
            self.b.call(fn, [self.b.bitcast(slot, R.PTR), ir.Constant(R.I8, 0),
                             ir.Constant(R.I64, size), ir.Constant(R.I1, 0)])
            return
        self.b.store(self.expr(s.init), slot)

    def store_to(self, target: T.Expr, v: ir.Value) -> None:
        addr = self.address(target)
        if isinstance(v.type, ir.LiteralStructType) and addr.type.pointee == R.PTR:
            v = self.b.extract_value(v, 0)      # into a buffer of buffers: the address (3.4)
        self.b.store(self.to_mem(v, target.type) if not isinstance(target, T.Local) else v, addr)


    def st_Assign(self, s: T.Assign) -> None:
        if s.compound and self.value_may_resize(s):
            self.compound_reprobe(s)
            return
        if s.compound:
            # a part of an array element (a[i][j] of a fixed array, a[i].0) is found again after
            # code that may grow the array (its storage moves)
            base = [] if may_run_code(s) else None
            addr = self.address(s.target, write=False, base=base)
            at = lambda: self.rebased(addr, base[0]) if base else addr
            is_local = isinstance(s.target, T.Local)
            old = self.b.load(at())
            self.fs.placeholder = old if is_local else self.from_mem(old, s.target.type)
            v = self.expr(s.value)
            self.b.store(v if is_local else self.to_mem(v, s.target.type), at())
            return
        if self.map_update(s):
            return
        v = self.expr(s.value)
        self.store_to(s.target, v)

    def value_may_resize(self, s: T.Assign) -> bool:
        """Whether `a[i] op= e` / `m[k] op= e` has an `e` that may run user code or resize a
        container, so the element's address taken before `e` may be stale after it."""
        t = s.target
        if not (isinstance(t, T.IndexGet) and isinstance(t.obj.type, (ArrayT, MapT))):
            return False
        for n in walk(s.value):
            if isinstance(n, T.Builtin) and n.name not in PURE_BUILTINS:
                return True
            if not isinstance(n, (T.Builtin, *PLAIN)):
                return True
        return False

    def compound_reprobe(self, s: T.Assign) -> None:
        """`x op= e` (5.2) on an array element or map entry whose `e` may resize the container
        (`a[0] += grow(a)`): the object and index are evaluated once, the old value read,
        `e` evaluated, then the element looked up again (bounds checked again) for the store."""
        e: T.IndexGet = s.target
        obj = self.expr(e.obj)
        if isinstance(e.obj.type, MapT):
            self.nil_check(obj, e.span, "index", e.obj.type)
            key = self.key_ptr(self.expr(e.index), e.obj.type)
            self.set_site(e.span)
            old = self.val_ptr(self.rt("nv_map_get", obj, key), e.obj.type)   # key not found (5.2)
            self.fs.placeholder = self.from_mem(self.b.load(old), s.target.type)
            v = self.expr(s.value)
            self.b.store(self.to_mem(v, s.target.type),
                         self.val_ptr(self.rt("nv_map_slot", obj, key), e.obj.type))
            return
        idx = self.expr(e.index)
        slot = lambda: self.elem_ptr(obj, self.norm_index(idx, self.array_len(obj), e.span, 0),
                                     e.obj.type.elem)
        self.fs.placeholder = self.from_mem(self.b.load(slot()), s.target.type)
        v = self.expr(s.value)
        self.b.store(self.to_mem(v, s.target.type), slot())

    def st_MultiAssign(self, s: T.MultiAssign) -> None:
        if len(s.values) == 1:
            tup = self.expr(s.values[0])
            tt: TupleT = s.values[0].type
            vals = [self.convert(self.from_mem(self.b.extract_value(tup, i), et), et, t.type)
                    for i, (et, t) in enumerate(zip(tt.elems, s.targets))]
        else:
            vals = [self.expr(v) for v in s.values]
        for t, v in zip(s.targets, vals):
            self.store_to(t, v)

    def st_Return(self, s: T.Return) -> None:
        if self.kstate is not None and self.kstate.on_return is not None:
            self.kstate.on_return()             # a kernel thread ends (12.1)
            return
        if s.value is not None:
            v = self.expr(s.value)
            self.b.store(v, self.fs.ret_slot)
        self.run_cleanups(0)
        self.b.branch(self.fs.exit_block)

    def st_Break(self, s: T.Break) -> None:
        self.run_cleanups(self.fs.loops[-1][2])
        self.b.branch(self.fs.loops[-1][1])

    def st_Continue(self, s: T.Continue) -> None:
        self.run_cleanups(self.fs.loops[-1][2])
        self.b.branch(self.fs.loops[-1][0])

    def run_cleanups(self, keep: int) -> None:
        """Leave the finish and lock blocks opened after the first `keep` ones (innermost
        first): a block left by return/break/continue still waits / unlocks (9.1, 9.4)."""
        for c in reversed(self.fs.cleanups[keep:]):
            c()

    def st_If(self, s: T.If) -> None:
        cond = self.expr(s.cond)
        then = self.b.append_basic_block("if.then")
        end = self.b.append_basic_block("if.end")
        other = self.b.append_basic_block("if.else") if s.orelse is not None else end
        self.b.cbranch(cond, then, other)
        self.b.position_at_end(then)
        self.lower_block(s.then)
        if not self.b.block.is_terminated:
            self.b.branch(end)
        if s.orelse is not None:
            self.b.position_at_end(other)
            self.lower_block(s.orelse)
            if not self.b.block.is_terminated:
                self.b.branch(end)
        self.b.position_at_end(end)

    def loop(self, cond_fn, body_fn, step_fn=None) -> None:
        """Emit `while cond { body; step }` with continue -> step and break -> end."""
        head = self.b.append_basic_block("loop.head")
        body = self.b.append_basic_block("loop.body")
        step = self.b.append_basic_block("loop.step")
        end = self.b.append_basic_block("loop.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(cond_fn(), body, end)
        self.b.position_at_end(body)
        self.fs.loops.append((step, end, len(self.fs.cleanups)))
        body_fn()
        self.fs.loops.pop()
        if not self.b.block.is_terminated:
            self.b.branch(step)
        self.b.position_at_end(step)
        if step_fn is not None:
            step_fn()
        self.b.branch(head)
        self.b.position_at_end(end)

    def st_While(self, s: T.While) -> None:
        self.loop(lambda: self.expr(s.cond), lambda: self.lower_block(s.body))

    def st_ForC(self, s: T.ForC) -> None:
        slot = self.alloca(self.llty(s.var.type), s.var.name)
        self.fs.vars[s.var] = slot
        self.b.store(self.expr(s.start), slot)
        # only where checks are compiled: under --release the copy would gain nothing
        plan = plan_loop(s) if self.kt is None and not self.release and \
            self.fs.versioned < MAX_VERSIONED else None
        if plan is None:
            self.for_c_loop(s, slot)
            return
        # two copies: without the proven checks when the test before the loop holds, else
        # with every check, so an out-of-range access stops at its own iteration (13.2)
        proven = self.b.append_basic_block("for.proven")
        checked = self.b.append_basic_block("for.checked")
        end = self.b.append_basic_block("for.end")
        self.b.cbranch(self.loop_in_range(plan, self.b.load(slot)), proven, checked)
        self.fs.versioned += 1
        # what the proven copy knows for the loops inside it: hi + off <= a.size()
        facts = {(var, expr_key(plan.hi), plan.inclusive, off) for var, off in plan.accesses}
        for block, ids, known in ((proven, plan.ids, facts), (checked, set(), set())):
            self.b.position_at_end(block)
            self.fs.unchecked |= ids
            added = known - self.fs.known_bounds
            self.fs.known_bounds |= added
            self.for_c_loop(s, slot)
            self.fs.unchecked -= ids
            self.fs.known_bounds -= added
            self.b.branch(end)
        self.fs.versioned -= 1
        self.b.position_at_end(end)

    def for_c_loop(self, s: T.ForC, slot) -> None:
        self.loop(lambda: self.expr(s.cond), lambda: self.lower_block(s.body),
                  lambda: self.b.store(self.expr(s.step), slot))

    def loop_in_range(self, plan, lo: ir.Value) -> ir.Value:
        """No iteration, or for every access a[i + c]: lo + c >= 0 and hi + c <= a.size()
        (< with `<=`). |c| < 2^31 and sizes are >= 0, so nothing here overflows; a step held
        in a local must lie in (0, 2^62] so that i + step cannot wrap past hi."""
        b = self.b
        hi = self.expr(plan.hi)
        ok = b.icmp_signed(">" if plan.inclusive else ">=", lo, hi)
        every = ir.Constant(R.I1, 1)
        if plan.step is not None:
            k = self.expr(plan.step)
            every = b.and_(b.icmp_signed(">", k, ir.Constant(R.I64, 0)),
                           b.icmp_signed("<=", k, ir.Constant(R.I64, 1 << 62)))
        least = min(off for _, off in plan.accesses)
        every = b.and_(every, b.icmp_signed(">=", lo, ir.Constant(R.I64, -least)))
        key = expr_key(plan.hi)
        for var, off in plan.accesses:
            if any((var, key, plan.inclusive, o) in self.fs.known_bounds
                   for o in range(off, off + 4)):
                continue        # an enclosing proven loop tested this bound with a larger c
            n = self.array_len(b.load(self.fs.vars[var]))
            lim = b.sub(n, ir.Constant(R.I64, off))
            every = b.and_(every, b.icmp_signed("<" if plan.inclusive else "<=", hi, lim))
        return b.or_(ok, every)

    def st_ForEach(self, s: T.ForEach) -> None:
        it = s.iterable.type
        var_slot = self.alloca(self.llty(s.var.type), s.var.name)
        self.fs.vars[s.var] = var_slot
        if isinstance(it, MapT):
            self.foreach_map(s, var_slot)
            return
        if isinstance(it, ChannelT):
            self.foreach_channel(s, var_slot)
            return
        idx = self.alloca(R.I64, "idx")
        self.b.store(ir.Constant(R.I64, 0), idx)
        if isinstance(it, ArrayT):
            arr = self.expr(s.iterable)
            n0 = self.array_len(arr)

            def cond():
                i = self.b.load(idx)
                n = self.array_len(arr)
                lim = self.b.select(self.b.icmp_signed("<", n0, n), n0, n)
                return self.b.icmp_signed("<", i, lim)

            def body():
                i = self.b.load(idx)
                self.b.store(self.from_mem(self.b.load(self.elem_ptr(arr, i, it.elem)), it.elem),
                             var_slot)
                self.lower_block(s.body)
        elif isinstance(it, FixedT):
            base = self.address(s.iterable) if self.is_lvalue(s.iterable) else \
                self.spill(self.expr(s.iterable))

            def cond():
                return self.b.icmp_signed("<", self.b.load(idx), ir.Constant(R.I64, it.n))

            def body():
                p = self.b.gep(base, [ir.Constant(R.I32, 0), self.b.load(idx)])
                self.b.store(self.from_mem(self.b.load(p), it.elem), var_slot)
                self.lower_block(s.body)
        else:
            assert it == STR
            sv = self.expr(s.iterable)
            n0 = self.array_len(sv)     # NvStr and NvArray both start with their length

            def cond():
                return self.b.icmp_signed("<", self.b.load(idx), n0)

            def body():
                self.b.store(self.str_byte(sv, self.b.load(idx)), var_slot)
                self.lower_block(s.body)

        def step():
            self.b.store(self.b.add(self.b.load(idx), ir.Constant(R.I64, 1)), idx)

        self.loop(cond, body, step)

    def str_byte(self, s: ir.Value, i: ir.Value) -> ir.Value:
        b = self.b
        p = b.bitcast(s, R.NVSTR.as_pointer())
        data = b.load(b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 1)]))
        return b.load(b.gep(data, [i]))

    def receive_loop(self, s: T.ForEach, var_slot, item_slot, elem, head, end) -> None:
        """The body of `for x in m` / `for v in ch`: the block `head` left for `body` with the
        next item in item_slot; continue re-enters head, break leaves to end."""
        self.b.store(self.from_mem(self.b.load(item_slot), elem), var_slot)
        self.fs.loops.append((head, end, len(self.fs.cleanups)))
        self.lower_block(s.body)
        self.fs.loops.pop()
        if not self.b.block.is_terminated:
            self.b.branch(head)
        self.b.position_at_end(end)

    def st_RangeLoop(self, s: T.RangeLoop) -> None:
        bounds = []
        for lo, hi in s.ranges:
            bounds.append((self.expr(lo), self.expr(hi)))
        slots = []
        for v in s.vars:
            slot = self.alloca(R.I64, v.name)
            self.fs.vars[v] = slot
            slots.append(slot)
        end = self.b.append_basic_block("range.end")
        heads, steps = [], []
        # open loops outermost first
        for k, ((lo, hi), slot) in enumerate(zip(bounds, slots)):
            self.b.store(lo, slot)
            head = self.b.append_basic_block(f"range{k}.head")
            body = self.b.append_basic_block(f"range{k}.body")
            self.b.branch(head)
            self.b.position_at_end(head)
            exit_to = end if k == 0 else steps[k - 1]
            self.b.cbranch(self.b.icmp_signed("<", self.b.load(slot), hi), body, exit_to)
            self.b.position_at_end(body)
            heads.append(head)
            steps.append(self.b.append_basic_block(f"range{k}.step"))
        self.fs.loops.append((steps[-1], end, len(self.fs.cleanups)))
        self.lower_block(s.body)
        self.fs.loops.pop()
        if not self.b.block.is_terminated:
            self.b.branch(steps[-1])
        for k in reversed(range(len(slots))):
            self.b.position_at_end(steps[k])
            self.b.store(self.b.add(self.b.load(slots[k]), ir.Constant(R.I64, 1)), slots[k])
            self.b.branch(heads[k])
        self.b.position_at_end(end)
