"""Lowering of object allocation: the per-thread free-list pop inline (runtime_cpp/gc/freelists.cpp)."""
from __future__ import annotations

from llvmlite import ir

from . import runtime_abi as R

GRANULE = 16            # GC_GRANULE_BYTES on 64-bit targets
TINY_FREELISTS = 25     # GC_TINY_FREELISTS: list g holds objects of g granules, 0 < g < 25
# With interior pointers recognised (bdwgc's default, kept by the runtime) the collector does not
# scan an object's last word, which holds the byte added so that a pointer just past an object
# does not retain the next one: sizes get that byte too, as GC_MALLOC adds it.
EXTRA_BYTES = 1


class GcAllocLowering:
    """Lowering mixin: objects allocated from the inline per-thread free lists."""
    def gc_freelists(self) -> ir.GlobalVariable:
        gv = self.module.globals.get("nv_gc_fl")
        if gv is None:
            gv = ir.GlobalVariable(self.module, R.PTR.as_pointer(), "nv_gc_fl")
            gv.linkage = "external"
            gv.storage_class = "thread_local(initialexec)"
        return gv

    def alloc_object(self, size: int, scanned: bool) -> ir.Value:
        """A zeroed block of size bytes whose first word the caller stores at once (the free-list
        link is left there). Pointer-free objects are atomic: the collector never scans them."""
        if not scanned:
            return self.rt("nv_alloc_atomic", ir.Constant(R.I64, size))
        g = -(-(size + EXTRA_BYTES) // GRANULE)
        if g >= TINY_FREELISTS:
            return self.rt("nv_alloc", ir.Constant(R.I64, size))
        fl = self.b.load(self.gc_freelists())
        head_slot = self.b.gep(fl, [ir.Constant(R.I32, g)])
        head = self.b.load(head_slot)
        empty = self.b.icmp_unsigned("==", self.b.ptrtoint(head, R.I64), ir.Constant(R.I64, 0))
        with self.b.if_else(empty, likely=False) as (slow, fast):
            with slow:
                made = self.rt("nv_gc_alloc_slow", ir.Constant(R.I64, g))
                slow_block = self.b.block
            with fast:
                nxt = self.b.load(self.b.bitcast(head, R.PTR.as_pointer()))
                self.b.store(nxt, head_slot)
                fast_block = self.b.block
        phi = self.b.phi(R.PTR)
        phi.add_incoming(made, slow_block)
        phi.add_incoming(head, fast_block)
        return phi
