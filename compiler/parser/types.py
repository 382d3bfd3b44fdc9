"""Parser, type syntax: types, type argument lists, and the lookahead that tells a type from an expression."""
from __future__ import annotations

from .. import ast
from ..diagnostics import Span
from ..tokens import SCALAR_TYPE_NAMES, T, Token
from .grammar import _LINE_END, COMPOSITE_TYPES, MAX_NESTING, NESTING_MESSAGE


class _Types:
    """Type syntax, and reading a type ahead without consuming it."""

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
                return self.layout_type()
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

    def layout_type(self) -> ast.LayoutType:
        """`layout` `<` type {, dim} [, smem] `>` (docs/phase2.md); the keyword is the token."""
        t = self.advance()
        if not self.at_op("<"):
            self.fail(self.tok, "expected '<' after 'layout'")
        o = self.advance()
        self.enter(o)
        elem = self.type_()
        dims, smem = [], False
        while self.at_op(","):
            self.advance()
            if self.tok.kind is T.NAME and self.tok.text == "smem" and self.peek().is_op(">", ">>"):
                self.advance()
                smem = True
                break
            dims.append(self.expr(stop_angle=True))
        self.leave()
        if not dims:
            self.fail(self.tok, "a layout needs at least one dimension: layout<T, d0, ...>")
        self.close_angle()
        return ast.LayoutType(t.span, elem, tuple(dims), smem)

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
