"""Checking of concurrency (LANGUAGE.md 9): finish, async/spawn/asyncs with captures and split
arguments, locks, channels."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .call import plain_args
from .scope import Scope
from ..types import ArrayT, ChannelT, Prim, Type, INT, BOOL, VOID, is_numeric



class ThreadScope(Scope):
    """The scope of a thread body (9.2): names of the enclosing function are captured on first
    use, as copies made by the starting thread; assigning to them is an error."""

    def __init__(self, outer) -> None:
        super().__init__()
        self.outer = outer
        self.base: dict[str, T.Var] = {}
        self.captures: list[tuple[T.Var, T.Var]] = []

    def lookup(self, name: str) -> T.Var | None:
        own = super().lookup(name)
        if own is not None:
            return own
        if name in self.base:
            return self.base[name]
        v = self.outer.lookup(name)
        if v is None:
            return None
        inner = T.Var(v.name, v.type, v.span, is_param=True)
        inner.captured = True
        self.base[name] = inner
        self.captures.append((v, inner))
        return inner

    def visible_names(self) -> list[str]:
        return super().visible_names() + self.outer.visible_names()


class ThreadChecker:
    def stmt_Finish(self, s: A.Finish):
        self.mark_raises()                   # its wait can be a deadlock, located here
        return T.Finish(s.span, self.block(s.body))

    def stmt_Async(self, s: A.Async):
        return self.thread_body(s, s.kind, None, s.body, [])

    def stmt_Asyncs(self, s: A.Asyncs):
        count = self.coerce_int(self.expr(s.count, expected=INT), s.count.span)
        if s.body is not None:
            return self.thread_body(s, "asyncs", count, s.body, [])
        # the call, arguments included, runs on each new thread; split arguments are chunked
        # by the starting thread (9.3)
        splits, args = [], []
        for a in s.call.args:
            if a.split is None:
                args.append(a)
                continue
            arr = self.expr(a.value)
            if not isinstance(arr.type, ArrayT):
                self.fail(a.span, f"a split argument needs an array, got {arr.type}")
            name = f".split{len(splits)}"
            splits.append((name, arr, a.split))
            args.append(A.Arg(a.span, A.Name(a.value.span, name), a.keyword))
        call = A.Call(s.call.span, s.call.func, tuple(args))
        body = A.Block(s.span, (A.ExprStmt(s.call.span, call),))
        return self.thread_body(s, "asyncs", count, body, splits)

    def thread_body(self, s, kind: str, count, body: A.Block, splits) -> T.Stmt:
        self.mark_raises()                   # the start itself can fail (negative count)
        outer_scope, outer_func, outer_loops = self.scope, self.cur_func, self.loop_depth
        scope = ThreadScope(outer_scope)
        split_vars = []
        for name, arr, mode in splits:
            v = T.Var(name, arr.type, arr.span, is_param=True)
            scope.base[name] = v
            split_vars.append((v, arr, mode))
        symbol = f"{outer_func.symbol}.thread{self.thread_count(outer_func)}"
        fn = T.FuncSym(outer_func.name, symbol,
                       [], VOID, s.span)
        fn.scope, fn.env, fn.owner = self.ms, self.env, self.cur_class
        fn.is_thread = True
        self.scope, self.cur_func, self.loop_depth = scope, fn, 0
        self.in_thread = getattr(self, "in_thread", 0) + 1
        try:
            fn.body = self.block(body, new_scope=False)
        finally:
            self.scope, self.cur_func, self.loop_depth = outer_scope, outer_func, outer_loops
            self.in_thread -= 1
        fn.params = [inner for _, inner in scope.captures] + [v for v, _, _ in split_vars]
        outer_func.calls.add(fn)
        self.extra_funcs.append(fn)
        return T.Spawn(s.span, kind, count, fn, [outer for outer, _ in scope.captures],
                       [(arr, mode) for _, arr, mode in split_vars])

    def thread_count(self, outer: T.FuncSym) -> int:
        """Threads are numbered per enclosing function, so a generic instance's thread bodies
        get the same symbols in every build unit that instantiates it."""
        outer.threads = getattr(outer, "threads", 0) + 1
        return outer.threads

    def stmt_Lock(self, s: A.Lock):
        self.mark_raises()                   # waiting for a lock can be a deadlock
        obj = None
        if s.obj is not None:
            obj = self.expr(s.obj)
            if not obj.type.is_ref or obj.type == Prim("nil"):
                self.fail(s.obj.span, f"lock needs a reference, got {obj.type}",
                          'lock "name" locks a named mutex')
            self.mark_raises()
        return T.LockStmt(s.span, s.name if obj is None else None, obj, self.block(s.body))

    # ------------------------------------------------------------ channels (9.5)
    def stmt_ChanOp(self, s: A.ChanOp):
        left = self.expr(s.left)
        # a literal sent adapts to the element type, as in `ch.send(5)` (2.4, 3.3)
        right = self.expr(s.right, expected=left.type.elem if isinstance(left.type, ChannelT) else None)
        self.mark_raises()
        if isinstance(left.type, ChannelT) and self.convertible(right.type, left.type.elem):
            item = self.coerce(right, left.type.elem, s.right.span)
            return T.ExprStmt(s.span, T.Builtin(VOID, s.span, "chan.send_or_fail", [left, item]))
        if isinstance(right.type, ChannelT):
            target = self.target(s.left)
            if not self.convertible(right.type.elem, target.type):
                self.fail(s.span, f"cannot receive {right.type.elem} into {target.type}")
            recv = self.coerce(T.Builtin(right.type.elem, s.span, "chan.recv", [right]),
                               target.type, s.span)
            return T.Assign(s.span, target, recv)
        if isinstance(left.type, ChannelT):
            self.fail(s.right.span, f"cannot send {right.type} on {left.type}")
        self.fail(s.span, "'<-' sends or receives, but neither side is a channel",
                  "write a < -1")

    def recv_init(self, it: A.DeclItem, declared: Type) -> T.Expr:
        ch = self.expr(it.recv)
        if not isinstance(ch.type, ChannelT):
            self.fail(it.recv.span, f"'<-' needs a channel, got {ch.type}")
        self.mark_raises()
        got = T.Builtin(ch.type.elem, it.span, "chan.recv", [ch])
        return self.coerce(got, declared, it.span)

    def channel_method(self, e: A.Call, obj: T.Expr, m: str, sp) -> T.Expr:
        t: ChannelT = obj.type
        self.mark_raises()
        if m == "send":
            (v,) = plain_args(self, e, m, 1, 1)
            item = self.coerce(self.expr(v, expected=t.elem), t.elem, v.span, "argument 1 of send")
            return T.Builtin(BOOL, sp, "chan.try_send", [obj, item])
        plain_args(self, e, m, 0, 0)
        if m == "print":
            return T.Builtin(VOID, sp, "print", [obj], (True, 1))
        if m == "sum":
            if not is_numeric(t.elem):
                self.fail(sp, f"sum() needs a channel of numbers, got {t}")
            return T.Builtin(t.elem, sp, "chan.sum", [obj])
        ret = {"alive": BOOL, "size": INT}.get(m, VOID)
        return T.Builtin(ret, sp, "chan." + ("close" if m == "terminate" else m), [obj])

    def channel_capacity(self, te, seen: frozenset = frozenset()) -> T.Expr | None:
        """The capacity written in a declaration's outermost `channel<T, N>` (3.4), also
        through aliases (3.5); `seen` stops at an alias cycle, reported where it is resolved."""
        if isinstance(te, A.TypeName) and te.name == "channel" and te.capacity is not None:
            n = self.const_int(te.capacity)
            if n is None:
                self.fail(te.capacity.span, "a channel capacity must be a constant integer")
            if n < 1:
                self.fail(te.capacity.span, f"a channel capacity must be at least 1, got {n}")
            return T.Const(INT, te.capacity.span, n)
        alias = self.alias_of(te)
        if alias is None or alias in seen:
            return None
        scope, name = alias            # 3.5: an alias keeps its channel's capacity
        saved = self.ctx_swap(scope, {}, None)
        try:
            return self.channel_capacity(scope.aliases[name].type, seen | {alias})
        finally:
            self.ctx_restore(saved)

    def alias_of(self, te):
        """(module scope, name) of the type alias the syntax type `te` names, if it names one."""
        if not isinstance(te, A.TypeName) or te.args or (te.module is None and te.name in self.env):
            return None
        if te.module is not None:
            scope, name = self.import_scope(te.module, te.span), te.name
        elif te.name in self.ms.from_names:
            scope, name = self.ms.from_names[te.name]
        else:
            scope, name = self.ms, te.name
        return (scope, name) if name in scope.aliases else None
