"""Warp-collective operations (shuffles, ldmatrix, mma) under a condition that differs between
the lanes of a warp: all 32 lanes must execute them together (12.2, docs/phase2.md)."""
from __future__ import annotations

from .. import tir as T
from .tir_walk import children, is_shfl, is_warp, walk


class Divergent(Exception):
    """A warp-collective operation `op` that some lanes skip because of `cond`."""

    def __init__(self, op: T.Builtin, cond: T.Expr) -> None:
        super().__init__(collective_name(op))
        self.span = op.span
        self.message = f"{collective_name(op)} inside a condition that differs between the " \
                       f"lanes of a warp"
        self.hint = f"all 32 lanes execute it together; the condition on line {cond.span.line} " \
                    f"depends on lane, tx or a per-thread value (conditions on warp, bx or kernel " \
                    f"parameters are uniform)"


def collective_name(op: T.Builtin) -> str:
    """The source name of a warp-collective builtin (`shfl_xor`, `ldmatrix_x4`, ...) for messages."""
    if op.name == "k.shfl":
        return "shfl_down" if op.extra == "down" else "shfl_xor"
    if op.name == "k.ldmatrix":
        return f"ldmatrix_x{op.extra}"
    return "mma_16x8x16"


def is_collective(n) -> bool:
    """Whether n is an operation all 32 lanes of a warp must execute together."""
    return is_shfl(n) or is_warp(n)


def check_lanes(stmts: list, differs) -> None:
    """Raise Divergent for the first warp-collective operation of `stmts` (a kernel body with
    its gpu callees inlined) under an `if`, `while` or C-style loop whose condition surely
    differs between lanes, `differs(e)`: it reads `lane`, `tx`, a register layout, a shuffle or
    a local defined from one (regions.varies with per_lane; `warp` is the same for every lane of
    a warp)."""
    def cond_of(e):
        return e if differs(e) else None

    def visit(s, cond) -> None:
        if isinstance(s, T.If):
            inner = cond or cond_of(s.cond)
            for c in (s.then, s.orelse):
                if c is not None:
                    visit(c, inner)
            _exprs(s.cond, cond)
            return
        if isinstance(s, T.While):
            inner = cond or cond_of(s.cond)
            _exprs(s.cond, inner)
            visit(s.body, inner)
            return
        if isinstance(s, T.ForC):
            heads = [x for x in (s.start, s.cond, s.step) if differs(x)]
            inner = cond or (heads[0] if heads else None)
            for e in (s.start, s.cond, s.step):
                _exprs(e, inner)
            visit(s.body, inner)
            return
        for c in children(s):
            if isinstance(c, T.Stmt):
                visit(c, cond)
            else:
                _exprs(c, cond)

    for s in stmts:
        visit(s, None)


def _exprs(e, cond) -> None:
    if cond is None:
        return
    for x in walk(e):
        if is_collective(x):
            raise Divergent(x, cond)
