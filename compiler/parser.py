"""Parser: turns the lexer's tokens into the syntax tree of ast.py (recursive descent, precedence climbing; LANGUAGE.md Appendix A)."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

from . import ast
from .diagnostics import CompileError, Diagnostics, Span
from .tokens import SCALAR_TYPE_NAMES, TYPE_KEYWORDS, T, Token

MAX_NESTING = 256                      # 13.1: expressions, blocks and type arguments
NESTING_MESSAGE = f"nesting too deep (limit {MAX_NESTING})"

# Generic built-ins: `NAME <` opens type arguments after these (Appendix A, disambiguation 2).
BUILTIN_GENERICS = frozenset(
    "zeros ones buffer device_buffer copy to_buffer to_device to_array size_of isa shared".split())
COMPOSITE_TYPES = frozenset("array map tuple channel Function".split())
OPERATOR_SYMBOLS = frozenset("+ - * / // % @ == != < <= > >= and or".split())

# Binary operators and their level in 4.1 (1 lowest). Level 3 is prefix `not`, 12 prefix `-`/`+`.
_BINARY = {
    "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "|": 6, "&": 8, "<<": 9, ">>": 9, "<|": 9, "|>": 9,
    "+": 10, "-": 10, "*": 11, "/": 11, "//": 11, "%": 11, "/|": 11, "@": 11,
}
_WORD_BINARY = {"or": 1, "and": 2, "offby": 5, "xor": 7}
_CMP_LEVEL = 4
_NOT_LEVEL = 3
_NEG_LEVEL = 12
_NORMALISE = {"<|": "<<", "|>": ">>"}
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%"}
_BLOCK_STATEMENTS = frozenset("if while for finish async spawn asyncs lock launch".split())
_TOP_LEVEL_WORDS = frozenset("def class kernel gpu proto import from main".split())
_EXPR_START_KW = frozenset("true false nil self new not layout".split()) | TYPE_KEYWORDS
_EXPR_START_OP = frozenset("( [ { $ - + !".split())
_LINE_END = (T.NEWLINE, T.EOF, T.DEDENT, T.INDENT)

# Python frames per nesting level are bounded (about 5 per block or bracket, 4 per type list), so with
# every kind at its limit at one point the parser needs under 4000 frames; the default limit of 1000
# is too low. The limit is raised only while parsing (parsing recursion is pure Python, no C stack).
_RECURSION_LIMIT = 8000
_limit_lock = threading.Lock()
_limit_users = 0
_limit_saved = 0


class _Sync(Exception):
    """Abandon the current statement after its error was reported; `quiet` skips its block unparsed."""

    def __init__(self, quiet: bool = False) -> None:
        super().__init__()
        self.quiet = quiet


def parse_module(tokens: list[Token], path: str, diags: Diagnostics,
                 known_types: frozenset[str] = frozenset(),
                 known_generics: frozenset[str] = frozenset()) -> ast.Module:
    """Parse one module's tokens. Errors go to `diags` (the module then holds what parsed cleanly).

    `known_types` / `known_generics` name the types and the generic functions and classes visible
    from imports, bare (`Tensor`, after `from m import Tensor`) or qualified (`m.Box`). The module's
    own classes, aliases and generic functions are found by a pre-scan of the tokens. Raises only
    CompileError (from `diags`, at its error limit).
    """
    types, generics, modules = _prescan(tokens)
    parser = _Parser(tokens, path, diags, frozenset(known_types) | types,
                     BUILTIN_GENERICS | frozenset(known_generics) | generics, modules)
    with _recursion_limit():
        return parser.module()


def parse_expression(source: str, span: Span, diags: Diagnostics) -> ast.Expr:
    """Parse the expression text of an f-string field starting at `span` (spans point into its file).

    Errors are reported to `diags`; a field that does not parse raises CompileError.
    """
    parser = _Parser([Token(T.EOF, "", span)], span.file, diags, frozenset(), BUILTIN_GENERICS,
                     frozenset())
    with _recursion_limit():
        try:
            return parser.field(source, span)
        except _Sync:
            raise CompileError() from None


@contextmanager
def _recursion_limit():
    """Raise the interpreter's recursion limit for the duration of a parse (shared by threads)."""
    global _limit_users, _limit_saved
    with _limit_lock:
        if _limit_users == 0:
            _limit_saved = sys.getrecursionlimit()
            if _limit_saved < _RECURSION_LIMIT:
                sys.setrecursionlimit(_RECURSION_LIMIT)
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_limit_saved)


def _prescan(tokens: list[Token]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Collect top-level type names (classes, aliases), generic functions and classes, and the
    names bound by `import` lines, before any body is parsed (Appendix A, disambiguation 1)."""
    types: set[str] = set()
    generics: set[str] = set()
    modules: set[str] = set()
    n = len(tokens)

    def at(i: int) -> Token | None:
        return tokens[i] if i < n else None

    depth = 0
    line_start = True
    for i, t in enumerate(tokens):
        k = t.kind
        if k is T.INDENT:
            depth += 1
            continue
        if k is T.DEDENT:
            depth -= 1
            continue
        if k is T.NEWLINE:
            line_start = True
            continue
        if not line_start or depth != 0:
            line_start = False
            continue
        line_start = False
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
        elif t.is_kw("def"):
            name = _generic_def_name(tokens, i)
            if name is not None:
                generics.add(name)
        elif t.is_kw("import"):
            j = i + 1
            last = None
            while (tok := at(j)) is not None and tok.kind is T.NAME:
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


def _describe(t: Token) -> str:
    if t.kind is T.NEWLINE:
        return "end of line"
    if t.kind is T.EOF:
        return "end of file"
    if t.kind is T.INDENT:
        return "indent"
    if t.kind is T.DEDENT:
        return "dedent"
    return f"'{t.text}'"


class _Parser:
    def __init__(self, tokens: list[Token], path: str, diags: Diagnostics, types: frozenset[str],
                 generics: frozenset[str], modules: frozenset[str]) -> None:
        self.toks = list(tokens)        # copied: '>>' closing two type lists is split in place
        if not self.toks or self.toks[-1].kind is not T.EOF:
            last = self.toks[-1].span if self.toks else Span(path, 1, 1)
            self.toks.append(Token(T.EOF, "", last))
        self.pos = 0
        self.path = path
        self.diags = diags
        self.types = types
        self.generics = generics
        self.modules = modules
        self.depth = 0                  # expression nesting (brackets, prefix operators, mapit bodies)
        self.type_depth = 0             # type argument lists
        self.block_depth = 0            # indentation depth
        self.missing_block_at = -1      # token index where a block was expected but absent

    # ------------------------------------------------------------------ token helpers

    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def at(self, i: int) -> Token:
        return self.toks[min(i, len(self.toks) - 1)]

    def advance(self) -> Token:
        t = self.toks[self.pos]
        if t.kind is not T.EOF:
            self.pos += 1
        return t

    def at_op(self, *ops: str) -> bool:
        return self.toks[self.pos].is_op(*ops)

    def at_kw(self, *kws: str) -> bool:
        return self.toks[self.pos].is_kw(*kws)

    def error(self, span: Span, message: str, hint: str | None = None) -> None:
        self.diags.error(span, message, hint)

    def fail(self, where: Token | Span, message: str, hint: str | None = None, quiet: bool = False):
        span = where.span if isinstance(where, Token) else where
        self.diags.error(span, message, hint)
        raise _Sync(quiet)

    def expect_op(self, op: str, message: str | None = None) -> Token:
        if self.at_op(op):
            return self.advance()
        self.fail(self.tok, message or f"expected '{op}'")

    def expect_name(self, message: str = "expected name") -> Token:
        t = self.tok
        if t.kind is T.NAME:
            return self.advance()
        self.fail(t, message, hint=f"'{t.text}' is a reserved word" if t.kind is T.KW else None)

    def enter(self, where: Token | Span) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail(where, NESTING_MESSAGE)

    def leave(self) -> None:
        self.depth -= 1

    def reset(self) -> None:
        self.depth = 0
        self.type_depth = 0

    # ------------------------------------------------------------------ recovery

    def skip_line(self) -> None:
        """Skip to the end of the logical line without consuming its NEWLINE."""
        while self.tok.kind not in _LINE_END:
            self.advance()

    def skip_block(self) -> None:
        """At an INDENT: skip the whole indented block, unparsed."""
        depth = 0
        while True:
            t = self.advance()
            if t.kind is T.INDENT:
                depth += 1
            elif t.kind is T.DEDENT:
                depth -= 1
                if depth <= 0:
                    return
            elif t.kind is T.EOF:
                return

    def recover(self, quiet: bool) -> None:
        """After an error in a statement: skip the rest of its line; parse (or, quietly, skip) a block
        that follows, so errors inside it are still found."""
        self.reset()
        self.skip_line()
        if self.tok.kind is T.NEWLINE:
            self.advance()
        if self.tok.kind is T.INDENT:
            if quiet:
                self.skip_block()
            else:
                self.indented_block()
        self.reset()

    # ------------------------------------------------------------------ module

    def module(self) -> ast.Module:
        items: list = []
        while self.tok.kind is not T.EOF:
            t = self.tok
            if t.kind is T.NEWLINE or t.kind is T.DEDENT:
                self.advance()
                continue
            self.reset()
            try:
                if t.kind is T.INDENT:
                    self.error(t.span, "unexpected indent")
                    self.skip_block()
                    continue
                item = self.top_item()
                if item is not None:
                    items.append(item)
            except _Sync as e:
                self.recover(e.quiet)
        return ast.Module(Span(self.path, 1, 1), self.path, tuple(items))

    def top_item(self):
        t = self.tok
        if t.kind is T.KW:
            w = t.text
            if w == "import":
                return self.import_()
            if w == "from":
                return self.from_import()
            if w == "proto":
                return self.proto()
            if w == "def":
                return self.def_(in_class=False)
            if w == "kernel":
                return self.kernel()
            if w == "gpu":
                return self.gpu()
            if w == "class":
                return self.class_()
            if w == "main":
                self.advance()
                return ast.MainDef(t.span, self.block())
        elif t.kind is T.NAME and t.text == "type" and self.peek().kind is T.NAME:
            return self.alias()
        if self.pos == self.missing_block_at:
            # The would-be body of the header just above, written at the header's column: that
            # error was reported already.
            raise _Sync(quiet=True)
        self.fail(t, "statement outside main", quiet=True)

    def modpath(self) -> tuple[str, ...]:
        parts = [self.expect_name("expected module name").text]
        while self.tok.is_op(".", "/") and self.peek().kind is T.NAME:
            self.advance()
            parts.append(self.advance().text)
        return tuple(parts)

    def import_(self) -> ast.Import:
        t = self.advance()
        path = self.modpath()
        alias = None
        if self.at_kw("as"):
            self.advance()
            alias = self.expect_name().text
        self.end_statement()
        return ast.Import(t.span, path, alias)

    def from_import(self) -> ast.FromImport:
        t = self.advance()
        path = self.modpath()
        if not self.at_kw("import"):
            self.fail(self.tok, "expected 'import'")
        self.advance()
        names = []
        while True:
            n = self.expect_name()
            names.append((n.text, n.span))
            if not self.at_op(","):
                break
            self.advance()
        self.end_statement()
        return ast.FromImport(t.span, path, tuple(names))

    def alias(self) -> ast.TypeAlias:
        self.advance()                           # 'type'
        n = self.advance()
        self.expect_op("=")
        ty = self.type_()
        self.end_statement()
        return ast.TypeAlias(n.span, n.text, ty)

    def proto(self) -> ast.Proto:
        self.advance()
        ret = self.ret_type()
        if self.tok.kind is T.NAME and self.tok.text == "sys" and self.peek().kind is T.NAME:
            self.advance()
        n = self.expect_name("expected function name")
        self.expect_op("(")
        params = []
        while not self.at_op(")"):
            start = self.tok
            ty = self.type_()
            name = None
            if self.tok.kind is T.NAME:
                name = self.advance().text
            params.append(ast.ProtoParam(start.span, ty, name))
            if self.at_op(","):
                self.advance()
            elif not self.at_op(")"):
                self.fail(self.tok, "expected ',' or ')'")
        self.advance()
        self.end_statement()
        return ast.Proto(n.span, n.text, ret, tuple(params))

    def at_opsym(self) -> bool:
        t = self.tok
        return (t.kind is T.OP and (t.text in OPERATOR_SYMBOLS or t.text == "<<")) \
            or t.is_kw("and", "or")

    def opsym(self) -> str:
        t = self.tok
        if t.is_op("<<"):
            # `def bool <<T>(...)`: the operator '<' followed by the type parameter list's '<'.
            self.toks[self.pos] = Token(T.OP, "<", Span(t.span.file, t.span.line, t.span.col + 1))
            return "<"
        self.advance()
        return t.text

    def def_(self, in_class: bool) -> ast.FuncDef:
        self.advance()                           # 'def'
        ret = self.ret_type()
        n = self.tok
        is_op = False
        if n.kind is T.NAME:
            self.advance()
            name = n.text
        elif in_class and n.kind is T.KW and n.text in SCALAR_TYPE_NAMES:
            self.advance()
            name = n.text
        elif self.at_opsym():
            if in_class:
                self.fail(n, "operators are defined at top level, not in a class")
            name = self.opsym()
            is_op = True
        elif n.is_op("(") and isinstance(ret, ast.TypeName) and not ret.args and ret.module is None \
                and ret.name not in TYPE_KEYWORDS:
            self.fail(ret.span, "missing return type",
                      hint=f"write 'def void {ret.name}(...)' or give the result type")
        elif n.kind is T.KW and n.text in SCALAR_TYPE_NAMES:
            self.fail(n, "expected function name",
                      hint=f"'{n.text}' is a type name: it can name a method, not a function")
        else:
            self.fail(n, "expected method name" if in_class else "expected function name")
        tparams: tuple[str, ...] = ()
        if self.at_op("<"):
            if in_class:
                self.error(self.tok.span, "methods cannot have type parameters")
            tparams = self.tparams()
        params = self.params()
        body = self.block()
        return ast.FuncDef(n.span, name, tparams, params, ret, body, "def", is_op)

    def kernel(self) -> ast.FuncDef:
        self.advance()
        ret = self.ret_type()
        if not (isinstance(ret, ast.TypeName) and ret.name == "void"):
            self.error(ret.span, "a kernel returns void")
        n = self.expect_name("expected kernel name")
        if self.at_op("<"):
            self.error(self.tok.span, "kernels cannot have type parameters")
            self.tparams()
        params = self.params()
        body = self.block()
        return ast.FuncDef(n.span, n.text, (), params, ret, body, "kernel")

    def gpu(self) -> ast.FuncDef:
        self.advance()
        ret = self.ret_type()
        if self.at_opsym():
            self.fail(self.tok, "gpu operator definitions are a phase-2 feature", quiet=True)
        n = self.expect_name("expected function name")
        if self.at_op("<"):
            self.error(self.tok.span, "gpu functions cannot have type parameters")
            self.tparams()
        params = self.params()
        body = self.block()
        return ast.FuncDef(n.span, n.text, (), params, ret, body, "gpu")

    def tparams(self) -> tuple[str, ...]:
        self.advance()                           # '<'
        names = [self.expect_name("expected type parameter name").text]
        while self.at_op(","):
            self.advance()
            names.append(self.expect_name("expected type parameter name").text)
        self.close_angle()
        return tuple(names)

    def params(self) -> tuple[ast.Param, ...]:
        self.expect_op("(")
        params: list[ast.Param] = []
        while not self.at_op(")"):
            ty = self.type_()
            n = self.expect_name("expected parameter name")
            default = None
            if self.at_op("="):
                self.advance()
                default = self.expr()
            params.append(ast.Param(n.span, ty, n.text, default))
            if self.at_op(","):
                self.advance()
            elif not self.at_op(")"):
                self.fail(self.tok, "expected ',' or ')'")
        self.advance()
        return tuple(params)

    def class_(self) -> ast.ClassDef:
        self.advance()
        try:
            n = self.expect_name("expected class name")
            tparams = self.tparams() if self.at_op("<") else ()
        except _Sync:
            raise _Sync(quiet=True) from None     # its members are not statements: skip them
        fields: list[ast.FieldDecl] = []
        methods: list[ast.FuncDef] = []
        ctor = None
        self.header_end()
        t = self.tok
        if t.kind is not T.INDENT:
            self.error(t.span, "expected an indented block")
            return ast.ClassDef(n.span, n.text, tparams, (), None, ())
        if self.block_depth + 1 > MAX_NESTING:
            self.error(t.span, NESTING_MESSAGE)
            self.skip_block()
            return ast.ClassDef(n.span, n.text, tparams, (), None, ())
        self.advance()
        self.block_depth += 1
        try:
            while self.tok.kind not in (T.DEDENT, T.EOF):
                m = self.tok
                self.reset()
                try:
                    if m.kind is T.NEWLINE:
                        self.advance()
                    elif m.kind is T.INDENT:
                        self.error(m.span, "unexpected indent")
                        self.skip_block()
                    elif m.is_kw("pass") or m.is_op("..."):
                        self.advance()
                        self.end_statement()
                    elif m.is_kw("ctor"):
                        self.advance()
                        params = self.params()
                        body = self.block()
                        if ctor is not None:
                            self.error(m.span, "a class has at most one ctor")
                        else:
                            ctor = ast.CtorDef(m.span, params, body)
                    elif m.is_kw("def"):
                        methods.append(self.def_(in_class=True))
                    elif m.kind is T.NAME or m.kind is T.KW and m.text in TYPE_KEYWORDS:
                        f = self.field_decl()
                        if ctor is not None or methods:
                            self.error(f.span, "fields come before the ctor and methods")
                        fields.append(f)
                    else:
                        self.fail(m, "expected a field, ctor or method")
                except _Sync as e:
                    self.recover(e.quiet)
            if self.tok.kind is T.DEDENT:
                self.advance()
        finally:
            self.block_depth -= 1
        return ast.ClassDef(n.span, n.text, tparams, tuple(fields), ctor, tuple(methods))

    def field_decl(self) -> ast.FieldDecl:
        start = self.tok
        ty = self.type_()
        names = []
        while True:
            n = self.expect_name("expected field name")
            names.append((n.text, n.span))
            if self.at_op("="):
                self.fail(self.tok, "fields have no initializers", hint="set the value in the ctor")
            if not self.at_op(","):
                break
            self.advance()
        self.end_statement()
        return ast.FieldDecl(start.span, ty, tuple(names))

    # ------------------------------------------------------------------ blocks

    def header_end(self) -> None:
        """The end of a block header line: report anything left on it, then take the NEWLINE."""
        t = self.tok
        if t.kind is not T.NEWLINE:
            if t.is_op(":"):
                self.error(t.span, "unexpected ':'",
                           hint="blocks have no ':'; the body starts on the next line, indented")
            elif t.kind in (T.EOF, T.DEDENT, T.INDENT):
                return
            else:
                self.error(t.span, "expected NEWLINE after statement")
            self.reset()
            self.skip_line()
        if self.tok.kind is T.NEWLINE:
            self.advance()

    def block(self, header_ok: bool = True) -> ast.Block:
        """NEWLINE INDENT stmt {stmt} DEDENT, after a block header. After a header that failed to
        parse, a missing block is not reported again (`[1, 2].print()` is one error)."""
        self.header_end()
        if not header_ok and self.tok.kind is not T.INDENT:
            return ast.Block(self.tok.span, ())
        return self.indented_block()

    def indented_block(self) -> ast.Block:
        t = self.tok
        if t.kind is not T.INDENT:
            self.error(t.span, "expected an indented block")
            self.missing_block_at = self.pos
            return ast.Block(t.span, ())
        if self.block_depth + 1 > MAX_NESTING:
            self.error(t.span, NESTING_MESSAGE)
            self.skip_block()
            return ast.Block(t.span, ())
        self.advance()
        self.block_depth += 1
        body: list = []
        try:
            while self.tok.kind not in (T.DEDENT, T.EOF):
                s = self.statement_safe()
                if s is not None:
                    body.append(s)
            if self.tok.kind is T.DEDENT:
                self.advance()
        finally:
            self.block_depth -= 1
        return ast.Block(t.span, tuple(body))

    # ------------------------------------------------------------------ statements

    def statement_safe(self):
        self.reset()
        try:
            return self.statement()
        except _Sync as e:
            self.recover(e.quiet)
            return None

    def statement(self):
        t = self.tok
        if t.kind is T.NEWLINE:
            self.advance()
            return None
        if t.kind is T.INDENT:
            self.error(t.span, "unexpected indent")
            self.indented_block()
            return None
        if t.kind is T.KW:
            w = t.text
            if w in _BLOCK_STATEMENTS:
                return getattr(self, "stmt_" + w)()
            if w in ("elif", "else"):
                self.fail(t, f"'{w}' without 'if'")
            if w in _TOP_LEVEL_WORDS:
                self.fail(t, f"unexpected token '{w}'",
                          hint="definitions, imports and main belong at top level")
        elif t.is_op("["):
            return self.range_loop()
        s = self.simple()
        self.end_statement()
        return s

    def end_statement(self) -> None:
        t = self.tok
        if t.kind is T.NEWLINE:
            self.advance()
        elif t.kind not in (T.EOF, T.DEDENT):
            self.fail(t, "expected NEWLINE after statement")

    def simple(self):
        """decl | assign | expr '<-' expr | expr | return | break | continue | pass | '...'"""
        t = self.tok
        if t.kind is T.KW:
            w = t.text
            if w == "return":
                self.advance()
                values = []
                if self.tok.kind not in _LINE_END:
                    values.append(self.expr())
                    while self.at_op(","):
                        self.advance()
                        values.append(self.expr())
                return ast.Return(t.span, tuple(values))
            if w == "break":
                self.advance()
                return ast.Break(t.span)
            if w == "continue":
                self.advance()
                return ast.Continue(t.span)
            if w == "pass":
                self.advance()
                return ast.Pass(t.span)
            if w == "var":
                return self.var_decl()
        elif t.is_op("..."):
            self.advance()
            return ast.Pass(t.span)
        if self.starts_decl():
            return self.decl()
        if not self.can_start_expr(t):
            self.fail(t, f"unexpected token {_describe(t)}")
        first = self.expr(stop_chan=True)
        n = self.tok
        if n.is_op("<-"):
            self.advance()
            return ast.ChanOp(t.span, first, self.expr())
        if n.kind is T.OP and n.text in _COMPOUND:
            self.advance()
            return ast.Assign(n.span, (first,), (self.expr(),), _COMPOUND[n.text])
        if n.is_op(",", "="):
            targets = [first]
            while self.at_op(","):
                self.advance()
                targets.append(self.expr(stop_chan=True))
            if not self.at_op("="):
                self.fail(self.tok, "expected '='")
            self.advance()
            values = [self.expr()]
            while self.at_op(","):
                self.advance()
                values.append(self.expr())
            return ast.Assign(t.span, tuple(targets), tuple(values))
        return ast.ExprStmt(t.span, first)

    @staticmethod
    def can_start_expr(t: Token) -> bool:
        if t.kind in (T.NAME, T.INT, T.FLOAT, T.CHAR, T.STRING, T.FSTRING):
            return True
        if t.kind is T.KW:
            return t.text in _EXPR_START_KW
        return t.kind is T.OP and t.text in _EXPR_START_OP

    # -- declarations

    def starts_decl(self) -> bool:
        """A statement starting with a type followed by a NAME is a declaration (disambiguation 1)."""
        t = self.tok
        if not (t.kind is T.NAME or t.kind is T.KW and t.text in TYPE_KEYWORDS):
            return False
        end = self.scan_type(self.pos)
        if end is None:
            return False
        after = self.at(end)
        if after.kind is T.NAME:
            return True
        if after.kind is T.KW and after.text not in _WORD_BINARY and \
                (self.at(end + 1).is_op("=", ",", "<-") or self.at(end + 1).kind in _LINE_END):
            return True                      # `int class = 3`: a declaration with a reserved name
        if t.kind is T.NAME and after.is_op("<"):
            # `Box<int> b` with Box not known as generic would be a chained comparison, never valid:
            # say what is missing and read it as the declaration it looks like.
            end = self.scan_type(self.pos, any_generic=True)
            if end is not None and self.at(end).kind is T.NAME:
                self.error(t.span, f"unknown generic type '{t.text}'")
                return True
        return False

    def scan_type(self, i: int, any_generic: bool = False) -> int | None:
        """Where a type starting at token i would end, or None; reads ahead without consuming."""
        t = self.at(i)
        if t.kind is T.KW:
            if t.text in SCALAR_TYPE_NAMES:
                i += 1
            elif t.text in COMPOSITE_TYPES:
                i = self.scan_angles(i + 1)
                if i is None:
                    return None
            else:
                return None
        elif t.kind is T.NAME:
            name, module = t.text, None
            i += 1
            if self.at(i).is_op(".") and self.at(i + 1).kind is T.NAME:
                module, name = name, self.at(i + 1).text
                i += 2
            if self.at(i).is_op("<") and (any_generic or self.is_generic(name, module)
                                          or module is None and name in self.types):
                i = self.scan_angles(i)
                if i is None:
                    return None
        else:
            return None
        while self.at(i).is_op("["):
            i = self.scan_brackets(i)
            if i is None:
                return None
        return i

    def scan_angles(self, i: int) -> int | None:
        if not self.at(i).is_op("<"):
            return None
        depth = 0
        parens = 0
        while True:
            t = self.at(i)
            if t.kind in _LINE_END:
                return None
            if t.kind is T.OP:
                s = t.text
                if s in ("(", "[", "{"):
                    parens += 1
                elif s in (")", "]", "}"):
                    parens -= 1
                    if parens < 0:
                        return None
                elif parens == 0 and s in ("<", ">", ">>"):
                    depth += 1 if s == "<" else -1 if s == ">" else -2
                    if depth == 0:
                        return i + 1
                    if depth < 0:
                        return None
            i += 1

    def scan_brackets(self, i: int) -> int | None:
        depth = 0
        while True:
            t = self.at(i)
            if t.kind in _LINE_END:
                return None
            if t.kind is T.OP:
                if t.text in ("(", "[", "{"):
                    depth += 1
                elif t.text in (")", "]", "}"):
                    depth -= 1
                    if depth == 0:
                        return i + 1
            i += 1

    def is_generic(self, name: str, module: str | None) -> bool:
        if module is None:
            return name in self.generics
        return f"{module}.{name}" in self.generics or \
            (module in self.modules or module == "std") and name in self.generics

    def decl(self) -> ast.VarDecl:
        start = self.tok
        ty = self.type_()
        items = [self.decl_item()]
        while self.at_op(","):
            self.advance()
            items.append(self.decl_item())
        return ast.VarDecl(start.span, ty, tuple(items))

    def decl_item(self) -> ast.DeclItem:
        n = self.expect_name()
        if self.at_op("="):
            self.advance()
            return ast.DeclItem(n.span, n.text, init=self.expr())
        if self.at_op("("):
            o = self.advance()
            return ast.DeclItem(n.span, n.text, ctor_args=self.args(o, allow_split=False))
        if self.at_op("<-"):
            self.advance()
            return ast.DeclItem(n.span, n.text, recv=self.expr())
        return ast.DeclItem(n.span, n.text)

    def var_decl(self) -> ast.VarDecl:
        v = self.advance()
        items = []
        while True:
            n = self.expect_name()
            self.expect_op("=", "expected '=' after the name in 'var'")
            items.append(ast.DeclItem(n.span, n.text, init=self.expr()))
            if not self.at_op(","):
                break
            self.advance()
        return ast.VarDecl(v.span, None, tuple(items))

    # -- compound statements

    def header(self, parse):
        """Parse a block header's parts with `parse`; on an error, skip the line and return None so the
        block is still parsed and the statement's other clauses stay attached."""
        try:
            return parse()
        except _Sync:
            self.reset()
            self.skip_line()
            return None

    def stmt_if(self) -> ast.If | None:
        clauses = []                         # (span, cond, block)
        t = self.advance()
        cond = self.header(self.expr)
        clauses.append((t.span, cond, self.block(cond is not None)))
        orelse = None
        while True:
            n = self.tok
            if n.is_kw("elif") or n.is_kw("else") and self.peek().is_kw("if"):
                if self.advance().is_kw("else"):
                    self.advance()
                cond = self.header(self.expr)
                clauses.append((n.span, cond, self.block(cond is not None)))
            elif n.is_kw("else"):
                self.advance()
                orelse = self.block()
                break
            else:
                break
        node = None
        for span, cond, then in reversed(clauses):
            if cond is None:
                cond = ast.NilLit(span)
            if node is not None:
                orelse = ast.Block(node.span, (node,))
            node = ast.If(span, cond, then, orelse)
        return node

    def stmt_while(self) -> ast.While | None:
        t = self.advance()
        cond = self.header(self.expr)
        body = self.block(cond is not None)
        return None if cond is None else ast.While(t.span, cond, body)

    def stmt_for(self):
        t = self.advance()

        def parts():
            v = self.expect_name("expected loop variable")
            if self.at_op("="):
                self.advance()
                start = self.expr()
                self.expect_op(",")
                cond = self.expr()
                step = None
                if self.at_op(","):
                    self.advance()
                    step = self.expr()
                return ("c", v, start, cond, step)
            if self.at_kw("in"):
                self.advance()
                return ("in", v, self.expr())
            self.fail(self.tok, "expected '=' or 'in'")

        h = self.header(parts)
        body = self.block(h is not None)
        if h is None:
            return None
        if h[0] == "c":
            _, v, start, cond, step = h
            return ast.ForC(t.span, v.text, v.span, start, cond, step, body)
        _, v, iterable = h
        return ast.ForIn(t.span, v.text, v.span, iterable, body)

    def range_loop(self) -> ast.RangeLoop | None:
        t = self.advance()                   # '['

        def parts():
            self.enter(t)
            ranges = []
            while True:
                if self.at_op("]"):
                    self.fail(self.tok, "expected '..' in range loop", hint="assign the array first")
                lo = self.expr()
                if not self.at_op("..", "..."):
                    self.fail(self.tok, "expected '..' in range loop", hint="assign the array first")
                self.advance()
                ranges.append((lo, self.expr()))
                if not self.at_op(","):
                    break
                self.advance()
            self.expect_op("]")
            self.leave()
            names = []
            if self.tok.kind is T.NAME:
                while True:
                    n = self.expect_name()
                    names.append((n.text, n.span))
                    if not self.at_op(","):
                        break
                    self.advance()
            return ranges, names

        h = self.header(parts)
        body = self.block(h is not None)
        if h is None:
            return None
        return ast.RangeLoop(t.span, tuple(h[0]), tuple(h[1]), body)

    def stmt_finish(self) -> ast.Finish:
        t = self.advance()
        return ast.Finish(t.span, self.block())

    def thread_body(self, t: Token) -> ast.Block:
        """`async`/`spawn`: a simple statement on the same line, or a block."""
        if self.tok.kind in _LINE_END or self.at_op(":"):
            return self.block()
        n = self.tok
        if n.kind is T.KW and n.text in _BLOCK_STATEMENTS or n.is_op("["):
            self.fail(n, f"expected a simple statement or a block after '{t.text}'")
        s = self.simple()
        self.end_statement()
        return ast.Block(s.span, (s,))

    def stmt_async(self) -> ast.Async:
        t = self.advance()
        return ast.Async(t.span, "async", self.thread_body(t))

    def stmt_spawn(self) -> ast.Async:
        t = self.advance()
        return ast.Async(t.span, "spawn", self.thread_body(t))

    def stmt_asyncs(self) -> ast.Asyncs | None:
        t = self.advance()
        # The count ends at the first token that cannot continue it, where the call starts.
        count = self.header(self.expr)
        if count is None or self.tok.kind is T.NEWLINE or self.at_op(":"):
            body = self.block(count is not None)
            return None if count is None else ast.Asyncs(t.span, count, None, body)
        start = self.tok
        call = self.postfix(allow_split=True)
        if not isinstance(call, ast.Call):
            self.fail(start, "expected a call after the asyncs count")
        self.check_inner_splits(call)
        self.end_statement()
        return ast.Asyncs(t.span, count, call, None)

    def check_inner_splits(self, call: ast.Call) -> None:
        """Split prefixes belong to the asyncs call itself, not to calls in its callee chain."""
        node = call.func
        while True:
            if isinstance(node, ast.Call):
                for a in node.args:
                    if a.split is not None:
                        self.error(a.span, "split arguments are only allowed in asyncs calls")
                node = node.func
            elif isinstance(node, (ast.Attribute, ast.Index, ast.Slice)):
                node = node.obj
            else:
                return

    def stmt_lock(self) -> ast.Lock | None:
        t = self.advance()
        if self.tok.kind is T.NEWLINE or self.at_op(":"):
            return ast.Lock(t.span, None, None, self.block())
        e = self.header(self.expr)
        body = self.block(e is not None)
        if e is None:
            return None
        if isinstance(e, ast.StrLit):
            return ast.Lock(t.span, e.value.decode("utf-8", "surrogateescape"), None, body)
        return ast.Lock(t.span, None, e, body)

    def stmt_launch(self) -> ast.Launch:
        t = self.advance()
        grid = self.dims()
        block = self.dims()
        smem = None
        if self.at_op("["):
            o = self.advance()
            self.enter(o)
            smem = self.expr()
            self.expect_op("]")
            self.leave()
            start = self.tok
            call = self.expr()
        else:
            start = self.tok
            call = self.expr()
            if self.tok.kind not in _LINE_END:
                # Two expressions after the dimensions: the shared-memory size, then the call.
                smem = call
                start = self.tok
                call = self.expr()
        if not isinstance(call, ast.Call):
            self.fail(start, "expected a kernel call")
        self.end_statement()
        return ast.Launch(t.span, grid, block, smem, call)

    def dims(self) -> tuple[ast.Expr, ...]:
        o = self.expect_op("[", "expected '[' with launch dimensions")
        self.enter(o)
        exprs = [self.expr()]
        while self.at_op(","):
            self.advance()
            if len(exprs) == 3:
                self.fail(self.tok, "launch dimensions take 1 to 3 expressions")
            exprs.append(self.expr())
        self.expect_op("]")
        self.leave()
        return tuple(exprs)

    # ------------------------------------------------------------------ types

    def ret_type(self) -> ast.TypeExpr:
        t = self.tok
        if t.is_kw("void"):
            self.advance()
            return ast.TypeName(t.span, "void")
        return self.type_()

    def type_(self) -> ast.TypeExpr:
        start = self.tok
        ty = self.base_type()
        while self.at_op("["):
            o = self.advance()
            if self.at_op("]"):
                self.advance()
                ty = ast.BufferType(start.span, ty)
                continue
            self.enter(o)
            size = self.expr()
            self.expect_op("]")
            self.leave()
            ty = ast.FixedArrayType(start.span, ty, size)
        return ty

    def base_type(self) -> ast.TypeName:
        t = self.tok
        if t.kind is T.KW:
            w = t.text
            if w in SCALAR_TYPE_NAMES:
                self.advance()
                return ast.TypeName(t.span, w)
            if w in COMPOSITE_TYPES:
                self.advance()
                if not self.at_op("<"):
                    self.fail(self.tok, f"expected '<' after '{w}'")
                args, cap = self.targs(w)
                return ast.TypeName(t.span, w, args, None, cap)
            if w == "void":
                self.fail(t, "void is only a return type")
            if w == "layout":
                self.fail(t, "layout views are a phase-2 feature")
            self.fail(t, "expected type")
        if t.kind is T.NAME:
            self.advance()
            name, module = t.text, None
            if self.at_op(".") and self.peek().kind is T.NAME:
                self.advance()
                module, name = name, self.advance().text
            args: tuple = ()
            if self.at_op("<"):
                args, _ = self.targs()
            return ast.TypeName(t.span, name, args, module)
        self.fail(t, "expected type")

    def targs(self, kind: str | None = None) -> tuple[tuple[ast.TypeExpr, ...], ast.Expr | None]:
        """`<` type {, type} `>` (a channel's second argument is its capacity; Function's first may be
        void). A `>>` closes two lists."""
        o = self.advance()
        self.type_depth += 1
        if self.type_depth > MAX_NESTING:
            self.fail(o, NESTING_MESSAGE)
        args: list = []
        cap = None
        while True:
            if kind == "Function" and not args:
                args.append(self.ret_type())
            elif kind == "channel" and len(args) == 1 and cap is None:
                cap = self.capacity()
            else:
                args.append(self.type_())
            if not self.at_op(","):
                break
            self.advance()
        self.close_angle()
        self.type_depth -= 1
        expected = {"array": 1, "map": 2, "channel": 1}.get(kind)
        if expected is not None and len(args) != expected:
            what = {"array": "one type argument", "map": "two type arguments",
                    "channel": "an element type and an optional capacity"}[kind]
            self.error(o.span, f"{kind} takes {what}")
        return tuple(args), cap

    def capacity(self) -> ast.Expr:
        t = self.tok
        if t.kind is T.INT:
            self.advance()
            return ast.IntLit(t.span, t.value if isinstance(t.value, int) else 0, t.text)
        if t.is_op("("):
            self.advance()
            self.enter(t)
            e = self.expr()
            self.expect_op(")")
            self.leave()
            return ast.Paren(t.span, e)
        self.fail(t, "expected a channel capacity (an integer literal or a parenthesized expression)")

    def close_angle(self) -> None:
        t = self.tok
        if t.is_op(">"):
            self.advance()
        elif t.is_op(">>", ">="):
            # `map<str, array<int>>`: this '>' closes the inner list, the rest stays for the outer one.
            self.toks[self.pos] = Token(T.OP, t.text[1:], Span(t.span.file, t.span.line, t.span.col + 1))
        else:
            self.fail(t, "expected '>'")

    # ------------------------------------------------------------------ expressions

    def expr(self, stop_chan: bool = False) -> ast.Expr:
        """Operator-precedence parse of levels 1-12 of 4.1 with explicit stacks, so a long chain
        `1 + 1 + ... + 1` needs no recursion. With `stop_chan`, a `<-` ends the expression (a simple
        statement's first expression, 2.4); otherwise `<-` is `<` followed by unary `-`."""
        operands: list = []
        ops: list = []                       # (level, op, span, is_prefix)
        while True:
            while True:
                t = self.tok
                if t.kind is T.KW and t.text == "not" or t.kind is T.OP and t.text == "!":
                    if ops and ops[-1][0] > _NOT_LEVEL:
                        self.fail(t, f"unexpected token '{t.text}'", hint="parenthesize it: (not x)")
                    self.advance()
                    ops.append((_NOT_LEVEL, "not", t.span, True))
                    self.enter(t)
                elif t.kind is T.OP and (t.text == "-" or t.text == "+"):
                    self.advance()
                    ops.append((_NEG_LEVEL, t.text, t.span, True))
                    self.enter(t)
                else:
                    break
            operands.append(self.fold(stop_chan))
            t = self.tok
            neg = False
            if t.kind is T.OP:
                op = t.text
                level = _BINARY.get(op)
                if level is None:
                    if op != "<-" or stop_chan:
                        break
                    op, level, neg = "<", _CMP_LEVEL, True
            elif t.kind is T.KW and t.text in _WORD_BINARY:
                op = t.text
                level = _WORD_BINARY[op]
            else:
                break
            while ops and ops[-1][0] >= level:
                if level == _CMP_LEVEL and ops[-1][0] == _CMP_LEVEL:
                    self.error(t.span, "comparisons do not chain", hint="write a < b and b < c")
                self.reduce(operands, ops)
            self.advance()
            ops.append((level, op, t.span, False))
            if neg:
                s = Span(t.span.file, t.span.line, t.span.col + 1)
                ops.append((_NEG_LEVEL, "-", s, True))
                self.enter(s)
        while ops:
            self.reduce(operands, ops)
        return operands[0]

    def reduce(self, operands: list, ops: list) -> None:
        level, op, span, prefix = ops.pop()
        if prefix:
            operands.append(ast.Unary(span, op, operands.pop()))
            self.depth -= 1
            return
        right = operands.pop()
        left = operands.pop()
        if op == "and" or op == "or":
            operands.append(ast.Logical(span, op, left, right))
        else:
            operands.append(ast.Binary(span, _NORMALISE.get(op, op), left, right))

    def fold(self, stop_chan: bool) -> ast.Expr:
        """postfix { (reduce | scan) op } [ mapit NAME ':' expr ]"""
        e = self.postfix()
        while True:
            t = self.tok
            if t.kind is not T.KW:
                return e
            if t.text == "reduce" or t.text == "scan":
                self.advance()
                o = self.tok
                if o.kind is T.OP and o.text in ("+", "*") or o.kind is T.NAME and o.text in ("min", "max"):
                    self.advance()
                    e = ast.Fold(t.span, t.text, o.text, e)
                else:
                    self.fail(o, f"expected + * min or max after '{t.text}'")
            elif t.text == "mapit":
                self.advance()
                v = self.expect_name("expected name after 'mapit'")
                self.expect_op(":")
                self.enter(t)
                body = self.expr(stop_chan)
                self.leave()
                return ast.MapIt(t.span, e, v.text, v.span, body)
            else:
                return e

    def postfix(self, allow_split: bool = False) -> ast.Expr:
        e = self.primary()
        while True:
            t = self.tok
            if t.kind is not T.OP:
                return e
            s = t.text
            if s == ".":
                self.advance()
                n = self.tok
                if not (n.kind is T.NAME or n.kind is T.KW and n.text in SCALAR_TYPE_NAMES):
                    self.fail(n, "expected member name")
                self.advance()
                targs: tuple = ()
                if self.at_op("<") and isinstance(e, ast.Name) and not e.targs \
                        and self.is_generic(n.text, e.id):
                    targs, _ = self.targs()
                e = ast.Attribute(n.span, e, n.text, targs)
            elif s == "(":
                self.advance()
                e = ast.Call(t.span, e, self.args(t, allow_split))
            elif s == "[":
                e = self.subscript(e)
            elif s == "{":
                self.fail(t, "layout views are a phase-2 feature")
            else:
                return e

    def args(self, open_tok: Token, allow_split: bool) -> tuple[ast.Arg, ...]:
        """Call arguments after '(' up to and including ')'."""
        self.enter(open_tok)
        args = []
        seen_keyword = False
        while not self.at_op(")"):
            t = self.tok
            if t.kind is T.OP and (t.text == ">" or t.text == ":"):
                if not allow_split:
                    self.error(t.span, "split arguments are only allowed in asyncs calls")
                self.advance()
                args.append(ast.Arg(t.span, self.expr(), split=t.text))
            elif t.kind is T.NAME and self.peek().is_op("="):
                self.advance()
                self.advance()
                args.append(ast.Arg(t.span, self.expr(), keyword=t.text))
                seen_keyword = True
            else:
                value = self.expr()
                if seen_keyword:
                    self.error(t.span, "positional argument after keyword argument")
                args.append(ast.Arg(t.span, value))
            if self.at_op(","):
                self.advance()
            elif not self.at_op(")"):
                self.fail(self.tok, "expected ',' or ')'")
        self.advance()
        self.leave()
        return tuple(args)

    def subscript(self, obj: ast.Expr) -> ast.Expr:
        t = self.advance()                   # '['
        self.enter(t)
        lo = hi = None
        is_slice = False
        if self.at_op(":"):
            self.advance()
            is_slice = True
        else:
            lo = self.expr()
            if self.at_op(":"):
                self.advance()
                is_slice = True
        if is_slice and not self.at_op("]", ","):
            hi = self.expr()
        if self.at_op(","):
            self.fail(t, "tile indexing is a phase-2 feature")
        self.expect_op("]")
        self.leave()
        if is_slice:
            return ast.Slice(t.span, obj, lo, hi)
        return ast.Index(t.span, obj, lo)

    def primary(self) -> ast.Expr:
        t = self.tok
        k = t.kind
        if k is T.NAME:
            self.advance()
            if self.at_op("<") and t.text in self.generics:
                targs, _ = self.targs()
                return ast.Name(t.span, t.text, targs)
            return ast.Name(t.span, t.text)
        if k is T.INT:
            self.advance()
            return ast.IntLit(t.span, t.value if isinstance(t.value, int) else 0, t.text)
        if k is T.FLOAT:
            self.advance()
            return ast.FloatLit(t.span, t.value if isinstance(t.value, str) else t.text)
        if k is T.CHAR:
            self.advance()
            return ast.CharLit(t.span, t.value if isinstance(t.value, int) else 0)
        if k is T.STRING:
            self.advance()
            return ast.StrLit(t.span, t.value if isinstance(t.value, bytes) else b"")
        if k is T.FSTRING:
            self.advance()
            return self.fstring(t)
        if k is T.KW:
            w = t.text
            if w == "true" or w == "false":
                self.advance()
                return ast.BoolLit(t.span, w == "true")
            if w == "nil":
                self.advance()
                return ast.NilLit(t.span)
            if w == "self":
                self.advance()
                return ast.SelfRef(t.span)
            if w == "new":
                self.advance()
                ty = self.type_()
                o = self.expect_op("(")
                return ast.New(t.span, ty, self.args(o, allow_split=False))
            if w in TYPE_KEYWORDS:
                return self.convert()
            if w == "layout":
                self.fail(t, "layout views are a phase-2 feature")
        elif k is T.OP:
            s = t.text
            if s == "(":
                return self.paren()
            if s == "[":
                self.advance()
                self.enter(t)
                elems = self.expr_list("]")
                self.leave()
                return ast.ArrayLit(t.span, elems)
            if s == "{":
                return self.map_lit()
            if s == "$":
                self.advance()
                n = self.expect_name("expected class name after '$'")
                if self.at_op(".") and self.peek().kind is T.NAME and n.text in self.modules:
                    self.advance()
                    return ast.GlobalRef(t.span, self.advance().text, n.text)
                return ast.GlobalRef(t.span, n.text)
        self.fail(t, "expected expression")

    def expr_list(self, close: str) -> tuple[ast.Expr, ...]:
        """expr {, expr} [,] up to and including `close` (possibly empty)."""
        elems = []
        while not self.at_op(close):
            elems.append(self.expr())
            if self.at_op(","):
                self.advance()
            elif not self.at_op(close):
                self.fail(self.tok, f"expected ',' or '{close}'")
        self.advance()
        return tuple(elems)

    def paren(self) -> ast.Expr:
        t = self.advance()
        self.enter(t)
        first = self.expr()
        if self.at_op(","):
            self.advance()
            elems = (first,) + self.expr_list(")")
            self.leave()
            if len(elems) < 2:
                self.error(t.span, "a tuple needs at least two elements")
            return ast.TupleLit(t.span, elems)
        self.expect_op(")")
        self.leave()
        return ast.Paren(t.span, first)

    def map_lit(self) -> ast.MapLit:
        t = self.advance()
        self.enter(t)
        items = []
        while not self.at_op("}"):
            key = self.expr()
            self.expect_op(":")
            items.append((key, self.expr()))
            if self.at_op(","):
                self.advance()
            elif not self.at_op("}"):
                self.fail(self.tok, "expected ',' or '}'")
        self.advance()
        self.leave()
        return ast.MapLit(t.span, tuple(items))

    def convert(self) -> ast.Expr:
        """A built-in type keyword called as a function: a conversion (disambiguation 5)."""
        t = self.tok
        ty = self.base_type()
        if not self.at_op("("):
            self.fail(self.tok, f"expected '(' after type '{t.text}'",
                      hint=f"a type is not a value; convert with {t.text}(x)")
        o = self.advance()
        args = self.args(o, allow_split=False)
        if len(args) != 1 or args[0].keyword is not None:
            self.error(o.span, "a conversion takes one argument")
        value = args[0].value if args else ast.NilLit(o.span)
        return ast.Convert(o.span, ty, value)

    def fstring(self, t: Token) -> ast.FStrLit:
        parts: list = []
        for p in t.value or ():
            if isinstance(p, (bytes, bytearray)):
                parts.append(bytes(p))
            elif not p.source.strip():
                parts.append(ast.FStrField(p.span, ast.NilLit(p.span), p.spec))   # lexer reported it
            else:
                parts.append(ast.FStrField(p.span, self.field(p.source, p.span), p.spec))
        return ast.FStrLit(t.span, tuple(parts))

    def field(self, source: str, span: Span) -> ast.Expr:
        """Lex and parse an f-string field's expression text; its braces count as one nesting level."""
        from . import lexer
        if hasattr(lexer, "tokenize_fragment"):
            toks = lexer.tokenize_fragment(source, span, self.diags)
        else:
            toks = _shifted_tokens(lexer.tokenize, source, span, self.diags)
        sub = _Parser(toks, span.file, self.diags, self.types, self.generics, self.modules)
        sub.depth = self.depth
        sub.enter(span)
        first = sub.tok
        if first.kind in _LINE_END:
            sub.fail(span, "expected expression")
        e = sub.expr()
        while sub.tok.kind is T.NEWLINE:
            sub.advance()
        if sub.tok.kind is not T.EOF:
            sub.fail(sub.tok, "expected '}'")
        return e


def _shifted_tokens(tokenize, source: str, span: Span, diags: Diagnostics) -> list[Token]:
    """Tokens of `source` lexed as a file of its own, with line 1 moved to `span`."""
    def shift(s: Span) -> Span:
        if s.line == 1:
            return Span(span.file, span.line, span.col + s.col - 1)
        return Span(span.file, span.line + s.line - 1, s.col)
    local = Diagnostics()
    try:
        toks = tokenize(source, span.file, local)
    except CompileError:
        toks = [Token(T.EOF, "", span)]
    for d in local.items:
        diags.error(shift(d.span) if d.span is not None else span, d.message, d.hint, d.notes)
    return [Token(t.kind, t.text, shift(t.span), t.value) for t in toks
            if t.kind not in (T.INDENT, T.DEDENT)]


# ---------------------------------------------------------------------- dump

def dump(node) -> str:
    """An S-expression picture of a tree (for tests and debugging): `(+ 1 (* 2 3))`. Iterative, so a
    left-deep chain of any length prints without recursion."""
    out: list[str] = []
    stack: list = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        else:
            stack.extend(reversed(_pieces(x)))
    return "".join(out)


def _join(items, sep: str = " ") -> list:
    out: list = []
    for i, x in enumerate(items):
        if i:
            out.append(sep)
        out.append(x)
    return out


def _quote(b: bytes) -> str:
    s = []
    for c in b:
        ch = chr(c)
        if ch in '"\\':
            s.append("\\" + ch)
        elif ch == "\n":
            s.append("\\n")
        elif ch == "\t":
            s.append("\\t")
        elif 32 <= c < 127:
            s.append(ch)
        else:
            s.append(f"\\x{c:02x}")
    return '"' + "".join(s) + '"'


def _targs_pieces(targs) -> list:
    return ["<", *_join(targs, ", "), ">"] if targs else []


def _pieces(x) -> list:
    if x is None:
        return ["_"]
    if isinstance(x, bool):
        return ["true" if x else "false"]
    if isinstance(x, (int, float)):
        return [str(x)]
    if isinstance(x, bytes):
        return [_quote(x)]
    if isinstance(x, (tuple, list)):
        return ["[", *_join(x), "]"]
    n = x
    if isinstance(n, (ast.IntLit, ast.FloatLit)):
        return [n.text]
    if isinstance(n, ast.BoolLit):
        return ["true" if n.value else "false"]
    if isinstance(n, ast.NilLit):
        return ["nil"]
    if isinstance(n, ast.SelfRef):
        return ["self"]
    if isinstance(n, ast.CharLit):
        return ["'" + _quote(bytes([n.value]))[1:-1] + "'"]
    if isinstance(n, ast.StrLit):
        return [_quote(n.value)]
    if isinstance(n, ast.FStrLit):
        return ["(fstr", *[p for part in n.parts for p in (" ", part)], ")"]
    if isinstance(n, ast.FStrField):
        return ["{", n.expr, "" if n.spec is None else ":" + n.spec, "}"]
    if isinstance(n, ast.Name):
        return [n.id, *_targs_pieces(n.targs)]
    if isinstance(n, ast.GlobalRef):
        return ["$" + (n.module + "." if n.module else "") + n.name]
    if isinstance(n, ast.Unary):
        return ["(", n.op, " ", n.operand, ")"]
    if isinstance(n, (ast.Binary, ast.Logical)):
        return ["(", n.op, " ", n.left, " ", n.right, ")"]
    if isinstance(n, ast.Call):
        return ["(call ", n.func, *[p for a in n.args for p in (" ", a)], ")"]
    if isinstance(n, ast.Arg):
        prefix = n.keyword + "=" if n.keyword else n.split or ""
        return [prefix, n.value]
    if isinstance(n, ast.Attribute):
        return ["(. ", n.obj, " ", n.name, *_targs_pieces(n.targs), ")"]
    if isinstance(n, ast.Index):
        return ["([] ", n.obj, " ", n.index, ")"]
    if isinstance(n, ast.Slice):
        return ["([:] ", n.obj, " ", n.lo, " ", n.hi, ")"]
    if isinstance(n, ast.New):
        return ["(new ", n.type, *[p for a in n.args for p in (" ", a)], ")"]
    if isinstance(n, ast.Convert):
        return ["(convert ", n.type, " ", n.arg, ")"]
    if isinstance(n, ast.ArrayLit):
        return ["(array", *[p for e in n.elems for p in (" ", e)], ")"]
    if isinstance(n, ast.TupleLit):
        return ["(tuple", *[p for e in n.elems for p in (" ", e)], ")"]
    if isinstance(n, ast.MapLit):
        return ["(map", *[p for k, v in n.items for p in (" (", k, " ", v, ")")], ")"]
    if isinstance(n, ast.Paren):
        return ["(paren ", n.expr, ")"]
    if isinstance(n, ast.Fold):
        return ["(", n.kind, " ", n.op, " ", n.operand, ")"]
    if isinstance(n, ast.MapIt):
        return ["(mapit ", n.operand, " ", n.var, " ", n.body, ")"]
    if isinstance(n, ast.TypeName):
        args = list(n.args) + ([n.capacity] if n.capacity is not None else [])
        return [(n.module + "." if n.module else "") + n.name, *_targs_pieces(args)]
    if isinstance(n, ast.BufferType):
        return [n.elem, "[]"]
    if isinstance(n, ast.FixedArrayType):
        return [n.elem, "[", n.size, "]"]
    if isinstance(n, ast.DeclItem):
        if n.init is not None:
            return ["(", n.name, " = ", n.init, ")"]
        if n.recv is not None:
            return ["(", n.name, " <- ", n.recv, ")"]
        if n.ctor_args is not None:
            return ["(", n.name, " ctor", *[p for a in n.ctor_args for p in (" ", a)], ")"]
        return [n.name]
    if isinstance(n, ast.VarDecl):
        return ["(decl ", "var" if n.type is None else n.type,
                *[p for i in n.items for p in (" ", i)], ")"]
    if isinstance(n, ast.Assign):
        def side(xs):
            return [xs[0]] if len(xs) == 1 else ["(", *_join(xs), ")"]
        return ["(", (n.op or "") + "=", " ", *side(n.targets), " ", *side(n.values), ")"]
    if isinstance(n, ast.ChanOp):
        return ["(<- ", n.left, " ", n.right, ")"]
    if isinstance(n, ast.ExprStmt):
        return [n.expr]
    if isinstance(n, ast.Return):
        return ["(return", *[p for v in n.values for p in (" ", v)], ")"]
    if isinstance(n, ast.Break):
        return ["break"]
    if isinstance(n, ast.Continue):
        return ["continue"]
    if isinstance(n, ast.Pass):
        return ["pass"]
    if isinstance(n, ast.Block):
        return ["(block", *[p for s in n.body for p in (" ", s)], ")"]
    if isinstance(n, ast.If):
        tail = [" ", n.orelse] if n.orelse is not None else []
        return ["(if ", n.cond, " ", n.then, *tail, ")"]
    if isinstance(n, ast.While):
        return ["(while ", n.cond, " ", n.body, ")"]
    if isinstance(n, ast.ForC):
        return ["(for ", n.var, " ", n.start, " ", n.cond, " ", n.step, " ", n.body, ")"]
    if isinstance(n, ast.ForIn):
        return ["(for ", n.var, " in ", n.iterable, " ", n.body, ")"]
    if isinstance(n, ast.RangeLoop):
        ranges = [p for lo, hi in n.ranges for p in (" (", lo, " ", hi, ")")][1:]
        return ["(range ((", *ranges, ") (", *_join([nm for nm, _ in n.names]), ") ", n.body, ")"]
    if isinstance(n, ast.Finish):
        return ["(finish ", n.body, ")"]
    if isinstance(n, ast.Async):
        return ["(", n.kind, " ", n.body, ")"]
    if isinstance(n, ast.Asyncs):
        return ["(asyncs ", n.count, " ", n.call if n.call is not None else n.body, ")"]
    if isinstance(n, ast.Lock):
        what = _quote(n.name.encode("utf-8", "surrogateescape")) if n.name is not None else n.obj
        return ["(lock ", what, " ", n.body, ")"]
    if isinstance(n, ast.Launch):
        return ["(launch (", *_join(n.grid), ") (", *_join(n.block), ") ", n.smem, " ", n.call, ")"]
    if isinstance(n, ast.Param):
        tail = [" = ", n.default] if n.default is not None else []
        return ["(", n.type, " ", n.name, *tail, ")"]
    if isinstance(n, ast.FuncDef):
        tps = ["<", ", ".join(n.tparams), ">"] if n.tparams else []
        return ["(", n.kind, " ", n.ret, " ", n.name, *tps, " (", *_join(n.params), ") ", n.body, ")"]
    if isinstance(n, ast.CtorDef):
        return ["(ctor (", *_join(n.params), ") ", n.body, ")"]
    if isinstance(n, ast.FieldDecl):
        return ["(field ", n.type, *[" " + nm for nm, _ in n.names], ")"]
    if isinstance(n, ast.ClassDef):
        tps = ["<", ", ".join(n.tparams), ">"] if n.tparams else []
        members = [*n.fields, *([n.ctor] if n.ctor else []), *n.methods]
        return ["(class ", n.name, *tps, *[p for m in members for p in (" ", m)], ")"]
    if isinstance(n, ast.TypeAlias):
        return ["(type ", n.name, " ", n.type, ")"]
    if isinstance(n, ast.Import):
        return ["(import ", "/".join(n.path), *([" as ", n.alias] if n.alias else []), ")"]
    if isinstance(n, ast.FromImport):
        return ["(from ", "/".join(n.path), *[" " + nm for nm, _ in n.names], ")"]
    if isinstance(n, ast.ProtoParam):
        return [n.type, *([" ", n.name] if n.name else [])]
    if isinstance(n, ast.Proto):
        return ["(proto ", n.ret, " ", n.name, " (", *_join(n.params, ", "), "))"]
    if isinstance(n, ast.MainDef):
        return ["(main ", n.body, ")"]
    if isinstance(n, ast.Module):
        return ["(module", *[p for i in n.items for p in (" ", i)], ")"]
    return [repr(n)]
