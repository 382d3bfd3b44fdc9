"""Signature help for nsm lsp: the call around the cursor, its callee and the argument."""
from __future__ import annotations

from lsprotocol import types as L

from compiler.tokens import T

from .features import lookup
from .index import Index, Target, param_labels, signature
from .positions import tokens_before


def signature_help(ix: Index, good: Index | None, line: int, col: int) -> L.SignatureHelp | None:
    before = tokens_before(ix.a.tokens, line, col)
    depth, commas, opener = 0, 0, None
    for k in range(len(before) - 1, -1, -1):
        t = before[k]
        if t.is_op(")", "]", "}"):
            depth += 1
        elif t.is_op("(", "[", "{"):
            if depth == 0:
                opener = k
                break
            depth -= 1
        elif t.is_op(",") and depth == 0:
            commas += 1
    if opener is None or not before[opener].is_op("(") or opener == 0:
        return None
    callee = before[opener - 1]
    if callee.kind is not T.NAME:
        return None
    tg = lookup([ix, good], callee)
    f = tg.obj if tg is not None and tg.kind in ("function", "method", "class") else None
    if f is None and opener >= 3 and before[opener - 2].is_op("."):
        f = _module_function(ix, good, before[opener - 3].text, callee.text)
    elif f is None:
        f = _function_by_name(ix, good, callee.text)
    if tg is not None and tg.kind == "class":
        f = _ctor_of(ix, good, tg)
    if f is None:
        return None
    labels = param_labels(f)
    sig = L.SignatureInformation(label=signature(f),
                                 parameters=[L.ParameterInformation(label=p) for p in labels])
    return L.SignatureHelp(signatures=[sig], active_signature=0,
                           active_parameter=min(commas, max(len(labels) - 1, 0)))


def _module_function(ix: Index, good: Index | None, module: str, name: str):
    for cand in (ix, good):
        root = cand.a.root if cand is not None else None
        if root is not None and root.imports.get(module) is not None:
            ms = cand.scope_of(root.imports[module])
            if ms is not None and name in ms.functions:
                return ms.functions[name]
    return None


def _function_by_name(ix: Index, good: Index | None, name: str):
    for cand in (ix, good):
        if cand is None:
            continue
        ms = cand.scope_of(cand.a.root)
        if ms is None:
            continue
        if name in ms.functions:
            return ms.functions[name]
        if name in ms.from_names:
            dscope, dn = ms.from_names[name]
            if dn in dscope.functions:
                return dscope.functions[dn]
        if ms.std is not None and name in ms.std.functions:
            return ms.std.functions[name]
    return None


def _ctor_of(ix: Index, good: Index | None, tg: Target):
    decl = tg.obj
    for info in getattr(decl, "instances", {}).values():
        return info.init
    return getattr(decl, "ctor", None) if hasattr(decl, "ctor") else None
