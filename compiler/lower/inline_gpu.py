"""Inlining of the gpu functions that use barriers or shuffles into kernel bodies, so the CPU back end's thread-loop transform (regions.py) sees every barrier in the kernel itself (12.4).

A call `f(a, b)` to such a function (directly or through other gpu functions) in statement S
becomes, before S: `p1 = a; p2 = b; <f's body>; r = <returned value>`, with fresh locals for f's
parameters and locals, and S then reads `r`. The callee may return only as its last statement
(a return before a barrier is not something every thread could skip past on a GPU either).
"""
from __future__ import annotations

from dataclasses import fields, replace

from .. import tir as T
from ..types import VOID


class CannotInline(Exception):
    def __init__(self, span, reason: str) -> None:
        super().__init__(reason)
        self.span = span
        self.reason = reason


def has_collective(f: T.FuncSym, seen: frozenset = frozenset()) -> bool:
    """Whether gpu function f, or a gpu function it calls, holds a barrier or a shuffle."""
    from .tir_walk import is_barrier, is_shfl, is_smem_layout, is_warp, walk
    if f.kind != "gpu" or f.body is None or f in seen:
        return False
    for x in walk(f.body):
        if is_barrier(x) or is_shfl(x) or is_warp(x) or is_smem_layout(x):
            return True
        if isinstance(x, T.CallFn) and has_collective(x.func, seen | {f}):
            return True
    return False


def inline_collectives(stmts: list) -> list:
    """`stmts` with every call of a collective gpu function inlined (a new list; the input is
    not changed, as the GPU back end compiles the original body)."""
    return _Inliner().block(stmts)


class _Inliner:
    def __init__(self) -> None:
        self.count = 0

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        if isinstance(s, T.Block):
            return [replace(s, body=self.block(s.body))]
        if isinstance(s, T.If):
            pre, cond = self.hoist(s.cond)
            then = replace(s.then, body=self.block(s.then.body))
            orelse = None if s.orelse is None else replace(s.orelse, body=self.block(s.orelse.body))
            return pre + [replace(s, cond=cond, then=then, orelse=orelse)]
        if isinstance(s, (T.While, T.ForC, T.ForEach, T.RangeLoop)):
            for e in _headers(s):
                self.refuse_calls(e)
            return [replace(s, body=replace(s.body, body=self.block(s.body.body)))]
        calls = _collective_calls(s)
        if not calls:
            return [s]
        if isinstance(s, T.ExprStmt) and s.expr is calls[0] and len(calls) == 1:
            return self.expand(calls[0], None)
        pre, rebuilt = self.hoist(s)
        return pre + [rebuilt]

    def hoist(self, e):
        """Statements computing each collective call of `e` (a statement or an expression)
        into a fresh local, and `e` rebuilt reading those locals."""
        calls = _collective_calls(e)
        if not calls:
            return [], e
        from .tir_walk import rebuild
        pre, subst = [], {}
        for c in calls:
            r = T.Var(f".inl{self.count}", c.type, c.span)
            self.count += 1
            pre += self.expand(c, r)
            subst[id(c)] = T.Local(c.type, c.span, r)
        return pre, rebuild(e, subst)

    def refuse_calls(self, e) -> None:
        calls = _collective_calls(e)
        if calls:
            raise CannotInline(calls[0].span, f"a call of {calls[0].func.name}, which uses "
                                              "syncthreads() or shuffles, in a loop header")

    def expand(self, call: T.CallFn, result: T.Var | None) -> list:
        f = call.func
        body = list(f.body.body)
        for x in _all_returns(body[:-1]) + _all_returns(_inner(body[-1:])):
            raise CannotInline(x.span, f"{f.name} uses syncthreads() or shuffles, so it may "
                                       "return only at its end")
        vars_: dict = {}
        out = []
        for p, a in zip(f.params, call.args):
            nv = T.Var(f"{p.name}.{self.count}", p.type, p.span)
            vars_[p] = nv
            out.append(T.Decl(a.span, nv, a))
        self.count += 1
        last = body[-1] if body else None
        if isinstance(last, T.Return):
            body = body[:-1]
        copied = [_copy(s, vars_) for s in body]
        if isinstance(last, T.Return) and last.value is not None:
            value = _copy(last.value, vars_)
            copied.append(T.Decl(last.span, result, value) if result is not None
                          else T.ExprStmt(last.span, value))
        elif result is not None and f.ret != VOID:
            copied.append(T.Decl(call.span, result, T.Zero(f.ret, call.span)))
        return out + self.block(copied)      # the callee's own collective calls


def _headers(s) -> list:
    if isinstance(s, T.While):
        return [s.cond]
    if isinstance(s, T.ForC):
        return [s.start, s.cond, s.step]
    if isinstance(s, T.ForEach):
        return [s.iterable]
    return [e for pair in s.ranges for e in pair]


def _collective_calls(n) -> list:
    """The calls of collective gpu functions in n, outermost first, in source order (a call in
    another's arguments is inlined with the argument)."""
    out = []

    def visit(x):
        if isinstance(x, T.CallFn) and has_collective(x.func):
            out.append(x)
            return
        if isinstance(x, (T.Stmt, T.Expr)):
            for f in fields(x):
                v = getattr(x, f.name)
                if isinstance(v, (T.Stmt, T.Expr)):
                    visit(v)
                elif isinstance(v, list):
                    for y in v:
                        visit(y)
    visit(n)
    return out


def _all_returns(stmts: list) -> list:
    from .tir_walk import walk
    return [x for s in stmts for x in walk(s) if isinstance(x, T.Return)]


def _inner(stmts: list) -> list:
    """The statements inside the last one (a trailing `return` itself is allowed)."""
    return [] if not stmts or isinstance(stmts[0], T.Return) else stmts


def _copy(n, vars_: dict):
    """A copy of a body node with fresh locals (each inlined copy has its own variables)."""
    if isinstance(n, T.Var):
        if n not in vars_:
            vars_[n] = T.Var(n.name, n.type, n.span, n.is_param)
        return vars_[n]
    if isinstance(n, list):
        return [_copy(x, vars_) for x in n]
    if isinstance(n, tuple):
        return tuple(_copy(x, vars_) for x in n)
    if not isinstance(n, (T.Expr, T.Stmt)):
        return n
    changes = {}
    for f in fields(n):
        v = getattr(n, f.name)
        if isinstance(v, (T.Expr, T.Stmt, T.Var, list, tuple)):
            changes[f.name] = _copy(v, vars_)
    return replace(n, **changes)
