"""Checking of phase-2 kernel code (docs/phase2.md): layout views, tiles, address forms, gpu
operators over layouts and the async-copy and tensor-core intrinsics.

A layout is not a run-time value of its own: the checker keeps its shape (`LayoutInfo`, keyed
by the local that holds its storage) and turns every use into phase-1 typed IR:

    var v = layout<T, d...>(buf)     Decl v: T[]     = Builtin "k.layout" [buf]  extra=info
    var s = layout<T, d..., smem>()  Decl s: T[]     = Builtin "k.layout" []     extra=info
    var r = layout<T, d...>()        Decl r: T[n]    = Builtin "k.layout" []     extra=info
    v[i, j]                          IndexGet(v, i*d1 + j)
    v{i, j}, v{h, w}(i, j)           offby_buffer / offby_fixed (an address)
    z += a @ b                       CallFn(the gpu operator, [a, b, z, shape values...])
    cp_async16(d, s)                 Builtin VOID "k.cp_async16" [d, s]
    cp_commit_group()                Builtin VOID "k.cp_commit" []
    cp_wait_group(n)                 Builtin VOID "k.cp_wait" [] extra=n
    ldmatrix_x4(d, s), _x2           Builtin VOID "k.ldmatrix" [d, s] extra=4 | 2
    mma_16x8x16<T>(c, a, b)          Builtin VOID "k.mma" [c, a, b] extra=0 (bf16) | 1 (f16)

A gpu operator's layout parameters are buffers, and each dimension name of its parameters
(`m, n, p`) becomes a hidden trailing `int` parameter bound at the call.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from .. import ast as A
from .. import tir as T
from ..types import BufferT, FixedT, Prim, Type, BF16, FLOAT, HALF, I32, INT, VOID

REG32 = ("i32", "u32", "float")           # element types of 32-bit registers
HALF16 = ("bf16", "half", "i16", "u16")    # what ldmatrix moves
SIZES = {"int": 8, "i32": 4, "u32": 4, "float": 4, "f64": 8, "bf16": 2, "half": 2, "i16": 2,
         "u16": 2, "i8": 1, "u8": 1, "u64": 8, "char": 1, "bool": 1}
# the mangled names of gpu operators (one CPU and one PTX function per symbol)
OPERATOR_WORDS = {"@": "matmul", "+": "add", "-": "sub", "*": "mult", "/": "div",
                  "//": "floordiv", "%": "mod", "==": "equal", "!=": "different", "<": "minor",
                  "<=": "minor_eq", ">": "higher", ">=": "higher_eq", "and": "and", "or": "or"}
SHAPE_RULE = ("a layout's dimensions are compile-time constants or values fixed for the "
              "launch (kernel parameters, a gpu operator's dimension names)")


@dataclass(eq=False)
class LayoutInfo:
    """The element type, dimensions and memory space of a layout (docs/phase2.md)."""
    elem: Type
    dims: list                  # T.Const or uniform T.Expr, one per dimension
    space: str                  # 'global' | 'smem' | 'reg'
    untyped: bool = False       # a register layout of `int`: 32-bit registers

    def __str__(self) -> str:
        ds = ", ".join(dim_text(d) for d in self.dims)
        return f"layout<{self.elem}, {ds}{', smem' if self.space == 'smem' else ''}>"

    @property
    def total(self) -> int | None:
        n = 1
        for d in self.dims:
            v = const_value(d)
            if v is None:
                return None
            n *= v
        return n


@dataclass
class Addr:
    """An address form's value and what the intrinsics check about it."""
    expr: T.Expr
    info: LayoutInfo | None      # None: a plain buffer
    offset: int | None          # the element offset when constant
    piece: int | None = None    # elements in the innermost piece of v{h, w}(i, j)


def dim_text(d) -> str:
    """A dimension as messages show it: its value, or the name it is bound to."""
    v = const_value(d)
    if v is not None:
        return str(v)
    if isinstance(d, T.Local):
        return d.var.name
    return "?"


def const_value(e) -> int | None:
    """The integer value of a constant dimension expression, None when it is not constant."""
    if isinstance(e, T.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, T.Cast):
        return const_value(e.operand)
    if isinstance(e, T.Binop):
        a, b = const_value(e.left), const_value(e.right)
        if a is None or b is None:
            return None
        if e.op == "add":
            return a + b
        if e.op == "sub":
            return a - b
        if e.op == "mul":
            return a * b
        if e.op == "floordiv" and b != 0:
            return a // b
        if e.op == "mod" and b != 0:
            return a % b
    return None


def ast_nodes(n):
    """Every syntax node under n (n included)."""
    stack = [n]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Node):
            yield x
            stack.extend(getattr(x, f.name) for f in fields(x))
        elif isinstance(x, tuple):
            stack.extend(x)


class LayoutChecker:
    # ------------------------------------------------------------ helpers
    @property
    def layouts(self) -> dict:
        d = getattr(self, "_layouts", None)
        if d is None:
            d = self._layouts = {}
        return d

    def kint(self, e) -> T.Expr:
        return self.coerce_int(self.expr(e, expected=INT), e.span)

    def imul(self, a, b, sp) -> T.Expr:
        x, y = const_value(a), const_value(b)
        if x is not None and y is not None:
            return T.Const(INT, sp, x * y)
        if x == 1:
            return b
        if y == 1:
            return a
        return T.Binop(INT, sp, "mul", a, b)

    def iadd(self, a, b, sp) -> T.Expr:
        x, y = const_value(a), const_value(b)
        if x is not None and y is not None:
            return T.Const(INT, sp, x + y)
        if x == 0:
            return b
        if y == 0:
            return a
        return T.Binop(INT, sp, "add", a, b)

    def need_kernel(self, what: str, sp) -> None:
        if not self.in_kernel():
            self.fail(sp, f"{what} only available in kernel and gpu code",
                      "layouts and tensor-core intrinsics are device code (docs/phase2.md)")

    def fixed_shape(self, e: T.Expr) -> bool:
        from ..lower.tir_walk import walk
        for x in walk(e):
            if isinstance(x, T.Local):
                if not x.var.is_param:
                    return False
            elif isinstance(x, T.Builtin):
                if x.name not in ("min", "max"):
                    return False
            elif not isinstance(x, (T.Const, T.Binop, T.Unop, T.Cast)):
                return False
        return True

    def layout_elem(self, te: A.LayoutType, space: str) -> Type:
        t = self.resolve_type(te.elem)
        if space == "reg" and t == INT:
            return I32                # `int` in a register layout is a 32-bit register
        if not isinstance(t, Prim) or t.name not in SIZES:
            self.fail(te.elem.span, f"a layout holds numbers, bool or char, not {t}")
        return t

    # ------------------------------------------------------------ layouts
    def ex_LayoutNew(self, e: A.LayoutNew, expected):
        te = e.type
        self.need_kernel("layouts are", e.span)
        if any(a.keyword or a.split for a in e.args) or len(e.args) > 1:
            self.fail(e.span, "a layout view takes one buffer: layout<T, d0, ...>(buffer)")
        space = "smem" if te.smem else "global" if e.args else "reg"
        if te.smem and e.args:
            self.fail(e.args[0].span, "a shared-memory layout is allocated, not a view: "
                                      "layout<T, d0, ..., smem>()")
        elem = self.layout_elem(te, space)
        dims = []
        for d in te.dims:
            if isinstance(d, A.Name) and d.id == "smem" and self.scope.lookup("smem") is None:
                self.fail(d.span, "smem comes last in a layout: layout<T, d0, ..., smem>()")
            x = self.kint(d)
            v = const_value(x)
            if space != "global" and v is None:
                self.fail(d.span, "the dimensions of a shared or register layout are "
                                  "compile-time constants")
            if v is None and not self.fixed_shape(x):
                self.fail(d.span, SHAPE_RULE)
            if v is not None and v <= 0:
                self.fail(d.span, f"a layout dimension must be positive, got {v}")
            dims.append(T.Const(INT, d.span, v) if v is not None else x)
        info = LayoutInfo(elem, dims, space, space == "reg" and
                          isinstance(te.elem, A.TypeName) and te.elem.name == "int")
        if space == "global":
            buf = self.expr(e.args[0].value, expected=BufferT(elem))
            if buf.type != BufferT(elem):
                self.fail(e.args[0].span, f"{info} views a {BufferT(elem)} buffer, got {buf.type}")
            return T.Builtin(buf.type, e.span, "k.layout", [buf], info)
        t = BufferT(elem) if space == "smem" else FixedT(elem, info.total)
        return T.Builtin(t, e.span, "k.layout", [], info)

    def refuse_layout_copy(self, e) -> None:
        """`var w = v` of a layout v: w would silently be its buffer or a copy of its registers,
        not a layout (docs/phase2.md: a layout cannot be copied)."""
        v = self.scope.lookup(e.id) if isinstance(e, A.Name) and self.scope else None
        if v is not None and v in self.layouts:
            self.fail(e.span, f"a layout cannot be copied: '{e.id}' is {self.layouts[v]}",
                      f"use its elements {e.id}[i, ...] or its address {e.id}{{0}}; another "
                      "view of a buffer is var w = layout<T, d0, ...>(buf)")

    def layout_init(self, name: str, init: T.Expr) -> T.Expr:
        """`var name = layout<...>(...)`: a register layout of `int` that an mma accumulates
        into holds f32 values (docs/phase2.md)."""
        if not (isinstance(init, T.Builtin) and init.name == "k.layout"):
            return init
        info = init.extra
        if info.untyped and name in self.mma_accumulators():
            info.elem = FLOAT
            init.type = FixedT(FLOAT, init.type.n)
        return init

    def note_layout(self, var: T.Var, init: T.Expr) -> None:
        if isinstance(init, T.Builtin) and init.name == "k.layout":
            self.layouts[var] = init.extra

    def mma_accumulators(self) -> set:
        f = self.cur_func
        cache = getattr(f, "mma_accs", None)
        if cache is None:
            cache = set()
            for n in ast_nodes(f.ast.body if f.ast is not None else None):
                if isinstance(n, A.Call) and isinstance(n.func, A.Name) and \
                        n.func.id == "mma_16x8x16" and n.args:
                    x = n.args[0].value
                    if isinstance(x, A.AddrOf) and isinstance(x.obj, A.Name):
                        cache.add(x.obj.id)
            f.mma_accs = cache
        return cache

    def layout_var(self, e, what: str = "a layout"):
        """(its storage local, its LayoutInfo) for a name that holds a layout."""
        if isinstance(e, A.Name):
            v = self.scope.lookup(e.id)
            if v is not None and v in self.layouts:
                return T.Local(v.type, e.span, v), self.layouts[v]
        x = self.expr(e)
        self.fail(e.span, f"{what} needs a layout, got {x.type}",
                  "declare one with var v = layout<T, d0, ...>(...)")

    def flat_offset(self, info: LayoutInfo, idx: list, sp) -> T.Expr:
        """Row-major offset of indices aligned to the last dimensions: with fewer indices than
        dimensions, the first index runs over the leading dimensions merged."""
        r, k = len(info.dims), len(idx)
        if k > r:
            self.fail(sp, f"{info} has {r} dimension{'s' if r > 1 else ''}, got {k} indices")
        dims = info.dims[r - k:]
        lead = info.dims[:r - k + 1]
        sizes = [self.prod(lead, sp)] + dims[1:]
        off: T.Expr = T.Const(INT, sp, 0)
        for q, (x, d) in enumerate(zip(idx, sizes)):
            v, n = const_value(x), const_value(d)
            if v is not None and n is not None and not 0 <= v < n:
                where = f"dimensions 0 to {r - k} merged have" if q == 0 and r > k else \
                    f"dimension {r - k + q} has"
                self.fail(x.span, f"index {v} is outside {info} ({where} size {n})")
            off = self.iadd(off, self.imul(x, self.prod(sizes[q + 1:], sp), sp), sp)
        return off

    def prod(self, ds: list, sp) -> T.Expr:
        out: T.Expr = T.Const(INT, sp, 1)
        for d in ds:
            out = self.imul(out, d, sp)
        return out

    def ex_MultiIndex(self, e: A.MultiIndex, expected):
        base, info = self.layout_var(e.obj, "v[i, j]")
        off = self.flat_offset(info, [self.kint(i) for i in e.indices], e.span)
        return T.IndexGet(info.elem, e.span, base, off)

    def address(self, e) -> Addr:
        """The value of an address form (or of a plain buffer) with what is known of it."""
        if isinstance(e, A.AddrOf):
            base, info = self.layout_var(e.obj, "v{i, j}")
            off = self.flat_offset(info, [self.kint(i) for i in e.indices], e.span)
            return Addr(self.layout_offby(base, off, e.span), info, const_value(off))
        if isinstance(e, A.Call) and isinstance(e.func, A.AddrOf):
            return self.piece_address(e)
        x = self.expr(e)
        if isinstance(x.type, BufferT):
            return Addr(x, None, None)
        self.fail(e.span, f"expected an address (v{{i, j}} or a buffer), got {x.type}")

    def layout_offby(self, base: T.Expr, off: T.Expr, sp) -> T.Expr:
        if isinstance(base.type, FixedT):
            return T.Builtin(BufferT(base.type.elem), sp, "offby_fixed", [base, off])
        if const_value(off) == 0:
            return base
        return T.Builtin(base.type, sp, "offby_buffer", [base, off])

    def piece_address(self, e: A.Call) -> Addr:
        """`v{s0, s1, ...}(c0, c1, ...)`: piece c0 of s0 elements of v's storage, in it
        piece c1 of s1 elements, ...: the address v + c0*s0 + c1*s1 + ..."""
        f = e.func
        if e.cargs:
            self.fail(e.cargs[0].span, "a piece v{h, w}(i, j) has no compile-time parameters")
        base, info = self.layout_var(f.obj, "v{h, w}(i, j)")
        sizes = []
        for s in f.indices:
            v = const_value(self.kint(s))
            if v is None or v <= 0:
                self.fail(s.span, "the sizes of v{h, w}(i, j) are positive constants")
            sizes.append(v)
        if len(e.args) != len(sizes) or any(a.keyword or a.split for a in e.args):
            self.fail(e.span, f"v{{{', '.join(map(str, sizes))}}}(...) takes {len(sizes)} "
                              f"coordinate{'s' if len(sizes) > 1 else ''}")
        for big, small in zip(sizes, sizes[1:]):
            if big % small:
                self.fail(f.span, f"the pieces of {{{', '.join(map(str, sizes))}}} do not nest: "
                                  f"{small} does not divide {big}")
        total = info.total
        if total is not None and sizes[0] > total:
            self.fail(f.span, f"a piece of {sizes[0]} elements lies outside {info} "
                              f"({total} elements)")
        off: T.Expr = T.Const(INT, e.span, 0)
        for a, s in zip(e.args, sizes):
            c = self.kint(a.value)
            cv = const_value(c)
            if cv is not None and total is not None and not 0 <= cv * s < total:
                self.fail(a.span, f"piece {cv} of {s} elements lies outside {info}")
            off = self.iadd(off, self.imul(c, T.Const(INT, a.span, s), a.span), e.span)
        return Addr(self.layout_offby(base, off, e.span), info, const_value(off), sizes[-1])

    def ex_AddrOf(self, e: A.AddrOf, expected):
        return self.address(e).expr

    def tile_call(self, e: A.Call):
        """A call whose callee is `v[...]` or `v{...}` (ex_Call sends these here)."""
        if isinstance(e.func, A.AddrOf):
            return self.piece_address(e).expr
        self.fail(e.span, "a tile v[h, w](i, j) is an operand of a gpu operator",
                  "write z += v[h, w](i, j) OP u[h, w](i, j) for a gpu operator OP, e.g. @")

    def tile(self, e: A.Call):
        """`v[h0, h1, ...](t0, t1, ...)`: (the address of its origin, the layout of v)."""
        if e.cargs:
            self.fail(e.cargs[0].span, "a tile v[h, w](i, j) has no compile-time parameters",
                      "its sizes are in the brackets: v[BM, BN](i, j)")
        base, info = self.layout_var(e.func.obj, "a tile")
        hs = [self.kint(h) for h in e.func.indices]
        r = len(info.dims)
        if len(hs) != r or len(e.args) != r or any(a.keyword or a.split for a in e.args):
            self.fail(e.span, f"a tile of {info} takes {r} sizes and {r} coordinates")
        ts = [self.kint(a.value) for a in e.args]
        off: T.Expr = T.Const(INT, e.span, 0)
        for q, (h, t, d) in enumerate(zip(hs, ts, info.dims)):
            if not (const_value(h) is not None or self.fixed_shape(h)):
                self.fail(h.span, "a tile's sizes are " + SHAPE_RULE[len("a layout's dimensions are "):])
            hv, tv, dv = const_value(h), const_value(t), const_value(d)
            if hv is not None and dv is not None and (hv > dv or tv is not None and
                                                     (tv < 0 or (tv + 1) * hv > dv)):
                shown = ", ".join(dim_text(x) for x in hs)
                at = ", ".join(dim_text(x) if const_value(x) is not None else "_" for x in ts)
                self.fail(e.span, f"tile [{shown}]({at}) lies outside {info}")
            origin = self.imul(t, h, e.span)
            off = self.iadd(off, self.imul(origin, self.prod(info.dims[q + 1:], e.span), e.span),
                            e.span)
        return self.layout_offby(base, off, e.span), info

    # ------------------------------------------------------------ gpu operators
    def declare_gpu_operator(self, ms, fd: A.FuncDef) -> T.FuncSym | None:
        from .decl import mangle
        saved = self.ctx_swap(ms, {}, None)
        try:
            ret = self.resolve_or_error(fd.ret, allow_void=True)
            if ret != VOID:
                self.error(fd.ret.span, "a gpu operator returns void: it accumulates into its "
                                        "last parameter")
            if len(fd.params) != 3:
                self.error(fd.span, f"a gpu operator '{fd.name}' takes three parameters: the two "
                                    f"operands and the result, each a layout or a buffer "
                                    f"(gpu void {fd.name}(layout<...> a, layout<...> b, "
                                    f"layout<...> z))")
                return None
            params, shape, infos = [], {}, []
            for p in fd.params:
                te = p.type
                if not isinstance(te, A.LayoutType):
                    t = self.resolve_type(te)
                    if not isinstance(t, BufferT):
                        self.fail(te.span, f"a gpu operator's parameters are layouts or buffers, "
                                           f"got {t}")
                    params.append(T.Var(p.name, t, p.span, is_param=True))
                    infos.append(None)
                    continue
                elem = self.layout_elem(te, "global")
                dims = []
                for d in te.dims:
                    if isinstance(d, A.IntLit):
                        dims.append(T.Const(INT, d.span, d.value))
                    elif isinstance(d, A.Name):
                        if d.id not in shape:
                            shape[d.id] = T.Var(d.id, INT, d.span, is_param=True)
                        v = shape[d.id]
                        dims.append(T.Local(INT, d.span, v))
                    else:
                        self.error(d.span, "a gpu operator's parameter dimensions are names "
                                           "or integer constants")
                        return None
                var = T.Var(p.name, BufferT(elem), p.span, is_param=True)
                params.append(var)
                infos.append(LayoutInfo(elem, dims, "smem" if te.smem else "global"))
            clash = [v for v in shape.values() if v.name in {p.name for p in fd.params}]
            if clash:
                self.error(clash[0].span, f"'{clash[0].name}' names both a parameter and a "
                                          f"dimension")
                return None
        except Abandon:
            return None
        finally:
            self.ctx_restore(saved)
        params += list(shape.values())
        word = OPERATOR_WORDS.get(fd.name, "op")
        sym = T.FuncSym(f"gpu operator {fd.name}", mangle(ms.key, f"gpu_{word}", {}), params,
                        VOID, fd.span, defaults=[None] * len(params))
        sym.ast, sym.scope, sym.env, sym.kind = fd, ms, {}, "gpu"
        for v, info in zip(params, infos):
            if info is not None:
                self.layouts[v] = info
        self.queue.append(sym)
        return sym

    def gpu_operator(self, op: str):
        for ms in self.ms.visible:
            for name, sym in getattr(ms, "gpu_operators", ()):
                if name == op and sym is not None:
                    return sym
        return None

    def is_gpu_operator_use(self, rhs: A.Binary) -> bool:
        """Whether `z += a OP b` in kernel code calls a gpu operator: always for `@`; for another
        symbol when an operand is a layout or a tile, or a buffer and that operator is defined
        (`s += x * y` on numbers stays arithmetic)."""
        if rhs.op == "@" or self.layout_operand(rhs):
            return True
        if self.gpu_operator(rhs.op) is None:
            return False
        for a in (rhs.left, rhs.right):
            v = self.scope.lookup(a.id) if isinstance(a, A.Name) else None
            if v is not None and isinstance(v.type, BufferT):
                return True
        return False

    def layout_operand(self, e: A.Binary) -> bool:
        """Whether an operand of e is a tile or names a layout."""
        for a in (e.left, e.right):
            if isinstance(a, A.Call) and isinstance(a.func, A.MultiIndex):
                return True
            v = self.scope.lookup(a.id) if isinstance(a, A.Name) and self.scope else None
            if v is not None and v in self.layouts:
                return True
        return False

    def gpu_operator_call(self, s: A.Assign):
        """`z += a @ b` in kernel code: the gpu operator's call with (a, b, z) and the values
        of its dimension names."""
        rhs = s.values[0]
        sym = self.gpu_operator(rhs.op)
        if sym is None:
            self.fail(rhs.span, f"no gpu operator '{rhs.op}' is defined for layouts",
                      f"define one: gpu void {rhs.op}(layout<...> a, layout<...> b, "
                      f"layout<...> z)")
        names = ("left operand", "right operand", "result")
        bound: dict = {}
        args = []
        for k, (a, p) in enumerate(zip((rhs.left, rhs.right, s.targets[0]), sym.params)):
            pinfo = self.layouts.get(p)
            expr, info = self.operator_arg(a)
            if expr.type != p.type:
                got = info if info is not None else expr.type
                self.fail(a.span, f"the {names[k]} of '{rhs.op}' is {got}; the operator takes "
                                  f"{pinfo or p.type} as {p.name}")
            args.append(expr)
            if info is None or pinfo is None:
                continue
            if len(info.dims) != len(pinfo.dims):
                self.fail(a.span, f"shape mismatch: {p.name} is {pinfo}, got {info}")
            for pd, ad in zip(pinfo.dims, info.dims):
                if isinstance(pd, T.Local):
                    prev = bound.get(pd.var)
                    if prev is None:
                        bound[pd.var] = (ad, p.name)
                        continue
                    x, y = const_value(prev[0]), const_value(ad)
                    if x is not None and y is not None and x != y:
                        self.fail(a.span, f"shape mismatch: '{pd.var.name}' is {x} from "
                                          f"{prev[1]} and {y} from {p.name}")
                    continue
                y = const_value(ad)
                if y is not None and y != const_value(pd):
                    self.fail(a.span, f"shape mismatch: {p.name} is {pinfo}, got {info}")
        for v in sym.params[3:]:
            if v not in bound:
                self.fail(s.span, f"the dimension '{v.name}' of gpu operator '{rhs.op}' is not "
                                  f"given by a layout argument")
            args.append(bound[v][0])
        self.cur_func.calls.add(sym)
        return T.ExprStmt(s.span, T.CallFn(VOID, rhs.span, sym, args))

    def operator_arg(self, a):
        if isinstance(a, A.Call) and isinstance(a.func, A.MultiIndex):
            expr, info = self.tile(a)
        elif isinstance(a, A.Name) and (v := self.scope.lookup(a.id)) is not None and \
                v in self.layouts:
            expr, info = T.Local(v.type, a.span, v), self.layouts[v]
        else:
            x = self.expr(a)
            if not isinstance(x.type, BufferT):
                self.fail(a.span, f"a gpu operator takes layouts, tiles or buffers, got {x.type}")
            return x, None
        if info.space == "reg":
            self.fail(a.span, "a register layout cannot be passed to a gpu operator")
        return expr, info

    # ------------------------------------------------------------ intrinsics
    def warp_intrinsic(self, e: A.Call, name: str) -> T.Expr:
        from .call import call_site, plain_args
        sp = call_site(e)
        self.need_kernel(f"'{name}' is", sp)
        if name == "cp_commit_group":
            plain_args(self, e, name, 0, 0)
            return T.Builtin(VOID, sp, "k.cp_commit", [])
        if name == "cp_wait_group":
            (n,) = plain_args(self, e, name, 1, 1)
            v = const_value(self.kint(n))
            if v is None or not 0 <= v <= 7:
                self.fail(n.span, "cp_wait_group takes a constant from 0 to 7 (the number of "
                                  "copy groups left pending)")
            return T.Builtin(VOID, sp, "k.cp_wait", [], v)
        if name == "cp_async16":
            d, s_ = plain_args(self, e, name, 2, 2)
            dst, src = self.address(d), self.address(s_)
            if dst.info is None or dst.info.space != "smem":
                self.fail(d.span, "cp_async16 copies into shared memory: its first argument "
                                  "is an address in a smem layout")
            if src.info is not None and src.info.space != "global":
                self.fail(s_.span, "cp_async16 copies from device memory: its second argument "
                                   "is an address in a buffer or a layout over one")
            for a, x in ((d, dst), (s_, src)):
                if x.piece is not None:
                    n = x.piece * SIZES[x.expr.type.elem.name]
                    if n != 16:
                        self.fail(a.span, f"shape mismatch: cp_async16 copies 16 bytes, this "
                                          f"piece holds {x.piece} x {x.expr.type.elem} = {n} bytes")
            return T.Builtin(VOID, sp, "k.cp_async16", [dst.expr, src.expr])
        if name in ("ldmatrix_x4", "ldmatrix_x2"):
            nmat = int(name[-1])
            d, s_ = plain_args(self, e, name, 2, 2)
            dst = self.register_addr(d, nmat, name)
            src = self.address(s_)
            if src.info is None or src.info.space != "smem":
                self.fail(s_.span, f"{name} reads shared memory: its second argument is an "
                                   f"address in a smem layout")
            if src.info.elem.name not in HALF16:
                self.fail(s_.span, f"{name} moves 16-bit elements, not {src.info.elem}")
            return T.Builtin(VOID, sp, "k.ldmatrix", [dst.expr, src.expr], nmat)
        # mma_16x8x16
        targs = e.func.targs if isinstance(e.func, A.Name) else ()
        kind = 0
        if targs:
            t = self.resolve_type(targs[0])
            if len(targs) > 1 or t not in (BF16, HALF):
                self.fail(sp, "mma_16x8x16 multiplies bf16 or half: mma_16x8x16<bf16> or "
                              "mma_16x8x16<half>")
            kind = 0 if t == BF16 else 1
        c, a, b = plain_args(self, e, name, 3, 3)
        cd = self.register_addr(c, 4, name, "float")
        aa = self.register_addr(a, 4, name)
        bb = self.register_addr(b, 2, name)
        return T.Builtin(VOID, sp, "k.mma", [cd.expr, aa.expr, bb.expr], kind)

    def register_addr(self, e, n: int, name: str, want: str | None = None) -> Addr:
        x = self.address(e)
        if x.info is None or x.info.space != "reg":
            self.fail(e.span, f"{name} works on registers: this argument is an address in a "
                              f"register layout (var r = layout<int, ...>())")
        el = x.info.elem.name
        if el not in REG32 or want is not None and el != want:
            self.fail(e.span, f"{name} needs {want or '32-bit'} registers here, got a layout "
                              f"of {x.info.elem}" + (" (an int register layout used as an "
                                                     "mma accumulator holds float)" if want else ""))
        total = x.info.total
        if x.offset is not None and total is not None and x.offset + n > total:
            self.fail(e.span, f"{name} uses {n} registers from element {x.offset}: past the end "
                              f"of {x.info}")
        return x


from .expr import Abandon  # noqa: E402 (expr imports this module's users)
