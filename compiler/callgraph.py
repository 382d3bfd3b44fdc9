"""Call-graph facts lowering needs: which functions keep a frame, which are recursive."""
from __future__ import annotations

from . import tir as T


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
    """Tarjan's strongly connected components, iteratively (no Python recursion). Functions
    on a cycle of the call graph get the same `scc` id."""
    index: dict[T.FuncSym, int] = {}
    low: dict[T.FuncSym, int] = {}
    on_stack: set[T.FuncSym] = set()
    stack: list[T.FuncSym] = []
    next_scc = 0
    for root in funcs:
        if root in index:
            continue
        work = [(root, iter(sorted(root.calls, key=id)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(w.calls, key=id))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w is v:
                        break
                if len(comp) > 1 or v in v.calls:
                    for w in comp:
                        w.scc = next_scc
                    next_scc += 1
