"""The language features over an Index: hover, definition, references, document symbols and
rename (completion.py and signatures.py hold the others). A half-typed line does not check, so lookups fall back to
the document's last analysis that parsed (`good`), whose earlier positions are still valid."""
from __future__ import annotations

import re

from lsprotocol import types as L

from compiler import ast as A
from compiler.tokens import KEYWORDS, TYPE_KEYWORDS

from .index import Index, Target, doc_comment
from .positions import Lines, token_at

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def lookup(indexes: list[Index], tok, col: int | None = None) -> Target | None:
    for ix in indexes:
        if ix is None:
            continue
        tg = ix.target(tok, col)
        if tg is not None:
            return tg
    return None


def hover(ix: Index, good: Index | None, line: int, col: int) -> L.Hover | None:
    tok = token_at(ix.a.tokens, line, col)
    if tok is None:
        return None
    tg = lookup([ix, good], tok, col)
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
    tg = lookup([ix, good], tok, col)
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
