"""The syntax tree: an exact picture of the source with spans, and nothing more (no types).

Every node is a frozen dataclass whose first field is `span`. The checker (checker.py) reads
this tree and produces the typed IR (tir.py); nothing here is mutated after parsing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .diagnostics import Span


@dataclass(frozen=True)
class Node:
    span: Span


# ---------------------------------------------------------------- types (syntax)

@dataclass(frozen=True)
class TypeName(Node):
    """A named type: `int`, `str`, `Account`, `Box<int>`, `mod.T`, `array<T>` ...

    `name` is the keyword or identifier (`array`, `map`, `tuple`, `channel`, `Function` included);
    `module` the qualifier of `mod.T`; `args` the type arguments. For `channel<T, N>` the
    capacity is in `capacity` (an Expr), and `Function<R, A...>` has R first in `args`
    (R may be TypeName('void')).
    """
    name: str
    args: tuple["TypeExpr", ...] = ()
    module: str | None = None
    capacity: "Expr | None" = None


@dataclass(frozen=True)
class BufferType(Node):
    """`T[]` (a raw buffer)."""
    elem: "TypeExpr"


@dataclass(frozen=True)
class FixedArrayType(Node):
    """`T[N]`, N a constant integer expression."""
    elem: "TypeExpr"
    size: "Expr"


@dataclass(frozen=True)
class LayoutType(Node):
    """`layout<T, d0, d1, ..., smem>` (docs/phase2.md): an element type, one or more
    dimensions (expressions; names or constants in a gpu operator's parameters) and whether
    the view is in shared memory."""
    elem: "TypeExpr"
    dims: tuple["Expr", ...]
    smem: bool = False


TypeExpr = Union[TypeName, BufferType, FixedArrayType, LayoutType]


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class IntLit(Node):
    value: int                 # already two's-complement-normalised for hex/binary
    text: str


@dataclass(frozen=True)
class FloatLit(Node):
    text: str                  # decimal text, rounded once per target type


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool


@dataclass(frozen=True)
class NilLit(Node):
    pass


@dataclass(frozen=True)
class CharLit(Node):
    value: int                 # 0..255


@dataclass(frozen=True)
class StrLit(Node):
    value: bytes


@dataclass(frozen=True)
class FStrField(Node):
    expr: "Expr"
    spec: str | None           # the text after ':' (None when absent)


@dataclass(frozen=True)
class FStrLit(Node):
    parts: tuple[Union[bytes, FStrField], ...]


@dataclass(frozen=True)
class Name(Node):
    """An identifier in expression position, with optional explicit type arguments
    (`first<int, str>`, `zeros<float>`, `buffer<float>`)."""
    id: str
    targs: tuple[TypeExpr, ...] = ()


@dataclass(frozen=True)
class SelfRef(Node):
    pass


@dataclass(frozen=True)
class SuperRef(Node):
    """`super`: the base of the enclosing class, as `super(args)` in a ctor or `super.m` (7.5)."""


@dataclass(frozen=True)
class GlobalRef(Node):
    """`$Name` or `$mod.Name`."""
    name: str
    module: str | None = None


@dataclass(frozen=True)
class Unary(Node):
    op: str                    # '-', '+', 'not' ('!' is normalised to 'not')
    operand: "Expr"


@dataclass(frozen=True)
class Binary(Node):
    """Arithmetic, bitwise, shift, comparison, `offby` and `@`. `<|`/`|>` are normalised to
    `<<`/`>>`. `span` is the operator's location."""
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Logical(Node):
    op: str                    # 'and' | 'or'
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Arg(Node):
    """A call argument: `expr`, `name=expr`, or in asyncs calls `>expr` / `:expr`."""
    value: "Expr"
    keyword: str | None = None
    split: str | None = None   # '>' or ':' or None


@dataclass(frozen=True)
class Call(Node):
    """`func(args)`; `span` is the '(' location. `func` may be a Name, Attribute (method call),
    or any expression (call through a Function value)."""
    func: "Expr"
    args: tuple[Arg, ...]
    cargs: tuple["Expr", ...] = ()    # compile-time arguments `f(x)<128>` (docs/phase2.md)


@dataclass(frozen=True)
class Attribute(Node):
    """`obj.name` (with optional type arguments for a module's generic: `mod.f<int>`)."""
    obj: "Expr"
    name: str
    targs: tuple[TypeExpr, ...] = ()


@dataclass(frozen=True)
class Index(Node):
    obj: "Expr"
    index: "Expr"


@dataclass(frozen=True)
class LayoutNew(Node):
    """`layout<...>(buffer)` (a view over a buffer) or `layout<...>()` (shared memory or
    registers)."""
    type: LayoutType
    args: tuple["Arg", ...]


@dataclass(frozen=True)
class MultiIndex(Node):
    """`v[i, j, ...]` (two or more indices): a layout element; called, `v[h, w](ti, tj)` is
    a tile."""
    obj: "Expr"
    indices: tuple["Expr", ...]


@dataclass(frozen=True)
class AddrOf(Node):
    """`v{i, j, ...}`: the address of a layout element; called, `v{h, w}(i, j)` is the
    address of a piece of the layout's storage."""
    obj: "Expr"
    indices: tuple["Expr", ...]


@dataclass(frozen=True)
class Slice(Node):
    obj: "Expr"
    lo: "Expr | None"
    hi: "Expr | None"


@dataclass(frozen=True)
class New(Node):
    """`new T(args)`."""
    type: TypeExpr
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class Convert(Node):
    """`T(x)` where T is a built-in type keyword or a type in conversion position (3.3).
    The parser produces it for keyword types (`int(x)`, `array<int>(a)`); calls of class or
    alias names stay Calls and the checker decides."""
    type: TypeExpr
    arg: "Expr"


@dataclass(frozen=True)
class ArrayLit(Node):
    elems: tuple["Expr", ...]


@dataclass(frozen=True)
class MapLit(Node):
    items: tuple[tuple["Expr", "Expr"], ...]


@dataclass(frozen=True)
class TupleLit(Node):
    elems: tuple["Expr", ...]


@dataclass(frozen=True)
class Paren(Node):
    """A parenthesised expression (kept so nesting and spans stay exact)."""
    expr: "Expr"


@dataclass(frozen=True)
class Fold(Node):
    """`xs reduce op` / `xs scan op`; op in + * min max."""
    kind: str                  # 'reduce' | 'scan'
    op: str
    operand: "Expr"


@dataclass(frozen=True)
class MapIt(Node):
    """`xs mapit x: e`."""
    operand: "Expr"
    var: str
    var_span: Span
    body: "Expr"


Expr = Union[IntLit, FloatLit, BoolLit, NilLit, CharLit, StrLit, FStrLit, Name, SelfRef, GlobalRef,
             Unary, Binary, Logical, Call, Attribute, Index, Slice, New, Convert, ArrayLit, MapLit,
             TupleLit, Paren, Fold, MapIt, LayoutNew, MultiIndex, AddrOf]


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class DeclItem(Node):
    """One item of a declaration: `name`, `name = e`, `name(args)` or `name <- ch`."""
    name: str
    init: "Expr | None" = None
    ctor_args: tuple[Arg, ...] | None = None
    recv: "Expr | None" = None


@dataclass(frozen=True)
class VarDecl(Node):
    """`TYPE item, ...`; `type` is None for `var name = e, ...`."""
    type: TypeExpr | None
    items: tuple[DeclItem, ...]


@dataclass(frozen=True)
class Assign(Node):
    """`t1, t2 = e1, e2` (plain) or `t op= e` (op in + - * / // %; `span` is the operator)."""
    targets: tuple[Expr, ...]
    values: tuple[Expr, ...]
    op: str | None = None      # None for '=', else '+', '-', '*', '/', '//', '%'


@dataclass(frozen=True)
class ChanOp(Node):
    """`a <- b` as a statement: a send or a receive, decided by the checker (2.4, 9.5)."""
    left: Expr
    right: Expr


@dataclass(frozen=True)
class ExprStmt(Node):
    expr: Expr


@dataclass(frozen=True)
class Return(Node):
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class Break(Node):
    pass


@dataclass(frozen=True)
class Continue(Node):
    pass


@dataclass(frozen=True)
class Pass(Node):
    ellipsis: bool = False     # written `...` (a method whose whole body it is is abstract, 7.5)


@dataclass(frozen=True)
class Block(Node):
    body: tuple["Stmt", ...]


@dataclass(frozen=True)
class If(Node):
    """`if c` block, elif/else-if chains become nested If in `orelse`."""
    cond: Expr
    then: Block
    orelse: Block | None = None


@dataclass(frozen=True)
class While(Node):
    cond: Expr
    body: Block


@dataclass(frozen=True)
class ForC(Node):
    """`for i = start, cond[, step]`."""
    var: str
    var_span: Span
    start: Expr
    cond: Expr
    step: Expr | None
    body: Block


@dataclass(frozen=True)
class ForIn(Node):
    var: str
    var_span: Span
    iterable: Expr
    body: Block


@dataclass(frozen=True)
class RangeLoop(Node):
    """`[a..b, c..d] i, j` block; names may be fewer than ranges (or none)."""
    ranges: tuple[tuple[Expr, Expr], ...]
    names: tuple[tuple[str, Span], ...]
    body: Block


@dataclass(frozen=True)
class Finish(Node):
    body: Block


@dataclass(frozen=True)
class Async(Node):
    """`async S` / `spawn S`: `body` is a Block (a simple statement is wrapped in one)."""
    kind: str                  # 'async' | 'spawn'
    body: Block


@dataclass(frozen=True)
class Asyncs(Node):
    """`asyncs N call` (call set, body None) or `asyncs N` block."""
    count: Expr
    call: Call | None
    body: Block | None


@dataclass(frozen=True)
class Lock(Node):
    """`lock "name"` (name set), `lock` (both None: the default mutex), or `lock e`."""
    name: str | None
    obj: Expr | None
    body: Block


@dataclass(frozen=True)
class Launch(Node):
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    smem: Expr | None
    call: Call
    stream: Expr | None = None         # `launch [g] [b] on s k(...)` (docs/phase2.md)


Stmt = Union[VarDecl, Assign, ChanOp, ExprStmt, Return, Break, Continue, Pass, If, While, ForC, ForIn,
             RangeLoop, Finish, Async, Asyncs, Lock, Launch, Block]


# ---------------------------------------------------------------- top level

@dataclass(frozen=True)
class Param(Node):
    type: TypeExpr
    name: str
    default: Expr | None = None


@dataclass(frozen=True)
class FuncDef(Node):
    """`def RET name<T...>(params)` block, also operator definitions (name is the symbol,
    `is_operator` True), `kernel void name(...)` (kind 'kernel') and `gpu RET name(...)`
    (kind 'gpu'). `ret` is TypeName('void') for void. `span` is the name's location."""
    name: str
    tparams: tuple[str, ...]
    params: tuple[Param, ...]
    ret: TypeExpr
    body: Block
    kind: str = "def"          # 'def' | 'kernel' | 'gpu'
    is_operator: bool = False
    abstract: bool = False     # a method whose whole body is `...` (7.5)
    cparams: tuple[Param, ...] = ()   # compile-time `<int BM, ...>` of kernels and gpu functions


@dataclass(frozen=True)
class FieldDecl(Node):
    type: TypeExpr
    names: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class CtorDef(Node):
    params: tuple[Param, ...]
    body: Block


@dataclass(frozen=True)
class ClassDef(Node):
    name: str
    tparams: tuple[str, ...]
    fields: tuple[FieldDecl, ...]
    ctor: CtorDef | None
    methods: tuple[FuncDef, ...]
    base: TypeExpr | None = None      # `class B(A)`: the base class A (7.5)


@dataclass(frozen=True)
class TypeAlias(Node):
    name: str
    type: TypeExpr


@dataclass(frozen=True)
class Import(Node):
    """`import a/b/c [as x]`; path holds the components."""
    path: tuple[str, ...]
    alias: str | None = None


@dataclass(frozen=True)
class FromImport(Node):
    path: tuple[str, ...]
    names: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class ProtoParam(Node):
    type: TypeExpr
    name: str | None


@dataclass(frozen=True)
class Proto(Node):
    name: str
    ret: TypeExpr
    params: tuple[ProtoParam, ...]


@dataclass(frozen=True)
class ProtoField(Node):
    """`T name @ OFFSET [storage]`: a field of a C struct at a byte offset; `storage` names
    the C integer type when it is wider or unsigned beyond T (`int avail_in @ 8 uint32_t`)."""
    type: TypeExpr
    name: str
    offset: int
    storage: str | None = None


@dataclass(frozen=True)
class ProtoStruct(Node):
    """`proto struct NAME(SIZE)` with its fields: a C struct Neve reaches through a pointer
    (docs/interop.md)."""
    name: str
    size: int
    fields: tuple[ProtoField, ...]


@dataclass(frozen=True)
class ProtoConst(Node):
    """`proto T NAME = VALUE`: a C constant (an int, or the bytes of a str)."""
    name: str
    type: TypeExpr
    value: object


@dataclass(frozen=True)
class MainDef(Node):
    body: Block


TopLevel = Union[FuncDef, ClassDef, TypeAlias, Import, FromImport, Proto, ProtoStruct, ProtoConst,
                 MainDef]


@dataclass(frozen=True)
class Module(Node):
    """One source file. `path` is the file as given; `items` in source order."""
    path: str
    items: tuple[TopLevel, ...] = field(default_factory=tuple)
