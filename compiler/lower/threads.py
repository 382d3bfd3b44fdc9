"""Lowering of concurrency (9): thread starts with captured copies and split chunks, finish,
locks (with their exits on return/break) and channel operations."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import ChannelT
from . import runtime_abi as R

FINISH_SIZE = 64          # NV_FINISH_SIZE in neve_rt.h


class ThreadLowering:
    # ------------------------------------------------------------ starting threads
    def thread_entry(self, f: T.FuncSym) -> ir.Function:
        """`void entry(void* env)`: unpack the starting thread's copies and run the body."""
        name = f"nvthread.{f.symbol}"
        fn = self.module.globals.get(name)
        if fn is not None:
            return fn
        fn = ir.Function(self.module, ir.FunctionType(R.VOID, [R.PTR]), name=name)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block())
        env = b.bitcast(fn.args[0], self.env_struct(f).as_pointer())
        args = [b.load(b.gep(env, [ir.Constant(R.I32, 0), ir.Constant(R.I32, i)]))
                for i in range(len(f.params))]
        b.call(self.declare_func(f), args)
        b.ret_void()
        return fn

    def env_struct(self, f: T.FuncSym) -> ir.Type:
        return ir.LiteralStructType([self.llty(p.type) for p in f.params] or [R.I8])

    def st_Spawn(self, s: T.Spawn) -> None:
        b = self.b
        f = s.func
        copies = [b.load(self.fs.vars[v]) for v in s.captures]
        arrays = [self.expr(a) for a, _ in s.splits]
        if s.count is not None:
            n = self.expr(s.count)
            self.set_site(s.span)
            self.rt("nv_check_thread_count", n)
        else:
            n = ir.Constant(R.I64, 1)
        entry = self.thread_entry(f)
        st = self.env_struct(f)
        size = ir.Constant(R.I64, st.get_abi_size(self.td))
        origin = self.cstr(f"{R.trace_path(s.span.file)}:{s.span.line}:{s.span.col}")
        kind = self.cstr(s.kind)
        detached = ir.Constant(R.I32, int(s.kind == "spawn"))
        t_slot = self.alloca(R.I64, "tid")
        b.store(ir.Constant(R.I64, 0), t_slot)

        def one_thread():
            t = self.b.load(t_slot)
            env = self.rt("nv_alloc", size)
            penv = self.b.bitcast(env, st.as_pointer())
            fields = copies + [self.rt("nv_split_chunk_elem", arr, t, n,
                                       ir.Constant(R.I32, ord(mode)), self.desc(a.type.elem))
                               for arr, (a, mode) in zip(arrays, s.splits)]
            for i, v in enumerate(fields):
                self.b.store(v, self.b.gep(penv, [ir.Constant(R.I32, 0), ir.Constant(R.I32, i)]))
            self.set_site(s.span)
            self.rt("nv_spawn", entry.bitcast(R.PTR), env, t, n, detached, origin, kind)

        self.loop(lambda: self.b.icmp_signed("<", self.b.load(t_slot), n), one_thread,
                  lambda: self.b.store(self.b.add(self.b.load(t_slot), ir.Constant(R.I64, 1)), t_slot))

    # ------------------------------------------------------------ finish and lock
    def st_Finish(self, s: T.Finish) -> None:
        slot = self.alloca(ir.ArrayType(R.I64, FINISH_SIZE // 8), "finish")
        rec = self.b.bitcast(slot, R.PTR)
        self.rt("nv_finish_begin", rec)

        def leave():
            self.set_site(s.span)
            self.rt("nv_finish_end", rec)

        self.with_cleanup(leave, s.body)

    def st_LockStmt(self, s: T.LockStmt) -> None:
        if s.obj is not None:
            obj = self.expr(s.obj)
            if isinstance(obj.type, ir.LiteralStructType):   # buffers, any: their address
                obj = self.b.extract_value(obj, 0)
            obj = self.b.bitcast(obj, R.PTR)
            self.set_site(s.span)
            self.rt("nv_lock_obj", obj)
            unlock = lambda: self.rt("nv_unlock_obj", obj)
        else:
            name = self.cstr(s.name if s.name is not None else "mutex")
            self.set_site(s.span)
            self.rt("nv_lock_name", name)
            unlock = lambda: self.rt("nv_unlock_name", name)
        self.with_cleanup(unlock, s.body)

    def with_cleanup(self, leave, body: T.Block) -> None:
        """Lower body with `leave` run on every way out of it."""
        self.fs.cleanups.append(leave)
        self.lower_block(body)
        self.fs.cleanups.pop()
        if not self.b.block.is_terminated:
            leave()

    # ------------------------------------------------------------ channels (9.5)
    def chan_checked(self, e: T.Builtin, what: str) -> ir.Value:
        ch = self.expr(e.args[0])
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(ch, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, e.span, "nv_panic", self.cstr(f"{what} on nil channel"))
        return ch

    def item_ptr(self, v: ir.Value, t) -> ir.Value:
        return self.b.bitcast(self.spill(self.to_mem(v, t)), R.PTR)

    def bi_chan_new(self, e: T.Builtin):
        self.set_site(e.span)
        return self.rt("nv_chan_new", self.desc(e.type.elem), self.expr(e.args[0]))

    def bi_chan_send_or_fail(self, e: T.Builtin):
        ch = self.chan_checked(e, "send")
        v = self.expr(e.args[1])
        self.set_site(e.span)
        self.rt("nv_chan_send", ch, self.item_ptr(v, e.args[0].type.elem))

    def bi_chan_try_send(self, e: T.Builtin):
        ch = self.chan_checked(e, "send")
        v = self.expr(e.args[1])
        self.set_site(e.span)
        r = self.rt("nv_chan_try_send", ch, self.item_ptr(v, e.args[0].type.elem))
        return self.b.icmp_signed("!=", r, ir.Constant(R.I32, 0))

    def bi_chan_recv(self, e: T.Builtin):
        ch = self.chan_checked(e, "receive")
        et = e.args[0].type.elem
        slot = self.alloca(self.mem_ty(et))
        self.set_site(e.span)
        self.rt("nv_chan_recv", ch, self.b.bitcast(slot, R.PTR))
        return self.from_mem(self.b.load(slot), et)

    def bi_chan_close(self, e: T.Builtin):
        self.rt("nv_chan_close", self.chan_checked(e, "close"))

    def bi_chan_alive(self, e: T.Builtin):
        r = self.rt("nv_chan_alive", self.chan_checked(e, "alive() call"))
        return self.b.icmp_signed("!=", r, ir.Constant(R.I32, 0))

    def bi_chan_size(self, e: T.Builtin):
        return self.rt("nv_chan_size", self.chan_checked(e, "size() call"))

    def bi_chan_sum(self, e: T.Builtin):
        ch = self.chan_checked(e, "sum() call")
        slot = self.alloca(self.mem_ty(e.type))
        self.rt("nv_chan_sum", ch, self.b.bitcast(slot, R.PTR))
        return self.b.load(slot)

    def foreach_channel(self, s: T.ForEach, var_slot) -> None:
        """`for v in ch`: receive until the channel is closed and drained."""
        t: ChannelT = s.iterable.type
        ch = self.expr(s.iterable)
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(ch, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, s.span, "nv_panic", self.cstr("receive on nil channel"))
        item = self.alloca(self.mem_ty(t.elem), "item")
        head = self.b.append_basic_block("chan.head")
        body = self.b.append_basic_block("chan.body")
        end = self.b.append_basic_block("chan.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.set_site(s.span)
        got = self.rt("nv_chan_recv", ch, self.b.bitcast(item, R.PTR))
        self.b.cbranch(self.b.icmp_signed("!=", got, ir.Constant(R.I32, 0)), body, end)
        self.b.position_at_end(body)
        self.receive_loop(s, var_slot, item, t.elem, head, end)

    # ------------------------------------------------------------ tid, tN, tHW (9.1)
    def tls_int(self, name: str) -> ir.Value:
        gv = self.module.globals.get(name)
        if gv is None:
            gv = ir.GlobalVariable(self.module, R.I64, name)
            gv.linkage = "external"
            gv.storage_class = "thread_local(initialexec)"
        return self.b.load(gv)

    def bi_tid(self, e: T.Builtin):
        return self.tls_int("nv_tid")

    def bi_tN(self, e: T.Builtin):
        return self.tls_int("nv_tN")

    def bi_tHW(self, e: T.Builtin):
        return self.rt("nv_thw")
