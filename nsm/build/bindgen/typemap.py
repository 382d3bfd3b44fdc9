"""C/C++ types to Neve types, exactly as LANGUAGE.md 11.3 tabulates them.

`Scope` knows the header's typedefs, structs/unions/classes and enums; `Scope.neve` maps one
parsed type (cxxheaderparser's DecoratedType) to Neve type text or raises `Unbindable` with
the reason a declaration cannot be bound (11.2: struct by value, varargs, C++ references and
classes, unmapped types).
"""
from __future__ import annotations

from dataclasses import dataclass

from cxxheaderparser import types as cx

# Reserved words and type names (2.3), plus the names a proto item cannot take: `sys` is the
# proto synonym marker (11.1); `tid tN tHW` cannot be declared.
NEVE_RESERVED = frozenset("""
and as async asyncs break class continue ctor def elif else false finish for from gpu if import
in kernel launch layout lock main mapit new nil not offby or pass proto reduce return scan self
spawn true var void while xor int i8 i16 i32 i64 u8 float f64 bf16 half bool char str any array
map tuple channel Function sys tid tN tHW type
""".split())

# Standard typedef names mapped by name before any typedef is followed (11.3): uint32_t and
# uint16_t map differently from the types they alias.
STANDARD_NAMES = {
    "int64_t": "int", "ssize_t": "int", "ptrdiff_t": "int", "intptr_t": "int",
    "uint64_t": "int", "size_t": "int", "uint32_t": "int", "uintptr_t": "int",
    "int32_t": "i32", "int16_t": "i16", "uint16_t": "i32", "int8_t": "i8", "uint8_t": "u8",
    "_Float16": "half", "__bf16": "bf16", "bool": "bool", "_Bool": "bool",
}

# Fundamental types by their normalised words (sorted, `int` dropped after a modifier).
# Unsigned spellings follow the fixed-width type they are on LP64 (uint32_t is unsigned int).
FUNDAMENTAL = {
    "char": "char", "char signed": "i8", "char unsigned": "u8",
    "short": "i16", "short unsigned": "i32",
    "int": "i32", "unsigned": "int",
    "long": "int", "long long": "int", "long unsigned": "int", "long long unsigned": "int",
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
        self.enums: set[str] = set()

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
            if tag is not None and not tag.startswith("#") and (
                    best is None or (best.startswith("_") and not name.startswith("_"))):
                self.names[tag] = name
        elif isinstance(dtype, cx.Type) and dtype.typename.classkey == "enum":
            self.enums.add(name)
        self.typedefs.setdefault(name, dtype)

    # ---- mapping (11.3)

    def neve(self, t: cx.DecoratedType, *, result: bool = False) -> str:
        """The Neve type of a parameter (or, with `result`, a result) of C type `t`."""
        if isinstance(t, cx.Array):                      # parameters decay to pointers
            return self._pointer(t.array_of, t)
        if isinstance(t, cx.FunctionType):
            return self._function(t)
        if isinstance(t, cx.Pointer):
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
        if t.typename.classkey == "enum" or name in self.enums:
            raise Unbindable(f"enum '{spelled}' has no Neve mapping (11.3)")
        raise Unbindable(f"unknown type '{spelled}'")

    def _pointer(self, pointee: cx.DecoratedType, whole: cx.DecoratedType) -> str:
        if isinstance(pointee, cx.FunctionType):
            return self._function(pointee)
        if isinstance(pointee, cx.Pointer):
            return self._pointer(pointee.ptr_to, pointee) + "[]"
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
            if rec.complete:
                raise Unbindable(f"pointer to {rec.kind} '{spelled}' whose definition is "
                                 "visible (only opaque or incomplete structs bind, 11.3)")
            # One Neve name per struct, whichever typedef or tag spells it: the first
            # `typedef struct S N` (N without a leading underscore preferred), else the tag.
            tag = _tag(target.typename) or spelled
            name = self.names.get(tag, tag)
            if not is_neve_name(name):
                why = "is reserved in Neve (2.3)" if name.isidentifier() else \
                    "is not a Neve identifier"
                raise Unbindable(f"opaque type name '{name}' {why}")
            return name
        return self._scalar(target, spelled) + "[]"

    def _function(self, fn: cx.FunctionType) -> str:
        if fn.vararg:
            raise Unbindable(f"variadic function pointer '{fn.format()}'")
        parts = [self.neve(fn.return_type, result=True)]
        parts += [self.neve(p.type) for p in fn.parameters]
        return f"Function<{', '.join(parts)}>"

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
