"""Lexer: turns Neve source text into tokens, with NEWLINE/INDENT/DEDENT derived from indentation (LANGUAGE.md 2)."""
from __future__ import annotations

import gc
import re
import string

from .diagnostics import Diagnostics, Span
from .tokens import KEYWORDS, OPERATORS, TYPE_KEYWORDS, FPart, T, Token

MAX_BLOCK_DEPTH = 256          # 13.1: blocks nest up to 256 levels
TAB_WIDTH = 4                  # 2.2: a tab in leading whitespace counts 4 columns

_ALL_KEYWORDS = KEYWORDS | TYPE_KEYWORDS
_NAME_START = frozenset(string.ascii_letters + "_")
_DIGITS = frozenset(string.digits)
_HEX = frozenset(string.hexdigits)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_OPS = frozenset(OPERATORS)
_OP_FIRST = frozenset(o[0] for o in OPERATORS)
_BRACKETS = frozenset("()[]{}")
_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39}
# decimal literals may reach 2^64 - 1 (u64, 3.1); above 2^63 - 1 the checker decides by the expected type
_INT_MAX_MAGNITUDE = (1 << 64) - 1

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A number is scanned greedily as "digit, word characters, optional '.digit word characters'" and then
# validated as a whole, so `12abc` is one bad literal rather than `12` followed by `abc`.
_NUMBER_RE = re.compile(r"[0-9][A-Za-z0-9_]*(?:\.[0-9][A-Za-z0-9_]*)?")
_EXP_SIGN_RE = re.compile(r"[+-][0-9][A-Za-z0-9_]*")
_D = r"[0-9](?:_?[0-9])*"
_DEC_RE = re.compile(_D)
_HEX_RE = re.compile(r"0x[0-9a-fA-F](?:_?[0-9a-fA-F])*")
_BIN_RE = re.compile(r"0b[01](?:_?[01])*")
_FLOAT_RE = re.compile(rf"{_D}(?:\.{_D}(?:[eE][+-]?{_D})?|[eE][+-]?{_D})")
_INDENT_RE = re.compile(r"[ \t]*")
_STR_RUN_RE = re.compile(r'[^"\\\r\n]+')
_FSTR_RUN_RE = re.compile(r'[^"\\\r\n{}]+')

_UNEXPECTED_HINTS = {
    "\\": "there is no line continuation; break lines inside ( ), [ ] or { }",
    ";": "put each statement on its own line",
    "\r": "lines must end with LF or CRLF",
}


def tokenize(source: str, path: str, diags: Diagnostics) -> list[Token]:
    """Lex a whole file: tokens, a NEWLINE per logical line, INDENT/DEDENT per 2.2, the DEDENTs left at EOF, EOF.

    A leading BOM is dropped (columns then count from the character after it). Errors go to `diags`;
    lexing continues after each so later errors are found too, and tokens are still returned.
    """
    if source.startswith("\ufeff"):
        source = source[1:]
    if path not in diags.sources:
        diags.add_source(path, source)
    # The lexer allocates two objects per token and frees none; cyclic GC passes over them only cost time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Lexer(source, path, diags, 1, 1, fragment=False).run()
    finally:
        if gc_was_enabled:
            gc.enable()


def tokenize_fragment(source: str, start: Span, diags: Diagnostics) -> list[Token]:
    """Lex single-line expression text that begins at `start` (an FPart's source): its tokens, then EOF.

    Spans point into the enclosing file. No NEWLINE, INDENT or DEDENT is produced.
    """
    return _Lexer(source, start.file, diags, start.line, start.col, fragment=True).run()


def _char_name(c: str) -> str:
    return f"'{c}'" if c.isprintable() else f"U+{ord(c):04X}"


class _Lexer:
    def __init__(self, src: str, path: str, diags: Diagnostics, line: int, col: int, fragment: bool) -> None:
        self.src = src
        self.path = path
        self.diags = diags
        self.fragment = fragment
        self.line = line
        self.line_start = -(col - 1)          # col of offset p is p - line_start + 1
        self.toks: list[Token] = []
        self.brackets: list[tuple[str, Span]] = []
        self.indents: list[int] = []        # empty until the first code line sets the base column
        self.line_first_tok = 0               # index of the current logical line's first token
        self.line_span = Span(path, line, col)  # its first non-blank character
        self.errors = 0
        self.field_unterminated = False

    # -- helpers ---------------------------------------------------------------------------------------------

    def span(self, pos: int) -> Span:
        return Span(self.path, self.line, pos - self.line_start + 1)

    def error(self, pos: int, message: str, hint: str | None = None) -> None:
        self.errors += 1
        self.diags.error(self.span(pos), message, hint)

    def emit(self, kind: T, pos: int, end: int, value: object = None) -> None:
        self.toks.append(Token(kind, self.src[pos:end], self.span(pos), value))

    def newline(self, next_pos: int) -> None:
        self.line += 1
        self.line_start = next_pos

    # -- driver ----------------------------------------------------------------------------------------------

    def run(self) -> list[Token]:
        # Hot loop: names and operators are most tokens, so they are built inline rather than through emit().
        src = self.src
        n = len(src)
        path = self.path
        toks = self.toks
        append = toks.append
        pos = 0
        at_line_start = not self.fragment
        in_line = False
        while True:
            if at_line_start:
                pos = self.line_indentation(pos)
                at_line_start = False
                if pos >= n:
                    break
                in_line = True
            if pos >= n:
                break
            c = src[pos]
            if c == " " or c == "\t":
                pos += 1
            elif c in _NAME_START:
                end = _NAME_RE.match(src, pos).end()
                if end - pos == 1 and c == "f" and end < n and src[end] == '"':
                    pos = self.string(pos, end, fstring=True)
                else:
                    word = src[pos:end]
                    append(Token(T.KW if word in _ALL_KEYWORDS else T.NAME, word,
                                 Span(path, self.line, pos - self.line_start + 1)))
                    pos = end
            elif c in _OP_FIRST:
                op = src[pos:pos + 3]
                if op not in _OPS:
                    op = op[:2]
                    if op not in _OPS:
                        op = c
                if op in _BRACKETS:
                    self.bracket(pos, op)
                append(Token(T.OP, op, Span(path, self.line, pos - self.line_start + 1)))
                pos += len(op)
            elif c in _DIGITS:
                pos = self.number(pos)
            elif c == "\n" or (c == "\r" and src.startswith("\n", pos + 1)):
                pos += 1 if c == "\n" else 2
                if not self.brackets and not self.fragment:
                    append(Token(T.NEWLINE, "", self.newline_span()))
                    in_line = False
                    at_line_start = True
                self.newline(pos)
            elif c == "#":
                j = src.find("\n", pos)
                pos = n if j < 0 else (j - 1 if src[j - 1] == "\r" else j)
            elif c == '"':
                pos = self.string(pos, pos, fstring=False)
            elif c == "'":
                pos = self.char(pos)
            elif c > "\x7f":
                j = pos + 1
                while j < n and src[j] > "\x7f":
                    j += 1
                hint = "use ASCII quotes" if c in "\u201c\u201d\u2018\u2019" else None
                self.error(pos, "non-ASCII character outside a string or comment", hint)
                pos = j
            else:
                self.error(pos, f"unexpected character {_char_name(c)}", _UNEXPECTED_HINTS.get(c))
                pos += 1
        return self.finish(n, in_line)

    def newline_span(self) -> Span:
        """NEWLINE goes just after the logical line's last token, or at its first character if it has none."""
        if len(self.toks) > self.line_first_tok:
            last = self.toks[-1]
            return Span(self.path, last.span.line, last.span.col + len(last.text))
        return self.line_span

    def finish(self, n: int, in_line: bool) -> list[Token]:
        for opener, span in self.brackets:
            self.errors += 1
            self.diags.error(span, f"'{opener}' was never closed")
        eof = self.span(n)
        if not self.fragment:
            if in_line:
                self.toks.append(Token(T.NEWLINE, "", self.newline_span()))
            for _ in range(len(self.indents) - 1):
                self.toks.append(Token(T.DEDENT, "", eof))
        self.toks.append(Token(T.EOF, "", eof))
        return self.toks

    # -- indentation (2.2) -------------------------------------------------------------------------------------

    def line_indentation(self, pos: int) -> int:
        """Skip blank and comment-only lines from `pos` (a line start); emit INDENT/DEDENTs for the next code line.

        Returns the offset of that line's first non-blank character, or len(src) at end of input.
        """
        src = self.src
        n = len(src)
        while True:
            end = _INDENT_RE.match(src, pos).end()
            if end >= n:
                return n
            c = src[end]
            if c == "\n":
                pos = end + 1
            elif c == "\r" and src.startswith("\n", end + 1):
                pos = end + 2
            elif c == "#":
                j = src.find("\n", end)
                if j < 0:
                    return n
                pos = j + 1
            else:
                break
            self.newline(pos)
        lead = src[pos:end]
        width = len(lead) + (TAB_WIDTH - 1) * lead.count("\t")
        span = self.span(end)
        self.line_span = span
        self.line_first_tok = len(self.toks)
        indents = self.indents
        if not indents:
            indents.append(width)
            return end
        if width < indents[0]:
            self.error(end, "indentation below the file's base column",
                       f"the first line of code is indented {indents[0]} columns; indent every line at least as much")
            width = indents[0]
        top = indents[-1]
        if width > top:
            indents.append(width)
            self.toks.append(Token(T.INDENT, "", span))
            if len(indents) - 1 > MAX_BLOCK_DEPTH:
                self.error(end, f"nesting too deep (limit {MAX_BLOCK_DEPTH})")
        elif width < top:
            levels = ", ".join(map(str, indents[:-1])) + f" or {indents[-1]}"
            while indents[-1] > width and indents[-2] >= width:
                indents.pop()
                self.toks.append(Token(T.DEDENT, "", span))
            if indents[-1] != width:
                # Between two stacked widths: stay in the inner block, which now has this width, so the
                # INDENT/DEDENT stream remains balanced.
                self.error(end, "inconsistent dedent",
                           f"indent it {levels} columns, as an enclosing block is")
                indents[-1] = width
        return end

    # -- brackets ------------------------------------------------------------------------------------------

    def bracket(self, pos: int, op: str) -> None:
        """Track bracket nesting: inside brackets newlines and indentation are ignored (2.2)."""
        if op in _OPEN:
            self.brackets.append((op, self.span(pos)))
        elif not self.brackets:
            self.error(pos, f"unmatched '{op}'")
        else:
            opener, span = self.brackets.pop()
            if _OPEN[opener] != op:
                self.error(pos, f"'{op}' does not match '{opener}' opened at {span.line}:{span.col}")

    # -- numbers (2.4) ---------------------------------------------------------------------------------------

    def number(self, pos: int) -> int:
        src = self.src
        end = _NUMBER_RE.match(src, pos).end()
        if src[end - 1] in "eE" and src[pos:pos + 2] not in ("0x", "0b"):
            m = _EXP_SIGN_RE.match(src, end)
            if m:
                end = m.end()
        text = src[pos:end]
        if _DEC_RE.fullmatch(text):
            digits = text.replace("_", "").lstrip("0") or "0"
            # Compare lengths first: int() of a huge digit string is slow and capped by Python.
            if len(digits) > 20 or int(digits) > _INT_MAX_MAGNITUDE:
                self.error(pos, "integer literal too large", "the largest u64 is 18446744073709551615")
                value = 0
            else:
                value = int(digits)
            self.emit(T.INT, pos, end, value)
        elif _HEX_RE.fullmatch(text) or _BIN_RE.fullmatch(text):
            value = int(text[2:].replace("_", ""), 16 if text[1] == "x" else 2)
            if value >> 64:
                self.error(pos, "integer literal too large", "hexadecimal and binary literals hold at most 64 bits")
                value = 0
            elif value >> 63:
                value -= 1 << 64            # two's complement: 0xFFFF_FFFF_FFFF_FFFF == -1
            self.emit(T.INT, pos, end, value)
        elif _FLOAT_RE.fullmatch(text):
            self.emit(T.FLOAT, pos, end, text.replace("_", ""))
        else:
            if text[:2] in ("0X", "0B"):
                hint = "write the prefix in lowercase: 0x or 0b"
            elif "_" in text:
                hint = "'_' may appear only between digits"
            else:
                hint = None
            self.error(pos, f"invalid number literal '{text}'", hint)
            self.emit(T.INT, pos, end, 0)
        return end

    # -- strings, f-strings, chars (2.4, 10.3) ---------------------------------------------------------------

    def escape(self, i: int, buf: bytearray, in_char: bool) -> int:
        """Decode the escape whose backslash is at `i` into `buf`; return the offset after it."""
        src = self.src
        n = len(src)
        j = i + 1
        c = src[j] if j < n else "\n"
        if c in _SIMPLE_ESCAPES:
            buf.append(_SIMPLE_ESCAPES[c])
            return j + 1
        if c == "x":
            h = src[j + 1:j + 3]
            if len(h) == 2 and h[0] in _HEX and h[1] in _HEX:
                buf.append(int(h, 16))
                return j + 3
            self.error(i, "invalid escape sequence '\\x'", "\\xNN takes exactly two hexadecimal digits")
            return j + 1
        if c == "u":
            k = j + 2
            if src.startswith("{", j + 1):
                while k < n and src[k] in _HEX:
                    k += 1
                digits = src[j + 2:k]
                if 1 <= len(digits) <= 6 and src.startswith("}", k):
                    value = int(digits, 16)
                    if in_char:
                        self.error(i, "'\\u{...}' escapes are not allowed in a character literal",
                                   "a char is one byte: use '\\xNN', or a str")
                    elif value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                        self.error(i, f"invalid Unicode scalar value '\\u{{{digits}}}'")
                    else:
                        buf += chr(value).encode("utf-8")
                    return k + 1
                # Skip a malformed braced escape up to its '}' so its text is not read as an f-string field.
                while k < n and src[k] not in '}"\'\r\n':
                    k += 1
                self.error(i, "invalid escape sequence '\\u'", "write \\u{H...} with 1 to 6 hexadecimal digits")
                return k + 1 if src.startswith("}", k) else k
            self.error(i, "invalid escape sequence '\\u'", "write \\u{H...} with 1 to 6 hexadecimal digits")
            return j + 1
        if c == "\n" or c == "\r" and src.startswith("\n", j + 1):
            return j                       # the caller reports the unterminated literal
        self.error(i, f"invalid escape sequence '\\{c}'", "write '\\\\' for a backslash")
        return j + 1

    def string(self, start: int, quote: int, fstring: bool) -> int:
        """Lex a string (fstring=False) or f-string whose token starts at `start`, opening quote at `quote`."""
        src = self.src
        n = len(src)
        run_re = _FSTR_RUN_RE if fstring else _STR_RUN_RE
        buf = bytearray()
        parts: list[object] = []
        self.field_unterminated = False     # reported once, as the field's error rather than the string's
        i = quote + 1
        while True:
            if i >= n:
                if not self.field_unterminated:
                    self.error(start, "unterminated string", "close the string with '\"' on the same line")
                break
            c = src[i]
            if c == '"':
                i += 1
                break
            if c == "\n" or c == "\r" and src.startswith("\n", i + 1):
                if not self.field_unterminated:
                    self.error(start, "unterminated string", "close the string with '\"' on the same line")
                break
            if c == "\\":
                i = self.escape(i, buf, in_char=False)
            elif c == "\r":
                buf.append(13)
                i += 1
            elif fstring and c == "{":
                if src.startswith("{", i + 1):
                    buf.append(123)
                    i += 2
                else:
                    if buf:
                        parts.append(bytes(buf))
                        buf.clear()
                    i = self.fstring_field(i, parts)
            elif fstring and c == "}":
                if not src.startswith("}", i + 1):
                    self.error(i, "single '}' in f-string", "write '}}' for a literal brace")
                    i += 1
                else:
                    buf.append(125)
                    i += 2
            else:
                m = run_re.match(src, i)
                buf += m.group().encode("utf-8", "surrogatepass")
                i = m.end()
        if fstring:
            if buf:
                parts.append(bytes(buf))
            self.emit(T.FSTRING, start, i, parts)
        else:
            self.emit(T.STRING, start, i, bytes(buf))
        return i

    def fstring_field(self, brace: int, parts: list[object]) -> int:
        """Lex the `{expr[:spec]}` field whose '{' is at `brace`; append an FPart; return the offset after it.

        The spec starts at the first ':' outside ( ) and [ ] (10.3); char literals are skipped while looking.
        """
        src = self.src
        n = len(src)
        start = brace + 1
        k = start
        depth = 0
        colon = -1
        while k < n:
            c = src[k]
            if c == "}" or c == "{" or c == '"' or c == "\n" or c == "\r":
                break
            if colon < 0:
                if c == "(" or c == "[":
                    depth += 1
                elif c == ")" or c == "]":
                    depth -= 1
                elif c == ":" and depth <= 0:
                    colon = k
                elif c == "'":
                    k += 1
                    while k < n and src[k] not in "'\"{}\r\n":
                        k += 2 if src[k] == "\\" and k + 1 < n and src[k + 1] not in "\r\n" else 1
                    if k < n and src[k] == "'":
                        k += 1
                    continue
            k += 1
        c = src[k] if k < n else "\n"
        if c == "}":
            expr_end = colon if colon >= 0 else k
            expr = src[start:expr_end]
            if not expr.strip():
                self.error(brace, "empty f-string field", "write '{{' for a literal brace")
            spec = src[colon + 1:k] if colon >= 0 else None
            parts.append(FPart(expr, self.span(start), spec))
            return k + 1
        if c == "{":
            self.error(k, "'{' is not allowed in an f-string field", "write '{{' outside fields for a literal brace")
            # Resume after the '}' that closes this field, counting the nested braces.
            depth = 1
            while k < n and src[k] not in '"\r\n':
                depth += (src[k] == "{") - (src[k] == "}")
                k += 1
                if depth == 0:
                    break
            return k
        close = src.find("}", k, self.line_end(k))
        if c == '"' and close >= 0:
            self.error(k, "'\"' is not allowed in an f-string field", "compute the value into a variable first")
            return close + 1
        self.error(brace, "unterminated f-string field", "close the field with '}'")
        self.field_unterminated = c != '"'
        return k

    def line_end(self, k: int) -> int:
        """The offset of the newline ending the line that holds `k`, or len(src)."""
        end = self.src.find("\n", k)
        return len(self.src) if end < 0 else end

    def char(self, pos: int) -> int:
        src = self.src
        n = len(src)
        i = pos + 1
        c = src[i] if i < n else "\n"
        if c == "\n" or c == "\r" and src.startswith("\n", i + 1):
            self.error(pos, "unterminated character literal")
            self.emit(T.CHAR, pos, i, 0)
            return i
        if c == "'":
            self.error(pos, "empty character literal", "write '\\'' for a quote character")
            self.emit(T.CHAR, pos, i + 1, 0)
            return i + 1
        buf = bytearray()
        errors = self.errors
        if c == "\\":
            i = self.escape(i, buf, in_char=True)
        else:
            buf += c.encode("utf-8", "surrogatepass")
            i += 1
        if not src.startswith("'", i):
            # Look for the closing quote later on the line: 'ab' is too long rather than unterminated.
            while i < n and src[i] not in "'\r\n":
                i += 2 if src[i] == "\\" and i + 1 < n and src[i + 1] not in "\r\n" else 1
            if i >= n or src[i] != "'":
                self.error(pos, "unterminated character literal")
                self.emit(T.CHAR, pos, i, 0)
                return i
            buf += b"??"                    # more than one character: too long
        if len(buf) != 1 and self.errors == errors:
            self.error(pos, "character literal must be one byte", "use a str for text")
        self.emit(T.CHAR, pos, i + 1, buf[0] if len(buf) == 1 else 0)
        return i + 1
