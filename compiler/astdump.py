"""Text dumps of syntax trees and typed IR (for --emit ast / --emit typed)."""
from __future__ import annotations

import dataclasses

from .diagnostics import Span
from .tir import FuncSym, Var

OPAQUE_MODULES = {"compiler.check.symbols", "compiler.modules"}   # symbol tables: shown by name only
SKIP = {"span", "calls", "defaults", "var_span", "ast", "scope", "env", "owner"}


def dump(node, indent: int = 0) -> str:
    """An indented, one-field-per-line rendering of a dataclass tree."""
    pad = "  " * indent
    if isinstance(node, (list, tuple)):
        if not node:
            return "[]"
        return "[\n" + "".join(f"{pad}  {dump(x, indent + 1)}\n" for x in node) + f"{pad}]"
    if type(node).__module__ in OPAQUE_MODULES:
        return f"<{type(node).__name__} {getattr(node, 'type', getattr(node, 'name', ''))}>"
    if not dataclasses.is_dataclass(node) or isinstance(node, Span):
        return repr(node) if not isinstance(node, Span) else str(node)
    name = type(node).__name__
    fields = []
    for f in dataclasses.fields(node):
        if f.name in SKIP:
            continue
        v = getattr(node, f.name)
        if isinstance(v, (Var, FuncSym)):
            v = f"<{type(v).__name__} {v.name}: {getattr(v, 'type', getattr(v, 'ret', ''))}>"
            fields.append((f.name, v))
            continue
        if f.name == "type":
            v = str(v)
        fields.append((f.name, v))
    loc = ""
    sp = getattr(node, "span", None)
    if isinstance(sp, Span):
        loc = f" @{sp.line}:{sp.col}"
    simple = all(not dataclasses.is_dataclass(v) and not isinstance(v, (list, tuple))
                 for _, v in fields)
    if simple:
        inner = ", ".join(f"{k}={v if k in ('type', 'var', 'func') else repr(v)}"
                          for k, v in fields)
        return f"{name}{loc}({inner})"
    lines = [f"{name}{loc}"]
    for k, v in fields:
        text = v if isinstance(v, str) and k in ("type", "var", "func") else dump(v, indent + 1)
        lines.append(f"{pad}  {k}: {text}")
    return "\n".join(lines)
