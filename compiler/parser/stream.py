"""Parser token cursor: lookahead, error reporting and resynchronisation, nesting counters."""
from __future__ import annotations

from ..diagnostics import Diagnostics, Span
from ..tokens import T, Token
from .grammar import _LINE_END, MAX_NESTING, NESTING_MESSAGE


class _Sync(Exception):
    """Abandon the current statement after its error was reported; `quiet` skips its block unparsed."""

    def __init__(self, quiet: bool = False) -> None:
        super().__init__()
        self.quiet = quiet


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


class _TokenStream:
    """The parser's state and its token cursor: lookahead, expectations, errors and recovery."""

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
