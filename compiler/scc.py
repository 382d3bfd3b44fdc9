"""Strongly connected components of a directed graph (Tarjan 1972, "Depth-first search and
linear graph algorithms"), iterative so that chains of any length need no Python recursion.
Used for recursive functions (callgraph.py) and for import cycles, which form one build unit
(nsm.build.graph, LANGUAGE.md 13.4)."""
from __future__ import annotations

from typing import Callable, Hashable, Iterable, TypeVar

N = TypeVar("N", bound=Hashable)


def strongly_connected(nodes: Iterable[N], successors: Callable[[N], Iterable[N]]) -> list[list[N]]:
    """The components, each listed as found; a component comes after every component it
    reaches (dependencies first)."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    out: list[list[N]] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors(root)))]
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
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
                out.append(comp)
    return out
