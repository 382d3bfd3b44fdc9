"""Call-graph facts lowering needs: which functions keep a frame, which are recursive."""
from __future__ import annotations

from .. import tir as T
from ..scc import strongly_connected


def analyse(funcs: list[T.FuncSym]) -> None:
    """Set `may_raise` and `scc` (the recursive component id, or None) on every function."""
    mark_recursion(funcs)
    compute_may_raise(funcs)


def compute_may_raise(funcs: list[T.FuncSym]) -> None:
    """A function keeps an NvFrame only if it can raise a runtime error itself or calls one
    that can, or enters a recursive component (fixpoint over the call graph). Recursion
    alone does not give a function a frame: recursive functions
    count their depth in a hidden argument instead (see mark_recursion), which keeps code
    such as fib free of frame stores."""
    def raises_in(f: T.FuncSym, g: T.FuncSym) -> bool:
        # entering another recursive component may overflow the stack: keep a frame
        return g.may_raise or (g.scc is not None and g.scc != f.scc)

    for f in funcs:
        f.may_raise = f.raises_directly
    changed = True
    while changed:
        changed = False
        for f in funcs:
            if not f.may_raise and any(raises_in(f, g) for g in f.calls):
                f.may_raise = changed = True


def mark_recursion(funcs: list[T.FuncSym]) -> None:
    """Functions on a cycle of the call graph (a component of more than one function, or one
    calling itself) get the same `scc` id."""
    comps = strongly_connected(funcs, lambda f: sorted(f.calls, key=id))
    n = 0
    for comp in comps:
        if len(comp) > 1 or comp[0] in comp[0].calls:
            for f in comp:
                f.scc = n
            n += 1
