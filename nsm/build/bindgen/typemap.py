"""C/C++ types to Neve types, exactly as LANGUAGE.md 11.3 tabulates them.

`Scope` knows the header's typedefs, structs/unions/classes and enums; `Scope.neve` maps one
parsed type (cxxheaderparser's DecoratedType) to Neve type text or raises `Unbindable` with
the reason a declaration cannot be bound (11.2: struct by value, varargs, C++ references and
classes, unmapped types).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cxxheaderparser import types as cx

# Reserved words and type names (2.3), plus the names a proto item cannot take: `sys` is the
# proto synonym marker (11.1); `tid tN tHW` cannot be declared.
NEVE_RESERVED = frozenset("""
and as async asyncs break class continue ctor def elif else false finish for from gpu if import
in kernel launch layout lock main mapit new nil not offby or pass proto reduce return scan self
spawn true var void while xor int i8 i16 i32 i64 u8 u16 u32 u64 float f64 bf16 half bool char str any array
map tuple channel Function sys tid tN tHW type
""".split())

# Standard typedef names mapped by name before any typedef is followed (11.3). Every C
# integer type maps to the Neve type of its size and signedness (LP64), so `uint32_t*` reads
# 4-byte elements and unsigned results are zero-extended (issue 15).
STANDARD_NAMES = {
    "int64_t": "int", "ssize_t": "int", "ptrdiff_t": "int", "intptr_t": "int",
    "uint64_t": "u64", "size_t": "u64", "uint32_t": "u32", "uintptr_t": "u64",
    "int32_t": "i32", "int16_t": "i16", "uint16_t": "u16", "int8_t": "i8", "uint8_t": "u8",
    "_Float16": "half", "__bf16": "bf16", "bool": "bool", "_Bool": "bool",
}

# Fundamental types by their normalised words (sorted, `int` dropped after a modifier).
FUNDAMENTAL = {
    "char": "char", "char signed": "i8", "char unsigned": "u8",
    "short": "i16", "short unsigned": "u16",
    "int": "i32", "unsigned": "u32",
    "long": "int", "long long": "int", "long unsigned": "u64", "long long unsigned": "u64",
    "float": "float", "double": "f64", "bool": "bool", "void": "void",
}


class Unbindable(Exception):
    """A type (or declaration) with no Neve form; the message is the reason."""


@dataclass
class Record:
    """A struct, union or class tag: `complete` once its body was seen; `cxx` when it is a
    C++ class (declared with `class`, or with bases or methods)."""
    kind: str
    complete: bool = False
    cxx: bool = False
    fields: list = field(default_factory=list)    # (name, DecoratedType, bits) of its body


def is_neve_name(name: str | None) -> bool:
    """A valid Neve identifier (2.3) that no proto position reserves."""
    return bool(name) and name.isidentifier() and name.isascii() and name not in NEVE_RESERVED


def fundamental_key(name: str) -> str:
    """`long unsigned int` -> `long unsigned`; `signed` -> `int`; `signed char` stays apart."""
    words = name.split()
    if "signed" in words and "char" not in words:
        words.remove("signed")
    if "int" in words and len(words) > 1:
        words.remove("int")
    return " ".join(sorted(words)) or "int"


class Scope:
    """Typedefs, records and enums of one translation unit, and the 11.3 mapping over them."""

    def __init__(self) -> None:
        self.typedefs: dict[str, cx.DecoratedType] = {}
        self.records: dict[str, Record] = {}      # by tag; anonymous ones as "#<id>"
        self.names: dict[str, str] = {}           # tag -> its `typedef struct tag N` name
        self.enums: dict[str, str | None] = {}    # tag or typedef name -> None (maps to
                                                  # i32) or why it does not map
        self.enumerators: dict[str, int] = {}     # every evaluated enumerator
        self.structs: dict[str, str] = {}         # Neve name -> tag of each complete struct a
                                                  # bound type points to (their layouts bind)

    # ---- declarations

    def record(self, typename: cx.PQName, *, complete: bool = False) -> Record | None:
        key = _tag(typename)
        if key is None or typename.classkey not in ("struct", "union", "class"):
            return None
        rec = self.records.setdefault(key, Record(typename.classkey))
        rec.complete |= complete
        rec.cxx |= typename.classkey == "class"
        return rec

    def typedef(self, name: str, dtype: cx.DecoratedType) -> None:
        if isinstance(dtype, cx.Type) and dtype.typename.classkey in ("struct", "union",
                                                                         "class"):
            self.record(dtype.typename)
            tag = _tag(dtype.typename)
            # glibc spells `typedef struct _IO_FILE __FILE;` before `... FILE;`
            best = self.names.get(tag)
            if tag is not None and (best is None or (best.startswith("_")
                                                     and not name.startswith("_"))):
                self.names[tag] = name
        elif isinstance(dtype, cx.Type) and dtype.typename.classkey == "enum":
            tag = _tag(dtype.typename)
            self.enums.setdefault(name, self.enums.get(tag, "its enumerators are not visible"))
        self.typedefs.setdefault(name, dtype)

    def enum(self, enum: cx.EnumDecl) -> list[tuple[str, object]]:
        """Record an enum definition; its enumerators with their values (None when one
        cannot be evaluated, and every later one then too)."""
        from .constants import I32_MAX, I32_MIN, Evaluator, NotConstant
        known: dict[str, int] = {}
        ev = Evaluator(lambda n: known[n] if n in known else self.enumerators.get(n))
        out: list[tuple[str, object]] = []
        nxt: int | None = 0
        for e in enum.values:
            value = nxt
            if e.value is not None:
                try:
                    value = ev.value(" ".join(tok.value for tok in e.value.tokens))
                except NotConstant:
                    value = None
                if not isinstance(value, int):
                    value = None
            out.append((e.name, value))
            if value is not None:
                known[e.name] = value
                self.enumerators.setdefault(e.name, value)
            nxt = None if value is None else value + 1
        values = [v for _, v in out]
        if None in values:
            why = "has an enumerator whose value bindgen cannot evaluate"
        elif any(not I32_MIN <= v <= I32_MAX for v in values):
            why = "has enumerators outside i32 (C then picks a wider type)"
        else:
            why = None
        key = _tag(enum.typename)
        if key is not None:
            self.enums[key] = why
        return out

    # ---- mapping (11.3)

    def neve(self, t: cx.DecoratedType, *, result: bool = False) -> str:
        """The Neve type of a parameter (or, with `result`, a result) of C type `t`."""
        if isinstance(t, cx.Array):                      # parameters decay to pointers
            return self._pointer(t.array_of, t)
        if isinstance(t, cx.FunctionType):
            return self._function(t)
        if isinstance(t, cx.Pointer):
            if result and self._is_function_pointer(t):
                raise Unbindable(f"function pointer '{t.format()}' (a foreign function "
                                 "cannot become a Neve Function value, 11.3)")
            return self._pointer(t.ptr_to, t)
        if isinstance(t, (cx.Reference, cx.MoveReference)):
            raise Unbindable(f"C++ reference '{t.format()}'")
        if isinstance(t, cx.MemberPointer):
            raise Unbindable(f"C++ member pointer '{t.format()}'")
        spelled, target = self._resolve(t)
        if not isinstance(target, cx.Type):
            return self.neve(target, result=result)
        out = self._scalar(target, spelled)
        if out == "void" and not result:
            raise Unbindable("'void' parameter")
        return out

    def _scalar(self, t: cx.Type, spelled: str) -> str:
        seg = t.typename.segments[-1]
        if isinstance(seg, cx.FundamentalSpecifier):
            key = fundamental_key(seg.name)
            if key in FUNDAMENTAL:
                return FUNDAMENTAL[key]
            raise Unbindable(f"type '{seg.name}' has no Neve mapping (11.3)")
        name = getattr(seg, "name", None)
        if name in STANDARD_NAMES and self._std(t):
            return STANDARD_NAMES[name]
        rec = self._record_of(t)
        if rec is not None:
            what = "C++ class" if rec.cxx else rec.kind
            raise Unbindable(f"{what} '{spelled}' passed by value")
        key = _tag(t.typename)
        if t.typename.classkey == "enum" or key in self.enums:
            why = self.enums.get(key, "its enumerators are not visible")
            if why is None:
                return "i32"                  # C enumerators are `int` (C11 6.4.4.3)
            raise Unbindable(f"enum '{spelled}' {why}")
        raise Unbindable(f"unknown type '{spelled}'")

    def _pointer(self, pointee: cx.DecoratedType, whole: cx.DecoratedType) -> str:
        if isinstance(pointee, cx.FunctionType):
            return self._function(pointee)
        if isinstance(pointee, cx.Pointer):
            return self._pointer_slots(pointee)
        if isinstance(pointee, (cx.Array, cx.Reference, cx.MoveReference, cx.MemberPointer)):
            raise Unbindable(f"type '{whole.format()}' has no Neve mapping (11.3)")
        spelled, target = self._resolve(pointee)
        if not isinstance(target, cx.Type):
            return self._pointer(target, whole)
        seg = target.typename.segments[-1]
        if isinstance(seg, cx.FundamentalSpecifier):
            key = fundamental_key(seg.name)
            if key == "char":
                return "str" if target.const else "char[]"
            if key == "void":
                return "any"
        rec = self._record_of(target)
        if rec is not None:
            if rec.cxx:
                raise Unbindable(f"C++ class '{spelled}'")
            # One Neve name per struct, whichever typedef or tag spells it: the first
            # `typedef struct S N` (N without a leading underscore preferred), else the tag.
            tag = _tag(target.typename) or spelled
            name = self.names.get(tag, tag)
            if not is_neve_name(name):
                why = "is reserved in Neve (2.3)" if name.isidentifier() else \
                    "is not a Neve identifier"
                raise Unbindable(f"{'struct' if rec.complete else 'opaque'} type name "
                                 f"'{name}' {why}")
            if rec.complete:                  # its layout binds too (bindgen.structs)
                self.structs.setdefault(name, tag)
            return name
        return self._scalar(target, spelled) + "[]"

    def _pointer_slots(self, inner: cx.Pointer) -> str:
        """`T**`: a buffer of pointers (3.4 allows only buffers of numbers and of buffers).
        A buffer inner type stays (`char**` is `char[][]`, `int**` `i32[][]`); `const char*`
        is read as `char[]`; others (`void*`, foreign types, functions) are `u8[][]`, whose
        elements convert through `any` (out-parameters, docs/interop.md)."""
        try:
            elem = self._pointer(inner.ptr_to, inner)
        except Unbindable as e:
            if "has no Neve mapping" in str(e):
                raise
            elem = "any"
        if elem == "str":
            return "char[][]"
        if elem.endswith("[]") and not elem.startswith("Function<"):
            return elem + "[]"
        return "u8[][]"

    def _function(self, fn: cx.FunctionType) -> str:
        if fn.vararg:
            raise Unbindable(f"variadic function pointer '{fn.format()}'")
        parts = [self.neve(fn.return_type, result=True)]
        parts += [self.neve(p.type) for p in fn.parameters]
        return f"Function<{', '.join(parts)}>"

    def _is_function_pointer(self, t: cx.Pointer) -> bool:
        _, target = self._resolve(t.ptr_to)
        return isinstance(target, cx.FunctionType)

    # ---- names

    def _resolve(self, t: cx.DecoratedType) -> tuple[str, cx.DecoratedType]:
        """(the name as spelled, the type after following typedefs) for a named type; stops
        at standard names (11.3), records and enums."""
        if not isinstance(t, cx.Type):
            return "", t
        spelled = _spelling(t.typename)
        seen = 0
        while isinstance(t, cx.Type) and t.typename.classkey is None and seen < 64:
            seg = t.typename.segments[-1]
            name = getattr(seg, "name", None)
            if not isinstance(seg, cx.NameSpecifier) or name in STANDARD_NAMES \
                    or name not in self.typedefs or not self._std(t, allow_ns=False):
                break
            alias = self.typedefs[name]
            if isinstance(alias, cx.Type):
                alias = cx.Type(alias.typename, const=alias.const or t.const)
            t, seen = alias, seen + 1
            if isinstance(t, cx.Type) and _record_named(t, self):
                break
        return spelled, t

    def _std(self, t: cx.Type, allow_ns: bool = True) -> bool:
        """A plain name, or (for standard names) `std::name`."""
        segs = t.typename.segments
        return len(segs) == 1 or (allow_ns and len(segs) == 2
                                  and getattr(segs[0], "name", None) == "std")

    def _record_of(self, t: cx.Type) -> Record | None:
        key = _tag(t.typename)
        if key is None:
            return None
        if t.typename.classkey in ("struct", "union", "class"):
            return self.records.get(key) or Record(t.typename.classkey)
        return self.records.get(key)


def _record_named(t: cx.Type, scope: Scope) -> bool:
    return t.typename.classkey is not None or _tag(t.typename) in scope.records


def _tag(typename: cx.PQName) -> str | None:
    if len(typename.segments) != 1:
        return None
    seg = typename.segments[0]
    if isinstance(seg, cx.AnonymousName):
        return f"#{seg.id}"
    return seg.name if isinstance(seg, cx.NameSpecifier) else None


def _spelling(typename: cx.PQName) -> str:
    return "::".join(getattr(s, "name", "<anonymous>") for s in typename.segments)
