"""Recognition of `m[k] = f(m.get(k, d))`, lowered as one map probe (nv_map_upsert)."""
from __future__ import annotations

from .. import tir as T
from ..types import MapT, Prim

# Nodes that compute from their operands alone: no calls, no memory but locals.
_ARITH = (T.Unop, T.Binop, T.Cmp, T.Logic)


def fused_get(s: T.Assign) -> T.Builtin | None:
    """The one `m.get(k, d)` in the value of `m[k] = value` when the store can reuse its probe:
    m and k are locals, constants or fields of such (evaluated alike twice), and the rest of the
    value is arithmetic on primitive locals and constants, so nothing between the read and the
    store can see or change the map (an inserted entry would otherwise show early)."""
    t = s.target
    if s.compound or not isinstance(t, T.IndexGet) or not isinstance(t.obj.type, MapT):
        return None
    if not _plain(t.obj.type.val):
        return None
    if not (_stable(t.obj) and _stable(t.index)):
        return None
    gets: list[T.Builtin] = []
    if not _pure(s.value, t, gets) or len(gets) != 1:
        return None
    return gets[0]


def _stable(e: T.Expr) -> bool:
    if isinstance(e, (T.Local, T.Const)):
        return True
    return isinstance(e, T.Builtin) and e.name == "field" and _stable(e.args[0])


def _same(a: T.Expr, b: T.Expr) -> bool:
    if isinstance(a, T.Local) and isinstance(b, T.Local):
        return a.var is b.var
    if isinstance(a, T.Const) and isinstance(b, T.Const):
        return a.type == b.type and type(a.value) is type(b.value) and a.value == b.value
    if isinstance(a, T.Builtin) and isinstance(b, T.Builtin) and a.name == b.name == "field":
        return a.extra == b.extra and _same(a.args[0], b.args[0])
    return False


def _plain(t) -> bool:
    return isinstance(t, Prim) and t.name not in ("any", "nil", "void")


def _pure(e: T.Expr, target: T.IndexGet, gets: list) -> bool:
    if isinstance(e, T.Builtin) and e.name == "map.get_default":
        m, k, d = e.args
        if not (_same(m, target.obj) and _same(k, target.index)):
            return False
        gets.append(e)
        inner: list[T.Builtin] = []
        return _pure(d, target, inner) and not inner
    if isinstance(e, T.Const):
        return True
    if isinstance(e, T.Local):
        return _plain(e.type)
    if isinstance(e, T.Cast):
        return _plain(e.type) and _plain(e.operand.type) and _pure(e.operand, target, gets)
    if isinstance(e, T.Unop):
        return _pure(e.operand, target, gets)
    if isinstance(e, _ARITH):
        return _pure(e.left, target, gets) and _pure(e.right, target, gets)
    return False
