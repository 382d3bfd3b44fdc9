"""Token kinds and the Token value the lexer produces and the parser consumes."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .diagnostics import Span


class T(str, Enum):
    """Token kinds. Operators and keywords are their own kinds; `OP`/`KW` hold the text."""

    NAME = "NAME"          # identifier (text in .text)
    KW = "KW"              # reserved word (text in .text): def, class, if, int, array, ...
    INT = "INT"            # .value: int (already parsed, two's complement for hex/bin)
    FLOAT = "FLOAT"        # .value: the decimal text (str), so literals can round per type
    CHAR = "CHAR"          # .value: int 0..255
    STRING = "STRING"      # .value: bytes (escapes processed)
    FSTRING = "FSTRING"    # .value: list of parts: bytes (text) or FPart (a field)
    OP = "OP"              # operator / punctuation (text in .text): + - ( ) <- .. ... $ etc.
    NEWLINE = "NEWLINE"
    INDENT = "INDENT"
    DEDENT = "DEDENT"
    EOF = "EOF"


@dataclass(frozen=True)
class FPart:
    """One `{expr[:spec]}` field of an f-string: the expression's source text and where it starts."""

    source: str          # the expression text, parsed later by the parser
    span: Span           # location of the expression text's first character
    spec: str | None     # text after the first top-level ':', or None


@dataclass(frozen=True)
class Token:
    kind: T
    text: str            # exact source text of the token ("" for NEWLINE/INDENT/DEDENT/EOF)
    span: Span
    value: object = None

    def is_op(self, *ops: str) -> bool:
        return self.kind is T.OP and self.text in ops

    def is_kw(self, *kws: str) -> bool:
        return self.kind is T.KW and self.text in kws

    def __repr__(self) -> str:  # compact, used by --emit tokens
        v = "" if self.value is None else f" {self.value!r}"
        return f"{self.span.line}:{self.span.col} {self.kind.value} {self.text!r}{v}"


KEYWORDS = frozenset(
    """and as async asyncs break class continue ctor def elif else false finish for from gpu if
    import in kernel launch layout lock main mapit new nil not offby or pass proto reduce return
    scan self spawn super true var void while xor""".split()
)
TYPE_KEYWORDS = frozenset(
    "int i8 i16 i32 i64 u8 u16 u32 u64 float f64 bf16 half bool char str any array map tuple channel "
    "Function".split()
)
# Scalar type names usable as member names after '.' and as method names (2.3).
SCALAR_TYPE_NAMES = frozenset("int i8 i16 i32 i64 u8 u16 u32 u64 float f64 bf16 half bool char str any".split())
PREDECLARED = frozenset(("tid", "tN", "tHW"))
KERNEL_PREDECLARED = frozenset("tx ty tz bx by bz bdx bdy bdz gdx gdy gdz warp lane".split())

# Longest match first. '>>' is split by the parser inside type argument lists.
OPERATORS = sorted(
    """+ - * / // % /| @ & | << >> <| |> == != < <= > >= ! = += -= *= /= //= %= <- ( ) [ ] { } , .
    : .. ... $""".split(),
    key=len,
    reverse=True,
)
