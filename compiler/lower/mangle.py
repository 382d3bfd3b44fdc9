"""Symbol-name spellings of types: one program-wide unique key per type."""
from __future__ import annotations

from ..types import ArrayT, BufferT, ChannelT, ClassT, FixedT, FuncT, MapT, TupleT, Type


def type_key(t: Type) -> str:
    """A program-wide unique spelling of a type, for symbol names."""
    if isinstance(t, ClassT):
        inner = f"{t.module}:{t.name}"
        if t.targs:
            inner += "<" + ",".join(type_key(a) for a in t.targs) + ">"
        return inner
    if isinstance(t, ArrayT):
        return f"array<{type_key(t.elem)}>"
    if isinstance(t, MapT):
        return f"map<{type_key(t.key)},{type_key(t.val)}>"
    if isinstance(t, TupleT):
        return "tuple<" + ",".join(type_key(e) for e in t.elems) + ">"
    if isinstance(t, FixedT):
        return f"{type_key(t.elem)}[{t.n}]"
    if isinstance(t, BufferT):
        return f"{type_key(t.elem)}[]"
    if isinstance(t, ChannelT):
        return f"channel<{type_key(t.elem)}>"
    if isinstance(t, FuncT):
        return "Function<" + ",".join(type_key(x) for x in (t.ret,) + t.params) + ">"
    return str(t)
