"""Lowering of C structs and constants declared by protos (docs/interop.md): field loads and
stores at their byte offsets with 11.3's conversions, `new` of a struct, C address constants."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from . import runtime_abi as R


class CStructLowering:
    def cfield_ptr(self, e: T.Builtin, obj: ir.Value) -> tuple[ir.Value, ir.Type]:
        """(typed address of field e.extra in the struct obj wraps, its C type); a nil
        struct is a runtime error at the access."""
        f = e.extra
        addr = self.foreign_addr(obj)
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(addr, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, e.span, "nv_panic", self.cstr(f"field '{f.name}' of a nil {e.args[0].type}"))
        cty = ir.IntType(f.storage[0]) if f.storage else self.c_type(f.type)
        p = self.b.gep(addr, [ir.Constant(R.I64, f.offset)])
        return self.b.bitcast(p, cty.as_pointer()), cty

    def bi_cfield(self, e: T.Builtin) -> ir.Value:
        p, cty = self.cfield_ptr(e, self.expr(e.args[0]))
        v = self.b.load(p)
        f = e.extra
        if f.storage:                       # an unsigned C integer read as int: zero-extended
            return self.b.zext(v, R.I64) if f.storage[0] < 64 else v
        return self.from_c(v, f.type)       # a pointer read here is borrowed (11.2)

    def bi_cfield_set(self, e: T.Builtin) -> None:
        obj = self.expr(e.args[0])
        val = e.args[1]
        v = self.to_c(self.expr(val), val, e.extra.type)
        p, cty = self.cfield_ptr(e, obj)
        if e.extra.storage and cty.width < 64:
            v = self.b.trunc(v, cty)        # the low bits, as C's conversion to unsigned
        self.b.store(v, p)

    def bi_cstruct_new(self, e: T.Builtin) -> ir.Value:
        return self.rt("nv_cstruct_new", ir.Constant(R.I64, e.extra))

    def bi_cptr_const(self, e: T.Builtin) -> ir.Value:
        """`proto any NAME = N`: the foreign pointer at address N ((void*)-1 and the like)."""
        addr = ir.Constant(R.I64, e.extra).inttoptr(R.PTR) if e.extra else ir.Constant(R.PTR, None)
        desc = self.cptr_desc() if e.extra else ir.Constant(R.PTR, None)
        return self.b.insert_value(self.b.insert_value(ir.Constant(R.ANY, None), addr, 0), desc, 1)


