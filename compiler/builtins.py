"""Intrinsics of the standard library (LANGUAGE.md 14): checking of calls and methods.

Each intrinsic checks its arguments and returns a tir.Builtin whose name lowering dispatches on.
"""
from __future__ import annotations

import math

from . import ast as A
from . import tir as T
from .check_expr import Abandon, is_lit_expr, similar
from .types import (ArrayT, FixedT, Prim, TupleT, Type, INT, FLOAT, F64, BOOL, CHAR, STR, VOID,
                    BF16, is_int, is_float, is_numeric, common_numeric)

MATH1 = ("sqrt", "exp", "log", "log2", "sin", "cos", "tanh", "floor", "ceil", "round")

# name -> (parameter types, defaults (ast-free constants), result, raises)
FIXED: dict[str, tuple[tuple[Type, ...], tuple, Type, bool]] = {
    "flush": ((), (), VOID, False),
    "argv": ((), (), ArrayT(STR), False),
    "getenv": ((STR, STR), (b"",), STR, False),
    "exit": ((INT,), (), VOID, False),
    "start_timer": ((), (), VOID, False),
    "end_timer": ((), (), FLOAT, False),
    "clock": ((), (), F64, False),
    "time": ((), (), F64, False),
    "sleep": ((F64,), (), VOID, False),
    "arange_int": ((INT, INT, INT), (1,), ArrayT(INT), True),
    "arange_float": ((FLOAT, FLOAT, FLOAT), (1.0,), ArrayT(FLOAT), True),
    "zeros_int": ((INT,), (), ArrayT(INT), False),
    "ones_int": ((INT,), (), ArrayT(INT), False),
    "zeros_float": ((INT,), (), ArrayT(FLOAT), False),
    "ones_float": ((INT,), (), ArrayT(FLOAT), False),
    "to_char": ((INT,), (), CHAR, False),
    "float_to_bf16": ((FLOAT,), (), BF16, False),
    "bf16_to_float": ((BF16,), (), FLOAT, False),
}
BUILTIN_NAMES = set(FIXED) | {"print", "printl", "eprint", "len", "min", "max", "abs", "pow",
                              "isnan", "isinf", "to_int", "to_float", "to_f64", "assert",
                              "pi", "inf", "nan"} | set(MATH1)


def builtin_value(ck, e: A.Name, expected):
    """Names used as values: the constants pi, inf, nan (adapting to f64 like literals)."""
    if e.id in ("pi", "inf", "nan"):
        v = {"pi": math.pi, "inf": math.inf, "nan": math.nan}[e.id]
        t = F64 if expected == F64 else FLOAT
        return T.Const(t, e.span, v)
    if e.id in BUILTIN_NAMES:
        ck.fail(e.span, f"'{e.id}' is a built-in function; call it")
    return None


def check_call(ck, e: A.Call, expected) -> T.Expr:
    f = e.func
    if isinstance(f, A.Attribute):
        return check_method(ck, e, f, expected)
    if isinstance(f, A.Name) and (ck.scope is None or ck.scope.lookup(f.id) is None):
        if f.id in ck.functions:
            return call_user(ck, e, ck.functions[f.id])
        if f.id in BUILTIN_NAMES:
            return call_builtin(ck, e, f.id, expected)
        cands = list(ck.functions) + sorted(BUILTIN_NAMES)
        s = similar(f.id, cands)
        ck.fail(f.span, f"unknown function '{f.id}'", f"did you mean '{s}'?" if s else None)
    callee = ck.expr(f)
    ck.fail(e.span, f"cannot call a value of type {callee.type}")


def call_site(e: A.Call):
    """Where a call is reported: the callee's name (`f` in `f(x)`, `m` in `x.m()`)."""
    return e.func.span if isinstance(e.func, (A.Name, A.Attribute)) else e.span


def bind_args(ck, e: A.Call, names: list[str], fname: str) -> list:
    """Positional then keyword binding (6.1): returns one ast.Expr or None per parameter."""
    out = [None] * len(names)
    pos = 0
    for a in e.args:
        if a.split:
            ck.fail(a.span, "split arguments are only allowed in asyncs calls")
        if a.keyword is None:
            if pos >= len(names):
                ck.fail(a.span, f"too many arguments for {fname} (expected at most {len(names)})")
            out[pos] = a.value
            pos += 1
        else:
            if a.keyword not in names:
                ck.fail(a.span, f"unknown keyword argument '{a.keyword}' of {fname}")
            i = names.index(a.keyword)
            if out[i] is not None:
                ck.fail(a.span, f"argument '{a.keyword}' of {fname} given twice")
            out[i] = a.value
    return out


def call_user(ck, e: A.Call, fn: T.FuncSym) -> T.Expr:
    bound = bind_args(ck, e, [p.name for p in fn.params], fn.name)
    # Arguments are evaluated as written (4.1): when keywords reorder them, evaluate each
    # into a temporary first.
    written = [a.value for a in e.args]
    reordered = [a for a in bound if a is not None] != written
    pre: list[T.Stmt] = []
    args = []
    for i, (p, a) in enumerate(zip(fn.params, bound)):
        if a is None:
            d = fn.defaults[i]
            if d is None:
                ck.fail(e.span, f"missing argument '{p.name}' of {fn.name}")
            saved = ck.scope
            ck.scope = None
            try:
                args.append(ck.coerce(ck.expr(d, expected=p.type), p.type, d.span))
            finally:
                ck.scope = saved
            continue
        x = ck.coerce(ck.expr(a, expected=p.type), p.type, a.span, f"argument {i + 1} of {fn.name}")
        if reordered:
            tmp = T.Var(f".arg{i}", p.type, a.span)
            pre.append((written.index(a), T.Decl(a.span, tmp, x)))
            x = T.Local(p.type, a.span, tmp)
        args.append(x)
    if ck.cur_func is not None:
        ck.cur_func.calls.add(fn)
    call = T.CallFn(fn.ret, call_site(e), fn, args)
    if pre:
        return T.Seq(fn.ret, call.span, [d for _, d in sorted(pre, key=lambda x: x[0])], call)
    return call


def plain_args(ck, e: A.Call, fname: str, lo: int, hi: int) -> list:
    for a in e.args:
        if a.keyword or a.split:
            ck.fail(a.span, f"{fname} takes positional arguments only")
    n = len(e.args)
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        ck.fail(e.span, f"{fname} takes {want} argument{'s' if hi != 1 else ''}, got {n}")
    return [a.value for a in e.args]


def num_arg(ck, a, what: str) -> T.Expr:
    x = ck.expr(a)
    if not (is_numeric(x.type) or x.type == CHAR):
        ck.fail(a.span, f"{what}: expected a number, got {x.type}")
    return x


def call_builtin(ck, e: A.Call, name: str, expected) -> T.Expr:
    sp = call_site(e)
    if name in ("print", "printl", "eprint"):
        args = []
        for a in e.args:
            if a.keyword or a.split:
                ck.fail(a.span, f"{name} takes positional arguments only")
            args.append(ck.expr(a.value))
        return T.Builtin(VOID, sp, "print", args, (name != "printl", 2 if name == "eprint" else 1))
    if name in FIXED:
        ptypes, defaults, ret, raises = FIXED[name]
        n_req = len(ptypes) - len(defaults)
        vals = plain_args(ck, e, name, n_req, len(ptypes))
        args = [ck.coerce(ck.expr(v, expected=t), t, v.span, f"argument {i + 1} of {name}")
                for i, (v, t) in enumerate(zip(vals, ptypes))]
        for t, d in zip(ptypes[len(vals):], defaults[len(vals) - n_req:]):
            args.append(T.Const(t, sp, d))
        if raises:
            ck.mark_raises()
        return T.Builtin(ret, sp, name, args)
    if name == "len":
        (a,) = plain_args(ck, e, name, 1, 1)
        x = ck.expr(a)
        if isinstance(x.type, TupleT):
            return T.Const(INT, sp, len(x.type.elems))
        if isinstance(x.type, FixedT):
            return T.Const(INT, sp, x.type.n)
        if x.type == STR:
            return T.Builtin(INT, sp, "str.size", [x])
        if isinstance(x.type, ArrayT):
            return T.Builtin(INT, sp, "array.len", [x])
        ck.fail(a.span, f"len of {x.type} is not defined")
    if name in ("min", "max"):
        a, b = plain_args(ck, e, name, 2, 2)
        x, y = typed_pair(ck, a, b, name)
        ct = common_numeric(x.type, y.type)
        return T.Builtin(ct, sp, name, [ck.cast(x, ct), ck.cast(y, ct)])
    if name == "abs":
        (a,) = plain_args(ck, e, name, 1, 1)
        x = num_arg(ck, a, "abs")
        t = common_numeric(x.type, x.type)
        return T.Builtin(t, sp, "abs", [ck.cast(x, t)])
    if name == "pow":
        a, b = plain_args(ck, e, name, 2, 2)
        x, y = typed_pair(ck, a, b, name)
        if is_int(x.type) and is_int(y.type):
            ck.mark_raises()
            return T.Builtin(INT, sp, "pow_int", [ck.cast(x, INT), ck.cast(y, INT)])
        t = F64 if F64 in (x.type, y.type) else FLOAT
        return T.Builtin(t, sp, "pow", [ck.cast(x, t), ck.cast(y, t)])
    if name in MATH1 or name in ("isnan", "isinf"):
        (a,) = plain_args(ck, e, name, 1, 1)
        x = ck.expr(a, expected=expected if expected in (F64, FLOAT) else None)
        if not (is_numeric(x.type)):
            ck.fail(a.span, f"argument 1 of {name}: expected a number, got {x.type}")
        t = F64 if x.type == F64 else FLOAT
        return T.Builtin(BOOL if name in ("isnan", "isinf") else t, sp, name, [ck.cast(x, t)])
    if name in ("to_int", "to_float", "to_f64"):
        (a,) = plain_args(ck, e, name, 1, 1)
        x = ck.expr(a)
        dst = {"to_int": INT, "to_float": FLOAT, "to_f64": F64}[name]
        if x.type == STR:
            ck.mark_raises()
            return T.Builtin(dst, sp, name, [x])
        if is_numeric(x.type) or x.type in (CHAR, BOOL):
            return T.Cast(dst, sp, x)
        ck.fail(a.span, f"argument 1 of {name}: expected str or a number, got {x.type}")
    if name == "assert":
        vals = plain_args(ck, e, name, 1, 2)
        cond = ck.condition(vals[0])
        msg = ck.coerce(ck.expr(vals[1]), STR, vals[1].span) if len(vals) > 1 else \
            T.Const(STR, sp, b"")
        ck.mark_raises()
        return T.Builtin(VOID, sp, "assert", [cond, msg])
    ck.fail(sp, f"'{name}' cannot be called like this")


def typed_pair(ck, a, b, name):
    if is_lit_expr(a) and not is_lit_expr(b):
        y = num_arg(ck, b, name)
        x = ck.literal_in(a, y.type) or num_arg(ck, a, name)
    elif is_lit_expr(b) and not is_lit_expr(a):
        x = num_arg(ck, a, name)
        y = ck.literal_in(b, x.type) or num_arg(ck, b, name)
    else:
        x, y = num_arg(ck, a, name), num_arg(ck, b, name)
    return x, y


# ------------------------------------------------------------------ methods of built-in types

ARRAY_METHODS = ("size", "append", "extend", "insert", "pop", "remove_at", "clear", "clone",
                 "contains", "index", "reverse", "sort", "sum", "prod", "min", "max", "print")
STR_METHODS = ("size", "split", "strip", "lstrip", "rstrip", "startswith", "endswith", "find",
               "contains", "count", "replace", "lower", "upper", "join", "print")


def check_method(ck, e: A.Call, f: A.Attribute, expected) -> T.Expr:
    obj = ck.expr(f.obj)
    t = obj.type
    m = f.name
    sp = call_site(e)
    if isinstance(t, ArrayT):
        return array_method(ck, e, obj, m, sp)
    if t == STR:
        return str_method(ck, e, obj, m, sp)
    if isinstance(t, FixedT) and m in ("size", "print"):
        plain_args(ck, e, m, 0, 0)
        if m == "size":
            return T.Const(INT, sp, t.n)
        return T.Builtin(VOID, sp, "print", [obj], (True, 1))
    if m == "print" and not e.args:
        return T.Builtin(VOID, sp, "print", [obj], (True, 1))
    ck.fail(f.span, f"no member '{m}' in {t}")


def array_method(ck, e, obj, m, sp) -> T.Expr:
    t: ArrayT = obj.type
    el = t.elem
    if m not in ARRAY_METHODS:
        s = similar(m, ARRAY_METHODS)
        ck.fail(e.func.span, f"no member '{m}' in {t}", f"did you mean '{s}'?" if s else None)
    ck.mark_raises()              # nil receiver
    one = lambda what, ty: [ck.coerce(ck.expr(v, expected=ty), ty, v.span, f"argument 1 of {what}")
                            for v in plain_args(ck, e, what, 1, 1)]
    if m == "size":
        plain_args(ck, e, m, 0, 0)
        return T.Builtin(INT, sp, "array.size", [obj])
    if m == "append":
        return T.Builtin(VOID, sp, "array.append", [obj] + one(m, el))
    if m == "extend":
        return T.Builtin(VOID, sp, "array.extend", [obj] + one(m, t))
    if m == "insert":
        i, v = plain_args(ck, e, m, 2, 2)
        return T.Builtin(VOID, sp, "array.insert", [
            obj, ck.coerce_int(ck.expr(i, expected=INT), i.span),
            ck.coerce(ck.expr(v, expected=el), el, v.span, "argument 2 of insert")])
    if m in ("pop", "clear", "clone", "reverse", "sort", "print"):
        plain_args(ck, e, m, 0, 0)
        ret = {"pop": el, "clone": t}.get(m, VOID)
        if m == "sort" and not (is_numeric(el) or el in (CHAR, STR, BOOL)):
            ck.fail(sp, f"cannot sort an array of {el}")
        if m == "print":
            return T.Builtin(VOID, sp, "print", [obj], (True, 1))
        return T.Builtin(ret, sp, "array." + m, [obj])
    if m == "remove_at":
        (i,) = plain_args(ck, e, m, 1, 1)
        return T.Builtin(el, sp, "array.remove_at", [obj, ck.coerce_int(ck.expr(i, expected=INT), i.span)])
    if m in ("contains", "index"):
        return T.Builtin(BOOL if m == "contains" else INT, sp, "array." + m, [obj] + one(m, el))
    if m in ("sum", "prod", "min", "max"):
        plain_args(ck, e, m, 0, 0)
        if not is_numeric(el):
            ck.fail(sp, f"{m}() needs an array of numbers, got {t}")
        opc = {"sum": 0, "prod": 1, "min": 2, "max": 3}[m]
        return T.Builtin(el, sp, "array.reduce", [obj], opc)
    ck.fail(sp, f"no member '{m}' in {t}")


def str_method(ck, e, obj, m, sp) -> T.Expr:
    if m not in STR_METHODS:
        s = similar(m, STR_METHODS)
        ck.fail(e.func.span, f"no member '{m}' in str", f"did you mean '{s}'?" if s else None)
    strarg = lambda v, i: ck.coerce(ck.expr(v), STR, v.span, f"argument {i} of {m}")
    if m in ("size", "strip", "lstrip", "rstrip", "lower", "upper", "print"):
        plain_args(ck, e, m, 0, 0)
        if m == "print":
            return T.Builtin(VOID, sp, "print", [obj], (True, 1))
        return T.Builtin(INT if m == "size" else STR, sp, "str." + m, [obj])
    if m == "split":
        vals = plain_args(ck, e, m, 0, 1)
        if not vals:
            return T.Builtin(ArrayT(STR), sp, "str.split_ws", [obj])
        sep = ck.expr(vals[0])
        if sep.type == CHAR:
            sep = T.StrCat(STR, sep.span, [sep])
        sep = ck.coerce(sep, STR, vals[0].span, "argument 1 of split")
        ck.mark_raises()
        return T.Builtin(ArrayT(STR), sp, "str.split", [obj, sep])
    if m in ("startswith", "endswith", "contains", "count"):
        (v,) = plain_args(ck, e, m, 1, 1)
        return T.Builtin(INT if m == "count" else BOOL, sp, "str." + m, [obj, strarg(v, 1)])
    if m == "find":
        vals = plain_args(ck, e, m, 1, 2)
        start = ck.coerce_int(ck.expr(vals[1], expected=INT), vals[1].span) if len(vals) > 1 \
            else T.Const(INT, sp, 0)
        return T.Builtin(INT, sp, "str.find", [obj, strarg(vals[0], 1), start])
    if m == "replace":
        a, b = plain_args(ck, e, m, 2, 2)
        return T.Builtin(STR, sp, "str.replace", [obj, strarg(a, 1), strarg(b, 2)])
    if m == "join":
        (v,) = plain_args(ck, e, m, 1, 1)
        parts = ck.coerce(ck.expr(v, expected=ArrayT(STR)), ArrayT(STR), v.span, "argument 1 of join")
        ck.mark_raises()
        return T.Builtin(STR, sp, "str.join", [obj, parts])
    ck.fail(sp, f"no member '{m}' in str")
