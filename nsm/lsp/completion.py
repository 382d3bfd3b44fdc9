"""Completion for nsm lsp: members after `.` by the static type (methods by naming too),
module members, modules after `import`, keywords and the names in scope."""
from __future__ import annotations

import re

from lsprotocol import types as L

from compiler import ast as A
from compiler.builtins import (ARRAY_METHODS, BUILTIN_NAMES, CHANNEL_METHODS, FILE_METHODS, FILE_T,
                               MAP_METHODS, SB_T, STR_METHODS)
from compiler.check.strbuilder import SB_METHODS
from compiler.tokens import KEYWORDS, TYPE_KEYWORDS, T
from compiler.types import ArrayT, ChannelT, ClassT, MapT, Prim, STR

from .index import Index, func_target
from .positions import Lines, tokens_before


def completion(ix: Index, good: Index | None, line: int, col: int) -> list[L.CompletionItem]:
    toks = tokens_before(ix.a.tokens, line, col)
    if toks and toks[-1].kind is T.NAME and toks[-1].span.line == line and \
            toks[-1].span.col + len(toks[-1].text) == col:
        toks = toks[:-1]                     # the word being typed
    text_line = Lines(ix.a.text).line(line)[:col - 1]
    if re.match(r"\s*(import|from)\s", text_line) and " import " not in text_line[4:]:
        return _module_names(ix, text_line)
    m = re.match(r"\s*from\s+([\w/]+)\s+import\b", text_line)
    if m:
        return _from_members(ix, good, m.group(1))
    if toks and toks[-1].is_op(".") and toks[-1].span.line == line:
        return _members(ix, good, toks[:-1])
    return _names(ix, good, line)


def _item(label, kind, detail=None) -> L.CompletionItem:
    return L.CompletionItem(label=label, kind=kind, detail=detail)


def _members(ix: Index, good: Index | None, before: list) -> list[L.CompletionItem]:
    if not before:
        return []
    obj = before[-1]
    for cand in (ix, good):
        if cand is None:
            continue
        root = cand.a.root
        if obj.kind is T.NAME and root is not None and obj.text in root.imports:
            ms = cand.scope_of(root.imports[obj.text])
            if ms is not None:
                return _scope_items(ms)
    t = _type_before(ix, good, before)
    if t is None:
        return []
    K = L.CompletionItemKind
    out: list[L.CompletionItem] = []
    for cand in (ix, good):
        if cand is None or cand.a.checker is None:
            continue
        info = cand.classes.get(t) if isinstance(t, ClassT) else None
        if info is not None:
            out += [_item(n, K.Field, str(ft)) for n, ft in info.fields]
            out += [_item(n, K.Method, func_target(f).detail) for n, f in info.methods.items()]
        if out:
            break
    if isinstance(t, ArrayT):
        out += [_item(n, K.Method) for n in ARRAY_METHODS]
    elif t == STR:
        out += [_item(n, K.Method) for n in STR_METHODS]
    elif isinstance(t, MapT):
        out += [_item(n, K.Method) for n in MAP_METHODS]
    elif isinstance(t, ChannelT):
        out += [_item(n, K.Method) for n in CHANNEL_METHODS]
    elif t == FILE_T:
        out += [_item(n, K.Method) for n in FILE_METHODS]
    elif t == SB_T:
        out += [_item(n, K.Method) for n in SB_METHODS]
    out += _named_methods(ix if ix.a.checker is not None else good, t)
    seen, unique = set(), []
    for it in out:
        if it.label not in seen:
            seen.add(it.label)
            unique.append(it)
    return unique


def _named_methods(ix: Index | None, t) -> list[L.CompletionItem]:
    """Methods by naming (7.2): `T_m` functions visible from the module give T the method m."""
    if ix is None or not isinstance(t, (Prim, ClassT)):
        return []
    ms = ix.scope_of(ix.a.root)
    if ms is None:
        return []
    prefix = f"{t.name}_"
    out = []
    for scope in ms.visible + ([ms.std] if ms.std else []):
        for name, f in scope.functions.items():
            if name.startswith(prefix) and len(name) > len(prefix):
                out.append(_item(name[len(prefix):], L.CompletionItemKind.Method,
                                 func_target(f).detail))
    return out


def _type_before(ix: Index, good: Index | None, before: list):
    """The static type of the expression that ends with the last of `before`."""
    last = before[-1]
    key = None
    if last.kind is T.NAME or last.is_kw("self"):
        key = (last.span.line, last.span.col)
    elif last.is_op(")", "]"):
        opener = _opener(before)
        if opener is not None:
            key = (opener.span.line, opener.span.col)
    for cand in (ix, good):
        if cand is None or cand.a.checker is None or key is None:
            continue
        entries = cand.a.checker.exprs.get((cand.file, *key))
        if entries:
            return entries[-1][1].type
        tg = cand.at.get(key)
        if tg is not None and tg.type is not None:
            return tg.type
    if last.kind is T.NAME or last.is_kw("self"):
        for cand in (ix, good):
            t = _name_type(cand, last.text, last.span.line)
            if t is not None:
                return t
    return None


def _opener(before: list):
    depth = 0
    pairs = {")": "(", "]": "["}
    closer = before[-1].text
    for t in reversed(before):
        if t.is_op(closer):
            depth += 1
        elif t.is_op(pairs[closer]):
            depth -= 1
            if depth == 0:
                return t
    return None


def _name_type(ix: Index | None, name: str, line: int):
    """The type of local `name` (or `self`) in the function around `line`, by name."""
    if ix is None or ix.a.checker is None:
        return None
    best = None
    for f in ix.a.checker.functions:
        if f.span.file != ix.file or f.span.line > line:
            continue
        if best is None or f.span.line > best.span.line:
            best = f
    if best is None:
        return None
    if name == "self":
        return best.owner.type if best.owner is not None else None
    for tg in ix.at.values():
        if tg.kind in ("local", "param") and tg.name == name and tg.span is not None and \
                tg.span.line >= best.span.line and tg.span.line <= line:
            return tg.type
    return None


def _scope_items(ms) -> list[L.CompletionItem]:
    K = L.CompletionItemKind
    out = [_item(n, K.Function, func_target(f).detail) for n, f in ms.functions.items()
           if not n.startswith("_")]
    out += [_item(n, K.Class, "class") for n in ms.classes]
    out += [_item(n, K.TypeParameter, "alias") for n in ms.aliases]
    return out


def _from_members(ix: Index, good: Index | None, spec: str) -> list[L.CompletionItem]:
    for cand in (ix, good):
        if cand is None or cand.a.root is None:
            continue
        for item, dep in cand.a.root.from_imports:
            if "/".join(item.path) == spec:
                ms = cand.scope_of(dep)
                if ms is not None:
                    return _scope_items(ms)
        for item in cand.a.root.ast.items:
            if isinstance(item, A.Import) and "/".join(item.path) == spec:
                dep = cand.a.root.imports.get(item.alias or item.path[-1])
                ms = cand.scope_of(dep) if dep is not None else None
                if ms is not None:
                    return _scope_items(ms)
    return []


def _module_names(ix: Index, text_line: str) -> list[L.CompletionItem]:
    """Modules an import can name: bundled packages, their modules, files beside this one."""
    from nsm import project
    K = L.CompletionItemKind
    out = []
    word = text_line.split()[-1] if text_line.split()[-1:] and not text_line.endswith(" ") else ""
    if "/" in word:
        pkg = word.split("/")[0]
        folder = project.bundled_root() / pkg
        if folder.is_dir():
            out += [_item(p.stem, K.Module) for p in sorted(folder.glob("*.nv")) if p.stem != "include"]
        return out
    out += [_item(p, K.Module, "bundled package") for p in project.BUNDLED]
    here = ix.a.path.parent
    out += [_item(p.stem, K.Module) for p in sorted(here.glob("*.nv")) if p != ix.a.path]
    return out


def _names(ix: Index, good: Index | None, line: int) -> list[L.CompletionItem]:
    K = L.CompletionItemKind
    out = [_item(k, K.Keyword) for k in sorted(KEYWORDS | TYPE_KEYWORDS)]
    cand = ix if ix.a.checker is not None else good
    if cand is not None and cand.a.checker is not None:
        fn = None
        for f in cand.a.checker.functions:
            if f.span.file == cand.file and f.span.line <= line and \
                    (fn is None or f.span.line > fn.span.line):
                fn = f
        if fn is not None:
            for tg in cand.at.values():
                if tg.kind in ("local", "param") and tg.span is not None and \
                        fn.span.line <= tg.span.line <= line:
                    out.append(_item(tg.name, K.Variable, str(tg.type)))
        ms = cand.scope_of(cand.a.root)
        if ms is not None:
            out += _scope_items(ms)
            for n, (dscope, dn) in ms.from_names.items():
                out.append(_item(n, K.Reference))
            out += [_item(n, K.Module) for n in ms.imports]
            if ms.std is not None:
                out += _scope_items(ms.std)
    out += [_item(n, K.Function, "builtin") for n in sorted(BUILTIN_NAMES)]
    seen, unique = set(), []
    for it in out:
        if it.label not in seen:
            seen.add(it.label)
            unique.append(it)
    return unique
