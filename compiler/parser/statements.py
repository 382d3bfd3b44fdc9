"""Parser, statements: blocks, simple statements, declarations and the compound statements (if, loops, finish, async, lock, launch)."""
from __future__ import annotations

from .. import ast
from ..tokens import TYPE_KEYWORDS, T, Token
from .grammar import (_BLOCK_STATEMENTS, _COMPOUND, _EXPR_START_KW, _EXPR_START_OP, _LINE_END,
                      _TOP_LEVEL_WORDS, _WORD_BINARY, MAX_NESTING, NESTING_MESSAGE)
from .stream import _describe, _Sync


class _Statements:
    """Blocks and statements."""

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
            return ast.Pass(t.span, ellipsis=True)
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
        smem = stream = call = None
        if self.at_op("["):
            o = self.advance()
            self.enter(o)
            smem = self.expr()
            self.expect_op("]")
            self.leave()
        if self.at_on():
            on = self.advance()
            stream = self.expr()
            if smem is None and isinstance(stream, ast.Call) and self.tok.kind in _LINE_END:
                # `launch [g] [b] on k(x)`: `on` is a variable holding the shared-memory size
                smem, call, stream = ast.Name(on.span, "on"), stream, None
        start = self.tok
        if call is None and (smem is not None or stream is not None):
            call = self.expr()
        elif call is None:
            call = self.expr()
            if self.tok.kind not in _LINE_END:
                # Two expressions after the dimensions: the shared-memory size, then the call.
                smem = call
                start = self.tok
                call = self.expr()
        if not isinstance(call, ast.Call):
            self.fail(start, "expected a kernel call")
        self.end_statement()
        return ast.Launch(t.span, grid, block, smem, call, stream)

    def at_on(self) -> bool:
        """`on s` before the kernel call: `on` followed by a name (a contextual word, 12.3)."""
        t = self.tok
        return t.kind is T.NAME and t.text == "on" and self.peek().kind is T.NAME

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
