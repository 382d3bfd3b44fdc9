"""Walking and rebuilding the typed IR (tir) of kernel code: children in field order, the barrier and
shuffle intrinsics, copies with some nodes replaced."""
from __future__ import annotations

from dataclasses import fields, replace

from .. import tir as T


def children(n):
    """The typed-IR nodes directly under n (fields and lists of them)."""
    for f in fields(n):
        v = getattr(n, f.name)
        if isinstance(v, (T.Expr, T.Stmt)):
            yield v
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, (T.Expr, T.Stmt)):
                    yield x
                elif isinstance(x, tuple):
                    yield from (y for y in x if isinstance(y, (T.Expr, T.Stmt)))


def walk(n):
    """n and every typed-IR node below it."""
    stack = [n]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(children(x))


def is_barrier(n) -> bool:
    """Whether n is `syncthreads()`."""
    return isinstance(n, T.Builtin) and n.name == "k.sync"


def is_shfl(n) -> bool:
    """Whether n is a warp shuffle."""
    return isinstance(n, T.Builtin) and n.name == "k.shfl"


def is_warp(n) -> bool:
    """A warp-wide phase-2 intrinsic (docs/phase2.md): all 32 lanes execute it together."""
    return isinstance(n, T.Builtin) and n.name in ("k.ldmatrix", "k.mma")


def is_smem_layout(n) -> bool:
    """Whether n makes a shared-memory layout."""
    return isinstance(n, T.Builtin) and n.name == "k.layout" and n.extra.space == "smem"


def rebuild(n, subst: dict):
    """A copy of n with the nodes whose id is in subst replaced (the original body is kept
    intact for other targets)."""
    if id(n) in subst:
        return subst[id(n)]
    if not isinstance(n, (T.Expr, T.Stmt)):
        return n
    changes = {}
    for f in fields(n):
        v = getattr(n, f.name)
        if isinstance(v, (T.Expr, T.Stmt)):
            nv = rebuild(v, subst)
        elif isinstance(v, list):
            nv = [rebuild(x, subst) for x in v]
        else:
            continue
        if nv is not v:
            changes[f.name] = nv
    return replace(n, **changes) if changes else n
