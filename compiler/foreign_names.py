"""Names that foreign declarations give a module (11.1-11.3): the opaque C types its protos
mention, and the Neve names its protos are bound under. Read from the syntax tree alone, so the
module loader can tell the parser of importing modules which names are types."""
from __future__ import annotations

from . import ast as A
from .diagnostics import Span

# Type names with a meaning of their own: a proto that mentions one does not declare it.
_BUILTIN_TYPE_NAMES = frozenset(
    "int i8 i16 i32 i64 u8 u16 u32 u64 float f64 bf16 half bool char str any void nil "
    "array map tuple channel Function File".split())

INIT_PREFIX = "initialize__"


def foreign_type_names(m: A.Module) -> dict[str, Span]:
    """The C types a module's protos declare: each `proto struct`, and each unqualified type
    name in a proto's result or parameters or a struct's fields that names no class, alias or
    `from` import of the module (11.2: bindgen writes `proto image image_create(str path)`),
    with where it first appears."""
    known: set[str] = set()
    for it in m.items:
        if isinstance(it, (A.ClassDef, A.TypeAlias)):
            known.add(it.name)
        elif isinstance(it, A.FromImport):
            known.update(n for n, _ in it.names)
    out: dict[str, Span] = {}
    for it in m.items:
        if isinstance(it, A.ProtoStruct) and it.name not in known:
            out.setdefault(it.name, it.span)
    for it in m.items:
        if isinstance(it, A.Proto):
            types = (it.ret, *(p.type for p in it.params))
        elif isinstance(it, A.ProtoStruct):
            types = tuple(f.type for f in it.fields)
        else:
            continue
        for te in types:
            if isinstance(te, A.TypeName) and te.module is None and not te.args \
                    and te.name not in _BUILTIN_TYPE_NAMES and te.name not in known:
                out.setdefault(te.name, te.span)
    return out


def proto_neve_name(name: str) -> str:
    """The name a proto is bound under in its module (11.2): `pkg__fn` is `fn`; other names
    are their own (methods and operators by convention stay callable as functions too)."""
    if "__" in name.strip("_") and not name.startswith(INIT_PREFIX):
        head, _, rest = name.partition("__")
        if head and rest:
            return rest
    return name


def is_initializer(p: A.Proto) -> bool:
    """`void initialize__pkg(void)`, called once before main (11.2, 5.4)."""
    return p.name.startswith(INIT_PREFIX) and len(p.name) > len(INIT_PREFIX)
