"""Parse preprocessed header text and turn its C-linkage functions into `proto` lines (11.1).

A cxxheaderparser visitor records typedefs, records and enums in a `Scope` and, in
declaration order, every function that bindgen binds: in C, every top-level function; in C++,
only those with `extern "C"` linkage. Each becomes one `proto RET name(T1 p1, ...)` line or
one problem `path:line: cannot bind 'name': reason` (11.2).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from cxxheaderparser import types as cx
from cxxheaderparser.errors import CxxParseError
from cxxheaderparser.parser import CxxParser
from cxxheaderparser.options import ParserOptions
from cxxheaderparser.parserstate import ExternBlockState
from cxxheaderparser.visitor import CxxVisitor

from ...errors import NsmError
from .typemap import Scope, Unbindable, is_neve_name

_OWNED = re.compile(r"//\s*neve:\s*owned\b")


@dataclass
class Decl:
    """One function as declared: where (original file and line) and what."""
    file: str
    line: int
    fn: cx.Function


@dataclass
class Parsed:
    scope: Scope = field(default_factory=Scope)
    decls: list[Decl] = field(default_factory=list)


class _Collector(CxxVisitor):
    """Fills a `Parsed`; returns None from *_start so every block is visited."""

    def __init__(self, language: str) -> None:
        self.out = Parsed()
        self.language = language

    def on_function(self, state, fn: cx.Function) -> None:
        linkage_c = '"C"' in (state.extern_linkage, fn.extern)
        top_level = state.parent is None or isinstance(state, ExternBlockState)
        if (linkage_c or (self.language == "c" and top_level)) and fn.template is None \
                and fn.operator is None and len(fn.name.segments) == 1:
            loc = state.location
            self.out.decls.append(Decl(loc.filename, loc.lineno, fn))

    def on_typedef(self, state, typedef: cx.Typedef) -> None:
        if hasattr(state, "class_decl"):
            return                                    # member typedefs stay in their class
        self.out.scope.typedef(typedef.name, typedef.type)

    def on_forward_decl(self, state, fdecl: cx.ForwardDecl) -> None:
        if not hasattr(state, "class_decl"):
            self.out.scope.record(fdecl.typename)

    def on_class_start(self, state) -> None:
        decl = state.class_decl
        rec = self.out.scope.record(decl.typename, complete=True)
        if rec is not None and decl.bases:
            rec.cxx = True

    def on_class_method(self, state, method) -> None:
        rec = self.out.scope.record(state.class_decl.typename)
        if rec is not None:
            rec.cxx = True

    def on_enum(self, state, enum: cx.EnumDecl) -> None:
        seg = enum.typename.segments[-1]
        if isinstance(seg, cx.NameSpecifier):
            self.out.scope.enums.add(seg.name)


def parse(text: str, language: str, system_typedefs: list[str], filename: str) -> Parsed:
    """Parse the non-system text; raise NsmError with the parser's message and location."""
    collector = _Collector(language)
    for stmt in system_typedefs:                      # best effort: glibc spellings vary
        try:
            CxxParser("<system>", stmt, collector, ParserOptions()).parse()
        except CxxParseError:
            pass
    collector.out.decls.clear()
    try:
        CxxParser(filename, text, collector, ParserOptions()).parse()
    except CxxParseError as e:
        raise NsmError(str(e)) from None
    return collector.out


class _Sources:
    """Original header lines, read once, for `// neve: owned` (the preprocessor drops
    comments)."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {}

    def get(self, path: str) -> list[str]:
        if path not in self.lines:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    self.lines[path] = f.read().splitlines()
            except OSError:
                self.lines[path] = []
        return self.lines[path]

    def owned(self, decl: Decl) -> bool:
        """The comment is on the declaration's first line or on the line it ends on."""
        lines = self.get(decl.file)
        first = decl.line - 1
        if not 0 <= first < len(lines):
            return False
        last = _end_line(lines, first)
        return bool(_OWNED.search(lines[first]) or _OWNED.search(lines[last]))


def _end_line(lines: list[str], first: int) -> int:
    """Index of the line holding the declaration's `;` (or body `{`), comments skipped."""
    depth = 0
    in_block = False
    for i in range(first, min(len(lines), first + 200)):
        text = lines[i]
        j = 0
        while j < len(text):
            two = text[j:j + 2]
            if in_block:
                if two == "*/":
                    in_block, j = False, j + 2
                    continue
            elif two == "//":
                break
            elif two == "/*":
                in_block, j = True, j + 2
                continue
            elif text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
            elif text[j] in ";{" and depth <= 0:
                return i
            j += 1
    return first


def emit(parsed: Parsed, header_as_given: str) -> tuple[str, list[str]]:
    """(Neve source, problems) for the parsed declarations, in declaration order."""
    lines = [f"# Generated by nsm bindgen from {header_as_given}; do not edit."]
    problems: list[str] = []
    sources = _Sources()
    bound: dict[str, tuple[tuple[str, ...], str]] = {}   # name -> (types, where)
    for decl in parsed.decls:
        name = decl.fn.name.segments[0].name
        try:
            proto, signature = _proto(parsed.scope, decl.fn, name)
        except Unbindable as e:
            problems.append(f"{decl.file}:{decl.line}: cannot bind '{name}': {e}")
            continue
        if name in bound:                             # a C redeclaration binds once
            first, where = bound[name]
            if first != signature:
                problems.append(f"{decl.file}:{decl.line}: cannot bind '{name}': "
                                f"conflicts with its declaration at {where}")
            continue
        bound[name] = (signature, f"{decl.file}:{decl.line}")
        lines.append(proto + ("  # neve: owned" if sources.owned(decl) else ""))
    return "\n".join(lines) + "\n", problems


def _proto(scope: Scope, fn: cx.Function, name: str) -> tuple[str, tuple[str, ...]]:
    """(the proto line, its Neve types: result first) or Unbindable."""
    if not is_neve_name(name):
        raise Unbindable(f"'{name}' is reserved in Neve (2.3)")
    if fn.vararg:
        raise Unbindable("variadic function (...)")
    if fn.has_body or fn.static:
        raise Unbindable("static or inline in the header: no library symbol to link")
    try:
        ret = scope.neve(fn.return_type, result=True)
    except Unbindable as e:
        raise Unbindable(f"{e} in the result") from None
    params, types = [], [ret]
    for i, p in enumerate(fn.parameters, 1):
        try:
            t = scope.neve(p.type)
        except Unbindable as e:
            where = f"parameter {i}" + (f" '{p.name}'" if p.name else "")
            raise Unbindable(f"{e} in {where}") from None
        types.append(t)
        params.append(f"{t} {p.name}" if is_neve_name(p.name) else t)
    return f"proto {ret} {name}({', '.join(params)})", tuple(types)
