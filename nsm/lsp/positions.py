"""Between the compiler's spans (1-based line and column, in characters) and LSP positions
(0-based line, UTF-16 code units), and from a position to the token under it."""
from __future__ import annotations

from lsprotocol import types as L

from compiler.tokens import T


def _utf16(line: str, chars: int) -> int:
    return len(line[:chars].encode("utf-16-le")) // 2


def _chars(line: str, units: int) -> int:
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


class Lines:
    """The lines of one text, for position conversions."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def line(self, n: int) -> str:
        """Line `n` (1-based), '' past the end."""
        return self.lines[n - 1].rstrip("\r") if 1 <= n <= len(self.lines) else ""

    def position(self, line: int, col: int) -> L.Position:
        return L.Position(max(line - 1, 0), _utf16(self.line(line), max(col - 1, 0)))

    def range(self, line: int, col: int, length: int) -> L.Range:
        return L.Range(self.position(line, col), self.position(line, col + max(length, 1)))

    def span_of(self, pos: L.Position) -> tuple[int, int]:
        """The (line, col) of an LSP position, 1-based characters."""
        return pos.line + 1, _chars(self.line(pos.line + 1), pos.character) + 1


def token_length(tok) -> int:
    if tok.kind in (T.NEWLINE, T.INDENT, T.DEDENT, T.EOF):
        return 0
    return len(tok.text)


def token_at(tokens, line: int, col: int, *, touching: bool = True):
    """The token covering (line, col), or ending right before it when `touching` (a cursor just
    after a word still names it); None when there is none."""
    best = None
    for t in tokens:
        n = token_length(t)
        if n == 0 or t.span.line != line:
            if t.span.line > line:
                break
            continue
        if t.span.col <= col < t.span.col + n:
            return t
        if touching and col == t.span.col + n and t.kind is T.NAME:
            best = t
    return best


def tokens_before(tokens, line: int, col: int) -> list:
    """The tokens that end at or before (line, col), in order."""
    return [t for t in tokens if token_length(t) and
            (t.span.line < line or t.span.line == line and t.span.col + token_length(t) <= col)]
