"""Semantic types of Neve (LANGUAGE.md section 3): values the checker computes and lowering reads."""
from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base of all semantic types. Instances are immutable and compare structurally."""

    @property
    def is_numeric(self) -> bool:
        return False

    @property
    def is_ref(self) -> bool:
        return False


@dataclass(frozen=True)
class Prim(Type):
    """Scalar and built-in named types: int i8 i16 i32 u8 u16 u32 u64 float f64 bf16 half bool char str
    any void nil (the type of the literal `nil`)."""
    name: str

    def __str__(self) -> str:
        return self.name

    @property
    def is_numeric(self) -> bool:
        return self.name in NUMERIC_NAMES

    @property
    def is_int(self) -> bool:
        return self.name in INT_NAMES

    @property
    def is_float(self) -> bool:
        return self.name in FLOAT_NAMES

    @property
    def is_ref(self) -> bool:
        return self.name in ("any", "nil")


@dataclass(frozen=True)
class ArrayT(Type):
    elem: Type

    def __str__(self) -> str:
        return f"array<{self.elem}>"

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class MapT(Type):
    key: Type
    val: Type

    def __str__(self) -> str:
        return f"map<{self.key}, {self.val}>"

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class TupleT(Type):
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.elems)) + ">"


@dataclass(frozen=True)
class FixedT(Type):
    """`T[N]`: N elements stored inline."""
    elem: Type
    n: int

    def __str__(self) -> str:
        return f"{self.elem}[{self.n}]"


@dataclass(frozen=True)
class BufferT(Type):
    """`T[]`: a raw buffer."""
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}[]"

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class ChannelT(Type):
    elem: Type

    def __str__(self) -> str:
        return f"channel<{self.elem}>"

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class FuncT(Type):
    ret: Type
    params: tuple[Type, ...]

    def __str__(self) -> str:
        return "Function<" + ", ".join(map(str, (self.ret,) + self.params)) + ">"

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class ClassT(Type):
    """A user class (nominal: module and name) with its type arguments."""
    module: str
    name: str
    targs: tuple[Type, ...] = ()

    def __str__(self) -> str:
        if self.targs:
            return f"{self.name}<" + ", ".join(map(str, self.targs)) + ">"
        return self.name

    @property
    def is_ref(self) -> bool:
        return True


@dataclass(frozen=True)
class ForeignT(ClassT):
    """An opaque C type named in a module's protos (11.2, 11.3): a reference to a collected
    wrapper of the C address; compares, hashes and prints by that address."""


UNSIGNED_NAMES = ("u8", "u16", "u32", "u64")
INT_NAMES = ("int", "i8", "i16", "i32") + UNSIGNED_NAMES
FLOAT_NAMES = ("float", "f64", "bf16", "half")
NUMERIC_NAMES = INT_NAMES + FLOAT_NAMES

INT = Prim("int")
I8, I16, I32, U8 = Prim("i8"), Prim("i16"), Prim("i32"), Prim("u8")
U16, U32, U64 = Prim("u16"), Prim("u32"), Prim("u64")
FLOAT, F64, BF16, HALF = Prim("float"), Prim("f64"), Prim("bf16"), Prim("half")
BOOL, CHAR, STR, ANY = Prim("bool"), Prim("char"), Prim("str"), Prim("any")
VOID, NIL = Prim("void"), Prim("nil")
ERR = Prim("<error>")   # the type of something already reported as wrong; silences cascades

PRIMS = {t.name: t for t in (INT, I8, I16, I32, U8, U16, U32, U64, FLOAT, F64, BF16, HALF, BOOL, CHAR, STR, ANY, VOID)}
PRIMS["i64"] = INT

INT_BITS = {"int": 64, "i32": 32, "i16": 16, "i8": 8, "u8": 8, "char": 8, "u16": 16, "u32": 32,
            "u64": 64}
INT_RANGE = {
    "int": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1), "i16": (-(2**15), 2**15 - 1),
    "i8": (-128, 127), "u8": (0, 255), "char": (0, 255), "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
}


def is_int(t: Type) -> bool:
    return isinstance(t, Prim) and t.name in INT_NAMES


def is_float(t: Type) -> bool:
    return isinstance(t, Prim) and t.name in FLOAT_NAMES


def is_numeric(t: Type) -> bool:
    return isinstance(t, Prim) and t.name in NUMERIC_NAMES


def is_ref(t: Type) -> bool:
    return t.is_ref


def is_signed(t: Type) -> bool:
    return isinstance(t, Prim) and t.name in ("int", "i8", "i16", "i32")


def is_unsigned(t: Type) -> bool:
    """u8 u16 u32 u64 and char: zero-extended, compared and divided as unsigned (4.2)."""
    return isinstance(t, Prim) and (t.name in UNSIGNED_NAMES or t.name == "char")


# u16, u32 and u64 do not mix with signed operands (4.2); u8 keeps its promotion to int
WIDE_UNSIGNED = ("u16", "u32", "u64")
_UNSIGNED_ORDER = {"u8": 0, "u16": 1, "u32": 2, "u64": 3}


def mixes_signedness(a: Type, b: Type) -> bool:
    """Operands of 4.2 that need an explicit conversion: a u16/u32/u64 with a signed integer or
    a char (Rust's and Go's rule), where the common type would silently pick a meaning."""
    an, bn = getattr(a, "name", None), getattr(b, "name", None)
    if an == bn or not (is_int(a) or a == CHAR) or not (is_int(b) or b == CHAR):
        return False
    if an in WIDE_UNSIGNED:
        return bn not in _UNSIGNED_ORDER
    if bn in WIDE_UNSIGNED:
        return an not in _UNSIGNED_ORDER
    return False


def widens_to(src: Type, dst: Type) -> bool:
    """Implicit widening of 3.3 (not counting literal adaptation or nil/any)."""
    if src == dst:
        return True
    if not isinstance(src, Prim) or not isinstance(dst, Prim):
        return False
    s, d = src.name, dst.name
    order = {"i8": 0, "i16": 1, "i32": 2, "int": 3}
    if s in order and d in order:
        return order[s] <= order[d]
    if s in ("u8", "char") and d in ("i16", "i32", "int"):
        return True
    if s in _UNSIGNED_ORDER and d in _UNSIGNED_ORDER:
        return _UNSIGNED_ORDER[s] <= _UNSIGNED_ORDER[d]
    if (s, d) in (("u16", "i32"), ("u16", "int"), ("u32", "int")):
        return True
    if s in INT_NAMES and d in ("float", "f64"):
        return True
    if s in ("bf16", "half") and d == "float":
        return True
    if s in ("float", "bf16", "half") and d == "f64":
        return True
    return False


def common_numeric(a: Type, b: Type) -> Type:
    """The common type of 4.2 for two numeric (or char) operands."""
    an, bn = a.name, b.name  # type: ignore[attr-defined]
    if "f64" in (an, bn):
        return F64
    if an in FLOAT_NAMES or bn in FLOAT_NAMES:
        return FLOAT
    if an == "char":
        an = "int"
    if bn == "char":
        bn = "int"
    if an == bn:
        return PRIMS[an]
    if an in _UNSIGNED_ORDER and bn in _UNSIGNED_ORDER:
        return PRIMS[max(an, bn, key=_UNSIGNED_ORDER.get)]     # u8 + u32 is u32
    return INT


MAX_INSTANTIATION_DEPTH = 64     # chains of generic instantiations (13.1)


def type_depth(t: Type) -> int:
    """How deeply type arguments and element types nest in t (`int` 0, `Box<array<int>>` 2)."""
    if isinstance(t, ClassT):
        inner = t.targs
    elif isinstance(t, (ArrayT, FixedT, BufferT, ChannelT)):
        inner = (t.elem,)
    elif isinstance(t, MapT):
        inner = (t.key, t.val)
    elif isinstance(t, TupleT):
        inner = t.elems
    elif isinstance(t, FuncT):
        inner = (t.ret,) + t.params
    else:
        return 0
    return 1 + max((type_depth(x) for x in inner), default=0)


def has_pointers(t: Type) -> bool:
    """True when a value of t may hold a collected pointer (for GC_MALLOC vs ATOMIC)."""
    if isinstance(t, Prim):
        return t.name in ("str", "any")
    if isinstance(t, TupleT):
        return any(has_pointers(e) for e in t.elems)
    if isinstance(t, FixedT):
        return has_pointers(t.elem)
    return True

