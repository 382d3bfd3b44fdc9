"""Lowering of sort(key = f | less = f, reverse = b) and sorted(...) (14.4): the runtime sorts
(nv_array_sort_key / nv_array_sort_less); the adapters made here call the Function value f
on elements held in array slots."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from . import runtime_abi as R


class SortLowering:
    def bi_array_sort_by(self, e: T.Builtin):
        mode, kt, copy = e.extra
        arr = self.receiver(e, "sorted" if copy else "sort")
        if copy:
            arr = self.rt("nv_array_clone", arr)
        rev = self.b.zext(self.expr(e.args[1]), R.I32)
        null = ir.Constant(R.PTR, None)
        self.set_site(e.span)
        if mode == "plain" and isinstance(e.args[1], T.Const) and not e.args[1].value:
            self.rt("nv_array_sort", arr)            # the typed fast paths
        elif mode == "plain":
            self.rt("nv_array_sort_key", arr, null, null, null, rev)
        else:
            f = e.args[2]
            fv = self.expr(f)
            ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(fv, R.I64), ir.Constant(R.I64, 0))
            self.check(ok, f.span, "nv_panic", self.cstr("called nil Function"))
            self.set_site(e.span)
            adapter = self.sort_adapter(mode, f.type)
            if mode == "key":
                self.rt("nv_array_sort_key", arr, fv, adapter, self.desc(kt), rev)
            else:
                self.rt("nv_array_sort_less", arr, fv, adapter, rev)
        return arr if copy else None

    def sort_adapter(self, mode: str, ft) -> ir.Value:
        """`void key(fn, elem*, out*)` or `i32 less(fn, x*, y*)` for Function type ft (one per
        module and type)."""
        cache = self.__dict__.setdefault("_sort_adapters", {})
        if (mode, ft) in cache:
            return cache[(mode, ft)]
        el = ft.params[0]
        ret = ir.VoidType() if mode == "key" else R.I32
        fn = ir.Function(self.module, ir.FunctionType(ret, [R.PTR, R.PTR, R.PTR]),
                         self.unique(".sort_" + mode))
        fn.linkage = "internal"
        saved = self.b
        self.b = b = ir.IRBuilder(fn.append_basic_block())
        try:
            fv, p, q = fn.args
            load = lambda ptr: self.from_mem(b.load(b.bitcast(ptr, self.mem_ty(el).as_pointer())), el)
            args = [load(p)] if mode == "key" else [load(p), load(q)]
            fnty = ir.FunctionType(self.llty(ft.ret), [self.llty(t) for t in ft.params])
            entry = b.load(b.bitcast(fv, R.PTR.as_pointer()))
            r = b.call(b.bitcast(entry, fnty.as_pointer()), args)
            if mode == "key":
                b.store(self.to_mem(r, ft.ret), b.bitcast(q, self.mem_ty(ft.ret).as_pointer()))
                b.ret_void()
            else:
                b.ret(b.zext(r, R.I32))
        finally:
            self.b = saved
        adapter = fn.bitcast(R.PTR)
        cache[(mode, ft)] = adapter
        return adapter
