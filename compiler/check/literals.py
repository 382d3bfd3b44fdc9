"""Numeric literals and constant expressions (2.4, 3.3): adaptation to the expected type,
exact folding, range and finiteness checks."""
from __future__ import annotations

import math
import struct

from .. import ast as A
from .. import tir as T
from ..floats import round_decimal
from .symbols import CInt
from ..types import Type, INT, F64, CHAR, INT_RANGE, UNSIGNED_NAMES, is_float, is_int, is_numeric

ARITH = ("+", "-", "*", "/", "//", "%", "/|")


class _NotConst(Exception):
    """The expression is not a constant of the requested type."""


_LIT_MEMO: dict[int, tuple[object, bool]] = {}


def is_lit_expr(e) -> bool:
    """A numeric literal or an operation built only from numeric literals (3.3). Memoised by
    node, so checking a left-deep chain `a + a + ... + a` stays linear."""
    while isinstance(e, A.Paren):
        e = e.expr
    if isinstance(e, (A.IntLit, A.FloatLit)):
        return True
    hit = _LIT_MEMO.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if isinstance(e, A.Unary) and e.op in ("-", "+"):
        r = is_lit_expr(e.operand)
    elif isinstance(e, A.Binary) and e.op in ARITH + ("<<", ">>", "&", "|", "xor"):
        r = is_lit_expr(e.left) and is_lit_expr(e.right)
    else:
        return False
    if len(_LIT_MEMO) > 1_000_000:
        _LIT_MEMO.clear()
    _LIT_MEMO[id(e)] = (e, r)       # the node is kept alive, so its id is not reused
    return r


def finite_in(v: float, ty: Type) -> bool:
    """Whether v stays finite once rounded to float type ty (3.3: else an error)."""
    if math.isinf(v) or math.isnan(v):
        return False
    if ty == F64:
        return True
    if ty.name == "half":
        try:
            struct.pack("e", v)
            return True
        except OverflowError:
            return False
    if ty.name == "bf16":
        return abs(v) < 3.3961775292304957e38       # halfway to the next power: rounds to inf
    return not math.isinf(round_f32(v))


def out_of_range_literal(e, ty: Type):
    """The first float literal of the literal expression e that is itself not finite in float
    type ty (2.4), or None; only such a literal is an error, not a folded result (4.2)."""
    while isinstance(e, A.Paren):
        e = e.expr
    if isinstance(e, A.FloatLit):
        return None if finite_in(round_decimal(e.text, ty.name), ty) else e
    if isinstance(e, A.Unary):
        return out_of_range_literal(e.operand, ty)
    if isinstance(e, A.Binary):
        return out_of_range_literal(e.left, ty) or out_of_range_literal(e.right, ty)
    return None


def round_f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)



class LiteralChecker:
    def const_int(self, e) -> int | None:
        """Value of a constant integer expression (3.3), or None."""
        try:
            v = self.fold(e, INT)
        except (ZeroDivisionError, _NotConst):
            return None
        return v if isinstance(v, int) else None

    # ------------------------------------------------------------ constant folding (3.3)
    def fold(self, e, ty: Type):
        """Evaluate a literal expression with its literals taking type `ty` (exact Python
        ints for integer types, floats rounded per step for `float`)."""
        while isinstance(e, A.Paren):
            e = e.expr
        if isinstance(e, A.IntLit):
            if e.value < 0 and ty.name in UNSIGNED_NAMES:
                return e.value + 2**64      # a 64-bit hex/binary literal, read unsigned (2.4)
            return float(e.value) if is_float(ty) else e.value
        if isinstance(e, A.Name) and isinstance(self.env.get(e.id), CInt):
            return self.env[e.id].value          # a compile-time parameter (docs/phase2.md)
        if isinstance(e, A.FloatLit):
            if not is_float(ty):
                raise _NotConst()
            return round_decimal(e.text, ty.name)
        if isinstance(e, A.Unary) and e.op in ("-", "+"):
            v = self.fold(e.operand, ty)
            return -v if e.op == "-" else v
        if isinstance(e, A.Binary):
            a, b = self.fold(e.left, ty), self.fold(e.right, ty)
            op = e.op
            if is_float(ty):
                if op == "+": r = a + b
                elif op == "-": r = a - b
                elif op == "*": r = a * b
                elif op == "/": r = a / b if b != 0 else (math.copysign(math.inf, a) if a else math.nan)
                else:
                    raise _NotConst()
                return round_f32(r) if ty != F64 else r
            if op == "/":
                raise _NotConst()
            if op == "+": return a + b
            if op == "-": return a - b
            if op == "*": return a * b
            if op == "//": return a // b
            if op == "%": return a % b
            if op == "/|": return -((-a) // b)
            if op == "&": return a & b
            if op == "|": return a | b
            if op == "xor": return a ^ b
            if op in ("<<", ">>"):
                raise _NotConst()
        raise _NotConst()

    def literal_in(self, e, ty: Type) -> T.Expr | None:
        """The literal expression e adapted to numeric type ty, or None if it does not fit."""
        if not (is_numeric(ty) or ty == CHAR):
            return None
        try:
            v = self.fold(e, ty)
        except (ZeroDivisionError, _NotConst):
            return None
        if ty == CHAR or is_int(ty):
            if not isinstance(v, int):
                return None
            lo, hi = INT_RANGE[ty.name]
            if not lo <= v <= hi:
                return None
            return T.Const(ty, e.span, v)
        if out_of_range_literal(e, ty) is not None:
            return None
        # 4.2: float arithmetic never fails, folded or not, so `1e300 * 1e10` is inf
        return T.Const(ty, e.span, v)

    def adapt_literal(self, e, ty: Type) -> T.Expr:
        """Check literal expression e where ty is expected: adapt, or report why not."""
        c = self.literal_in(e, ty)
        if c is not None:
            return c
        try:
            v = self.fold(e, ty)
        except ZeroDivisionError:
            return self.expr_plain(e)
        except _NotConst:
            return self.expr_plain(e)
        if isinstance(v, int) and (is_int(ty) or ty == CHAR):
            self.fail(e.span, f"constant {v} does not fit in {ty}")
        if isinstance(v, float):
            bad = out_of_range_literal(e, ty)
            if bad is not None:
                self.fail(bad.span, f"float literal is not finite in {ty}")
        return self.expr_plain(e)

