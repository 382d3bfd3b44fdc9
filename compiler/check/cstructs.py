"""Checking of C structs and constants declared by protos (docs/interop.md, issue 15):
`proto struct S(SIZE)` layouts, field reads and writes on a foreign value, allocation with
`new`, `size_of`, and `proto T NAME = VALUE` constants used as names (`zlib.Z_OK`)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import ast as A
from .. import tir as T
from .expr import Abandon
from ..types import (ANY, BufferT, ForeignT, FuncT, INT, Prim, STR, Type, VOID, ERR, is_int,
                     is_numeric)

# The C storage a field line may name when it differs from its Neve type's: (bits, unsigned).
# An unsigned C field read into an `int` is zero-extended; a write keeps the low bits.
STORAGES = {"uint8_t": (8, True), "uint16_t": (16, True), "uint32_t": (32, True),
            "uint64_t": (64, True)}

# Integer constants: the range of each Neve type they may take (3.1).
_INT_RANGES = {"i8": 8, "i16": 16, "i32": 32, "int": 64}


@dataclass(frozen=True)
class CField:
    name: str
    type: Type
    offset: int
    storage: tuple[int, bool] | None = None      # STORAGES entry, or None: the type's own


@dataclass(eq=False)
class CLayout:
    """A foreign type's C layout: its size and the fields Neve can reach."""
    size: int
    fields: dict[str, CField]


class CStructChecker:
    # ------------------------------------------------------------ declarations
    def declare_cstructs(self, ms) -> None:
        """Layouts of the module's `proto struct`s and types of its constants."""
        saved = self.ctx_swap(ms, {}, None)
        try:
            for name, item in list(ms.constants.items()):
                if isinstance(item, A.ProtoConst):
                    ms.constants[name] = self.foreign_constant(item)
            for item in ms.mod.ast.items:
                if isinstance(item, A.ProtoStruct):
                    t = ms.foreign.get(item.name)
                    if isinstance(t, ForeignT):
                        if t in ms.foreign_layout:
                            self.error(item.span, f"struct '{item.name}' is declared twice")
                            continue
                        ms.foreign_layout[t] = self.cstruct_layout(item)
        finally:
            self.ctx_restore(saved)

    def cstruct_layout(self, item: A.ProtoStruct) -> CLayout:
        if item.size <= 0:
            self.error(item.span, f"struct '{item.name}': its size must be positive")
        fields: dict[str, CField] = {}
        for f in item.fields:
            t = self.resolve_or_error(f.type)
            why = cfield_problem(t)
            storage = None
            if f.storage is not None:
                storage = STORAGES.get(f.storage)
                if storage is None or t != INT:
                    why = f"a field stored as '{f.storage}' is read as int; storages are " + \
                        ", ".join(STORAGES)
            width = storage[0] // 8 if storage else csize(t)
            if why is None and not 0 <= f.offset <= item.size - width:
                why = f"offset {f.offset} lies outside the struct's {item.size} bytes"
            if why is None and f.name in fields:
                why = "a field of that name is declared above"
            if why is not None:
                self.error(f.span, f"struct '{item.name}': field '{f.name}' of type {t} "
                                   f"cannot be reached", why)
                continue
            fields[f.name] = CField(f.name, t, f.offset, storage)
        return CLayout(item.size, fields)

    def foreign_constant(self, item: A.ProtoConst) -> T.Expr:
        """The typed value a constant's name stands for."""
        t = self.resolve_or_error(item.type)
        v = item.value
        if isinstance(v, int) and isinstance(t, Prim) and t.name in _INT_RANGES:
            bits = _INT_RANGES[t.name]
            if -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
                return T.Const(t, item.span, v)
            self.error(item.span, f"constant '{item.name}': {v} does not fit in {t}")
        elif isinstance(v, int) and t == ANY:
            if -(1 << 63) <= v < (1 << 64):
                return T.Builtin(ANY, item.span, "cptr_const", [], v & ((1 << 64) - 1))
            self.error(item.span, f"constant '{item.name}': {v} is not a 64-bit address")
        elif isinstance(v, bytes) and t == STR:
            return T.Const(STR, item.span, v)
        elif t != ERR:
            self.error(item.span, f"constant '{item.name}': a {t} constant cannot hold "
                                  f"{'a string' if isinstance(v, bytes) else 'an integer'}",
                       "constants are i8, i16, i32 or int (integers), str (strings) or any "
                       "(a C address: proto any SQLITE_TRANSIENT = -1)")
        return T.Const(ERR, item.span, 0)

    # ------------------------------------------------------------ uses
    def layout_of(self, t: Type) -> CLayout | None:
        if not isinstance(t, ForeignT):
            return None
        scope = self.scope_of_key.get(t.module)
        return scope.foreign_layout.get(t) if scope is not None else None

    def constant_use(self, scope, name: str, span) -> T.Expr | None:
        """`NAME` or `mod.NAME` naming a constant of `scope`: a copy of its value here."""
        c = scope.constants.get(name)
        if c is None:
            return None
        if c.type == ERR:
            raise Abandon()
        if isinstance(c, T.Builtin):
            return T.Builtin(c.type, span, c.name, [], c.extra)
        return T.Const(c.type, span, c.value)

    def cfield(self, x: T.Expr, name: str, span) -> T.Expr | None:
        """`x.name` on a foreign value whose struct layout has that field."""
        layout = self.layout_of(x.type)
        if layout is None:
            return None
        f = layout.fields.get(name)
        if f is None:
            reach = ", ".join(layout.fields) or "none"
            self.fail(span, f"no field '{name}' in C struct {x.type}",
                      f"fields Neve can reach: {reach}")
        return T.Builtin(f.type, span, "cfield", [x], f)

    def cfield_store(self, s: A.Assign, target: T.Builtin) -> T.Stmt:
        """`x.f = v` for a C struct field `target` (a "cfield" read of x.f)."""
        obj, f = target.args[0], target.extra
        if s.op is not None or len(s.values) != 1 or len(s.targets) != 1:
            x = f"{obj.var.name}.{f.name}" if isinstance(obj, T.Local) else f"x.{f.name}"
            self.fail(s.span, "a C struct field takes a plain assignment",
                      f"write {x} = {x} {s.op} v" if s.op else "assign each field on its own")
        if f.type == STR:
            self.fail(target.span, f"cannot store a str in C field '{f.name}'",
                      "a str crosses to C as a temporary copy; declare the field char[] and "
                      "store a buffer the program keeps")
        value = self.foreign_arg(f.type, s.values[0], f"field '{f.name}'")
        return T.ExprStmt(s.span, T.Builtin(VOID, s.span, "cfield_set", [obj, value], f))

    def new_cstruct(self, t: ForeignT, layout: CLayout, args, span) -> T.Expr:
        """`new mod.S()`: collected, zero-filled memory of the struct's size."""
        if args:
            self.fail(span, f"new {t}() takes no arguments: the struct starts zero-filled",
                      "set its fields after creating it")
        return T.Builtin(t, span, "cstruct_new", [], layout.size)


def csize(t: Type) -> int:
    """Bytes a field of Neve type t occupies in C (11.3)."""
    if isinstance(t, Prim):
        return {"int": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
                "char": 1, "bool": 1,
                "float": 4, "f64": 8, "half": 2, "bf16": 2}.get(t.name, 8)
    return 8


def cfield_problem(t: Type) -> str | None:
    if t == ERR:
        return None
    if isinstance(t, Prim) and (is_numeric(t) or t.name in ("bool", "char", "any", "str")):
        return None
    if isinstance(t, ForeignT):
        return None
    if isinstance(t, BufferT) and (is_int(t.elem) or is_numeric(t.elem) or isinstance(t.elem, BufferT)
                                   or t.elem in (Prim("bool"), Prim("char"))):
        return None
    if isinstance(t, FuncT):
        return "a function-pointer field cannot become a Neve Function"
    return "fields are numbers, bool, char, str, any, buffers T[] or foreign types"
