"""The typed IR: what the checker produces and lowering consumes.

Every expression carries its final type; implicit conversions are explicit `Cast` nodes;
overloaded intrinsics are resolved to a specific `Builtin` name. Lowering never re-derives
a type from the syntax tree.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Span
from .types import Type


@dataclass(eq=False)
class Var:
    """A local variable or parameter (identity matters, not the name)."""
    name: str
    type: Type
    span: Span
    is_param: bool = False


@dataclass(eq=False)
class FuncSym:
    """A compiled function: `main`, a top-level def (later: methods, specialisations)."""
    name: str                  # source name, shown in traces
    symbol: str                # the object-file symbol
    params: list[Var]
    ret: Type
    span: Span
    defaults: list[Any] = field(default_factory=list)   # ast.Expr | None per parameter
    body: "Block | None" = None
    may_raise: bool = True     # needs an NvFrame (computed after checking)
    calls: set = field(default_factory=set)             # FuncSyms called directly
    raises_directly: bool = False
    scc: int | None = None     # recursive component id (stack probe on entry), else None
    ast: Any = None            # its FuncDef / CtorDef / MainDef
    scope: Any = None          # the symbols.ModScope it was declared in
    env: dict = field(default_factory=dict)   # type parameter bindings
    owner: Any = None          # symbols.ClassInfo for methods and ctors
    foreign: Any = None        # foreign.ProtoInfo for a `proto` (C symbol, no body)
    kind: str = "def"          # 'def' | 'kernel' | 'gpu' (LANGUAGE.md 12.1)
    plan: Any = None           # a kernel's lower.regions.Plan, made once by the checker


# ------------------------------------------------------------------ expressions

@dataclass(eq=False)
class Expr:
    type: Type
    span: Span


@dataclass(eq=False)
class Const(Expr):
    """int/float(as Python float or decimal text)/bool/bytes(str)/None (nil or zero value)."""
    value: Any


@dataclass(eq=False)
class Zero(Expr):
    """The zero value of `type` (3.2); for array types with `fresh`, a new empty array."""
    fresh: bool = False


@dataclass(eq=False)
class Local(Expr):
    var: Var


@dataclass(eq=False)
class Placeholder(Expr):
    """The current value of a compound assignment's target (`x` in `x = x op e`)."""


@dataclass(eq=False)
class CallFn(Expr):
    func: FuncSym
    args: list[Expr]
    recv_check: tuple[str, str] | None = None   # (method, class): nil receiver check
    virtual: int | None = None     # a method's vtable slot: dispatch on the receiver (7.5)
    static_class: Any = None       # with `virtual`: the receiver's static ClassInfo


@dataclass(eq=False)
class Builtin(Expr):
    """An intrinsic: `name` selects the lowering routine; `extra` holds static data
    (an element type, an op code, a literal message)."""
    name: str
    args: list[Expr]
    extra: Any = None


@dataclass(eq=False)
class Unop(Expr):
    op: str                    # 'neg' | 'not'
    operand: Expr


@dataclass(eq=False)
class Binop(Expr):
    """Arithmetic/bitwise on operands already converted to `type` (shifts: the right operand
    keeps its own integer type). op: add sub mul div floordiv mod ceildiv and or xor shl shr."""
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Cmp(Expr):
    """Comparison of two operands of one type `operand_type`; result bool."""
    op: str                    # == != < <= > >=
    left: Expr
    right: Expr
    operand_type: Type


@dataclass(eq=False)
class Logic(Expr):
    op: str                    # 'and' | 'or' (short-circuit)
    left: Expr
    right: Expr


@dataclass(eq=False)
class Cast(Expr):
    """Convert `operand` to `type` (numeric, bool(x), str(x), nil to a reference type)."""
    operand: Expr


@dataclass(eq=False)
class StrCat(Expr):
    """Concatenation of texts: each part formatted as print would (type str)."""
    parts: list[Expr]


@dataclass(eq=False)
class IndexGet(Expr):
    """`obj[index]` for array, str, fixed array; tuple with constant index."""
    obj: Expr
    index: Expr


@dataclass(eq=False)
class SliceGet(Expr):
    obj: Expr
    lo: Expr | None
    hi: Expr | None


@dataclass(eq=False)
class ArrayNew(Expr):
    elems: list[Expr]


@dataclass(eq=False)
class TupleNew(Expr):
    elems: list[Expr]


@dataclass(eq=False)
class FixedNew(Expr):
    elems: list[Expr]


@dataclass(eq=False)
class Seq(Expr):
    """Run `stmts`, then evaluate `value` (used for desugarings like mapit)."""
    stmts: list["Stmt"]
    value: Expr


# ------------------------------------------------------------------ statements

@dataclass(eq=False)
class Stmt:
    span: Span


@dataclass(eq=False)
class Decl(Stmt):
    var: Var
    init: Expr


@dataclass(eq=False)
class Assign(Stmt):
    """`target = value`; with `compound`, value mentions Placeholder (the target's old value)
    and the target's address is computed once, before value."""
    target: Expr               # Local | IndexGet (array, fixed) | tuple element ...
    value: Expr
    compound: bool = False


@dataclass(eq=False)
class MultiAssign(Stmt):
    """`a, b = x, y` (values all evaluated first) or `a, b = t` (destructure one tuple)."""
    targets: list[Expr]
    values: list[Expr]


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False)
class Block(Stmt):
    body: list[Stmt]


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Block
    orelse: Block | None


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: Block


@dataclass(eq=False)
class ForC(Stmt):
    var: Var
    start: Expr
    cond: Expr
    step: Expr
    body: Block


@dataclass(eq=False)
class ForEach(Stmt):
    """`for x in a` over array, fixed array or str."""
    var: Var
    iterable: Expr
    body: Block


@dataclass(eq=False)
class RangeLoop(Stmt):
    vars: list[Var]            # one per range (hidden ones for unnamed ranges)
    ranges: list[tuple[Expr, Expr]]
    body: Block


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Finish(Stmt):
    """Run `body`, then wait for every thread started inside it (9.1)."""
    body: Block


@dataclass(eq=False)
class Spawn(Stmt):
    """Start threads running `func` (a FuncSym whose parameters are the captured variables,
    then the split chunks): `kind` async / spawn (one thread) or asyncs (`count` threads).
    `captures` are the enclosing function's variables copied into the first parameters;
    `splits` the (array, mode) pairs chunked per thread into the last ones (9.2, 9.3)."""
    kind: str
    count: Expr | None
    func: FuncSym
    captures: list[Var]
    splits: list[tuple[Expr, str]]


@dataclass(eq=False)
class LockStmt(Stmt):
    """`lock "name"` (name), plain `lock` (both None: the mutex "mutex") or `lock e` (obj)."""
    name: str | None
    obj: Expr | None
    body: Block


@dataclass(eq=False)
class Launch(Stmt):
    """`launch [grid] [block] [smem] kernel(args)` (12.3): `grid` and `block` hold three int
    expressions (missing dimensions are Const 1), `smem` an int (Const 0 when absent), `call`
    the kernel call with its arguments converted as in calls (a CallFn, or a Seq around one
    when keyword arguments reorder them). Evaluated left to right: grid, block, smem, stream,
    args. `stream` is the gpu_stream of `on s` (None: the thread's own stream)."""
    kernel: FuncSym
    grid: list[Expr]
    block: list[Expr]
    smem: Expr
    call: Expr
    stream: Expr | None = None


@dataclass(eq=False)
class Program:
    """A checked program: every function to compile (main, methods and specialisations
    included), the globals in creation order, and the concrete classes."""
    path: str
    functions: list[FuncSym]
    main: FuncSym | None
    globals: list = field(default_factory=list)
    classes: list = field(default_factory=list)
    closed: bool = True        # every module of the program is here (not one build unit)
