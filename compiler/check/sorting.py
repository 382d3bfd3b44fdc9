"""Sorting (14.4): `a.sort(key = f | less = f, reverse = b)` and the intrinsic `sorted(a, ...)`.

Both check to one tir.Builtin "array.sort_by" with args [array, reverse(, f)] and extra
(mode, key type, copy): mode "plain" (the elements are the keys), "key" or "less".
"""
from __future__ import annotations

from .. import tir as T
from ..types import ArrayT, FuncT, TupleT, Type, BOOL, CHAR, STR, VOID, is_numeric


def sortable(t: Type) -> bool:
    """Numbers, char, str, bool, and tuples of these, compared left to right (14.4)."""
    if isinstance(t, TupleT):
        return all(sortable(x) for x in t.elems)
    return is_numeric(t) or t in (CHAR, STR, BOOL)


def check_sort(ck, e, obj: T.Expr, args: list, sp, copy: bool) -> T.Expr:
    """`args`: the call's keyword arguments (positional ones are refused here)."""
    t: ArrayT = obj.type
    el = t.elem
    what = "sorted" if copy else "sort"
    opts: dict = {}
    for a in args:
        if a.keyword is None or a.split:
            ck.fail(a.span, f"{what} takes only the options key = f, less = f and reverse = b")
        if a.keyword not in ("key", "less", "reverse"):
            ck.fail(a.span, f"{what} has no option '{a.keyword}'",
                    "the options are key = f, less = f and reverse = b")
        if a.keyword in opts:
            ck.fail(a.span, f"option '{a.keyword}' given twice")
        opts[a.keyword] = a
    if "key" in opts and "less" in opts:
        ck.fail(opts["less"].span, f"{what} takes key = f or less = f, not both")
    rev = T.Const(BOOL, sp, False)
    if "reverse" in opts:
        rev = ck.condition(opts["reverse"].value)
    if "key" in opts:
        a = opts["key"]
        f = ck.expr(a.value)
        ft = f.type
        if not (isinstance(ft, FuncT) and ft.params == (el,)):
            ck.fail(a.span, f"key of {what}: expected a Function<K, {el}>, got {ft}")
        if not sortable(ft.ret):
            ck.fail(a.span, f"key of {what}: cannot sort by {ft.ret}",
                    "keys are numbers, char, str, bool or tuples of these")
        mode, kt, extra = "key", ft.ret, [f]
    elif "less" in opts:
        a = opts["less"]
        f = ck.expr(a.value, expected=FuncT(BOOL, (el, el)))
        if f.type != FuncT(BOOL, (el, el)):
            ck.fail(a.span, f"less of {what}: expected a Function<bool, {el}, {el}>, got {f.type}")
        mode, kt, extra = "less", None, [f]
    else:
        if not sortable(el):
            ck.fail(sp, f"cannot sort an array of {el}",
                    "give key = f or less = f" if el != VOID else None)
        mode, kt, extra = "plain", el, []
    ck.mark_raises()              # nil array; a runtime error inside f
    return T.Builtin(t if copy else VOID, sp, "array.sort_by", [obj, rev] + extra,
                     (mode, kt, copy))
