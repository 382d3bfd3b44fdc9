"""Expression checking: literal adaptation, operators (4.2-4.4), conversions (3.3), indexing."""
from __future__ import annotations

import math

from ..floats import round_decimal
from .literals import (LiteralChecker, is_lit_expr, round_f32)
from .fstrings import FStringChecker
from .call import builtin_value, check_call
from .suggest import similar
from .hints import mix_hint, unknown_name_hint

from .. import ast as A
from .. import tir as T
from ..diagnostics import Diagnostics, Span
from ..types import (ArrayT, BufferT, ChannelT, ClassT, FixedT, FuncT, MapT, Prim, TupleT, Type, INT, ERR,
                    FLOAT, F64, BOOL, CHAR, STR, VOID, NIL, ANY, PRIMS, is_int, is_float,
                    is_numeric, widens_to, common_numeric, mixes_signedness)

ARITH = ("+", "-", "*", "/", "//", "%", "/|")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")
OPNAME = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod",
          "/|": "ceildiv", "&": "and", "|": "or", "xor": "xor", "<<": "shl", ">>": "shr"}
FLT_MAX = 3.4028234663852886e38


class Abandon(Exception):
    """Stop checking the current statement after its error has been reported."""


def builtin_operand(t: Type) -> bool:
    """Types on which operators have built-in meanings (user definitions are tried first
    for all others, 6.5)."""
    return isinstance(t, Prim) and t.name != "any" or isinstance(t, (ArrayT, TupleT, FixedT))


def builtin_meaning(op: str, types: list[Type]) -> bool:
    """Whether `op` has a built-in meaning for these operand types (4.2-4.4, 10.2, 14.5); where it
    has none, a user definition may give it one even on built-in types (6.5)."""
    num = lambda t: is_numeric(t) or t == CHAR
    whole = lambda t: is_int(t) or t == CHAR
    if len(types) == 1:
        return op == "-" and num(types[0])
    lt, rt = types
    if op == "@":
        return False
    if op == "+" and STR in (lt, rt):
        return all(t in (STR, CHAR, BOOL) or is_numeric(t) for t in types)
    if op == "*" and lt == STR:
        return is_int(rt)
    if op == "/|":
        return whole(lt) and whole(rt)
    if op in ARITH:
        return num(lt) and num(rt)
    if op in COMPARE:
        if num(lt) and num(rt) or lt == rt == STR:
            return True
        return op in ("==", "!=") and (lt == rt and (lt == BOOL or lt.is_ref or
                                                     isinstance(lt, (ArrayT, TupleT, FixedT)))
                                       or NIL in (lt, rt))
    if op in ("&", "|", "xor"):
        return lt == rt == BOOL or whole(lt) and whole(rt)
    if op in ("<<", ">>"):
        return whole(lt) and whole(rt)
    return True


class ExprChecker(LiteralChecker, FStringChecker):
    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags
        self.scope = None
        self.cur_func: T.FuncSym | None = None

    # ------------------------------------------------------------ helpers
    def error(self, span: Span, msg: str, hint: str | None = None) -> None:
        self.diags.error(span, msg, hint)

    def fail(self, span: Span, msg: str, hint: str | None = None):
        # a message about a value of the error type follows one already reported (13.1:
        # no cascades), wherever the check that tripped on it sits
        if ERR.name not in msg:
            self.error(span, msg, hint)
        raise Abandon()

    def abandon(self):
        """Give up on the expression silently: what is wrong was reported already."""
        raise Abandon()

    def mark_raises(self) -> None:
        if self.cur_func is not None:
            self.cur_func.raises_directly = True

    def lookup_func(self, name: str):
        """A top-level function (FuncSym or GenericFunc) visible by `name` in this module."""
        ms = self.ms
        if name in ms.functions:
            return ms.functions[name]
        if name in ms.from_names:
            dscope, dn = ms.from_names[name]
            return dscope.functions.get(dn)
        if ms.std is not None:
            return ms.std.functions.get(name)
        return None

    def visible_function_names(self) -> list[str]:
        return list(self.ms.functions) + list(self.ms.from_names)

    # ------------------------------------------------------------ types
    def resolve_or_error(self, te, allow_void: bool = False) -> Type:
        """resolve_type, but after reporting a bad type go on with the error type, which
        converts silently to and from everything (no cascades)."""
        try:
            return self.resolve_type(te, allow_void)
        except Abandon:
            return ERR

    def resolve_type(self, te, allow_void: bool = False) -> Type:
        if isinstance(te, A.TypeName):
            n = te.name
            if te.module is not None or (n in self.env and not te.args):
                return self.resolve_named(te)
            if n == "void":
                if not allow_void:
                    self.fail(te.span, "'void' is only a return type")
                return VOID
            if n in PRIMS:
                return PRIMS[n]
            if n == "array":
                self._nargs(te, 1)
                return ArrayT(self.resolve_type(te.args[0]))
            if n == "map":
                self._nargs(te, 2)
                return MapT(self.resolve_type(te.args[0]), self.resolve_type(te.args[1]))
            if n == "tuple":
                if len(te.args) < 2:
                    self.fail(te.span, "a tuple type needs at least two element types")
                return TupleT(tuple(self.resolve_type(a) for a in te.args))
            if n == "channel":
                self._nargs(te, 1)
                return ChannelT(self.resolve_type(te.args[0]))
            if n == "Function":
                if not te.args:
                    self.fail(te.span, "Function needs a return type: Function<R, A...>")
                return FuncT(self.resolve_type(te.args[0], allow_void=True),
                             tuple(self.resolve_type(a) for a in te.args[1:]))
            return self.resolve_named(te)
        if isinstance(te, A.BufferType):
            return BufferT(self.resolve_type(te.elem))
        if isinstance(te, A.FixedArrayType):
            elem = self.resolve_type(te.elem)
            n = self.const_int(te.size)
            if n is None:
                self.fail(te.size.span, "the size of a fixed array must be a constant integer")
            if n < 0:
                self.fail(te.size.span, "the size of a fixed array cannot be negative")
            return FixedT(elem, n)
        if isinstance(te, A.LayoutType):
            self.fail(te.span, "a layout is made with var: var v = layout<T, d0, ...>(...)",
                      "layout types name parameters only in gpu operators")
        self.fail(te.span, "unsupported type")

    def _nargs(self, te: A.TypeName, n: int) -> None:
        if len(te.args) != n:
            self.fail(te.span, f"{te.name} takes {n} type argument{'s' if n > 1 else ''}")

    # ------------------------------------------------------------ conversions
    def convertible(self, src: Type, dst: Type) -> bool:
        if src == dst or ERR in (src, dst):
            return True
        if src == NIL:
            return dst.is_ref
        if dst == ANY:
            return src.is_ref
        if isinstance(src, ClassT) and isinstance(dst, ClassT):
            return self.is_subclass(src, dst)      # 7.5: upcasts
        return widens_to(src, dst)

    def coerce(self, e: T.Expr, dst: Type, span: Span, what: str | None = None) -> T.Expr:
        """Implicit conversion of 3.3, or an error `expected DST, got SRC`."""
        src = e.type
        if src == dst:
            return e
        if ERR in (src, dst):
            return T.Cast(dst, e.span, e)
        if src == NIL and dst.is_ref:
            return T.Const(dst, e.span, None)
        if self.convertible(src, dst):
            return T.Cast(dst, e.span, e)
        if src == VOID:
            self.fail(span, "a void call has no value")
        prefix = f"{what}: " if what else ""
        hint = None
        if src == STR and (is_numeric(dst)):
            hint = f"parse text with to_{'int' if is_int(dst) else 'float'}(...)"
        elif is_numeric(src) and is_numeric(dst):
            hint = f"convert explicitly: {dst}(...)"
        self.fail(span, f"{prefix}expected {dst}, got {src}", hint)

    def coerce_int(self, e: T.Expr, span: Span) -> T.Expr:
        if not (is_int(e.type) or e.type == CHAR):
            self.fail(span, f"expected an integer, got {e.type}")
        return self.coerce(e, INT, span) if e.type != INT else e

    def condition(self, e) -> T.Expr:
        c = self.expr(e)
        return self.truth(c, e.span)

    def truth(self, c: T.Expr, span: Span) -> T.Expr:
        t = c.type
        if t == BOOL:
            return c
        if t == STR:
            self.fail(span, "a str is not a condition", "write s.size() > 0")
        if is_numeric(t) or t == CHAR:
            return T.Cmp(BOOL, c.span, "!=", c, T.Const(t, c.span, 0), t)
        if t.is_ref:
            return T.Cmp(BOOL, c.span, "!=", c, T.Const(t, c.span, None), t)
        self.fail(span, f"a {t} is not a condition")

    # ------------------------------------------------------------ expressions
    def expr(self, e, expected: Type | None = None, allow_void: bool = False) -> T.Expr:
        if expected is not None and (is_numeric(expected) or expected == CHAR) and is_lit_expr(e):
            r = self.adapt_literal(e, expected)
        else:
            r = self.expr_plain(e, expected)
        if r.type == ERR and not isinstance(e, A.Name):
            raise Abandon()
        if r.type == VOID and not allow_void:
            self.fail(e.span, "a void call has no value")
        return r

    def expr_plain(self, e, expected: Type | None = None) -> T.Expr:
        """Check e (without literal adaptation); an operand of the error type abandons the
        statement silently, its cause having been reported."""
        meth = getattr(self, "ex_" + type(e).__name__, None)
        if meth is None:
            self.fail(e.span, f"{type(e).__name__} expressions are not supported yet")
        return meth(e, expected)

    def ex_Paren(self, e: A.Paren, expected):
        return self.expr(e.expr, expected, allow_void=True)

    def ex_IntLit(self, e: A.IntLit, expected):
        if e.value > 2**63 - 1:
            self.fail(e.span, "integer literal too large",
                      "2^63 is only allowed right after unary minus; larger values only as a u64")
        return T.Const(INT, e.span, e.value)

    def ex_FloatLit(self, e: A.FloatLit, expected):
        v = round_decimal(e.text, "float")
        if math.isinf(v):
            self.fail(e.span, "float literal is not finite in float", "use f64")
        return T.Const(FLOAT, e.span, v)

    def ex_BoolLit(self, e: A.BoolLit, expected):
        return T.Const(BOOL, e.span, e.value)

    def ex_NilLit(self, e: A.NilLit, expected):
        if expected is not None and expected.is_ref:
            return T.Const(expected, e.span, None)
        return T.Const(NIL, e.span, None)

    def ex_CharLit(self, e: A.CharLit, expected):
        return T.Const(CHAR, e.span, e.value)

    def ex_StrLit(self, e: A.StrLit, expected):
        return T.Const(STR, e.span, e.value)

    def ex_Name(self, e: A.Name, expected):
        v = self.scope.lookup(e.id) if self.scope else None
        if v is not None:
            return T.Local(v.type, e.span, v)
        c = self.cparam_const(e.id, e.span)
        if c is not None:
            return c
        r = builtin_value(self, e, expected)
        if r is not None:
            return r
        f = self.lookup_func(e.id)
        if f is not None:
            return self.function_value(f, e)
        c = self.constant_use(self.ms, e.id, e.span)
        if c is None and e.id in self.ms.from_names:
            dscope, dn = self.ms.from_names[e.id]
            c = self.constant_use(dscope, dn, e.span)
        if c is not None:
            return c
        if e.id in self.ms.imports or e.id in self.ms.ambiguous:
            self.fail(e.span, f"'{e.id}' is a module; use its members as {e.id}.name")
        cands = (self.scope.visible_names() if self.scope else []) + self.visible_function_names()
        self.fail(e.span, f"unknown variable '{e.id}'", unknown_name_hint(self, e.id, cands))

    def ex_Unary(self, e: A.Unary, expected):
        if e.op == "not":
            return T.Unop(BOOL, e.span, "not", self.condition(e.operand))
        if e.op == "-" and isinstance(e.operand, A.IntLit) and e.operand.value == 2**63:
            return T.Const(INT, e.span, -(2**63))
        x = self.expr(e.operand)
        t = x.type
        if t == CHAR:
            x, t = T.Cast(INT, x.span, x), INT
        if not is_numeric(t) and e.op == "-":
            u = self.user_operator("-", [x], e.span)
            if u is not None:
                return u
        if not is_numeric(t):
            self.fail(e.span, f"operator '{e.op}' is not defined for {x.type}")
        if t.name in ("bf16", "half"):
            x, t = T.Cast(FLOAT, x.span, x), FLOAT
        if e.op == "+":
            return x
        return T.Unop(t, e.span, "neg", x)

    def ex_Logical(self, e: A.Logical, expected):
        l = self.expr(e.left)
        if not builtin_operand(l.type) and l.type != NIL:
            r = self.expr(e.right)
            u = self.user_operator(e.op, [l, r], e.span)   # 6.5: both evaluated, left first
            if u is not None:
                return u
            return T.Logic(BOOL, e.span, e.op, self.truth(l, e.left.span), self.truth(r, e.right.span))
        return T.Logic(BOOL, e.span, e.op, self.truth(l, e.left.span), self.condition(e.right))

    def ex_Binary(self, e: A.Binary, expected):
        if e.op in COMPARE:
            for side in (e.left, e.right):
                if isinstance(side, A.Binary) and side.op in COMPARE:
                    self.fail(e.span, "comparisons do not chain", "write a < b and b < c")
        if e.op == "offby":
            return self.offby(e)
        if (e.op in ARITH or e.op == "@") and self.layouts and self.layout_operand(e):
            self.fail(e.span, f"a gpu operator is called by the accumulating form z += a "
                              f"{e.op} b, not in an expression")
        lt, rt = is_lit_expr(e.left), is_lit_expr(e.right)
        if lt and not rt:
            r = self.expr(e.right)
            l = self.literal_in(e.left, r.type) or self.expr(e.left)
        elif rt and not lt:
            l = self.expr(e.left)
            r = self.literal_in(e.right, l.type) or self.expr(e.right)
        else:
            l = self.expr(e.left)
            r = self.expr(e.right)
        return self.apply_binary(e.op, l, r, e.span)

    def offby(self, e: A.Binary) -> T.Expr:
        """`p offby k`: a buffer k elements past p (p a buffer or a fixed array, 4.6)."""
        p = self.expr(e.left)
        k = self.coerce_int(self.expr(e.right, expected=INT), e.right.span)
        if isinstance(p.type, FixedT):
            if not self.is_lvalue(p):
                self.fail(e.left.span, "offby needs a fixed array variable or element")
            return T.Builtin(BufferT(p.type.elem), e.span, "offby_fixed", [p, k])
        if isinstance(p.type, BufferT):
            self.mark_raises()
            return T.Builtin(p.type, e.span, "offby_buffer", [p, k])
        self.fail(e.span, f"offby needs a buffer or a fixed array, got {p.type}")

    def binary_typed(self, op: str, left: T.Expr, right_ast, span: Span,
                     right_typed: T.Expr | None = None) -> T.Expr:
        """`left op right` where left is already typed (compound assignment, loop steps)."""
        if right_typed is None:
            if is_lit_expr(right_ast):
                r = self.literal_in(right_ast, left.type) or self.expr(right_ast)
            else:
                r = self.expr(right_ast)
        else:
            r = right_typed
        return self.apply_binary(op, left, r, span)

    def apply_binary(self, op: str, l: T.Expr, r: T.Expr, span: Span) -> T.Expr:
        lt, rt = l.type, r.type
        if ERR in (lt, rt):
            raise Abandon()
        if (not (builtin_operand(lt) and builtin_operand(rt)) or not builtin_meaning(op, [lt, rt])) \
                and NIL not in (lt, rt):
            u = self.user_operator(op, [l, r], span)
            if u is not None:
                return u
            if op == "!=":
                eq = self.user_operator("==", [l, r], span)
                if eq is not None:
                    if eq.type != BOOL:
                        self.fail(span, f"'!=' needs its own definition: '==' for {lt} and {rt} "
                                        f"returns {eq.type}")
                    return T.Unop(BOOL, span, "not", eq)
        num = lambda t: is_numeric(t) or t == CHAR
        if op == "*" and lt == STR and is_int(rt):      # 14.5: repetition
            self.mark_raises()
            return T.Builtin(STR, span, "str.repeat", [l, self.cast(r, INT)])
        if op == "+" and (lt == STR or rt == STR):
            ok = lambda t: t in (STR, CHAR, BOOL) or is_numeric(t)
            if ok(lt) and ok(rt):
                parts = (l.parts if isinstance(l, T.StrCat) else [l]) + [r]
                return T.StrCat(STR, span, parts)
            self.fail(span, f"operator '+' is not defined for {lt} and {rt}")
        if mixes_signedness(lt, rt) and op not in ("<<", ">>"):
            if op in COMPARE:
                self.fail(span, f"cannot compare {lt} and {rt}", mix_hint(lt, rt))
            self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}", mix_hint(lt, rt))
        if op in ARITH:
            if not (num(lt) and num(rt)):
                self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}")
            ct = common_numeric(lt, rt)
            if op == "/" and is_int(ct):
                ct = FLOAT
            if op == "/|" and not is_int(ct):
                self.fail(span, f"operator '/|' is not defined for {lt} and {rt}",
                          "'/|' is integer ceiling division")
            if is_int(ct) and op in ("//", "%", "/|"):
                self.mark_raises()
            return T.Binop(ct, span, OPNAME[op], self.cast(l, ct), self.cast(r, ct))
        if op in COMPARE:
            return self.compare(op, l, r, span)
        if op in ("&", "|", "xor"):
            if lt == BOOL and rt == BOOL:
                return T.Binop(BOOL, span, OPNAME[op], l, r)
            if is_int(lt) or lt == CHAR:
                if is_int(rt) or rt == CHAR:
                    ct = common_numeric(lt, rt)
                    return T.Binop(ct, span, OPNAME[op], self.cast(l, ct), self.cast(r, ct))
            self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}")
        if op in ("<<", ">>"):
            if (is_int(lt) or lt == CHAR) and (is_int(rt) or rt == CHAR):
                if lt == CHAR:
                    l, lt = self.cast(l, INT), INT
                return T.Binop(lt, span, OPNAME[op], l, self.cast(r, lt))
            self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}")
        self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}")

    def cast(self, e: T.Expr, t: Type) -> T.Expr:
        if e.type == t:
            return e
        if isinstance(e, T.Const) and e.value is not None and (is_numeric(t) or t == CHAR):
            v = e.value
            if is_float(t):
                v = float(v)
                v = v if t == F64 else round_f32(v)
            elif isinstance(v, bool):
                v = int(v)
            if isinstance(v, float) and is_int(t):
                return T.Cast(t, e.span, e)
            return T.Const(t, e.span, v)
        return T.Cast(t, e.span, e)

    def compare(self, op: str, l: T.Expr, r: T.Expr, span: Span) -> T.Expr:
        lt, rt = l.type, r.type
        num = lambda t: is_numeric(t) or t == CHAR
        if num(lt) and num(rt):
            ct = CHAR if lt == rt == CHAR else common_numeric(lt, rt)
            if ct.name in ("bf16", "half"):
                ct = FLOAT
            return T.Cmp(BOOL, span, op, self.cast(l, ct), self.cast(r, ct), ct)
        if lt == rt == STR:
            return T.Cmp(BOOL, span, op, l, r, STR)
        if op in ("==", "!="):
            if lt == rt == BOOL:
                return T.Cmp(BOOL, span, op, l, r, BOOL)
            if lt == NIL and rt.is_ref:
                return T.Cmp(BOOL, span, op, T.Const(rt, l.span, None), r, rt)
            if rt == NIL and lt.is_ref:
                return T.Cmp(BOOL, span, op, l, T.Const(lt, r.span, None), lt)
            if lt == rt == NIL:
                return T.Const(BOOL, span, op == "==")
            if lt == rt and isinstance(lt, (ArrayT, TupleT, FixedT)) or (lt == rt and lt.is_ref):
                return T.Cmp(BOOL, span, op, l, r, lt)
            if self.is_subclass(lt, rt) or self.is_subclass(rt, lt):   # 7.5: by identity
                ct = rt if self.is_subclass(lt, rt) else lt
                return T.Cmp(BOOL, span, op, self.coerce(l, ct, span), self.coerce(r, ct, span), ct)
        if lt == rt and isinstance(lt, (ArrayT, TupleT, FixedT)) or lt == BOOL == rt:
            self.fail(span, f"operator '{op}' is not defined for {lt} and {rt}",
                      "only == and != compare these")
        self.fail(span, f"cannot compare {lt} and {rt}")

    def ex_Index(self, e: A.Index, expected):
        obj = self.expr(e.obj)
        t = obj.type
        if isinstance(t, TupleT):
            i = self.const_int(e.index)
            if i is None:
                self.fail(e.index.span, "a tuple index must be a constant integer")
            n = len(t.elems)
            if not -n <= i < n:
                self.fail(e.index.span, f"tuple index {i} out of range for {t}")
            i %= n
            return T.IndexGet(t.elems[i], e.span, obj, T.Const(INT, e.index.span, i))
        if isinstance(t, MapT):
            k = self.coerce(self.expr(e.index, expected=t.key), t.key, e.index.span)
            self.mark_raises()
            return T.IndexGet(t.val, e.span, obj, k)
        idx = self.coerce_int(self.expr(e.index, expected=INT), e.index.span)
        if isinstance(t, (ArrayT, FixedT)):
            self.mark_raises()
            return T.IndexGet(t.elem, e.span, obj, idx)
        if t == STR:
            self.mark_raises()
            return T.IndexGet(CHAR, e.span, obj, idx)
        if isinstance(t, BufferT):
            self.mark_raises()
            return T.IndexGet(t.elem, e.span, obj, idx)
        self.fail(e.span, f"cannot index a value of type {t}")

    def ex_Slice(self, e: A.Slice, expected):
        obj = self.expr(e.obj)
        if not (isinstance(obj.type, ArrayT) or obj.type == STR):
            self.fail(e.span, f"cannot slice a value of type {obj.type}")
        lo = self.coerce_int(self.expr(e.lo, expected=INT), e.lo.span) if e.lo else None
        hi = self.coerce_int(self.expr(e.hi, expected=INT), e.hi.span) if e.hi else None
        if isinstance(obj.type, ArrayT):
            self.mark_raises()      # nil array
        return T.SliceGet(obj.type, e.span, obj, lo, hi)

    def ex_ArrayLit(self, e: A.ArrayLit, expected):
        if isinstance(expected, ArrayT):
            et = expected.elem
            elems = [self.coerce(self.expr(x, expected=et), et, x.span) for x in e.elems]
            return T.ArrayNew(expected, e.span, elems)
        if isinstance(expected, FixedT):
            if len(e.elems) != expected.n:
                self.fail(e.span, f"expected {expected.n} elements for {expected}, got {len(e.elems)}")
            et = expected.elem
            elems = [self.coerce(self.expr(x, expected=et), et, x.span) for x in e.elems]
            return T.FixedNew(expected, e.span, elems)
        if not e.elems:
            self.fail(e.span, "cannot infer the type of []", "declare the type: array<int> xs = []")
        elems = [self.expr(x) for x in e.elems]
        et = self.unify_elems(elems, "array elements")
        elems = [self.coerce(x, et, x.span) for x in elems]
        return T.ArrayNew(ArrayT(et), e.span, elems)

    def ex_MapLit(self, e: A.MapLit, expected):
        if isinstance(expected, MapT):
            kt, vt = expected.key, expected.val
            items = [(self.coerce(self.expr(k, expected=kt), kt, k.span),
                      self.coerce(self.expr(v, expected=vt), vt, v.span)) for k, v in e.items]
            return T.Builtin(expected, e.span, "map_lit", [x for kv in items for x in kv])
        if not e.items:
            self.fail(e.span, "cannot infer the type of {}", "declare the type: map<str, int> m = {}")
        keys = [self.expr(k) for k, _ in e.items]
        vals = [self.expr(v) for _, v in e.items]
        kt = self.unify_elems(keys, "map keys")
        vt = self.unify_elems(vals, "map values")
        items = [x for k, v in zip(keys, vals)
                 for x in (self.coerce(k, kt, k.span), self.coerce(v, vt, v.span))]
        return T.Builtin(MapT(kt, vt), e.span, "map_lit", items)

    def unify_elems(self, xs: list, what: str) -> Type:
        """The one type of literal elements (3.4): numbers widen to their common type, nil
        joins any reference type."""
        t = xs[0].type
        for x in xs[1:]:
            if x.type != t:
                if mixes_signedness(t, x.type):
                    self.fail(x.span, f"{what} must have one type: {t} and {x.type}",
                              mix_hint(t, x.type))
                if is_numeric(t) and is_numeric(x.type):
                    t = common_numeric(t, x.type)
                elif x.type == NIL and t.is_ref:
                    pass
                elif t == NIL and x.type.is_ref:
                    t = x.type
                elif self.common_base(t, x.type) is not None:
                    t = self.common_base(t, x.type)        # 7.5: the nearest common base
                else:
                    self.fail(x.span, f"{what} must have one type: {t} and {x.type}")
        if t == NIL:
            self.fail(xs[0].span, f"cannot infer the type of {what} that are all nil")
        return t

    def ex_TupleLit(self, e: A.TupleLit, expected):
        if isinstance(expected, TupleT) and len(expected.elems) == len(e.elems):
            elems = [self.coerce(self.expr(x, expected=t), t, x.span)
                     for x, t in zip(e.elems, expected.elems)]
        else:
            elems = [self.expr(x) for x in e.elems]
            for x in elems:
                if x.type == NIL:
                    self.fail(x.span, "cannot infer the type of nil in a tuple")
        return T.TupleNew(TupleT(tuple(x.type for x in elems)), e.span, elems)

    def ex_Convert(self, e: A.Convert, expected):
        dst = self.resolve_type(e.type)
        if isinstance(e.arg, A.Name) and e.arg.id in ("pi", "inf", "nan") and dst == F64:
            x = self.expr(e.arg, expected=F64)      # f64(pi): the constant adapts (14.3)
        else:
            x = self.expr(e.arg) if not is_lit_expr(e.arg) or not is_numeric(dst) else \
                (self.literal_in(e.arg, dst) or self.expr(e.arg))
        return self.explicit_convert(x, dst, e.type.span, e.arg.span)

    def explicit_convert(self, x: T.Expr, dst: Type, span: Span, arg_span: Span) -> T.Expr:
        src = x.type
        if src == dst:
            return x
        if dst == STR:
            return T.StrCat(STR, span, [x])
        num = lambda t: is_numeric(t) or t == CHAR
        if dst == BOOL:
            if src == STR:
                self.fail(span, "bool() of a str is not allowed", "write s.size() > 0")
            if num(src) or src.is_ref:
                return self.truth(x, arg_span)
        if num(dst):
            if src == STR:
                fn = "to_int" if is_int(dst) or dst == CHAR else "to_float"
                self.fail(span, f"cannot convert str to {dst}", f"parse text with {fn}(...)")
            if num(src) or src == BOOL:
                return T.Cast(dst, span, x)
        if self.convertible(src, dst):
            return self.coerce(x, dst, span)
        if src == ANY and dst.is_ref:
            self.mark_raises()
            return T.Cast(dst, span, x)
        if self.is_subclass(dst, src):              # 7.5: a checked downcast
            self.mark_raises()
            return T.Builtin(dst, span, "class_cast", [x], self.info_of(dst))
        self.fail(span, f"cannot convert {src} to {dst}")

    def ex_Call(self, e: A.Call, expected):
        if isinstance(e.func, (A.MultiIndex, A.AddrOf)):
            return self.tile_call(e)              # docs/phase2.md
        return check_call(self, e, expected)

    def ex_Fold(self, e: A.Fold, expected):
        x = self.expr(e.operand)
        if not isinstance(x.type, ArrayT) or not is_numeric(x.type.elem):
            self.fail(e.span, f"'{e.kind} {e.op}' needs an array of numbers, got {x.type}")
        self.mark_raises()
        opc = {"+": 0, "*": 1, "min": 2, "max": 3}[e.op]
        if e.kind == "reduce":
            return T.Builtin(x.type.elem, e.span, "array.reduce", [x], opc)
        return T.Builtin(x.type, e.span, "array.scan", [x], opc)

    def ex_MapIt(self, e: A.MapIt, expected):
        src = self.expr(e.operand)
        if not isinstance(src.type, ArrayT):
            self.fail(e.operand.span, f"mapit needs an array, got {src.type}")
        self.scope.push()
        if self.scope.lookup(e.var) is not None:
            self.fail(e.var_span, f"'{e.var}' is already declared in this function")
        var = T.Var(e.var, src.type.elem, e.var_span)
        self.scope.declare(var)
        body = self.expr(e.body)
        self.scope.pop()
        self.mark_raises()
        return T.Builtin(ArrayT(body.type), e.span, "array.mapit", [src, body], var)
