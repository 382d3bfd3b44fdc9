"""Lowering of maps (3.4, 14.5): literals, indexing, methods and iteration via the runtime."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import MapT, BOOL
from . import runtime_abi as R
from .map_update import fused_get


class MapLowering:
    fused: tuple | None = None      # (the map.get_default node, its value) while map_update runs

    def new_map(self, t: MapT) -> ir.Value:
        return self.rt("nv_map_new", self.desc(t.key), self.desc(t.val))

    def key_ptr(self, k: ir.Value, t: MapT) -> ir.Value:
        return self.b.bitcast(self.spill(self.to_mem(k, t.key)), R.PTR)

    def val_ptr(self, slot: ir.Value, t: MapT) -> ir.Value:
        return self.b.bitcast(slot, self.mem_ty(t.val).as_pointer())

    def map_receiver(self, e: T.Builtin, method: str) -> ir.Value:
        m = self.expr(e.args[0])
        self.nil_check(m, e.span, method, e.args[0].type)
        return m

    def bi_map_lit(self, e: T.Builtin):
        t: MapT = e.type
        vals = [self.expr(a) for a in e.args]
        m = self.new_map(t)
        for k, v in zip(vals[0::2], vals[1::2]):
            slot = self.rt("nv_map_slot", m, self.key_ptr(k, t))
            self.b.store(self.to_mem(v, t.val), self.val_ptr(slot, t))
        return m

    def map_slot_for_store(self, e: T.IndexGet, read: bool = False) -> ir.Value:
        """The entry's value slot; `read` (a compound assignment, 5.2: `m[k] op= e` is
        `m[k] = m[k] op e`) requires the key to be present (`key not found`), else it is added."""
        t: MapT = e.obj.type
        m = self.expr(e.obj)
        self.nil_check(m, e.span, "index" if read else "store into", t)
        k = self.expr(e.index)
        if read:
            self.set_site(e.span)
        return self.val_ptr(self.rt("nv_map_get" if read else "nv_map_slot", m, self.key_ptr(k, t)), t)

    def map_get(self, e: T.IndexGet) -> ir.Value:
        t: MapT = e.obj.type
        m = self.expr(e.obj)
        self.nil_check(m, e.span, "index", t)
        k = self.expr(e.index)
        self.set_site(e.span)
        slot = self.rt("nv_map_get", m, self.key_ptr(k, t))
        return self.from_mem(self.b.load(self.val_ptr(slot, t)), t.val)

    def bi_map_size(self, e):
        return self.rt("nv_map_size", self.map_receiver(e, "size"))

    def bi_map_keys(self, e):
        return self.rt("nv_map_keys", self.map_receiver(e, "keys"))

    def bi_map_values(self, e):
        return self.rt("nv_map_values", self.map_receiver(e, "values"))

    def bi_map_clear(self, e):
        self.rt("nv_map_clear", self.map_receiver(e, "clear"))

    def bi_map_has(self, e):
        t = e.args[0].type
        m = self.map_receiver(e, "has")
        slot = self.rt("nv_map_find", m, self.key_ptr(self.expr(e.args[1]), t))
        return self.b.icmp_unsigned("!=", self.b.ptrtoint(slot, R.I64), ir.Constant(R.I64, 0))

    def bi_map_remove(self, e):
        t = e.args[0].type
        m = self.map_receiver(e, "remove")
        r = self.rt("nv_map_remove", m, self.key_ptr(self.expr(e.args[1]), t))
        return self.b.icmp_signed("!=", r, ir.Constant(R.I32, 0))

    def find_or(self, e, default_fn):
        """(value, found) of a lookup, the value being default_fn() when absent."""
        t: MapT = e.args[0].type
        m = self.map_receiver(e, "get")
        slot = self.rt("nv_map_find", m, self.key_ptr(self.expr(e.args[1]), t))
        found = self.b.icmp_unsigned("!=", self.b.ptrtoint(slot, R.I64), ir.Constant(R.I64, 0))
        dflt = default_fn()
        cur = self.b.block
        with self.b.if_then(found):
            got = self.from_mem(self.b.load(self.val_ptr(slot, t)), t.val)
            got_block = self.b.block
        phi = self.b.phi(self.llty(t.val))
        phi.add_incoming(dflt, cur)
        phi.add_incoming(got, got_block)
        return phi, found

    def bi_map_get_default(self, e):
        if self.fused is not None and self.fused[0] is e:
            return self.fused[1]
        return self.find_or(e, lambda: self.expr(e.args[2]))[0]

    def map_update(self, s: T.Assign) -> bool:
        """`m[k] = f(m.get(k, d))` with one probe when map_update.fused_get allows: the slot is
        found or inserted first, the old value is d for a new entry, then f's result is stored.
        Returns False (nothing emitted) for any other assignment."""
        g = fused_get(s)
        if g is None:
            return False
        t: MapT = g.args[0].type
        m = self.map_receiver(g, "get")
        key = self.key_ptr(self.expr(g.args[1]), t)
        dflt = self.expr(g.args[2])
        fresh = self.alloca(R.I32, "map.fresh")
        slot = self.val_ptr(self.rt("nv_map_upsert", m, key, self.b.bitcast(fresh, R.PTR)), t)
        is_new = self.b.icmp_signed("!=", self.b.load(fresh), ir.Constant(R.I32, 0))
        old = self.b.select(is_new, dflt, self.from_mem(self.b.load(slot), t.val))
        self.fused = (g, old)
        try:
            v = self.expr(s.value)
        finally:
            self.fused = None
        self.b.store(self.to_mem(v, t.val), slot)
        return True

    def bi_map_get_pair(self, e):
        t: MapT = e.args[0].type
        v, found = self.find_or(e, lambda: ir.Constant(self.llty(t.val), None))
        agg = ir.Constant(self.llty(e.type), None)
        agg = self.b.insert_value(agg, self.to_mem(v, t.val), 0)
        return self.b.insert_value(agg, self.to_mem(found, BOOL), 1)

    def foreach_map(self, s: T.ForEach, var_slot) -> None:
        """`for k in m`: keys in insertion order; changing the key set meanwhile is a runtime
        error (checked by the runtime at each step)."""
        t: MapT = s.iterable.type
        m = self.expr(s.iterable)
        self.nil_check(m, s.span, "iterate over", t)
        mod = self.rt("nv_map_mod", m)
        pos = self.alloca(R.I64, "map.pos")
        self.b.store(ir.Constant(R.I64, 0), pos)
        key_tmp = self.alloca(self.mem_ty(t.key), "map.key")
        head = self.b.append_basic_block("map.head")
        body = self.b.append_basic_block("map.body")
        end = self.b.append_basic_block("map.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.set_site(s.span)
        nxt = self.rt("nv_map_next", m, self.b.load(pos), mod, self.b.bitcast(key_tmp, R.PTR))
        self.b.store(nxt, pos)
        self.b.cbranch(self.b.icmp_signed(">=", nxt, ir.Constant(R.I64, 0)), body, end)
        self.b.position_at_end(body)
        self.receive_loop(s, var_slot, key_tmp, t.key, head, end)
