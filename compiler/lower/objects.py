"""Lowering of objects (7.1), globals (7.3), function values (6.3), `any` (3.4) and File."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import ArrayT, ChannelT, ClassT, FuncT, MapT, Prim, Type, has_pointers
from . import runtime_abi as R
from .gcalloc import GcAllocLowering
from .mangle import type_key
from .vtables import HEADER


class ObjectLowering(GcAllocLowering):
    # ------------------------------------------------------------ classes
    def class_struct(self, info) -> ir.Type:
        """The vtable pointer (vtables.py), then the fields, the bases' first (7.5)."""
        return ir.LiteralStructType([R.PTR] + [self.mem_ty(t) for _, t in info.fields])

    def class_info_of(self, t: Type):
        for info in self.program.classes:
            if info.type == t:
                return info
        return None

    def to_str_hook(self, t: Type) -> ir.Value:
        """The `NvStr* (*)(void*)` the runtime calls to print an object, or NULL."""
        info = self.class_info_of(t) if isinstance(t, ClassT) else None
        if info is None or info.to_str is None:
            return ir.Constant(R.PTR, None)
        name = f"nvtostr.{self.type_key(t)}"
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(R.PTR, [R.PTR]), name=name)
            fn.linkage = "linkonce_odr"
            b = ir.IRBuilder(fn.append_basic_block())
            b.ret(b.call(self.declare_func(info.to_str), list(fn.args)))
        return fn.bitcast(R.PTR)

    def type_key(self, t: Type) -> str:
        return type_key(t)

    def bi_new_object(self, e: T.Builtin):
        info, ctor = e.extra
        args = [self.expr(a) for a in e.args]
        st = self.class_struct(info)
        scanned = any(has_pointers(ft) for _, ft in info.fields)
        obj = self.alloc_object(st.get_abi_size(self.td), scanned)
        p = self.b.bitcast(obj, st.as_pointer())
        self.b.store(self.vtable(info), self.b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 0)]))
        for i, (fname, ft) in enumerate(info.fields):   # 3.2: new empty arrays, maps, channels
            if isinstance(ft, (ArrayT, MapT)):
                fresh = self.ex_Zero(T.Zero(ft, e.span, fresh=True))
            elif isinstance(ft, ChannelT) and fname in info.field_caps:
                fresh = self.rt("nv_chan_new", self.desc(ft.elem),
                                ir.Constant(R.I64, info.field_caps[fname]))
            else:
                continue
            self.b.store(fresh, self.b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, HEADER + i)]))
        if ctor is not None:
            self.set_site(e.span)
            self.b.call(self.declare_func(ctor), [obj] + args)
        return obj

    def field_ptr(self, e: T.Builtin, write: bool) -> ir.Value:
        info, i = e.extra
        obj = self.expr(e.args[0])
        name = info.fields[i][0]
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(obj, R.I64), ir.Constant(R.I64, 0))
        msg = f"{'wrote' if write else 'read'} field '{name}' of nil {info.type}"
        self.check(ok, e.span, "nv_panic", self.cstr(msg))
        p = self.b.bitcast(obj, self.class_struct(info).as_pointer())
        return self.b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, HEADER + i)])

    def bi_field(self, e: T.Builtin):
        return self.from_mem(self.b.load(self.field_ptr(e, write=False)), e.type)

    def recv_check(self, obj: ir.Value, span, method: str, cls: str) -> None:
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(obj, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, span, "nv_panic_nil_call", self.cstr(method), self.cstr(cls))

    # ------------------------------------------------------------ globals (7.3)
    def global_slot(self, info) -> ir.GlobalVariable:
        name = f"nvglobal.{self.type_key(info.type)}"
        gv = self.module.globals.get(name)
        if gv is None:
            gv = ir.GlobalVariable(self.module, R.PTR, name)
            gv.linkage = "linkonce_odr"
            gv.initializer = ir.Constant(R.PTR, None)
        return gv

    def global_init_fn(self, info) -> ir.Function:
        """`nvglobal.get.C`: the instance of C, created on first use by its zero-argument ctor;
        a ctor that needs its own global, directly or not, is a cycle error."""
        name = f"nvglobal.get.{self.type_key(info.type)}"
        fn = self.module.globals.get(name)
        if fn is not None:
            return fn
        fn = ir.Function(self.module, ir.FunctionType(R.PTR, []), name=name)
        fn.linkage = "linkonce_odr"
        slot = self.global_slot(info)
        state = self.module.globals.get(name + ".state")
        if state is None:
            state = ir.GlobalVariable(self.module, R.I8, name + ".state")
            state.linkage = "linkonce_odr"
            state.initializer = ir.Constant(R.I8, 0)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        done, busy, create = (fn.append_basic_block(n) for n in ("done", "busy", "create"))
        st = b.load(state)
        sw = b.switch(st, create)
        sw.add_case(ir.Constant(R.I8, 2), done)
        sw.add_case(ir.Constant(R.I8, 1), busy)
        b.position_at_end(done)
        b.ret(b.load(slot))
        b.position_at_end(busy)
        b.call(R.declare(self.module, "nv_global_cycle"), [self.cstr(info.type.name)])
        b.unreachable()
        b.position_at_end(create)
        b.store(ir.Constant(R.I8, 1), state)
        b.call(R.declare(self.module, "nv_global_push"), [self.cstr(info.type.name)])
        obj = b.call(self.declare_func(info.maker), [])
        b.store(obj, slot)
        b.call(R.declare(self.module, "nv_gc_root"), [b.bitcast(slot, R.PTR)])
        b.store(ir.Constant(R.I8, 2), state)
        b.call(R.declare(self.module, "nv_global_pop"), [])
        b.ret(obj)
        return fn

    def bi_global(self, e: T.Builtin):
        info = e.extra
        slot = self.global_slot(info)
        v = self.b.load(slot)
        isnull = self.b.icmp_unsigned("==", self.b.ptrtoint(v, R.I64), ir.Constant(R.I64, 0))
        cur = self.b.block
        with self.b.if_then(isnull, likely=False):
            self.set_site(e.span)
            made = self.b.call(self.global_init_fn(info), [])
            made_block = self.b.block
        phi = self.b.phi(R.PTR)
        phi.add_incoming(v, cur)
        phi.add_incoming(made, made_block)
        return phi

    # ------------------------------------------------------------ function values (6.3)
    def func_value_const(self, f: T.FuncSym) -> ir.Value:
        """The constant NvFuncValue {entry, name} of f (one per function program-wide)."""
        name = f"nvfnval.{f.symbol}"
        gv = self.module.globals.get(name)
        if gv is None:
            entry = self.declare_func(f)
            ty = ir.LiteralStructType([R.PTR, R.PTR])
            gv = ir.GlobalVariable(self.module, ty, name)
            gv.linkage = "linkonce_odr"
            gv.global_constant = True
            gv.initializer = ir.Constant(ty, [entry.bitcast(R.PTR), self.cstr(f.name)])
        return gv.bitcast(R.PTR)

    def bi_func_ref(self, e: T.Builtin):
        if isinstance(e.extra, tuple):              # a method value A.m (7.5)
            return self.method_value_const(*e.extra)
        return self.func_value_const(e.extra)

    def bi_call_value(self, e: T.Builtin):
        ft: FuncT = e.args[0].type
        fv = self.expr(e.args[0])
        args = [self.expr(a) for a in e.args[1:]]
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(fv, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, e.span, "nv_panic", self.cstr("called nil Function"))
        fnty = ir.FunctionType(self.llty(ft.ret), [self.llty(p) for p in ft.params])
        entry = self.b.load(self.b.bitcast(fv, R.PTR.as_pointer()))
        self.set_site(e.span)
        return self.b.call(self.b.bitcast(entry, fnty.as_pointer()), args)

    # ------------------------------------------------------------ any (3.3, 3.4)
    def box_any(self, v: ir.Value, src: Type) -> ir.Value:
        if src == Prim("nil"):
            return ir.Constant(R.ANY, None)
        if self.is_object_type(src):
            desc = self.class_box_desc(v)          # 7.5: the dynamic class
        else:
            isnull = self.b.icmp_unsigned("==", self.b.ptrtoint(v, R.I64), ir.Constant(R.I64, 0))
            desc = self.b.select(isnull, ir.Constant(R.PTR, None), self.desc(src))
        agg = self.b.insert_value(ir.Constant(R.ANY, None), self.b.bitcast(v, R.PTR), 0)
        return self.b.insert_value(agg, desc, 1)

    def unbox_any(self, v: ir.Value, dst: Type, span) -> ir.Value:
        held = self.b.extract_value(v, 1)
        val = self.b.extract_value(v, 0)
        isnil = self.b.icmp_unsigned("==", self.b.ptrtoint(val, R.I64), ir.Constant(R.I64, 0))
        if self.is_object_type(dst):
            same = self.extends_test(held, self.desc(dst))     # 7.5: subclasses too
        else:
            same = self.b.icmp_unsigned("==", self.b.ptrtoint(held, R.I64),
                                        self.b.ptrtoint(self.desc(dst), R.I64))
        self.check(self.b.or_(isnil, same), span, "nv_panic_cast", held, self.desc(dst))
        return val

    def is_object_type(self, t: Type) -> bool:
        """A Neve class (objects with a vtable header), not File or a foreign type."""
        return isinstance(t, ClassT) and self.class_info_of(t) is not None

    def bi_isa(self, e: T.Builtin):
        v = self.expr(e.args[0])
        held = self.b.extract_value(v, 1)
        if self.is_object_type(e.extra):
            return self.extends_test(held, self.desc(e.extra))
        return self.b.icmp_unsigned("==", self.b.ptrtoint(held, R.I64),
                                    self.b.ptrtoint(self.desc(e.extra), R.I64))

    # ------------------------------------------------------------ File (14.7)
    def bi_file_open(self, e: T.Builtin):
        path, mode = (self.expr(a) for a in e.args)
        self.set_site(e.span)
        return self.rt("nv_file_open", path, mode)

    def file_call(self, e: T.Builtin):
        m = e.name.split(".")[1]
        f = self.expr(e.args[0])
        if m == "opened":
            return self.b.icmp_unsigned("!=", self.b.ptrtoint(f, R.I64), ir.Constant(R.I64, 0))
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(f, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, e.span, "nv_panic", self.cstr(f"called {m}() on a File that is not open"))
        args = [self.expr(a) for a in e.args[1:]]
        fn = {"read": "nv_file_readline"}.get(m, f"nv_file_{m}")
        r = self.rt(fn, f, *args)
        if m == "eof":
            return self.b.icmp_signed("!=", r, ir.Constant(R.I32, 0))
        return r

    bi_file_readline = bi_file_read = bi_file_eof = bi_file_read_all = file_call
    bi_file_write = bi_file_close = bi_file_opened = file_call
