"""The language features over an Index: hover, definition, references, completion, document
symbols, signature help and rename. A half-typed line does not check, so lookups fall back to
the document's last analysis that parsed (`good`), whose earlier positions are still valid."""
from __future__ import annotations

import re

from lsprotocol import types as L

from compiler import ast as A
from compiler.builtins import (ARRAY_METHODS, BUILTIN_NAMES, CHANNEL_METHODS, FILE_METHODS, FILE_T,
                               MAP_METHODS, SB_T, STR_METHODS)
from compiler.check.strbuilder import SB_METHODS
from compiler.check.symbols import GenericFunc
from compiler.tokens import KEYWORDS, TYPE_KEYWORDS, T
from compiler.types import ArrayT, ChannelT, ClassT, MapT, Prim, STR

from .index import Index, Target, doc_comment, func_target, param_labels, var_target
from .positions import Lines, token_at, tokens_before

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def lookup(indexes: list[Index], tok) -> Target | None:
    for ix in indexes:
        if ix is None:
            continue
        tg = ix.target(tok)
        if tg is not None:
            return tg
    return None


def hover(ix: Index, good: Index | None, line: int, col: int) -> L.Hover | None:
    tok = token_at(ix.a.tokens, line, col)
    if tok is None:
        return None
    tg = lookup([ix, good], tok)
    if tg is None:
        return None
    text = f"```neve\n{tg.detail}\n```"
    if tg.span is not None and tg.kind in ("function", "method", "class", "field", "alias"):
        doc = doc_comment(ix.a.sources.get(tg.span.file), tg.span.line)
        if doc:
            text += "\n\n" + doc
    lines = Lines(ix.a.text)
    return L.Hover(L.MarkupContent(L.MarkupKind.Markdown, text),
                   lines.range(tok.span.line, tok.span.col, len(tok.text)))


def location(a, span, length: int = 1) -> L.Location | None:
    """The LSP location of a compiler span of analysis `a`'s program."""
    from .server import uri_of
    real = a.real_of(span.file)
    if real is None:
        return None
    text = a.sources.get(span.file, "")
    return L.Location(uri_of(real), Lines(text).range(span.line, span.col, length))


def definition(ix: Index, good: Index | None, line: int, col: int) -> list[L.Location]:
    tok = token_at(ix.a.tokens, line, col)
    if tok is None:
        return []
    tg = lookup([ix, good], tok)
    if tg is None or tg.span is None:
        return []
    a = ix.a if ix.a.real_of(tg.span.file) is not None else good.a
    loc = location(a, tg.span, len(tg.name) if tg.kind != "module" else 0)
    return [loc] if loc is not None else []


def references(indexes: list[Index], ix: Index, good: Index | None, line: int, col: int,
               include_decl: bool = True) -> list[L.Location]:
    """Every use of the name under the cursor in the analyses `indexes` (open documents and the
    package's modules), the declaration included when asked."""
    tok = token_at(ix.a.tokens, line, col)
    if tok is None:
        return []
    tg = lookup([ix, good], tok)
    if tg is None or tg.span is None:
        return []
    want = (tg.span.line, tg.span.col)
    def_real = (ix.a if ix.a.real_of(tg.span.file) else good.a).real_of(tg.span.file)
    out, seen = [], set()
    for other in indexes:
        for (ln, c), t in other.at.items():
            if t.span is None or (t.span.line, t.span.col) != want:
                continue
            if other.a.real_of(t.span.file) != def_real:
                continue
            if not include_decl and (ln, c) == want and other.a.path == def_real:
                continue
            key = (str(other.a.path), ln, c)
            if key in seen:
                continue
            seen.add(key)
            from .server import uri_of
            out.append(L.Location(uri_of(other.a.path),
                                  Lines(other.a.text).range(ln, c, len(t.name))))
    return out


def rename(ix: Index, line: int, col: int, new_name: str) -> L.WorkspaceEdit | None:
    """Rename a local variable or parameter: its declaration and every use in the function."""
    from .server import uri_of
    tok = token_at(ix.a.tokens, line, col)
    tg = ix.target(tok) if tok is not None else None
    if tg is None or tg.kind not in ("local", "param"):
        raise ValueError("only a local variable or a parameter can be renamed")
    if not IDENT.match(new_name) or new_name in KEYWORDS or new_name in TYPE_KEYWORDS:
        raise ValueError(f"'{new_name}' is not a name")
    lines = Lines(ix.a.text)
    edits = [L.TextEdit(lines.range(ln, c, len(tg.name)), new_name)
             for (ln, c), t in sorted(ix.at.items()) if t.obj is tg.obj]
    return L.WorkspaceEdit(changes={uri_of(ix.a.path): edits})


def document_symbols(ix: Index) -> list[L.DocumentSymbol]:
    root = ix.a.root
    if root is None:
        return []
    lines = Lines(ix.a.text)
    last = len(lines.lines)
    items = [i for i in root.ast.items if i.span.file == root.path]
    out = []
    for n, item in enumerate(items):
        end = items[n + 1].span.line - 1 if n + 1 < len(items) else last
        sym = _symbol(item, lines, end)
        if sym is not None:
            out.append(sym)
    return out


def _symbol(item, lines: Lines, end: int) -> L.DocumentSymbol | None:
    K = L.SymbolKind

    def sym(name, kind, span, end_line, children=None, detail=None):
        end_line = max(end_line, span.line)
        rng = L.Range(lines.position(span.line, 1),
                      lines.position(end_line, len(lines.line(end_line)) + 1))
        sel = lines.range(span.line, span.col, len(name))
        return L.DocumentSymbol(name=name, kind=kind, range=rng, selection_range=sel,
                                detail=detail, children=children)

    if isinstance(item, A.FuncDef):
        return sym(item.name, K.Function, item.span, end)
    if isinstance(item, A.MainDef):
        return sym("main", K.Function, item.span, end)
    if isinstance(item, A.Proto):
        return sym(item.name, K.Function, item.span, item.span.line, detail="proto")
    if isinstance(item, A.TypeAlias):
        return sym(item.name, K.TypeParameter, item.span, item.span.line)
    if isinstance(item, A.ClassDef):
        members = []
        for fd in item.fields:
            for name, sp in fd.names:
                members.append(sym(name, K.Field, sp, sp.line))
        subs = ([item.ctor] if item.ctor is not None else []) + list(item.methods)
        subs.sort(key=lambda m: m.span.line)
        for k, m in enumerate(subs):
            m_end = subs[k + 1].span.line - 1 if k + 1 < len(subs) else end
            if isinstance(m, A.CtorDef):
                members.append(sym("ctor", K.Constructor, m.span, m_end))
            else:
                members.append(sym(m.name, K.Method, m.span, m_end))
        return sym(item.name, K.Class, item.span, end, members)
    return None


# ------------------------------------------------------------ completion

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


# ------------------------------------------------------------ signature help

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
    sig = L.SignatureInformation(label=func_target(f).detail if not isinstance(f, GenericFunc)
                                 else func_target(f).detail,
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


__all__ = ["completion", "definition", "document_symbols", "hover", "references", "rename",
           "signature_help", "var_target"]
