"""Parser pre-scan: the module's type names, generic functions and classes, imported module names
and import paths, read from its tokens before any body is parsed. It is the one import scanner:
nsm's build planner and the compiler's module loader both call `import_paths`."""
from __future__ import annotations

from typing import NamedTuple

from .tokens import T, Token

_LINE_END = (T.NEWLINE, T.EOF, T.DEDENT, T.INDENT)    # the tokens that end a line (grammar.py reuses it)


def _top_level_line_starts(tokens: list[Token]):
    """(index, token) of each token that starts a line at indentation depth 0."""
    depth = 0
    line_start = True
    for i, t in enumerate(tokens):
        k = t.kind
        if k is T.INDENT:
            depth += 1
        elif k is T.DEDENT:
            depth -= 1
        elif k is T.NEWLINE:
            line_start = True
        elif line_start:
            line_start = False
            if depth == 0:
                yield i, t


def _prescan(tokens: list[Token]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Collect top-level type names (classes, aliases), generic functions and classes, and the
    names bound by `import` lines, before any body is parsed (Appendix A, disambiguation 1)."""
    types: set[str] = set()
    generics: set[str] = set()
    modules: set[str] = set()
    n = len(tokens)

    def at(i: int) -> Token | None:
        return tokens[i] if i < n else None

    for i, t in _top_level_line_starts(tokens):
        nxt = at(i + 1)
        if t.is_kw("class") and nxt is not None and nxt.kind is T.NAME:
            types.add(nxt.text)
            after = at(i + 2)
            if after is not None and after.is_op("<"):
                generics.add(nxt.text)
        elif t.kind is T.NAME and t.text == "type" and nxt is not None and nxt.kind is T.NAME:
            after = at(i + 2)
            if after is not None and after.is_op("="):
                types.add(nxt.text)
        elif t.is_kw("proto"):
            types |= _proto_type_names(tokens, i)
        elif t.is_kw("def"):
            name = _generic_def_name(tokens, i)
            if name is not None:
                generics.add(name)
        elif t.is_kw("import"):
            j = i + 1
            last = None
            header = c_header_at(tokens, j)
            if header is not None:
                last, j = c_header_binding(header), j + 2
            while header is None and (tok := at(j)) is not None and tok.kind is T.NAME:
                last = tok.text
                sep = at(j + 1)
                if sep is not None and sep.is_op(".", "/"):
                    j += 2
                else:
                    j += 1
                    break
            tok = at(j)
            if tok is not None and tok.is_kw("as"):
                alias = at(j + 1)
                last = alias.text if alias is not None and alias.kind is T.NAME else last
            if last is not None:
                modules.add(last)
    return frozenset(types), frozenset(generics), frozenset(modules)


def _proto_type_names(tokens: list[Token], i: int) -> set[str]:
    """Bare names in type positions of the `proto` line at i (its result, and each parameter's
    first token): a name there that is no other type declares an opaque C type (11.2)."""
    out: set[str] = set()
    n = len(tokens)
    j = i + 1
    if j + 1 < n and tokens[j].kind is T.NAME and tokens[j].text == "struct" \
            and tokens[j + 1].kind is T.NAME:
        return {tokens[j + 1].text} | _struct_field_type_names(tokens, j + 1)
    at_type = True
    while j < n and tokens[j].kind not in _LINE_END:
        t = tokens[j]
        nxt = tokens[j + 1] if j + 1 < n else None
        if at_type and t.kind is T.NAME and not (nxt is not None and nxt.is_op(".")) \
                and t.text != "sys":
            out.add(t.text)
        at_type = t.is_op("(", ",", "<")
        j += 1
    return out


def _struct_field_type_names(tokens: list[Token], i: int) -> set[str]:
    """Bare names that start the field lines of the `proto struct` block after token i."""
    out: set[str] = set()
    n = len(tokens)
    j = i
    while j < n and tokens[j].kind not in _LINE_END:
        j += 1
    while j < n and tokens[j].kind is T.NEWLINE:
        j += 1
    if j >= n or tokens[j].kind is not T.INDENT:
        return out
    depth, line_start = 0, True
    for t in tokens[j:]:
        if t.kind is T.INDENT:
            depth += 1
        elif t.kind is T.DEDENT:
            depth -= 1
            if depth == 0:
                break
        elif t.kind is T.NEWLINE:
            line_start = True
        elif line_start:
            line_start = False
            if depth == 1 and t.kind is T.NAME:
                out.add(t.text)
    return out


def _generic_def_name(tokens: list[Token], i: int) -> str | None:
    """For `def RET NAME <T...> (`, starting at the `def` at i, return NAME; otherwise None."""
    j = i + 1
    n = len(tokens)
    while j < n and not tokens[j].is_op("(") and tokens[j].kind not in _LINE_END:
        j += 1
    if j >= n or not tokens[j].is_op("(") or j - 1 <= i:
        return None
    k = j - 1
    if not tokens[k].is_op(">"):
        return None
    depth = 0
    while k > i:
        t = tokens[k]
        if t.is_op(">"):
            depth += 1
        elif t.is_op(">>"):
            depth += 2
        elif t.is_op("<"):
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k <= i + 1 or depth != 0:
        return None
    name = tokens[k - 1]
    return name.text if name.kind is T.NAME else None


def c_header_at(tokens: list[Token], j: int) -> str | None:
    """`c"zlib.h"` at token j (the name `c` right before a string): the header's import
    spec `<zlib.h>` (docs/interop.md, the one-line form); else None."""
    if j + 1 >= len(tokens):
        return None
    c, s = tokens[j], tokens[j + 1]
    if c.kind is T.NAME and c.text == "c" and s.kind is T.STRING and \
            s.span.line == c.span.line and s.span.col == c.span.col + 1:
        name = s.value.decode("utf-8", "replace")
        return f"<{name}>" if name and not any(ch in name for ch in '<>"\n') else None
    return None


def c_header_binding(spec: str) -> str | None:
    """The module name `import c"dir/x.h"` binds without `as`: the header's stem, `x`."""
    stem = spec[1:-1].rsplit("/", 1)[-1].split(".", 1)[0]
    return stem if stem.isidentifier() and stem.isascii() else None


class ImportLine(NamedTuple):
    """One top-level import line: the module path, its first token (for diagnostics), the
    name it binds (`import a.b as x`: x; `import a.b`: b) or, for `from`, the names listed."""
    parts: tuple[str, ...]
    token: Token
    binding: str | None
    names: tuple[str, ...]


def import_paths(tokens: list[Token]) -> list[ImportLine]:
    """The top-level `import a.b.c [as x]` and `from a/b import n, m` lines, in source order.
    Lines that do not parse as imports are left to the parser to report."""
    out: list[ImportLine] = []
    n = len(tokens)
    for i, t in _top_level_line_starts(tokens):
        is_from = t.is_kw("from")
        if not (is_from or t.is_kw("import")):
            continue
        parts: list[str] = []
        j = i + 1
        header = c_header_at(tokens, j)
        if header is not None:
            parts, j = [header], j + 2
        while header is None and j < n and tokens[j].kind is T.NAME:
            parts.append(tokens[j].text)
            if j + 2 < n and tokens[j + 1].is_op(".", "/") and tokens[j + 2].kind is T.NAME:
                j += 2
            else:
                j += 1
                break
        if not parts:
            continue
        binding, names = None, []
        if is_from:
            if j < n and tokens[j].is_kw("import"):
                j += 1
                while j < n and tokens[j].kind is T.NAME:
                    names.append(tokens[j].text)
                    if j + 1 < n and tokens[j + 1].is_op(","):
                        j += 2
                    else:
                        break
        else:
            binding = c_header_binding(parts[0]) if header is not None else parts[-1]
            if j + 1 < n and tokens[j].is_kw("as") and tokens[j + 1].kind is T.NAME:
                binding = tokens[j + 1].text
        out.append(ImportLine(tuple(parts), t, binding, tuple(names)))
    return out


def scan_imports(source: str, path: str = "<source>") -> list[str]:
    """The import paths (`a/b/c`) of a module's source, as the compiler will read them; lexical
    errors are left for the compile to report. Light to import (no parser, no AST): nsm's planner
    calls it for every module it plans."""
    from .diagnostics import CompileError, Diagnostics
    from .lexer import tokenize
    try:
        tokens = tokenize(source, path, Diagnostics())
    except CompileError:
        return []
    return ["/".join(line.parts) for line in import_paths(tokens)]
