"""Thread-loop transform of kernel bodies for the CPU back end (LANGUAGE.md 12.4).

A block's GPU threads run on one CPU thread. Following MCUDA (Stratton et al., "MCUDA: An
Efficient Implementation of CUDA Kernels for Multi-core CPUs", LCPC 2008) and POCL's work-group
"regions", a kernel body's statement lists are split at barriers into barrier-free segments,
each run as a loop over the block's threads (`Loop`); the statements that hold barriers become
control flow run once per block (`If`, `While`, `For` with thread 0's condition: 12.1 requires
every thread to reach a barrier, so these conditions are block-uniform). A shuffle splits its
statement in two segments: the first stores every thread's operand in a scratch slot, the
second reads the partner lane's slot (`ShflSite`).

Locals fall in three classes:
  - uniform: every definition is a once-per-block statement whose value depends only on
    uniform values (parameters, block indices and dimensions, constants, uniform locals), or a
    structured loop's header; kept in one scalar and updated once (`Once`);
  - per-thread: used in more than one plan item: one slot per thread (an array per block);
  - segment-local: everything else, an ordinary scalar inside its segment's thread loop.
A kernel without barriers or shuffles is one `Loop` over the whole body, which LLVM can
vectorise. `return` marks the thread finished; later segments skip it.

`plan_kernel` first inlines the gpu functions that hold barriers or shuffles (inline_gpu.py), then
returns the plan or the reason the transform cannot handle a shape (a barrier in a `for x in`
loop, a shuffle in a condition, break/continue leaving a segment).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import tir as T
from ..types import INT
from .divergence import check_lanes
from .tir_walk import children, is_barrier, is_shfl, is_warp, rebuild, walk  # noqa: F401 (also used from here)
from ..types import BOOL, FLOAT, I32, FixedT


@dataclass
class Loop:
    stmts: list                       # barrier-free statements run by every thread


@dataclass
class Once:
    stmt: T.Stmt                      # a uniform definition, run once per block


@dataclass
class If:
    cond: T.Expr
    then: list
    orelse: list | None


@dataclass
class While:
    cond: T.Expr
    body: list


@dataclass
class For:
    stmt: T.ForC                      # its var is uniform
    body: list


@dataclass
class Jump:
    stmt: T.Stmt                      # break / continue of a structured loop (uniform)


@dataclass
class ShflSite:
    """One shuffle: `value` and `k` are per-thread scratch variables written by the first
    segment; `T.Builtin("k.shfl_read", extra=site)` reads the partner's value."""
    kind: str
    value: T.Var
    k: T.Var


@dataclass
class WarpSite:
    """One warp-wide intrinsic (docs/phase2.md): every thread stages its operands in per-thread
    scratch arrays (`k.warp_stage`, where lane 31 then runs the warp's instruction on its 32
    lanes), and a later segment copies its results out (`k.warp_finish`)."""
    op: T.Builtin                     # k.ldmatrix or k.mma
    scratch: list                     # ldmatrix: address, out; mma: a, b, c (c becomes d)


@dataclass
class Plan:
    items: list
    params: list                      # Decl(param, KArg) statements prepended to the body
    uniform: set = field(default_factory=set)
    varying: set = field(default_factory=set)     # surely per thread (a loop over them is refused)
    per_thread: set = field(default_factory=set)
    has_return: bool = False
    shuffles: list = field(default_factory=list)
    warps: list = field(default_factory=list)
    masked: set = field(default_factory=set)      # ids of the Ifs run per thread (masked_ifs)
    masks: list = field(default_factory=list)     # their per-thread condition variables


class Unsupported(Exception):
    def __init__(self, span, reason: str) -> None:
        super().__init__(reason)
        self.span = span
        self.reason = reason


def structural(s) -> bool:
    """Holds a barrier, a shuffle or a warp intrinsic: split, not run inside one thread loop."""
    return any(is_barrier(x) or is_shfl(x) or is_warp(x) for x in walk(s))


def escapes(s) -> T.Stmt | None:
    """A break/continue in s that leaves s (targets a loop around it)."""
    stack = [(s, 0)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, (T.Break, T.Continue)) and depth == 0:
            return x
        d = depth + isinstance(x, (T.While, T.ForC, T.ForEach, T.RangeLoop))
        stack.extend((c, d) for c in children(x) if isinstance(c, T.Stmt))
    return None


class KArg(T.Expr):
    """The value of kernel parameter `index` as passed to the launch."""

    def __init__(self, type_, span, index: int) -> None:
        super().__init__(type_, span)
        self.index = index


# ------------------------------------------------------------------ the plan

def plan_kernel(sym: T.FuncSym) -> Plan:
    """The kernel's plan; Unsupported for a shape the transform cannot run, Divergent
    (divergence.py) for a warp-collective operation that some lanes of a warp skip."""
    from .inline_gpu import CannotInline, inline_collectives
    params = [T.Decl(p.span, p, KArg(p.type, p.span, i)) for i, p in enumerate(sym.params)]
    try:
        body = inline_collectives(list(sym.body.body))
    except CannotInline as e:
        raise Unsupported(e.span, e.reason) from None
    plan = Plan([], params)
    body = [ranges_as_loops(s) for s in body]
    if not any(structural(s) for s in body):
        plan.items = [Loop(params + body)]    # `return` just goes on to the next thread
        return plan
    lanes = varying_vars(params + body, per_lane=True)
    check_lanes(params + body, lambda e: varies(e, lanes, per_lane=True))
    plan.has_return = any(isinstance(x, T.Return) for x in walk(sym.body))
    plan.varying = varying_vars(params + body)
    plan.masked = masked_ifs(body, plan.varying)
    plan.uniform = uniform_vars(params + body, plan.masked)
    plan.items = Splitter(plan).split(params + body)
    plan.per_thread = per_thread_vars(plan)
    return plan


def ranges_as_loops(s):
    """`[lo..hi, ...] i, ...` around a barrier or warp intrinsic as nested C-style loops, whose
    variables the splitter can keep uniform (the multi-loops of docs/phase2.md)."""
    if not structural(s):
        return s
    if isinstance(s, T.Block):
        return T.Block(s.span, [ranges_as_loops(x) for x in s.body])
    if isinstance(s, T.If):
        return T.If(s.span, s.cond, ranges_as_loops(s.then),
                    None if s.orelse is None else ranges_as_loops(s.orelse))
    if isinstance(s, T.While):
        return T.While(s.span, s.cond, ranges_as_loops(s.body))
    if isinstance(s, T.ForC):
        return T.ForC(s.span, s.var, s.start, s.cond, s.step, ranges_as_loops(s.body))
    if isinstance(s, T.RangeLoop):
        body = ranges_as_loops(s.body)
        for v, (lo, hi) in reversed(list(zip(s.vars, s.ranges))):
            cur = T.Local(INT, s.span, v)
            body = T.ForC(s.span, v, lo, T.Cmp(BOOL, s.span, "<", cur, hi, INT),
                          T.Binop(INT, s.span, "add", cur, T.Const(INT, s.span, 1)),
                          body if isinstance(body, T.Block) else T.Block(s.span, [body]))
        return body
    return s


def masked_ifs(body: list, varying: set) -> set:
    """The ids of the Ifs around shuffles or warp intrinsics, with no barrier, whose condition
    surely differs between threads (it is the same for a warp's lanes: divergence.py): each
    thread keeps its condition, and the segments inside run for the threads where it holds
    (`if warp == 1`; thread 0's value is right only for a block-uniform condition)."""
    return {id(x) for s in body for x in walk(s)
            if isinstance(x, T.If) and structural(x) and varies(x.cond, varying)
            and not any(is_barrier(y) for y in walk(x))}


def defs_and_levels(stmts: list, loop_values: bool = False, masked=frozenset()):
    """Every definition of a local: (var, value or None, at structure level?); with
    loop_values, a C-style loop's start and step define its variable too; inside the
    `masked` Ifs nothing is at structure level."""
    out = []

    def visit(s, top: bool):
        if isinstance(s, T.Decl):
            out.append((s.var, s.init, top))
        elif isinstance(s, T.Assign) and isinstance(s.target, T.Local):
            out.append((s.target.var, s.value, top))
        elif isinstance(s, T.MultiAssign):
            for t in s.targets:
                if isinstance(t, T.Local):
                    out.append((t.var, None, False))
        elif isinstance(s, T.ForC):
            out.append((s.var, None, top and structural(s)))
            if loop_values:
                out.extend([(s.var, s.start, False), (s.var, s.step, False)])
        elif isinstance(s, (T.ForEach, T.RangeLoop)):
            for v in ([s.var] if isinstance(s, T.ForEach) else s.vars):
                out.append((v, None, False))
        inner = top and structural(s) and isinstance(s, (T.If, T.While, T.ForC, T.Block)) \
            and id(s) not in masked
        for c in children(s):
            if isinstance(c, T.Stmt):
                visit(c, inner)
            elif isinstance(c, T.Seq) or isinstance(c, T.Expr):
                for x in walk(c):
                    if isinstance(x, T.Stmt) and x is not c:
                        visit(x, False)

    for s in stmts:
        visit(s, True)
    return out


UNIFORM_INDEX = ("block", "block_dim", "grid_dim")
PURE_BUILTINS = {"min", "max", "abs", "pow", "sqrt", "exp", "log", "tanh", "erf", "floor", "ceil",
                 "isnan", "isinf", "k.shared", "offby_buffer", "offby_fixed"}


def uniform_expr(e, uniform: set, target=None) -> bool:
    """Whether e has one value for every thread of a block, given the uniform variables."""
    for x in walk(e):
        if isinstance(x, T.Local):
            if x.var not in uniform:
                return False
        elif isinstance(x, T.Placeholder):
            if target is None or target not in uniform:
                return False
        elif isinstance(x, T.Builtin):
            if x.name == "k.index":
                if x.extra[0] not in UNIFORM_INDEX:
                    return False
            elif x.name == "k.layout":
                if x.extra.space == "reg":        # registers are the thread's own
                    return False
            elif x.name not in PURE_BUILTINS:
                return False
        elif not isinstance(x, (T.Const, KArg, T.Binop, T.Unop, T.Cmp, T.Cast, T.Logic)):
            return False
    return True


def uniform_vars(stmts: list, masked=frozenset()) -> set:
    """The variables of a kernel body that hold the same value in every thread."""
    defs = defs_and_levels(stmts, masked=masked)
    cand = {v for v, _, _ in defs}
    for v, _, top in defs:
        if not top:
            cand.discard(v)
    changed = True
    while changed:
        changed = False
        for v, value, _ in defs:
            if v in cand and value is not None and not uniform_expr(value, cand, v):
                cand.discard(v)
                changed = True
    return cand


def varying_vars(stmts: list, per_lane: bool = False) -> set:
    """Locals that surely differ between a block's threads: defined from a thread index, a lane,
    a warp, a shuffle, a register layout or another such local; with per_lane, between the
    lanes of one warp (`warp` does not count). Control dependence is ignored, so this is no
    complement of `uniform_vars` (which is conservative the other way)."""
    defs = defs_and_levels(stmts, loop_values=True)
    out: set = set()
    changed = True
    while changed:
        changed = False
        for v, value, _ in defs:
            if v not in out and value is not None and varies(value, out, per_lane):
                out.add(v)
                changed = True
    return out


def varies(e, varying: set, per_lane: bool = False) -> bool:
    """Whether e reads a variable known to differ between threads; with per_lane, between the
    lanes of a warp: `warp` does not, nor do `ty` and `tz` (one warp spans rows when bdx < 32)."""
    for x in walk(e):
        if isinstance(x, T.Local) and x.var in varying:
            return True
        if isinstance(x, T.Builtin) and (
                x.name in ("k.lane", "k.shfl") or x.name == "k.warp" and not per_lane
                or x.name == "k.index" and x.extra[0] not in UNIFORM_INDEX
                and not (per_lane and x.extra[1] != 0)
                or x.name == "k.layout" and x.extra.space == "reg"):
            return True
    return False


class Splitter:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def split(self, stmts: list) -> list:
        items: list = []
        run: list = []

        def flush():
            if run:
                items.append(Loop(list(run)))
                run.clear()

        for s in stmts:
            if isinstance(s, T.ExprStmt) and is_warp(s.expr):
                stage, finish = self.warp_site(s.expr)
                run.append(stage)                 # the segment before ends with the stage
                flush()
                run.append(finish)                # and the next one starts with the copy-out
                continue
            if isinstance(s, T.Block) and structural(s):
                flush()
                items.extend(self.split(s.body))
            elif isinstance(s, T.ExprStmt) and is_barrier(s.expr):
                flush()
            elif structural(s):
                flush()
                items.extend(self.structured(s))
            elif isinstance(s, (T.Break, T.Continue)):
                flush()
                items.append(Jump(s))
            elif self.is_uniform_def(s):
                flush()
                items.append(Once(s))
            else:
                bad = escapes(s)
                if bad is not None:
                    raise Unsupported(bad.span, "a break or continue that leaves a barrier's "
                                                "segment")
                run.append(s)
        flush()
        return items

    def warp_site(self, op: T.Builtin):
        n = len(self.plan.warps)
        if op.name == "k.ldmatrix":
            kinds = [("addr", INT), ("out", FixedT(I32, op.extra))]
        else:
            kinds = [("a", FixedT(I32, 4)), ("b", FixedT(I32, 2)), ("c", FixedT(FLOAT, 4))]
        site = WarpSite(op, [T.Var(f".warp{n}.{k}", t, op.span) for k, t in kinds])
        self.plan.warps.append(site)
        return (T.ExprStmt(op.span, T.Builtin(op.type, op.span,
                                              "k.warp_stage", list(op.args), site)),
                T.ExprStmt(op.span, T.Builtin(op.type, op.span, "k.warp_finish", [op.args[0]],
                                              site)))

    def is_uniform_def(self, s) -> bool:
        u = self.plan.uniform
        if isinstance(s, T.Decl):
            return s.var in u
        if isinstance(s, T.Assign) and isinstance(s.target, T.Local):
            return s.target.var in u
        return False

    def structured(self, s) -> list:
        if isinstance(s, T.If):
            self.no_shfl(s.cond)
            if id(s) in self.plan.masked:
                return self.masked_if(s)
            return [If(s.cond, self.split(s.then.body),
                       self.split(s.orelse.body) if s.orelse is not None else None)]
        if isinstance(s, T.While):
            self.no_shfl(s.cond)
            return [While(s.cond, self.split(s.body.body))]
        if isinstance(s, T.ForC):
            for e in (s.start, s.cond, s.step):
                self.no_shfl(e)
            if s.var not in self.plan.uniform or s.var in self.plan.varying:
                raise Unsupported(s.span, "a loop around a barrier whose variable changes per "
                                          "thread")
            return [For(s, self.split(s.body.body))]
        if isinstance(s, (T.ExprStmt, T.Decl, T.Assign, T.Return)):
            if any(is_barrier(x) for x in walk(s)):
                raise Unsupported(s.span, "syncthreads() inside an expression")
            return self.shuffles(s)
        raise Unsupported(s.span, "a barrier or shuffle inside this statement")

    def masked_if(self, s: T.If) -> list:
        """`if c` as per-thread masks: a segment stores c (and not c) for each thread, and every
        segment of each branch runs inside `if mask` (a break or continue there cannot)."""
        n = len(self.plan.masks)
        sp = s.span
        then, other = (T.Var(f".mask{n}{k}", BOOL, sp) for k in ("", "e"))
        self.plan.masks += [then, other]
        out = [Loop([T.Decl(sp, then, s.cond),
                     T.Decl(sp, other, T.Unop(BOOL, sp, "not", T.Local(BOOL, sp, then)))])]
        for var, body in ((then, s.then), (other, s.orelse)):
            if body is not None:
                out += masked(self.split(body.body), var)
        return out

    def no_shfl(self, e) -> None:
        for x in walk(e):
            if is_shfl(x) or is_warp(x):
                raise Unsupported(x.span, "a shuffle in a condition or loop header")

    def shuffles(self, s) -> list:
        """`... shfl(v, k) ...` -> Loop(value[t] = v; k[t] = k), Loop(... value[partner] ...)."""
        stage, sites = [], {}
        for x in walk(s):
            if is_shfl(x):
                if any(is_shfl(y) for y in walk(x.args[0]) if y is not x) or \
                        any(is_shfl(y) for y in walk(x.args[1])):
                    raise Unsupported(x.span, "a shuffle inside a shuffle's operand")
                n = len(self.plan.shuffles)
                site = ShflSite(x.extra, T.Var(f".shfl{n}", x.type, x.span),
                                T.Var(f".shfl{n}k", INT, x.span))
                self.plan.shuffles.append(site)
                stage += [T.Decl(x.span, site.value, x.args[0]), T.Decl(x.span, site.k, x.args[1])]
                sites[id(x)] = T.Builtin(x.type, x.span, "k.shfl_read", [], site)
        return [Loop(stage), Loop([rebuild(s, sites)])]


def masked(items: list, var: T.Var) -> list:
    """items with every segment run only where per-thread `var` holds."""
    out = []
    for it in items:
        if isinstance(it, Loop):
            sp = var.span
            it = Loop([T.If(sp, T.Local(BOOL, sp, var), T.Block(sp, it.stmts), None)])
        elif isinstance(it, Jump):
            raise Unsupported(it.stmt.span, "a break or continue under a condition that differs "
                                            "between warps")
        elif isinstance(it, If):
            it = If(it.cond, masked(it.then, var), None if it.orelse is None
                    else masked(it.orelse, var))
        elif isinstance(it, (While, For)):
            it.body = masked(it.body, var)
        out.append(it)
    return out


def per_thread_vars(plan: Plan) -> set:
    """Non-uniform locals seen by more than one plan item (their values cross a segment)."""
    seen: dict = {}

    def note(node, item_id):
        for x in walk(node):
            v = x.var if isinstance(x, (T.Local, T.Decl)) else None
            if isinstance(x, T.ForC):
                v = x.var
            if v is not None and v not in plan.uniform:
                seen.setdefault(v, set()).add(item_id)

    def visit(items):
        for it in items:
            if isinstance(it, Loop):
                for s in it.stmts:
                    note(s, id(it))
            elif isinstance(it, Once):
                note(it.stmt, id(it))
            elif isinstance(it, Jump):
                pass
            elif isinstance(it, If):
                note(it.cond, id(it))
                visit(it.then)
                visit(it.orelse or [])
            elif isinstance(it, While):
                note(it.cond, id(it))
                visit(it.body)
            elif isinstance(it, For):
                for e in (it.stmt.start, it.stmt.cond, it.stmt.step):
                    note(e, id(it))
                visit(it.body)

    visit(plan.items)
    out = {v for v, ids in seen.items() if len(ids) > 1}
    for site in plan.shuffles:
        out |= {site.value, site.k}
    for w in plan.warps:
        out |= set(w.scratch)
    return out | set(plan.masks)
