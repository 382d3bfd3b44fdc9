"""Which `<-` tokens the parser read as the channel operator (a `ChanOp` statement's arrow, a
declaration item's `int w <- ch`); every other `<-` is `<` then unary `-` (LANGUAGE.md 2.4)."""
from __future__ import annotations

import dataclasses

from compiler import ast
from compiler.parser.expressions import carg_close

OPEN = {"(", "[", "{"}
CLOSE = {")", "]", "}"}


def _nodes(tree):
    todo = [tree]
    while todo:
        x = todo.pop()
        if isinstance(x, (list, tuple)):
            todo.extend(x)
        elif dataclasses.is_dataclass(x) and isinstance(x, ast.Node):
            yield x
            todo.extend(getattr(x, f.name) for f in dataclasses.fields(x))


def channel_arrows(tree, tokens: list) -> set[int]:
    """The ids of the `<-` tokens in `tokens` that are channel operators in `tree`."""
    at = {(t.span.line, t.span.col): k for k, t in enumerate(tokens) if t.span is not None}
    out: set[int] = set()
    for n in _nodes(tree):
        k = at.get((n.span.line, n.span.col)) if n.span is not None else None
        if k is None:
            continue
        if isinstance(n, ast.DeclItem) and n.recv is not None:
            if k + 1 < len(tokens) and tokens[k + 1].is_op("<-"):
                out.add(id(tokens[k + 1]))
        elif isinstance(n, ast.ChanOp):
            j = _first_arrow(tokens, k)
            if j is not None:
                out.add(id(tokens[j]))
    return out


def _first_arrow(tokens: list, k: int) -> int | None:
    """The first `<-` outside brackets from tokens[k] on, past compile-time lists `f(x)<-3>`:
    where a statement's first expression stops (compiler/parser/statements.py)."""
    depth = 0
    for j in range(k, len(tokens)):
        t = tokens[j]
        if t.is_op(*OPEN):
            depth += 1
        elif t.is_op(*CLOSE):
            depth -= 1
        elif depth == 0 and t.is_op("<-") and carg_close(tokens, j) is None:
            return j
    return None
