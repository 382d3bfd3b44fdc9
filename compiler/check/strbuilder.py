"""The standard library's StrBuilder class (14.5): construction and its methods; `add(x)` is an
intrinsic taking any value, appended as its text (10.1)."""
from __future__ import annotations

from .. import tir as T
from ..builtins import SB_T
from ..types import INT, STR, VOID

SB_METHODS = {"add": VOID, "size": INT, "str": STR, "clear": VOID}


def new_builder(ck, args, span) -> T.Expr:
    if args:
        ck.fail(span, "StrBuilder takes no arguments")
    return T.Builtin(SB_T, span, "sb.new", [])


def builder_method(ck, e, obj: T.Expr, m: str, sp, name_span) -> T.Expr:
    if m not in SB_METHODS:
        ck.fail(name_span, f"no member '{m}' in StrBuilder", "its methods are add, size, str, clear")
    ck.mark_raises()              # nil receiver
    for a in e.args:
        if a.keyword or a.split:
            ck.fail(a.span, f"{m} takes positional arguments only")
    want = 1 if m == "add" else 0
    if len(e.args) != want:
        ck.fail(e.span, f"{m} takes {want} argument{'s' if want != 1 else ''}, got {len(e.args)}")
    if m == "add":
        a = e.args[0].value
        x = ck.expr(a)
        if x.type == VOID:
            ck.fail(a.span, "a void call has no value")
        text = x if x.type == STR else T.StrCat(STR, a.span, [x])
        return T.Builtin(VOID, sp, "sb.add", [obj, text])
    return T.Builtin(SB_METHODS[m], sp, "sb." + m, [obj])
