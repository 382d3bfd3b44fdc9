"""Parser, top level: the module, imports, type aliases, protos, functions, kernels, classes and main."""
from __future__ import annotations

from .. import ast
from ..diagnostics import Span
from ..tokens import SCALAR_TYPE_NAMES, TYPE_KEYWORDS, T, Token
from .grammar import MAX_NESTING, NESTING_MESSAGE, OPERATOR_SYMBOLS
from .stream import _Sync


class _TopLevel:
    """Top-level items: imports, aliases, protos, functions, kernels, classes and main."""

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
        from ..prescan import c_header_at, c_header_binding
        t = self.advance()
        header = c_header_at(self.toks, self.pos)
        if header is not None:                   # `import c"zlib.h"` (docs/interop.md)
            at = self.advance()
            self.advance()
            path = (header,)
        else:
            path = self.modpath()
        alias = None
        if self.at_kw("as"):
            self.advance()
            alias = self.expect_name().text
        elif header is not None:
            alias = c_header_binding(header)
            if alias is None:
                self.fail(at, f"the header {header} gives no module name",
                          hint=f'name it: import c"{header[1:-1]}" as NAME')
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

    def proto(self):
        self.advance()
        if self.tok.kind is T.NAME and self.tok.text == "struct" and self.peek().kind is T.NAME:
            return self.proto_struct()
        ret = self.ret_type()
        if self.tok.kind is T.NAME and self.tok.text == "sys" and self.peek().kind is T.NAME:
            self.advance()
        n = self.expect_name("expected function name")
        if self.at_op("="):
            return self.proto_const(n, ret)
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

    def proto_const(self, n: Token, ty: ast.TypeExpr) -> ast.ProtoConst:
        """`proto T NAME = VALUE`, VALUE an integer (optionally negative) or a string."""
        self.advance()                           # '='
        neg = self.at_op("-")
        if neg:
            self.advance()
        v = self.tok
        if v.kind is T.INT or (v.kind is T.STRING and not neg):
            self.advance()
        else:
            self.fail(v, "expected an integer or string literal",
                      hint="a C constant's value is a literal: proto i32 Z_OK = 0")
        self.end_statement()
        return ast.ProtoConst(n.span, n.text, ty, -v.value if neg else v.value)

    def proto_struct(self) -> ast.ProtoStruct:
        """`proto struct NAME(SIZE)` and an indented block of `T name @ OFFSET [ctype]`."""
        self.advance()                           # 'struct'
        n = self.advance()
        self.expect_op("(")
        size = self.tok
        if size.kind is not T.INT:
            self.fail(size, "expected the struct's size in bytes")
        self.advance()
        self.expect_op(")")
        self.header_end()
        fields: list[ast.ProtoField] = []
        if self.tok.kind is not T.INDENT:
            return ast.ProtoStruct(n.span, n.text, size.value, ())
        self.advance()
        while self.tok.kind not in (T.DEDENT, T.EOF):
            if self.tok.kind is T.NEWLINE:
                self.advance()
                continue
            self.reset()
            try:
                start = self.tok
                ty = self.type_()
                name = self.expect_name("expected field name")
                self.expect_op("@", "expected '@ OFFSET' after the field name")
                off = self.tok
                if off.kind is not T.INT:
                    self.fail(off, "expected the field's byte offset")
                self.advance()
                storage = None
                if self.tok.kind is T.NAME:
                    storage = self.advance().text
                self.end_statement()
                fields.append(ast.ProtoField(start.span, ty, name.text, off.value, storage))
            except _Sync as e:
                self.recover(e.quiet)
        if self.tok.kind is T.DEDENT:
            self.advance()
        return ast.ProtoStruct(n.span, n.text, size.value, tuple(fields))

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
        if self.at_op("<"):
            self.error(self.tok.span, "compile-time parameters are for kernels and gpu functions",
                       "gpu RET name(params)<int N> (docs/phase2.md)")
            self.cparams()
        body = self.block()
        abstract = in_class and len(body.body) == 1 and isinstance(body.body[0], ast.Pass) \
            and body.body[0].ellipsis
        return ast.FuncDef(n.span, name, tparams, params, ret, body, "def", is_op, abstract)

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
        cparams = self.cparams()
        body = self.block()
        return ast.FuncDef(n.span, n.text, (), params, ret, body, "kernel", cparams=cparams)

    def gpu(self) -> ast.FuncDef:
        self.advance()
        ret = self.ret_type()
        if self.at_opsym():
            o = self.tok
            name = self.opsym()
            params = self.params()
            if self.at_op("<"):
                self.error(self.tok.span, "a gpu operator has no compile-time parameters",
                           "its dimension names take the shapes of its arguments "
                           "(docs/phase2.md)")
                self.cparams()
            body = self.block()
            return ast.FuncDef(o.span, name, (), params, ret, body, "gpu", is_operator=True)
        n = self.expect_name("expected function name")
        if self.at_op("<"):
            self.error(self.tok.span, "gpu functions cannot have type parameters")
            self.tparams()
        params = self.params()
        cparams = self.cparams()
        body = self.block()
        return ast.FuncDef(n.span, n.text, (), params, ret, body, "gpu", cparams=cparams)

    def cparams(self) -> tuple[ast.Param, ...]:
        """`<int BM, int BN>` after a kernel's or gpu function's parameters (docs/phase2.md)."""
        if not self.at_op("<"):
            return ()
        o = self.advance()
        self.enter(o)
        out = []
        while True:
            t = self.tok
            if not (t.kind is T.KW and t.text == "int"):
                self.fail(t, "compile-time parameters are int: <int BM, int BN>")
            self.advance()
            n = self.expect_name("expected compile-time parameter name")
            out.append(ast.Param(n.span, ast.TypeName(t.span, "int"), n.text))
            if not self.at_op(","):
                break
            self.advance()
        self.expect_op(">", "expected ',' or '>' closing the compile-time parameters")
        self.leave()
        return tuple(out)

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
            base = None
            if self.at_op("("):
                self.advance()
                base = self.type_()
                self.expect_op(")")
        except _Sync:
            raise _Sync(quiet=True) from None     # its members are not statements: skip them
        fields: list[ast.FieldDecl] = []
        methods: list[ast.FuncDef] = []
        ctor = None
        self.header_end()
        t = self.tok
        if t.kind is not T.INDENT:
            self.error(t.span, "expected an indented block")
            return ast.ClassDef(n.span, n.text, tparams, (), None, (), base)
        if self.block_depth + 1 > MAX_NESTING:
            self.error(t.span, NESTING_MESSAGE)
            self.skip_block()
            return ast.ClassDef(n.span, n.text, tparams, (), None, (), base)
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
        return ast.ClassDef(n.span, n.text, tparams, tuple(fields), ctor, tuple(methods), base)

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
