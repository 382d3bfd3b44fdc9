"""Parse a header's declarations, one chunk at a time, into what `emit` binds (11.1-11.2).

A cxxheaderparser visitor records typedefs, records and enums of every file in a `Scope` and,
in declaration order, every function of a bound file that bindgen binds: in C, every
top-level function; in C++, only those with `extern "C"` linkage. A declaration the parser
rejects becomes a located problem instead of rejecting the header.
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

from .chunks import Chunk
from .typemap import Scope



@dataclass
class Decl:
    """One function as declared: where (original file and line) and what; `label` is its
    `__asm__` symbol when the header gives one."""
    file: str
    line: int
    fn: cx.Function
    label: str | None = None


@dataclass
class Constant:
    """An enumerator of a bound header (a `#define` is a `chunks.Define`)."""
    file: str
    line: int
    name: str
    value: object                    # int, or None when it cannot be evaluated


@dataclass
class Problem:
    """A declaration of a bound file that was not parsed; `text` is `cannot bind 'n': why`."""
    file: str
    line: int
    text: str


@dataclass
class Parsed:
    """`decls`: functions and problems of bound files in declaration order; `system_files`:
    bound files that are system headers (their reserved C names are left out)."""
    scope: Scope = field(default_factory=Scope)
    decls: list = field(default_factory=list)
    enumerators: list[Constant] = field(default_factory=list)


# GNU and C11 spellings the parser does not know, rewritten before parsing (why: they change
# nothing bindgen maps; `_Noreturn` functions are still called normally).
_REWRITES = [
    (re.compile(r"\b(?:__extension__|_Noreturn|__restrict__|__restrict)\b"), ""),
    (re.compile(r"\b(?:__inline__|__inline)\b"), "inline"),
    (re.compile(r"\b__const\b"), "const"),
    (re.compile(r"\b__signed__\b"), "signed"),
    (re.compile(r"\b__volatile__\b"), "volatile"),
]
_C_ONLY = [(re.compile(r"\brestrict\b"), ""), (re.compile(r"\b_Bool\b"), "bool")]
_ASM = re.compile(r'\b(?:__asm__|__asm|asm)\s*\(((?:\s*(?:"(?:[^"\\]|\\.)*"|\n#[^\n]*))+)\s*\)')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_NAME_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*\(")
_NOT_NAMES = {"__typeof__", "__typeof", "typeof", "__attribute__", "decltype", "alignas",
              "_Alignas", "__declspec", "sizeof"}
_LAST_NAME = re.compile(r"([A-Za-z_]\w*)\W*$")


class _Collector(CxxVisitor):
    """Fills a `Parsed`; returns None from *_start so every block is visited. `bound` and
    `layouts` describe the chunk being parsed: its functions and constants are bound; its
    struct definitions count as visible (11.3)."""

    def __init__(self, language: str) -> None:
        self.out = Parsed()
        self.language = language
        self.bound = True
        self.layouts = True
        self.label: str | None = None

    def on_function(self, state, fn: cx.Function) -> None:
        if not self.bound:
            return
        linkage_c = '"C"' in (state.extern_linkage, fn.extern)
        top_level = state.parent is None or isinstance(state, ExternBlockState)
        if (linkage_c or (self.language == "c" and top_level)) and fn.template is None \
                and fn.operator is None and len(fn.name.segments) == 1:
            loc = state.location
            self.out.decls.append(Decl(loc.filename, loc.lineno, fn, self.label))

    def on_typedef(self, state, typedef: cx.Typedef) -> None:
        if hasattr(state, "class_decl"):
            return                                    # member typedefs stay in their class
        self.out.scope.typedef(typedef.name, typedef.type)

    def on_forward_decl(self, state, fdecl: cx.ForwardDecl) -> None:
        if not hasattr(state, "class_decl"):
            self.out.scope.record(fdecl.typename)

    def on_class_start(self, state) -> None:
        decl = state.class_decl
        rec = self.out.scope.record(decl.typename, complete=self.layouts)
        if rec is not None and decl.bases:
            rec.cxx = True

    def on_class_field(self, state, f: cx.Field) -> None:
        rec = self.out.scope.record(state.class_decl.typename)
        if rec is not None and self.layouts and not f.static:
            rec.fields.append((f.name, f.type, f.bits))

    def on_class_method(self, state, method) -> None:
        rec = self.out.scope.record(state.class_decl.typename)
        if rec is not None:
            rec.cxx = True

    def on_enum(self, state, enum: cx.EnumDecl) -> None:
        values = self.out.scope.enum(enum)
        if self.bound and not hasattr(state, "class_decl"):
            loc = state.location
            for name, value in values:
                self.out.enumerators.append(Constant(loc.filename, loc.lineno, name, value))


def parse(chunks: list[Chunk], language: str, bound, layouts, filename: str) -> Parsed:
    """Parse each chunk on its own; `bound(file)` and `layouts(file)` say what a chunk's file
    contributes. A chunk of a bound file the parser rejects becomes a located problem."""
    collector = _Collector(language)
    anon_id = 0
    for chunk in chunks:
        collector.bound = bound(chunk.file)
        collector.layouts = layouts(chunk.file)
        text, collector.label = _clean(chunk.text, language)
        if "_Atomic" in text:
            if collector.bound and _is_function(text):
                _problem(collector.out, chunk, text, "_Atomic type has no Neve mapping (11.3)")
                continue
            text = re.sub(r"\b_Atomic\b", "", text)      # a field or typedef's qualifier
        source = f'# {chunk.line} "{chunk.file}"\n{text}\n'
        if chunk.extern_c:
            source = f'extern "C" {{\n{source}}}\n'
        kept = len(collector.out.decls), len(collector.out.enumerators)
        try:
            parser = CxxParser(filename, source, collector, ParserOptions())
            parser.anon_id = anon_id                  # anonymous records stay distinct
            parser.parse()
            anon_id = parser.anon_id
        except CxxParseError as e:
            del collector.out.decls[kept[0]:]         # what the parser read before failing
            del collector.out.enumerators[kept[1]:]
            if collector.bound:
                _problem(collector.out, chunk, text, f"cannot parse the declaration ({_short(e)})")
    return collector.out


def _clean(text: str, language: str) -> tuple[str, str | None]:
    label = None
    m = _ASM.search(text)
    if m:
        strings = "\n".join(ln for ln in m.group(1).split("\n") if not ln.startswith("#"))
        label = "".join(_STRING.findall(strings))
        text = text[:m.start()] + text[m.end():]
    for pattern, repl in _REWRITES + (_C_ONLY if language == "c" else []):
        text = pattern.sub(repl, text)
    return text, label or None


def _is_function(text: str) -> bool:
    body = " ".join(ln for ln in text.splitlines() if not ln.startswith("#"))
    return "(" in body and not re.match(r"\s*(typedef|struct|union|enum)\b", body)


def _problem(out: Parsed, chunk: Chunk, text: str, reason: str) -> None:
    body = " ".join(ln for ln in text.splitlines() if not ln.startswith("#"))
    body = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", body)
    names = [n for n in _NAME_BEFORE_PAREN.findall(body) if n not in _NOT_NAMES]
    m = _LAST_NAME.search(body.rstrip(" ;"))
    name = names[0] if names else m.group(1) if m else "declaration"
    out.decls.append(Problem(chunk.file, chunk.line, f"cannot bind '{name}': {reason}"))


def _short(e: CxxParseError) -> str:
    """The parser's message without its own location prefix."""
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return re.sub(r"^.*?:\d+: (?:parse error evaluating '.*?': )?", "", text)
