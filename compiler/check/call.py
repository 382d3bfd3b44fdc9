"""Calls: of user functions and methods (argument binding, 6.1), of values, and of the
intrinsics and built-in methods whose tables are in compiler/builtins.py (LANGUAGE.md 14).

Each intrinsic checks its arguments and returns a tir.Builtin whose name lowering dispatches on.
"""
from __future__ import annotations

import math

from .. import ast as A
from .. import tir as T
from ..builtins import (ARRAY_METHODS, BUILTIN_NAMES, CHANNEL_METHODS, FILE_METHODS, FILE_T, FIXED, FIXED_PARAM_NAMES, SB_T,
                        GENERIC_BUILTINS, KERNEL_CALLS, MAP_METHODS, MATH1, PHASE2_INTRINSICS,
                        STR_METHODS)
from .literals import is_lit_expr
from .sorting import check_sort
from .strbuilder import builder_method
from .suggest import similar
from .hints import mix_hint, unknown_function_hint
from ..types import (ArrayT, ChannelT, ClassT, FixedT, MapT, TupleT, ERR, INT, FLOAT, F64, BOOL, CHAR, STR, VOID, ANY,
                    is_int, is_numeric, common_numeric, mixes_signedness)


def builtin_value(ck, e: A.Name, expected):
    """Names used as values: the constants pi, inf, nan (adapting to f64 like literals)."""
    r = ck.kernel_index(e)                          # tx, bdx, warp, ... (12.2)
    if r is not None:
        return r
    if e.id in ("tid", "tN", "tHW"):                # 9.1
        return T.Builtin(INT, e.span, e.id, [])
    if e.id in ("pi", "inf", "nan"):
        v = {"pi": math.pi, "inf": math.inf, "nan": math.nan}[e.id]
        t = F64 if expected == F64 else FLOAT
        return T.Const(t, e.span, v)
    if e.id in BUILTIN_NAMES:
        ck.fail(e.span, f"'{e.id}' is a built-in function; call it")
    return None


def check_call(ck, e: A.Call, expected) -> T.Expr:
    f = e.func
    if e.cargs:                                     # f(x)<128> (docs/phase2.md)
        return ck.cparam_call(e)
    if isinstance(f, A.SuperRef):                   # 7.5
        return ck.super_ctor_call(e)
    if isinstance(f, A.Attribute) and isinstance(f.obj, A.SuperRef):
        return ck.super_method_call(e, f)
    if isinstance(f, A.Attribute):
        return check_method(ck, e, f, expected)
    if isinstance(f, A.Name) and (ck.scope is None or ck.scope.lookup(f.id) is None):
        fn = ck.lookup_func(f.id)
        if fn is not None:
            return ck.call_function(e, fn, f.targs, expected)
        cls = ck.lookup_class_name(f.id)
        if cls is not None:
            return ck.call_class_name(e, cls, f)
        alias = ck.lookup_alias(f.id) or ck.lookup_foreign(f.id)
        if alias is not None:                       # 3.5: an alias converts like its type
            vals = plain_args(ck, e, f.id, 1, 1)
            return ck.explicit_convert(ck.expr(vals[0]), alias, call_site(e), vals[0].span)
        if f.id in BUILTIN_NAMES or f.id in GENERIC_BUILTINS:
            return call_builtin(ck, e, f.id, expected)
        if f.id in KERNEL_CALLS:
            return ck.kernel_builtin(e, f.id, expected)
        if f.id in PHASE2_INTRINSICS:
            return ck.warp_intrinsic(e, f.id)
        if f.id in ck.ms.constants or f.id in ck.ms.from_names and \
                ck.ms.from_names[f.id][1] in ck.ms.from_names[f.id][0].constants:
            ck.fail(f.span, f"'{f.id}' is a C constant, not a function",
                    f"write {f.id} without parentheses")
        cands = ck.visible_function_names() + sorted(BUILTIN_NAMES)
        ck.fail(f.span, f"unknown function '{f.id}'", unknown_function_hint(f.id, cands))
    callee = ck.expr(f)
    return ck.call_value(e, callee)


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


def call_user(ck, e: A.Call, fn: T.FuncSym, receiver: T.Expr | None = None,
              skip_self: bool = False) -> T.Expr:
    """A call of a user function or method. `receiver` is the object of `x.m(...)` (bound to
    the first parameter); `skip_self` leaves the first parameter to the caller (ctors)."""
    ck.check_call_kind(e, fn)
    lead = 1 if receiver is not None or skip_self else 0
    params = fn.params[lead:]
    bound = bind_args(ck, e, [p.name for p in params], fn.name)
    # Arguments are evaluated as written (4.1): when keywords reorder them, evaluate each
    # into a temporary first.
    written = [a.value for a in e.args]
    reordered = [a for a in bound if a is not None] != written
    pre: list[T.Stmt] = []
    args = []
    for i, (p, a) in enumerate(zip(params, bound)):
        if a is None:
            d = fn.defaults[i + lead]
            if d is None:
                ck.fail(e.span, f"missing argument '{p.name}' of {fn.name}")
            saved = (ck.scope, ck.ctx_swap(fn.scope, fn.env, fn.owner))
            ck.scope = None
            try:
                args.append(ck.coerce(ck.expr(d, expected=p.type), p.type, d.span))
            finally:
                ck.scope = saved[0]
                ck.ctx_restore(saved[1])
            continue
        what = f"argument {i + 1} of {fn.name}"
        x = ck.foreign_arg(p.type, a, what) if fn.foreign is not None else \
            ck.coerce(ck.expr(a, expected=p.type), p.type, a.span, what)
        if reordered:
            tmp = T.Var(f".arg{i}", p.type, a.span)
            pre.append((written.index(a), T.Decl(a.span, tmp, x)))
            x = T.Local(p.type, a.span, tmp)
        args.append(x)
    if ck.cur_func is not None:
        ck.cur_func.calls.add(fn)
    if receiver is not None:
        args.insert(0, receiver)
    call = T.CallFn(fn.ret, call_site(e), fn, args)
    if receiver is not None and fn.owner is not None:
        call.recv_check = (e.func.name, str(fn.owner.type))
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


def fixed_args(ck, e: A.Call, fname: str, lo: int, hi: int) -> list:
    """Positional arguments, then keyword ones by the names of FIXED_PARAM_NAMES (6.1)."""
    names = FIXED_PARAM_NAMES.get(fname)
    if names is None or not any(a.keyword for a in e.args):
        return plain_args(ck, e, fname, lo, hi)
    vals: list = [None] * len(names)
    for i, a in enumerate(e.args):
        if a.split:
            ck.fail(a.span, f"{fname} takes no split arguments")
        if a.keyword is None:
            if any(b.keyword for b in e.args[:i]):
                ck.fail(a.span, "a positional argument after a keyword argument")
            vals[i] = a.value
            continue
        if a.keyword not in names:
            ck.fail(a.span, f"{fname} has no parameter '{a.keyword}'")
        k = names.index(a.keyword)
        if vals[k] is not None:
            ck.fail(a.span, f"argument '{a.keyword}' of {fname} given twice")
        vals[k] = a.value
    n = len(vals)
    while n and vals[n - 1] is None:
        n -= 1
    if n < lo or None in vals[:n]:
        ck.fail(e.span, f"{fname} needs its argument '{names[vals.index(None)]}'")
    return vals[:n]


def num_arg(ck, a, what: str) -> T.Expr:
    x = ck.expr(a)
    if not (is_numeric(x.type) or x.type == CHAR):
        ck.fail(a.span, f"{what}: expected a number, got {x.type}")
    return x


def call_builtin(ck, e: A.Call, name: str, expected) -> T.Expr:
    sp = call_site(e)
    if name in GENERIC_BUILTINS:
        return generic_builtin(ck, e, name)
    if name in ("print", "printl", "eprint"):
        args = []
        for a in e.args:
            if a.keyword or a.split:
                ck.fail(a.span, f"{name} takes positional arguments only")
            args.append(ck.expr(a.value))
        return T.Builtin(VOID, sp, "print", args, (name != "printl", 2 if name == "eprint" else 1))
    if name == "gpu_sync" and e.args:
        return ck.stream_sync(e)
    if name in FIXED:
        ptypes, defaults, ret, raises = FIXED[name]
        n_req = len(ptypes) - len(defaults)
        vals = fixed_args(ck, e, name, n_req, len(ptypes))
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
        if isinstance(x.type, MapT):
            ck.mark_raises()
            return T.Builtin(INT, sp, "map.size", [x])
        if isinstance(x.type, ChannelT):
            ck.mark_raises()
            return T.Builtin(INT, sp, "chan.size", [x])
        ck.fail(a.span, f"len of {x.type} is not defined")
    if name in ("min", "max"):
        a, b = plain_args(ck, e, name, 2, 2)
        x, y = typed_pair(ck, a, b, name)
        if mixes_signedness(x.type, y.type):
            ck.fail(sp, f"{name} of {x.type} and {y.type}: no common type", mix_hint(x.type, y.type))
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
        if is_int(x.type) and is_int(y.type) and not ck.in_kernel():
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
    if name == "sorted":                # 14.4: an intrinsic, the array first, then options
        if not e.args or e.args[0].keyword or e.args[0].split:
            ck.fail(sp, "sorted takes the array first: sorted(a, key = f, reverse = true)")
        x = ck.expr(e.args[0].value)
        if not isinstance(x.type, ArrayT):
            ck.fail(e.args[0].span, f"sorted needs an array, got {x.type}")
        return check_sort(ck, e, x, e.args[1:], sp, copy=True)
    if name == "assert":
        vals = plain_args(ck, e, name, 1, 2)
        cond = ck.condition(vals[0])
        msg = ck.coerce(ck.expr(vals[1]), STR, vals[1].span) if len(vals) > 1 else \
            T.Const(STR, sp, b"")
        ck.mark_raises()
        return T.Builtin(VOID, sp, "assert", [cond, msg])
    ck.fail(sp, f"'{name}' cannot be called like this")


def generic_builtin(ck, e: A.Call, name: str) -> T.Expr:
    sp = call_site(e)
    targs = e.func.targs
    if len(targs) != 1:
        ck.fail(sp, f"{name} takes one type argument: {name}<T>(...)")
    t = ck.resolve_type(targs[0])
    (a,) = plain_args(ck, e, name, 1, 1)
    if name == "isa":
        x = ck.expr(a)
        if x.type.is_ref and x.type != ANY:         # a reference converts to any (3.3)
            x = ck.coerce(x, ANY, a.span)
        if x.type != ANY:
            if not ck.convertible(x.type, ANY):     # a reference converts to any (3.3)
                ck.fail(a.span, f"isa<{t}> needs an any, got {x.type}")
            x = ck.coerce(x, ANY, a.span)
        return T.Builtin(BOOL, sp, "isa", [x], t)
    n = ck.coerce_int(ck.expr(a, expected=INT), a.span)
    if name == "ones" and not is_numeric(t):
        ck.fail(sp, f"ones<{t}>: a number type is needed")
    return T.Builtin(ArrayT(t), sp, name, [n], t)


def map_method(ck, e, obj, m, sp) -> T.Expr:
    t: MapT = obj.type
    ck.mark_raises()              # nil receiver
    key = lambda v: ck.coerce(ck.expr(v, expected=t.key), t.key, v.span, f"argument 1 of {m}")
    if m in ("size", "keys", "values", "clear", "print"):
        plain_args(ck, e, m, 0, 0)
        if m == "print":
            return T.Builtin(VOID, sp, "print", [obj], (True, 1))
        ret = {"size": INT, "keys": ArrayT(t.key), "values": ArrayT(t.val)}.get(m, VOID)
        return T.Builtin(ret, sp, "map." + m, [obj])
    if m in ("has", "remove"):
        (k,) = plain_args(ck, e, m, 1, 1)
        return T.Builtin(BOOL, sp, "map." + m, [obj, key(k)])
    vals = plain_args(ck, e, m, 1, 2)
    if len(vals) == 1:
        return T.Builtin(TupleT((t.val, BOOL)), sp, "map.get_pair", [obj, key(vals[0])])
    d = ck.coerce(ck.expr(vals[1], expected=t.val), t.val, vals[1].span, "argument 2 of get")
    return T.Builtin(t.val, sp, "map.get_default", [obj, key(vals[0]), d])


def file_method(ck, e, obj, m, sp) -> T.Expr:
    if m not in FILE_METHODS:
        ck.fail(e.func.span, f"no member '{m}' in File")
    ptypes, ret = FILE_METHODS[m]
    vals = plain_args(ck, e, m, len(ptypes), len(ptypes))
    args = [ck.coerce(ck.expr(v), t, v.span, f"argument {i + 1} of {m}")
            for i, (v, t) in enumerate(zip(vals, ptypes))]
    if m != "opened":
        ck.mark_raises()
    return T.Builtin(ret, sp, "file." + m, [obj] + args)


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


def check_method(ck, e: A.Call, f: A.Attribute, expected) -> T.Expr:
    o = f.obj
    if isinstance(o, A.Name) and (ck.scope is None or ck.scope.lookup(o.id) is None):
        if o.id in ck.ms.imports or o.id in ck.ms.ambiguous:
            scope = ck.import_scope(o.id, o.span)
            fn = scope.functions.get(f.name)
            if fn is None and f.name in scope.foreign:      # `mod.T(a)` from an any (3.3)
                vals = plain_args(ck, e, f.name, 1, 1)
                return ck.explicit_convert(ck.expr(vals[0]), scope.foreign[f.name], call_site(e),
                                           vals[0].span)
            if fn is None and scope is ck.ms.std and (f.name in BUILTIN_NAMES or
                                                      f.name in GENERIC_BUILTINS):
                return call_builtin(ck, A.Call(e.span, A.Name(f.span, f.name, f.targs), e.args),
                                    f.name, expected)
            if fn is None and f.name in scope.constants:
                ck.fail(f.span, f"'{o.id}.{f.name}' is a C constant, not a function",
                        f"write {o.id}.{f.name} without parentheses")
            if fn is None:
                ck.fail(f.span, f"module '{o.id}' has no function '{f.name}'")
            return ck.call_function(e, fn, f.targs, expected)
        info = ck.lookup_class_name(o.id)
        if info is not None:
            m = ck.info_of(info.type).methods.get(f.name)
            if m is None:
                ck.fail(f.span, f"no method '{f.name}' in {info.type}")
            return call_user(ck, e, m)
    obj = ck.expr(f.obj)
    t = obj.type
    m = f.name
    sp = call_site(e)
    if t == ERR:                       # already reported (13.1: no cascades)
        ck.abandon()
    if isinstance(t, ClassT) and t in ck.classes_by_type:
        r = ck.method_call(e, f, obj, expected)
        if r is not None:
            return r
    if isinstance(t, ArrayT) and m in ARRAY_METHODS:
        return array_method(ck, e, obj, m, sp)
    if t == STR and m in STR_METHODS:
        return str_method(ck, e, obj, m, sp)
    if isinstance(t, MapT) and m in MAP_METHODS:
        return map_method(ck, e, obj, m, sp)
    if t == FILE_T:
        return file_method(ck, e, obj, m, sp)
    if t == SB_T:
        return builder_method(ck, e, obj, m, sp, f.span)
    if isinstance(t, ChannelT) and m in CHANNEL_METHODS:
        return ck.channel_method(e, obj, m, sp)
    r = ck.named_method(e, f, obj)
    if r is not None:
        return r
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
    if m == "sort":
        return check_sort(ck, e, obj, e.args, sp, copy=False)
    if m in ("pop", "clear", "clone", "reverse", "print", "shuffle"):
        plain_args(ck, e, m, 0, 0)
        ret = {"pop": el, "clone": t}.get(m, VOID)
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
