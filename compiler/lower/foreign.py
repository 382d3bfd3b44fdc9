"""Lowering of foreign calls (LANGUAGE.md 11): the C calling convention and the type mapping of
11.3, wrappers of C pointers (opaque types), owned pointers' finalizers, C-ABI trampolines for
Function arguments, and the package initializers run before main."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import ArrayT, BufferT, ForeignT, FuncT, Prim, Type
from . import runtime_abi as R

# Neve scalar -> (C ABI type, argument/result attribute). bool is a C `bool`: one byte,
# zero-extended; bf16 travels as the bits of a half (x86-64 passes both in an SSE register).
C_SCALARS = {"int": (R.I64, None), "i32": (R.I32, None), "i16": (R.I16, "signext"),
             "i8": (R.I8, "signext"), "u8": (R.I8, "zeroext"), "char": (R.I8, "zeroext"),
             "u16": (R.I16, "zeroext"), "u32": (R.I32, None), "u64": (R.I64, None),
             "bool": (R.I8, "zeroext"), "float": (R.F32, None), "f64": (R.F64, None),
             "half": (R.HALF, None), "bf16": (R.HALF, None)}


class ForeignLowering:
    # ------------------------------------------------------------ C signatures
    def c_type(self, t: Type) -> ir.Type:
        if isinstance(t, Prim):
            if t.name == "void":
                return R.VOID
            if t.name in C_SCALARS:
                return C_SCALARS[t.name][0]
        return R.PTR          # str, any, buffers, foreign types, function pointers

    def c_function_type(self, ret: Type, params) -> ir.FunctionType:
        return ir.FunctionType(self.c_type(ret), [self.c_type(t) for t in params])

    def c_callee(self, sym: T.FuncSym) -> ir.Value:
        """The C function `sym.foreign.c_name`, declared with the ABI attributes of 11.3. A
        name the module already declares with another type (a runtime helper, a math
        function) is called through a cast of that declaration."""
        name = sym.foreign.c_name
        fnty = self.c_function_type(sym.ret, [p.type for p in sym.params])
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, fnty, name=name)
            for arg, p in zip(fn.args, sym.params):
                attr = self.c_attr(p.type)
                if attr:
                    arg.add_attribute(attr)
            attr = self.c_attr(sym.ret)
            if attr:
                fn.return_value.add_attribute(attr)
        if not isinstance(fn, ir.Function) or fn.function_type != fnty:
            return fn.bitcast(fnty.as_pointer())
        return fn

    @staticmethod
    def c_attr(t: Type) -> str | None:
        return C_SCALARS[t.name][1] if isinstance(t, Prim) and t.name in C_SCALARS else None

    # ------------------------------------------------------------ calls
    def foreign_call(self, e: T.CallFn) -> ir.Value:
        sym = e.func
        args = [self.to_c(self.expr(a), a, p.type) for a, p in zip(e.args, sym.params)]
        tracked = not self.release and self.fs is not None
        if sym.may_raise or tracked:
            self.set_site(e.span)       # a callback's runtime error traces through here
        if tracked:                     # a fault inside C reports this call (13.2)
            tls = self.foreign_site_tls()
            prev = self.b.load(tls)
            self.b.store(self.foreign_site(sym, e.span), tls)
        r = self.b.call(self.c_callee(sym), args)
        if tracked:
            self.b.store(prev, tls)
        if sym.ret == Prim("void"):
            return r
        return self.from_c(r, sym.ret, owned=sym.foreign.owned)

    def foreign_site_tls(self) -> ir.Value:
        """The runtime's thread-local nv_foreign_site (the foreign call in progress)."""
        tls = self.module.globals.get("nv_foreign_site")
        if tls is None:
            tls = ir.GlobalVariable(self.module, R.PTR, "nv_foreign_site")
            tls.linkage = "external"
            tls.storage_class = "thread_local(initialexec)"
        return tls

    def foreign_site(self, sym: T.FuncSym, span) -> ir.Value:
        """A constant NvForeignSite: the C function, the caller's info, the call's position."""
        gv = ir.GlobalVariable(self.module, R.NVFOREIGNSITE, self.unique(".fsite"))
        gv.global_constant = True
        gv.linkage = "internal"
        gv.initializer = ir.Constant(R.NVFOREIGNSITE, [
            self.cstr(sym.foreign.c_name), self.func_info(self.fs).bitcast(R.PTR),
            ir.Constant(R.I64, (span.line << 32) | span.col)])
        return gv.bitcast(R.PTR)

    def to_c(self, v: ir.Value, arg: T.Expr | None, t: Type) -> ir.Value:
        """A Neve value of type `t` (the parameter's) as C receives it (11.3)."""
        b = self.b
        if isinstance(t, Prim):
            n = t.name
            if n == "bool":
                return b.zext(v, R.I8)
            if n == "bf16":
                return b.bitcast(v, R.HALF)
            if n == "str" and arg is not None and isinstance(arg.type, ArrayT):
                return self.array_data_or_null(v)     # the caller's own bytes (pinned form)
            if n == "str" and arg is not None and isinstance(arg.type, BufferT):
                return b.extract_value(v, 0)
            if n == "str":           # NUL-terminated copy, alive while the caller holds it
                return self.rt("nv_str_cstr", v)
            if n == "any":
                return self.rt("nv_any_to_c", b.extract_value(v, 0), b.extract_value(v, 1))
            return v
        if isinstance(t, BufferT):
            if arg is not None and isinstance(arg.type, ArrayT):    # its storage (11.3)
                return self.array_data_or_null(v)
            return b.extract_value(v, 0)
        if isinstance(t, ForeignT):
            return self.foreign_addr(v)
        if isinstance(t, FuncT):
            if arg is not None and arg.type == Prim("any"):       # a C address as it is
                return self.rt("nv_any_to_c", b.extract_value(v, 0), b.extract_value(v, 1))
            if isinstance(arg, T.Builtin) and arg.name == "func_ref":
                return b.bitcast(self.c_trampoline(arg.extra, t), R.PTR)
            return ir.Constant(R.PTR, None)
        raise AssertionError(f"no C mapping for {t}")

    def from_c(self, r: ir.Value, t: Type, owned: bool = False) -> ir.Value:
        """A C value as the Neve value of type `t` (11.3)."""
        b = self.b
        if isinstance(t, Prim):
            n = t.name
            if n == "bool":
                return b.icmp_unsigned("!=", r, ir.Constant(R.I8, 0))
            if n == "bf16":
                return b.bitcast(r, R.I16)
            if n == "str":           # copied; C keeps its memory, NULL is ""
                return self.rt("nv_str_from_cstr", r)
            if n == "any":           # dynamic type "foreign pointer" (3.4)
                isnull = b.icmp_unsigned("==", b.ptrtoint(r, R.I64), ir.Constant(R.I64, 0))
                desc = b.select(isnull, ir.Constant(R.PTR, None), self.cptr_desc())
                return b.insert_value(b.insert_value(ir.Constant(R.ANY, None), r, 0), desc, 1)
            return r
        if isinstance(t, BufferT):   # memory from C: no owner
            return b.insert_value(ir.Constant(R.BUFFER, None), r, 0)
        if isinstance(t, ForeignT):
            destroy = self.foreign_destructor(t) if owned else None
            return self.rt("nv_foreign_wrap", r, destroy if destroy is not None
                           else ir.Constant(R.PTR, None))
        raise AssertionError(f"no C mapping for {t}")

    # ------------------------------------------------------------ wrappers and pointers
    def foreign_addr(self, w: ir.Value) -> ir.Value:
        """The C address a foreign value wraps (NULL for nil); the wrapper's first word."""
        b = self.b
        isnull = b.icmp_unsigned("==", b.ptrtoint(w, R.I64), ir.Constant(R.I64, 0))
        safe = b.select(isnull, self.cptr_desc(), w)      # any readable word stands in for nil
        addr = b.load(b.bitcast(safe, R.PTR.as_pointer()))
        return b.select(isnull, ir.Constant(R.PTR, None), addr)

    def array_data_or_null(self, arr: ir.Value) -> ir.Value:
        b = self.b
        isnull = b.icmp_unsigned("==", b.ptrtoint(arr, R.I64), ir.Constant(R.I64, 0))
        safe = b.select(isnull, self.cptr_desc(), arr)
        data = b.load(b.gep(b.bitcast(safe, R.NVARRAY.as_pointer()),
                            [ir.Constant(R.I32, 0), ir.Constant(R.I32, 2)]))
        return b.select(isnull, ir.Constant(R.PTR, None), data)

    def cptr_desc(self) -> ir.Value:
        """The runtime's descriptor of the dynamic type "foreign pointer" (3.4)."""
        gv = self.module.globals.get("nv_type_cptr")
        if gv is None:
            gv = ir.GlobalVariable(self.module, R.NVTYPE, "nv_type_cptr")
            gv.linkage = "external"
            gv.global_constant = True
        return gv.bitcast(R.PTR)

    def foreign_destructor(self, t: ForeignT) -> ir.Value | None:
        """`T_destroy` of t's module as a C function pointer, if declared."""
        for ms in self.foreign_scopes():
            d = ms.foreign_destroy.get(t)
            if d is not None:
                return self.c_callee_const(d)
        return None

    def c_callee_const(self, sym: T.FuncSym) -> ir.Value:
        return self.c_callee(sym).bitcast(R.PTR)

    def foreign_scopes(self) -> list:
        main = self.program.main
        if main is None or main.scope is None:
            return []
        ms = main.scope
        return list(ms.visible) + ([ms.std] if ms.std is not None and ms.std not in ms.visible
                                   else [])

    # ------------------------------------------------------------ any <-> C (3.4)
    def any_to_unchecked(self, v: ir.Value, dst: Type) -> ir.Value:
        """`T(a)` for a: any and T a buffer or foreign type: unchecked (3.3)."""
        val, held = self.b.extract_value(v, 0), self.b.extract_value(v, 1)
        if isinstance(dst, ForeignT):
            return self.rt("nv_any_to_foreign", val, held)
        addr = self.rt("nv_any_to_c", val, held)
        return self.b.insert_value(ir.Constant(R.BUFFER, None), addr, 0)

    def box_buffer(self, v: ir.Value, src: BufferT) -> ir.Value:
        """A buffer in an any: its address, typed (its owner is not kept)."""
        data = self.b.extract_value(v, 0)
        isnull = self.b.icmp_unsigned("==", self.b.ptrtoint(data, R.I64), ir.Constant(R.I64, 0))
        desc = self.b.select(isnull, ir.Constant(R.PTR, None), self.desc(src))
        return self.b.insert_value(self.b.insert_value(ir.Constant(R.ANY, None), data, 0), desc, 1)

    # ------------------------------------------------------------ callbacks
    def c_trampoline(self, f: T.FuncSym, ft: FuncT) -> ir.Function:
        """A C-ABI entry to the Neve function f: converts C arguments to Neve values, calls f
        and converts the result back."""
        name = f"nvctramp.{f.symbol}"
        fn = self.module.globals.get(name)
        if fn is not None:
            return fn
        fn = ir.Function(self.module, self.c_function_type(ft.ret, ft.params), name=name)
        fn.linkage = "linkonce_odr"
        for arg, t in zip(fn.args, ft.params):
            attr = self.c_attr(t)
            if attr:
                arg.add_attribute(attr)
        saved = self.b
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        try:
            self.rt("nv_foreign_enter")      # a thread C created joins the collector here
            if not self.release:             # back in Neve: no foreign call in progress
                tls = self.foreign_site_tls()
                outer = self.b.load(tls)
                self.b.store(ir.Constant(R.PTR, None), tls)
            args = [self.from_c(a, t) for a, t in zip(fn.args, ft.params)]
            r = self.b.call(self.declare_func(f), args)
            if not self.release:
                self.b.store(outer, tls)
            if ft.ret == Prim("void"):
                self.b.ret_void()
            else:
                self.b.ret(self.to_c(r, None, ft.ret))
        finally:
            self.b = saved
        return fn

    # ------------------------------------------------------------ start-up (5.4)
    def call_foreign_initializers(self, b: ir.IRBuilder) -> None:
        """`initialize__pkg` of every module with one, imported modules first."""
        for ms in reversed(self.foreign_scopes()):
            sym = ms.foreign_init
            if isinstance(sym, T.FuncSym):
                b.call(self.c_callee(sym), [])

