"""Parser, expressions: precedence climbing, folds, postfix chains, literals and f-string fields."""
from __future__ import annotations

from .. import ast
from ..diagnostics import CompileError, Diagnostics, Span
from ..tokens import SCALAR_TYPE_NAMES, TYPE_KEYWORDS, T, Token
from .grammar import (_BINARY, _CMP_LEVEL, _LINE_END, _NEG_LEVEL, _NORMALISE, _NOT_LEVEL,
                      _WORD_BINARY)


_CARG_OPS = ("+", "-", "*", "//", "%", ",", ".")


class _Expressions:
    """Expressions, from precedence climbing down to literals and f-string fields."""

    def expr(self, stop_chan: bool = False, stop_angle: bool = False) -> ast.Expr:
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
                if stop_angle and (level is None or level <= _CMP_LEVEL):
                    break
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
                args = self.args(t, allow_split)
                e = ast.Call(t.span, e, args, self.cargs() if self.at_cargs() else ())
            elif s == "[":
                e = self.subscript(e)
            elif s == "{":
                self.advance()
                self.enter(t)
                indices = self.expr_list("}")
                self.leave()
                if not indices:
                    self.fail(t, "an address form needs at least one index: v{i, j}")
                e = ast.AddrOf(t.span, e, indices)
            else:
                return e

    def at_cargs(self) -> bool:
        return carg_close(self.toks, self.pos) is not None

    def cargs(self) -> tuple[ast.Expr, ...]:
        o = self.tok
        if o.is_op("<-"):                    # `<-3>`: split into '<' and a unary '-'
            minus = Token(T.OP, "-", Span(o.span.file, o.span.line, o.span.col + 1))
            o = Token(T.OP, "<", o.span)
            self.toks[self.pos:self.pos + 1] = [o, minus]
        self.advance()                       # '<'
        self.enter(o)
        exprs = [self.expr(stop_angle=True)]
        while self.at_op(","):
            self.advance()
            exprs.append(self.expr(stop_angle=True))
        self.expect_op(">", "expected ',' or '>' closing the compile-time arguments")
        self.leave()
        return tuple(exprs)

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
        if self.at_op(",") and not is_slice:
            indices = [lo]
            while self.at_op(","):
                self.advance()
                if self.at_op("]"):
                    break
                indices.append(self.expr())
            self.expect_op("]")
            self.leave()
            return ast.MultiIndex(t.span, obj, tuple(indices))
        if self.at_op(","):
            self.fail(self.tok, "expected ']'", hint="a slice takes one range: a[lo:hi]")
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
            if w == "super":
                self.advance()
                return ast.SuperRef(t.span)
            if w == "new":
                self.advance()
                ty = self.type_()
                o = self.expect_op("(")
                return ast.New(t.span, ty, self.args(o, allow_split=False))
            if w in TYPE_KEYWORDS:
                return self.convert()
            if w == "layout":
                ty = self.layout_type()
                o = self.expect_op("(", "expected '(' after the layout type: layout<...>(buffer) "
                                        "or layout<...>()")
                return ast.LayoutNew(t.span, ty, self.args(o, allow_split=False))
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
        if self.at_cargs():                  # `float(B)<2>`: read the list to say what it is
            cargs = self.cargs()
            self.error(cargs[0].span, f"a conversion {t.text}(x) has no compile-time parameters",
                       hint="compile-time parameters f(x)<N> are for the kernels and gpu "
                            "functions that declare them (docs/phase2.md)")
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
        from .. import lexer
        if hasattr(lexer, "tokenize_fragment"):
            toks = lexer.tokenize_fragment(source, span, self.diags)
        else:
            toks = _shifted_tokens(lexer.tokenize, source, span, self.diags)
        sub = type(self)(toks, span.file, self.diags, self.types, self.generics, self.modules)
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


def carg_close(toks: list[Token], i: int) -> int | None:
    """The index of the `>` closing a compile-time list `f(x)<128, 64>` opened at toks[i], or None:
    a `<` right after the `)`, no space between, then names, integers, `+ - * // %`,
    parentheses and commas up to a `>` (`f(x) < n` stays a comparison; docs/phase2.md). Floats,
    `true` and `false` are taken too, so the checker can say they are not constant integers;
    `<-3>` starts with the channel arrow `<-`. Shared with `nsm fmt`."""
    t, close = toks[i], toks[i - 1] if i else None
    if close is None or not close.is_op(")") or not t.is_op("<", "<-") \
            or t.span.line != close.span.line or t.span.col != close.span.col + 1:
        return None
    depth = 0
    for j in range(i + 1, len(toks)):
        u = toks[j]
        if depth == 0 and u.is_op(">"):
            return j
        if u.is_op("("):
            depth += 1
        elif u.is_op(")"):
            depth -= 1
            if depth < 0:
                return None
        elif not (u.kind in (T.NAME, T.INT, T.FLOAT) or u.is_kw("true", "false")
                  or u.is_op(*_CARG_OPS)):
            return None                      # only what a constant integer is written with
    return None
