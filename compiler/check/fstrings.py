"""f-strings (10.3): fields with their parsed format specs."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from ..types import Type, STR, CHAR, is_int, is_numeric


def parse_spec(spec: str):
    """`[align][0][width][.precision][type]` -> (align, zero, width, precision, type), or None
    when malformed (10.3)."""
    i = 0
    align = None
    if spec[:1] in ("<", ">"):
        align, i = spec[0], 1
    zero = spec[i:i + 1] == "0"
    if zero:
        i += 1
    j = i
    while j < len(spec) and spec[j].isdigit():
        j += 1
    width = int(spec[i:j]) if j > i else 0
    i = j
    prec = None
    if spec[i:i + 1] == ".":
        j = i + 1
        while j < len(spec) and spec[j].isdigit():
            j += 1
        if j == i + 1:
            return None
        prec, i = int(spec[i + 1:j]), j
    kind = None
    if spec[i:i + 1] in ("d", "x", "f", "e"):
        kind, i = spec[i], i + 1
    if i != len(spec) or width > 10_000 or (prec or 0) > 1000:
        return None
    return align, zero, width, prec, kind



class FStringChecker:
    def ex_FStrLit(self, e: A.FStrLit, expected):
        """f-strings (10.3): text and fields, each field with its parsed spec."""
        args, parts = [], []
        for p in e.parts:
            if isinstance(p, bytes):
                parts.append(p)
                continue
            x = self.expr(p.expr)
            spec = None
            if p.spec is not None:
                spec = parse_spec(p.spec)
                if spec is None:
                    self.fail(p.span, f"malformed format spec '{p.spec}'",
                              "a spec is [<|>][0][width][.precision][d|x|f|e]")
                self.check_spec(spec, x.type, p)
            args.append(x)
            parts.append(spec)
        return T.Builtin(STR, e.span, "fstring", args, parts)

    def check_spec(self, spec, t: Type, p) -> None:
        align, zero, width, prec, kind = spec
        num = is_numeric(t) or t == CHAR
        if kind in ("d", "x") and not (is_int(t) or t == CHAR):
            self.fail(p.span, f"format '{kind}' needs an integer, got {t}")
        if kind in ("f", "e") and not is_numeric(t):
            self.fail(p.span, f"format '{kind}' needs a number, got {t}")
        if kind is None and prec is not None:
            self.fail(p.span, "a precision needs a type: write .Nf or .Ne")
        if zero and not num:
            self.fail(p.span, f"'0' padding is for numbers, not {t}")
        if prec is not None and kind in ("d", "x"):
            self.fail(p.span, f"format '{kind}' takes no precision")

