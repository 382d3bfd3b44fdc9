"""Checking of kernels, gpu functions and launches (LANGUAGE.md 12.1-12.3) and of the host
side of GPU buffers (14.8).

Typed-IR nodes produced here (lowering dispatches on `Builtin.name`):

    Builtin INT  "k.index" extra=(kind, axis)   kind: 'thread' (tx ty tz), 'block' (bx by bz),
                                                'block_dim' (bdx bdy bdz), 'grid_dim' (gdx gdy gdz);
                                                axis 0, 1, 2
    Builtin INT  "k.warp", "k.lane"             tx // 32, tx % 32
    Builtin VOID "k.sync"                       syncthreads()
    Builtin T    "k.shfl" [v, k: INT] extra='xor'|'down'   T is int, i32, float or f64
    Builtin T[]  "k.shared" [offset: INT] extra=T          dynamic shared memory + offset bytes
    Builtin T    "atomic_add" [p: T[], v: T] extra=T       old value; host code too
    Const INT    size_of<T>()                              folded here (buffers: 8, an address)
    Builtin BOOL "gpu_available", Builtin VOID "gpu_sync"
    Builtin gpu_stream "gpu_stream", Builtin VOID "gpu_sync_stream" [s]   (docs/phase2.md)
    Builtin T[]  "buffer" / "device_buffer" [n] extra=T    zeroed host / device memory
    Builtin VOID "copy" [dst: T[], src: T[], n] extra=T
    Builtin T[]  "to_buffer" / "to_device" [a: array<T>] extra=T
    Builtin array<T> "to_array" [b: T[], n] extra=T
    Stmt Launch (tir.py)

Math in kernel code reuses the host builtins (min max abs sqrt exp log pow tanh floor ceil
isnan isinf); `pow` of two integers is float `pow` there (no runtime error in kernels).
The restrictions of 12.1 are checked by walking each kernel and gpu body's typed IR once it
is checked (`check_kernel_body`), so every construct is reported where it appears.
"""
from __future__ import annotations

from dataclasses import fields

from .. import ast as A
from .. import tir as T
from .call import call_site, call_user, plain_args
from .cparams import has_cparams
from ..builtins import HOST_ONLY, KERNEL_ONLY, STREAM_T
from ..types import (ANY, ArrayT, BufferT, ChannelT, ClassT, FuncT, MapT, Prim, Type, BOOL,
                    CHAR, F64, FLOAT, I32, INT, STR, VOID, is_numeric)

INDEX_NAMES = {
    "tx": ("thread", 0), "ty": ("thread", 1), "tz": ("thread", 2),
    "bx": ("block", 0), "by": ("block", 1), "bz": ("block", 2),
    "bdx": ("block_dim", 0), "bdy": ("block_dim", 1), "bdz": ("block_dim", 2),
    "gdx": ("grid_dim", 0), "gdy": ("grid_dim", 1), "gdz": ("grid_dim", 2),
}
PREDECLARED = set(INDEX_NAMES) | {"warp", "lane"}
# Builtins kernel code may use (12.2), by typed-IR name.
KERNEL_OK = {"k.index", "k.warp", "k.lane", "k.sync", "k.shfl", "k.shared", "atomic_add",
             "min", "max", "abs", "pow", "sqrt", "exp", "log", "tanh", "erf", "floor", "ceil",
             "isnan", "isinf", "offby_fixed", "offby_buffer",
             "k.layout", "k.cp_async16", "k.cp_commit", "k.cp_wait", "k.ldmatrix", "k.mma"}
ATOMIC_TYPES = ("int", "i32", "float", "f64")
ELEM_SIZES = {"int": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
              "char": 1, "bool": 1, "float": 4, "f64": 8, "bf16": 2, "half": 2}


def is_kernel_param_type(t: Type) -> bool:
    return is_numeric(t) or t in (BOOL, CHAR) or isinstance(t, BufferT)


def elem_size(t: Type) -> int | None:
    """Bytes of one element of a T[] (14.8), or None when T cannot be a buffer element."""
    if isinstance(t, BufferT):
        return 8
    return ELEM_SIZES.get(t.name) if isinstance(t, Prim) else None


def forbidden_type(t: Type) -> tuple[str, str | None] | None:
    """The 12.1 message for a value of type t in kernel code, or None when allowed."""
    if t == STR:
        return "strings are not allowed in kernel code", None
    if isinstance(t, ArrayT):
        return "arrays are not allowed in kernel code", "use a buffer T[] or a fixed array T[N]"
    if isinstance(t, MapT):
        return "maps are not allowed in kernel code", None
    if isinstance(t, ChannelT):
        return "channels are not allowed in kernel code", None
    if t == STREAM_T:
        return "streams are host code: kernel code cannot use a gpu_stream", \
            "launch on a stream from host code: launch [g] [b] on s k(...)"
    if isinstance(t, ClassT):
        return "classes are not allowed in kernel code", None
    if isinstance(t, FuncT):
        return "function values are not allowed in kernel code", None
    if t == ANY:
        return "any is not allowed in kernel code", None
    return None


class KernelChecker:
    # ------------------------------------------------------------ context
    def in_kernel(self) -> bool:
        return self.cur_func is not None and self.cur_func.kind != "def"

    def kernel_index(self, e: A.Name):
        """tx, bdx, warp, ... inside kernel and gpu code (12.2); None elsewhere."""
        if not self.in_kernel() or e.id not in PREDECLARED:
            return None
        if e.id in ("warp", "lane"):
            return T.Builtin(INT, e.span, "k." + e.id, [])
        return T.Builtin(INT, e.span, "k.index", [], INDEX_NAMES[e.id])

    def check_kernel_signature(self, sym: T.FuncSym) -> None:
        what = "kernel" if sym.kind == "kernel" else "gpu function"
        for p in sym.params:
            if not is_kernel_param_type(p.type) and str(p.type) != "<error>":
                self.error(p.span, f"{what} parameters are numbers, bool, char or buffers, "
                                   f"got {p.type}")
        if sym.kind == "gpu" and sym.ret != VOID and not is_kernel_param_type(sym.ret) \
                and str(sym.ret) != "<error>":
            self.error(sym.span, f"a gpu function returns a number, bool, char, a buffer or "
                                 f"void, not {sym.ret}")

    def check_call_kind(self, e: A.Call, fn: T.FuncSym) -> None:
        """Who may call whom (12.1): kernels only through launch; gpu functions from kernel code."""
        kind = fn.kind
        if kind == "kernel" and getattr(self, "launching", None) is not fn:
            self.fail(e.func.span, f"kernel '{fn.name}' is started with launch, not called",
                      f"launch [blocks] [threads] {fn.name}(...)")
        if kind == "gpu" and not self.in_kernel():
            self.fail(e.func.span, f"gpu function '{fn.name}' can only be called from kernels "
                                   f"and gpu functions")
        if kind == "def" and self.in_kernel():
            self.fail(e.func.span, f"cannot call '{fn.name}' in kernel code: it is not a gpu "
                                   f"function", "declare it gpu: gpu RET name(...)")

    # ------------------------------------------------------------ launch (12.3)
    def stmt_Launch(self, s: A.Launch):
        if self.in_kernel():
            self.fail(s.span, "launch is not allowed in kernel code")
        f = s.call.func
        fn, name = None, None
        if isinstance(f, A.Name):
            name = f.id
            fn = self.lookup_func(name)
        elif isinstance(f, A.Attribute) and isinstance(f.obj, A.Name):
            name = f.name
            fn = self.import_scope(f.obj.id, f.obj.span).functions.get(name)
        if has_cparams(fn) and fn.ast.kind == "kernel":
            fn = self.cparam_instance(fn, s.call)
        elif s.call.cargs and isinstance(fn, T.FuncSym) and fn.kind == "kernel":
            self.no_cparams(s.call, name)
        if not isinstance(fn, T.FuncSym) or fn.kind != "kernel":
            self.fail(f.span, f"'{name or 'this'}' is not a kernel",
                      "launch starts a kernel: kernel void name(...)")
        dims = []
        for group in (s.grid, s.block):
            ds = [self.coerce_int(self.expr(d, expected=INT), d.span) for d in group]
            dims.append(ds + [T.Const(INT, s.span, 1)] * (3 - len(ds)))
        smem = self.coerce_int(self.expr(s.smem, expected=INT), s.smem.span) \
            if s.smem is not None else T.Const(INT, s.span, 0)
        stream = self.stream_value(s.stream, "launch ... on") if s.stream is not None else None
        self.launching = fn
        try:
            call = call_user(self, s.call, fn)
        finally:
            self.launching = None
        self.mark_raises()
        return T.Launch(s.span, fn, dims[0], dims[1], smem, call, stream)

    def stream_value(self, e, what: str) -> T.Expr:
        x = self.expr(e, expected=STREAM_T)
        if x.type != STREAM_T:
            self.fail(e.span, f"{what} takes a gpu_stream, got {x.type}",
                      "make one with gpu_stream()")
        return x

    def stream_sync(self, e: A.Call) -> T.Expr:
        """`gpu_sync(s)`: wait for the launches on stream s."""
        if len(e.args) != 1 or e.args[0].keyword or e.args[0].split:
            self.fail(call_site(e), "gpu_sync takes one gpu_stream, or nothing to wait for all")
        a = e.args[0].value
        self.mark_raises()
        return T.Builtin(VOID, call_site(e), "gpu_sync_stream", [self.stream_value(a, "gpu_sync")])

    # ------------------------------------------------------------ builtins (12.2, 14.8)
    def kernel_builtin(self, e: A.Call, name: str, expected) -> T.Expr:
        sp = call_site(e)
        if name in KERNEL_ONLY and not self.in_kernel():
            self.fail(sp, f"'{name}' is only available in kernel and gpu code")
        if name in HOST_ONLY and self.in_kernel():
            self.fail(sp, f"'{name}' is not available in kernel code",
                      "buffers are made and copied by host code")
        targs = e.func.targs if isinstance(e.func, A.Name) else ()
        if len(targs) > 1:
            self.fail(sp, f"{name} takes one type argument: {name}<T>(...)")
        targ = self.resolve_type(targs[0]) if targs else None
        if name == "syncthreads":
            plain_args(self, e, name, 0, 0)
            return T.Builtin(VOID, sp, "k.sync", [])
        if name in ("shfl_xor", "shfl_sync", "shfl_down"):
            a, k = plain_args(self, e, name, 2, 2)
            v = self.expr(a)
            if not (isinstance(v.type, Prim) and v.type.name in ATOMIC_TYPES):
                self.fail(a.span, f"{name} needs int, i32, float or f64, got {v.type}")
            kk = self.coerce_int(self.expr(k, expected=INT), k.span)
            return T.Builtin(v.type, sp, "k.shfl", [v, kk],
                             "down" if name == "shfl_down" else "xor")
        if name == "size_of":
            plain_args(self, e, name, 0, 0)
            t = self.need_targ(targ, name, sp)
            layout = self.layout_of(t)
            n = layout.size if layout is not None else elem_size(t)
            if n is None:
                self.fail(sp, f"size_of needs a number, bool, char, buffer or C struct type, "
                                  f"got {targ}")
            return T.Const(INT, sp, n)
        if name == "shared":
            vals = plain_args(self, e, name, 0, 1)
            t = self.buffer_elem(self.need_targ(targ, name, sp), sp)
            off = self.coerce_int(self.expr(vals[0], expected=INT), vals[0].span) if vals \
                else T.Const(INT, sp, 0)
            return T.Builtin(BufferT(t), sp, "k.shared", [off], t)
        if name == "atomic_add":
            a, v = plain_args(self, e, name, 2, 2)
            p = self.expr(a)
            if not isinstance(p.type, BufferT) or p.type.elem.name not in ATOMIC_TYPES:
                self.fail(a.span, f"atomic_add needs an int[], i32[], float[] or f64[] "
                                  f"address, got {p.type}", "write atomic_add(out offby i, v)")
            et = p.type.elem
            x = self.coerce(self.expr(v, expected=et), et, v.span, "argument 2 of atomic_add")
            if not self.in_kernel():
                self.mark_raises()          # nil check in CPU code (4.5)
            return T.Builtin(et, sp, "atomic_add", [p, x], et)
        return self.host_buffer_builtin(e, name, targ, expected, sp)

    def host_buffer_builtin(self, e, name, targ, expected, sp) -> T.Expr:
        self.mark_raises()
        if name in ("buffer", "device_buffer"):
            (n,) = plain_args(self, e, name, 1, 1)
            if targ is None and isinstance(expected, BufferT):
                targ = expected.elem
            t = self.buffer_elem(self.need_targ(targ, name, sp), sp)
            return T.Builtin(BufferT(t), sp, name, [self.int_arg(n)], t)
        if name == "copy":
            d, s_, n = plain_args(self, e, name, 3, 3)
            dst = self.expr(d)
            t = targ if targ is not None else (dst.type.elem if isinstance(dst.type, BufferT)
                                                else None)
            t = self.buffer_elem(self.need_targ(t, name, sp), sp)
            bt = BufferT(t)
            dst = self.coerce(dst, bt, d.span, "argument 1 of copy")
            src = self.coerce(self.expr(s_, expected=bt), bt, s_.span, "argument 2 of copy")
            return T.Builtin(VOID, sp, "copy", [dst, src, self.int_arg(n)], t)
        if name in ("to_buffer", "to_device"):
            (a,) = plain_args(self, e, name, 1, 1)
            x = self.expr(a, expected=ArrayT(targ) if targ is not None else None)
            t = targ if targ is not None else (x.type.elem if isinstance(x.type, ArrayT) else None)
            t = self.buffer_elem(self.need_targ(t, name, sp), sp)
            x = self.coerce(x, ArrayT(t), a.span, f"argument 1 of {name}")
            return T.Builtin(BufferT(t), sp, name, [x], t)
        # to_array
        b, n = plain_args(self, e, name, 2, 2)
        x = self.expr(b)
        t = targ if targ is not None else (x.type.elem if isinstance(x.type, BufferT) else None)
        t = self.buffer_elem(self.need_targ(t, name, sp), sp)
        x = self.coerce(x, BufferT(t), b.span, "argument 1 of to_array")
        return T.Builtin(ArrayT(t), sp, "to_array", [x, self.int_arg(n)], t)

    def int_arg(self, a) -> T.Expr:
        return self.coerce_int(self.expr(a, expected=INT), a.span)

    def need_targ(self, t, name: str, sp) -> Type:
        if t is None:
            self.fail(sp, f"cannot infer the element type of {name}", f"write {name}<T>(...)")
        return t

    def buffer_elem(self, t: Type, sp) -> Type:
        if elem_size(t) is None:
            self.fail(sp, f"a buffer holds numbers, bool, char or buffers, not {t}")
        return t

    # ------------------------------------------------------------ 12.1 restrictions
    def check_kernel_body(self, sym: T.FuncSym) -> None:
        """Report what kernel code may not do, each where it appears (one per subtree)."""
        sym.raises_directly = False        # kernel code has no runtime checks (12.1)
        mark = len(self.diags.items)
        stack = [sym.body]
        while stack:
            n = stack.pop()
            if isinstance(n, list):
                stack.extend(reversed(n))
                continue
            if not isinstance(n, (T.Expr, T.Stmt)):
                continue
            bad = self.kernel_violation(n)
            if bad is not None:
                self.error(n.span, *bad)
                continue
            for f in reversed(fields(n)):
                v = getattr(n, f.name)
                if isinstance(v, (T.Expr, T.Stmt, list)):
                    stack.append(v)
        if len(self.diags.items) == mark:
            self.check_cpu_shape(sym)

    def check_cpu_shape(self, sym: T.FuncSym, deferred: bool = False) -> None:
        """The CPU back end's thread-loop transform must handle the body (12.4)."""
        from ..lower.divergence import Divergent
        from ..lower.regions import Unsupported, plan_kernel
        if sym.kind == "gpu":
            return      # inlined into the kernels that call it, and planned there
        if not deferred and _unchecked_gpu_callee(sym):
            self.unplanned.append(sym)      # a gpu function defined later: plan_deferred
            return
        if not self.check_static_smem(sym):
            return
        try:
            sym.plan = plan_kernel(sym)      # the CPU lowering reads it (computed once)
        except Divergent as d:               # wrong on every back end, not just the CPU's
            self.error(d.span, d.message, d.hint)
        except Unsupported as u:
            self.error(u.span, f"the CPU back end cannot run this kernel: {u.reason}")

    def check_static_smem(self, sym: T.FuncSym) -> bool:
        """The smem layouts of a kernel and of the gpu functions it reaches (each function's
        once: they are its .shared arrays) fit the static shared memory of a block."""
        from ..lower.tir_walk import is_smem_layout, walk
        from .layouts import SIZES
        total, seen, todo = 0, set(), [sym]
        while todo:
            f = todo.pop(0)
            if id(f) in seen or f.body is None:
                continue
            seen.add(id(f))
            nodes = list(walk(f.body))
            todo += [x.func for x in nodes if isinstance(x, T.CallFn) and x.func.kind == "gpu"]
            for x in sorted((x for x in nodes if is_smem_layout(x)),
                            key=lambda x: (x.span.line, x.span.col)):
                size = (x.extra.total or 0) * SIZES[x.extra.elem.name]
                total += -size // 16 * -16           # each array is 16-byte aligned
                if total > STATIC_SMEM:
                    self.error(x.span, f"the static shared memory of kernel '{sym.name}' is "
                                       f"{total} bytes here, over the {STATIC_SMEM} (48 KiB) "
                                       f"of a block", "use fewer or smaller smem layouts, or "
                                       "dynamic shared memory: shared<T>() and launch [g] [b] "
                                       "[bytes]")
                    return False
        return True

    @property
    def unplanned(self) -> list:
        if not hasattr(self, "_unplanned"):
            self._unplanned = []
        return self._unplanned

    def plan_deferred(self) -> None:
        """Plan the kernels that call gpu functions checked after them (all are checked now)."""
        todo, self._unplanned = self.unplanned, []
        for sym in todo:
            self.check_cpu_shape(sym, deferred=True)

    def kernel_violation(self, n) -> tuple[str, str | None] | None:
        if isinstance(n, T.Decl):
            return forbidden_type(n.var.type)
        if isinstance(n, (T.Spawn, T.Finish)):
            return "threads are not allowed in kernel code", None
        if isinstance(n, T.LockStmt):
            return "locks are not allowed in kernel code", None
        if isinstance(n, T.Expr):
            if isinstance(n, T.Builtin) and n.name == "print":
                return "print is not allowed in kernel code", \
                    "kernel code cannot do I/O; write results to a buffer"
            bad = forbidden_type(n.type)
            if bad is not None:
                return bad
            if isinstance(n, T.Builtin) and n.name not in KERNEL_OK:
                return f"'{n.name}' is not available in kernel code", None
        return None

    def report_kernel_recursion(self, funcs: list[T.FuncSym]) -> None:
        for f in funcs:
            if f.kind != "def":
                f.may_raise = False
                if f.scc is not None:
                    self.error(f.span, "recursion is not allowed in kernel code",
                               "gpu functions cannot call themselves, directly or not")


STATIC_SMEM = 48 * 1024          # bytes of .shared a kernel may declare (sm_80, sm_90)


def _unchecked_gpu_callee(sym: T.FuncSym) -> bool:
    """Whether a gpu function that sym reaches through calls (not only directly: the inliner
    needs every body on the way to a barrier) is not checked yet."""
    seen, todo = set(), list(sym.calls)
    while todo:
        f = todo.pop()
        if f.kind != "gpu" or id(f) in seen:
            continue
        if f.body is None:
            return True
        seen.add(id(f))
        todo.extend(f.calls)
    return False
