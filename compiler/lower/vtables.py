"""Lowering of inheritance (LANGUAGE.md 7.5): object headers, one vtable per class, virtual
calls (direct when the target is known), checked downcasts and `isa` over the base chain.

An object's first word points at its class's vtable `nvvtable.<class>`: entry 0 is the class's
descriptor (the dynamic class for `any`, printing and casts), entries 1.. the methods by slot,
bases' slots first. Vtables and descriptors are linkonce_odr, one per class program-wide."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import ClassT, Prim, Type
from . import runtime_abi as R

HEADER = 1          # struct index of the first field (index 0 is the vtable pointer)


class VtableLowering:
    def base_desc(self, t: Type) -> ir.Value:
        """The descriptor of t's base class (NvType.base), or NULL."""
        info = self.class_info_of(t) if isinstance(t, ClassT) else None
        if info is None or info.base is None:
            return ir.Constant(R.PTR, None)
        return self.desc(info.base.type)

    def vtable(self, info) -> ir.Value:
        name = f"nvvtable.{self.type_key(info.type)}"
        gv = self.module.globals.get(name)
        if gv is None:
            slots = info.vtable
            ty = ir.ArrayType(R.PTR, 1 + len(slots))
            gv = ir.GlobalVariable(self.module, ty, name)
            gv.linkage = "linkonce_odr"
            gv.global_constant = True
            gv.initializer = ir.Constant(ty, [self.desc(info.type)] +
                                         [self.declare_func(f).bitcast(R.PTR) for f in slots])
        return gv.bitcast(R.PTR)

    def dyn_desc(self, obj: ir.Value) -> ir.Value:
        """The dynamic class descriptor of a non-nil object."""
        vt = self.b.load(self.b.bitcast(obj, R.PTR.as_pointer().as_pointer()))
        return self.b.load(vt)

    # ------------------------------------------------------------ calls
    def is_direct(self, e: T.CallFn) -> bool:
        """A virtual call whose target is known: the receiver is a `new C(...)`, or no class
        that can exist overrides the method. The world is closed for a whole-program compile,
        and for the classes of the root module (which no other module can import, 8)."""
        info, slot = e.static_class, e.virtual
        recv = e.args[0]
        if isinstance(recv, T.Builtin) and recv.name == "new_object":
            return True
        key = (info, slot)
        cache = self.__dict__.setdefault("_direct", {})
        if key not in cache:
            closed = self.program.closed or info.decl.scope.main is not None
            cache[key] = closed and all(
                c.vtable[slot] is e.func for c in self.program.classes
                if c.ready and c.extends(info))
        return cache[key]

    def virtual_call(self, e: T.CallFn, args: list) -> ir.Value:
        vt = self.b.load(self.b.bitcast(args[0], R.PTR.as_pointer().as_pointer()))
        fp = self.b.load(self.b.gep(vt, [ir.Constant(R.I32, HEADER + e.virtual)]))
        fnty = ir.FunctionType(self.llty(e.func.ret), [self.llty(p.type) for p in e.func.params])
        self.set_site(e.span)
        return self.b.call(self.b.bitcast(fp, fnty.as_pointer()), args)

    def method_value_const(self, f: T.FuncSym, info, slot: int) -> ir.Value:
        """The function value `A.m`: f itself when no subclass overrides it, else a thunk
        dispatching on its first argument."""
        probe = T.CallFn(f.ret, f.span, f, [T.Zero(info.type, f.span)], virtual=slot,
                         static_class=info)
        if self.is_direct(probe):
            return self.func_value_const(f)
        name = f"nvvirt.{self.type_key(info.type)}.{slot}"
        gv = self.module.globals.get(name + ".value")
        if gv is None:
            fnty = ir.FunctionType(self.llty(f.ret), [self.llty(p.type) for p in f.params])
            thunk = ir.Function(self.module, fnty, name=name)
            thunk.linkage = "linkonce_odr"
            saved = self.b
            self.b = ir.IRBuilder(thunk.append_basic_block())
            try:
                vt = self.b.load(self.b.bitcast(thunk.args[0], R.PTR.as_pointer().as_pointer()))
                fp = self.b.load(self.b.gep(vt, [ir.Constant(R.I32, HEADER + slot)]))
                r = self.b.call(self.b.bitcast(fp, fnty.as_pointer()), list(thunk.args))
                self.b.ret_void() if f.ret == Prim("void") else self.b.ret(r)
            finally:
                self.b = saved
            ty = ir.LiteralStructType([R.PTR, R.PTR])
            gv = ir.GlobalVariable(self.module, ty, name + ".value")
            gv.linkage = "linkonce_odr"
            gv.global_constant = True
            gv.initializer = ir.Constant(ty, [thunk.bitcast(R.PTR), self.cstr(f.name)])
        return gv.bitcast(R.PTR)

    # ------------------------------------------------------------ casts
    def extends_test(self, held: ir.Value, want: ir.Value) -> ir.Value:
        """held is want or one of its subclasses (held may be NULL: false)."""
        same = self.b.icmp_unsigned("==", self.b.ptrtoint(held, R.I64), self.b.ptrtoint(want, R.I64))
        cur = self.b.block
        with self.b.if_then(self.b.not_(same), likely=False):
            walked = self.b.icmp_signed("!=", self.rt("nv_type_extends", held, want),
                                        ir.Constant(R.I32, 0))
            wblock = self.b.block
        phi = self.b.phi(R.I1)
        phi.add_incoming(same, cur)
        phi.add_incoming(walked, wblock)
        return phi

    def bi_class_cast(self, e: T.Builtin):
        """`B(a)` for a: A, B a subclass of A: nil stays nil, else the dynamic class must be B
        or below."""
        v = self.expr(e.args[0])
        want = self.desc(e.type)
        nonnil = self.b.icmp_unsigned("!=", self.b.ptrtoint(v, R.I64), ir.Constant(R.I64, 0))
        with self.b.if_then(nonnil):
            ok = self.extends_test(self.dyn_desc(v), want)
            self.check(ok, e.span, "nv_panic_class_cast", self.desc(e.args[0].type), v, want)
        return v

    def class_box_desc(self, v: ir.Value) -> ir.Value:
        """The descriptor an `any` holding object v carries: its dynamic class (NULL for nil)."""
        nonnil = self.b.icmp_unsigned("!=", self.b.ptrtoint(v, R.I64), ir.Constant(R.I64, 0))
        cur = self.b.block
        with self.b.if_then(nonnil):
            d = self.dyn_desc(v)
            dblock = self.b.block
        phi = self.b.phi(R.PTR)
        phi.add_incoming(ir.Constant(R.PTR, None), cur)
        phi.add_incoming(d, dblock)
        return phi
