"""Bounds checks proven before a loop: which `a[i + c]` of a counted loop are in range for every
iteration when one test before the loop holds (the loop is then lowered twice, 13.2's checks
kept in the copy that runs when the test fails)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import tir as T
from ..builtins import MATH1
from ..types import ArrayT, MapT, Prim
from .tir_walk import walk

INT = Prim("int")
# A loop body larger than this (TIR nodes) is not worth lowering twice.
MAX_NODES = 600
# Builtins that neither resize an array nor run user code.
PURE_BUILTINS = set(MATH1) | {"array.size", "len", "abs", "min", "max", "pow", "isnan", "isinf",
                              "field"}
# Nodes whose lowering is plain code: no calls, thread entries, locks or functions of their own.
PLAIN = (T.Const, T.Zero, T.Local, T.Placeholder, T.Unop, T.Binop, T.Cmp, T.Logic, T.Cast,
         T.IndexGet, T.Decl, T.Assign, T.MultiAssign, T.ExprStmt, T.Block, T.If, T.While,
         T.ForC, T.Break, T.Continue, T.Return)


@dataclass
class Plan:
    """For `for i = lo, i < hi` (or `<=`): every access in `ids` is `arr[i + off]` for an
    (arr, off) in `accesses`; `hi` is loop-invariant and `inclusive` says `<=`; `step`, when
    not None, is the loop-invariant local the loop adds (to be tested positive and small)."""
    hi: T.Expr
    inclusive: bool
    accesses: list[tuple[T.Var, int]]
    ids: set[int]
    step: T.Expr | None = None


def plan_loop(s: T.ForC) -> Plan | None:
    """The accesses of s's body that one test before the loop can prove in range, or None."""
    i = s.var
    step = _step(s.step, i)
    if i.type != INT or step is None:
        return None
    c = s.cond
    if not (isinstance(c, T.Cmp) and c.op in ("<", "<=") and _is_local(c.left, i)):
        return None
    assigned: set[T.Var] = set()
    nodes = 0
    for n in walk(s.body):
        nodes += 1
        if nodes > MAX_NODES:
            return None
        if isinstance(n, T.Builtin):
            if n.name not in PURE_BUILTINS:
                return None
        elif not isinstance(n, PLAIN):
            return None
        elif isinstance(n, T.IndexGet) and isinstance(n.obj.type, MapT):
            return None
        if isinstance(n, (T.Assign, T.MultiAssign)):
            for t in ([n.target] if isinstance(n, T.Assign) else n.targets):
                if isinstance(t, T.Local):
                    assigned.add(t.var)
        elif isinstance(n, T.Decl):
            assigned.add(n.var)
        elif isinstance(n, T.ForC):
            assigned.add(n.var)
    if i in assigned or not _invariant(c.right, assigned):
        return None
    if isinstance(step, T.Local) and step.var in assigned:
        return None
    accesses: dict[tuple[T.Var, int], None] = {}
    ids: set[int] = set()
    for n in walk(s.body):
        if not (isinstance(n, T.IndexGet) and isinstance(n.obj.type, ArrayT)):
            continue
        if not isinstance(n.obj, T.Local) or n.obj.var in assigned:
            continue
        off = _offset(n.index, i)
        if off is None:
            continue
        accesses[(n.obj.var, off)] = None
        ids.add(id(n))
    if not ids:
        return None
    return Plan(c.right, c.op == "<=", list(accesses), ids,
                step if isinstance(step, T.Local) else None)


def _is_local(e: T.Expr, v: T.Var) -> bool:
    return isinstance(e, T.Local) and e.var is v


def _const_int(e: T.Expr) -> int | None:
    if isinstance(e, T.Const) and e.type == INT and isinstance(e.value, int) \
            and not isinstance(e.value, bool) and abs(e.value) < (1 << 31):
        return e.value
    return None


def _step(e: T.Expr, i: T.Var) -> T.Expr | None:
    """What `i + k` adds: a constant k > 0, or an int local (tested before the loop), else None."""
    if not (isinstance(e, T.Binop) and e.op == "add"):
        return None
    k = e.right if _is_local(e.left, i) else e.left if _is_local(e.right, i) else None
    if k is None:
        return None
    if _const_int(k) is not None:
        return k if _const_int(k) > 0 else None
    if isinstance(k, T.Local) and k.type == INT and k.var is not i:
        return k
    return None


def _offset(e: T.Expr, i: T.Var) -> int | None:
    """c when e is `i`, `i + c`, `c + i` or `i - c` (c a small constant)."""
    if _is_local(e, i):
        return 0
    if isinstance(e, T.Binop) and e.op in ("add", "sub") and e.type == INT:
        if _is_local(e.left, i):
            k = _const_int(e.right)
            return None if k is None else (k if e.op == "add" else -k)
        if e.op == "add" and _is_local(e.right, i):
            return _const_int(e.left)
    return None


def _invariant(e: T.Expr, assigned: set[T.Var]) -> bool:
    """e has the same value at every iteration: a constant, an unassigned local, the size of an
    array in an unassigned local (the body resizes no array: plan_loop's node rules), or a sum
    or difference of these."""
    if _const_int(e) is not None:
        return True
    if isinstance(e, T.Local):
        return e.type == INT and e.var not in assigned
    if isinstance(e, T.Binop) and e.op in ("add", "sub") and e.type == INT:
        return _invariant(e.left, assigned) and _invariant(e.right, assigned)
    if isinstance(e, T.Builtin) and e.name in ("array.size", "len") and len(e.args) == 1:
        a = e.args[0]
        return isinstance(a, T.Local) and isinstance(a.type, ArrayT) and a.var not in assigned
    return False


def expr_key(e: T.Expr):
    """A hashable key equal for two loop-invariant bounds that always have the same value."""
    if isinstance(e, T.Const):
        return ("const", e.value)
    if isinstance(e, T.Local):
        return ("local", id(e.var))
    if isinstance(e, T.Binop):
        return (e.op, expr_key(e.left), expr_key(e.right))
    if isinstance(e, T.Builtin):
        return (e.name, expr_key(e.args[0]))
    return ("other", id(e))
