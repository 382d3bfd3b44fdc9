"""Integer and string constants of a header: object-like `#define`s and enumerators.

Each becomes a foreign constant in the bindings (`proto i32 Z_OK = 0`, used as `zlib.Z_OK`;
docs/interop.md). A value is
evaluated only when it is an integer or string literal or an integer expression over
literals and other such constants (`(SQLITE_IOERR | (1<<8))`); anything else (types,
attributes, casts, calls) is not a constant and is left out.
"""
from __future__ import annotations

import re

# i32 when C's `int` holds the value (the type of most C constants), else `int`.
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

_TOKEN = re.compile(r"""\s*(?:
    (?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)(?P<suffix>[uUlL]*)(?![\w.])
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<chr>'(?:[^'\\\n]|\\.)+')
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op><<|>>|[-+~!*/%&|^()])
)""", re.X)

_BINARY = {
    "*": (10, lambda a, b: a * b), "/": (10, None), "%": (10, None),
    "+": (9, lambda a, b: a + b), "-": (9, lambda a, b: a - b),
    "<<": (8, lambda a, b: a << b if 0 <= b < 64 else None),
    ">>": (8, lambda a, b: a >> b if 0 <= b < 64 else None),
    "&": (5, lambda a, b: a & b), "^": (4, lambda a, b: a ^ b), "|": (3, lambda a, b: a | b),
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'",
            "a": "\a", "b": "\b", "f": "\f", "v": "\v", "?": "?"}


class NotConstant(Exception):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    out, i = [], 0
    text = text.strip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            raise NotConstant(text)
        kind = m.lastgroup if m.lastgroup != "suffix" else "num"
        if m.group("num") is not None:
            kind = "num"
        out.append((kind, m.group(kind)))
        i = m.end()
        while i < len(text) and text[i].isspace():
            i += 1
    return out


class Evaluator:
    """Values of constant expressions; `lookup(name)` gives another constant's value or
    raises NotConstant."""

    def __init__(self, lookup) -> None:
        self.lookup = lookup

    def value(self, text: str):
        """An int, a str (adjacent literals joined) or NotConstant."""
        toks = tokenize(text)
        if not toks:
            raise NotConstant(text)
        if all(k == "str" for k, _ in toks):
            return "".join(_unescape(v[1:-1]) for _, v in toks)
        self.toks, self.i = toks, 0
        v = self._expr(0)
        if self.i != len(toks):
            raise NotConstant(text)
        return v

    def _expr(self, min_prec: int) -> int:
        left = self._unary()
        while self.i < len(self.toks):
            kind, op = self.toks[self.i]
            if kind != "op" or op not in _BINARY or _BINARY[op][0] < min_prec:
                break
            prec, fn = _BINARY[op]
            self.i += 1
            right = self._expr(prec + 1)
            if fn is None:                              # C division truncates toward zero
                if right == 0:
                    raise NotConstant(op)
                q = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
                left = q if op == "/" else left - q * right
            else:
                left = fn(left, right)
                if left is None:
                    raise NotConstant(op)
        return left

    def _unary(self) -> int:
        if self.i >= len(self.toks):
            raise NotConstant("end")
        kind, v = self.toks[self.i]
        self.i += 1
        if kind == "op" and v in "-+~!":
            x = self._unary()
            return {"-": -x, "+": x, "~": ~x, "!": int(not x)}[v]
        if kind == "op" and v == "(":
            x = self._expr(0)
            if self.i >= len(self.toks) or self.toks[self.i] != ("op", ")"):
                raise NotConstant("(")
            self.i += 1
            return x
        if kind == "num":
            if len(v) > 1 and v[0] == "0" and v[1] in "xXbB":
                return int(v, 0)
            return int(v, 8) if len(v) > 1 and v[0] == "0" else int(v)
        if kind == "chr":
            text = _unescape(v[1:-1])
            if len(text) != 1:
                raise NotConstant(v)
            return ord(text)
        if kind == "name":
            x = self.lookup(v)
            if isinstance(x, int):
                return x
        raise NotConstant(v)


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "xX":
                m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
                if not m:
                    raise NotConstant(body)
                out.append(chr(int(m.group(0), 16) & 0xFF))
                i += 2 + m.end()
                continue
            if nxt in "01234567":
                m = re.match(r"[0-7]{1,3}", body[i + 1:])
                out.append(chr(int(m.group(0), 8) & 0xFF))
                i += 1 + m.end()
                continue
            if nxt not in _ESCAPES:
                raise NotConstant(body)
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def neve_literal(value) -> tuple[str, str] | None:
    """(Neve type, literal text) of a constant, or None when no Neve type holds it."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        if I32_MIN <= value <= I32_MAX:
            return "i32", str(value)
        if I64_MIN <= value <= I64_MAX:
            return "int", str(value)
        return None
    if "\0" in value:
        return None
    text = []
    for byte in value.encode("latin-1", errors="strict") if max(map(ord, value), default=0) < 256 \
            else value.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            text.append("\\" + ch)
        elif 32 <= byte <= 126:
            text.append(ch)
        else:
            text.append(f"\\x{byte:02x}")
    return "str", '"' + "".join(text) + '"'
