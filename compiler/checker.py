"""Ingests a module's AST and produces the typed IR: name resolution, types, conversions.

Statements are checked here; expressions in check_expr.py; intrinsics in builtins.py.
"""
from __future__ import annotations

from . import ast as A
from . import tir as T
from .callgraph import analyse
from .parser import BUILTIN_GENERICS
from .check_expr import Abandon as _Abandon, ExprChecker
from .diagnostics import Diagnostics, Span
from .types import (ArrayT, BufferT, ChannelT, FixedT, FuncT, Prim, TupleT, Type, INT, STR, VOID, CHAR, PRIMS,
                    is_numeric, is_int)

PHASE_LATER = {
    A.Finish: "threads (finish) are not supported yet",
    A.Async: "threads (async/spawn) are not supported yet",
    A.Asyncs: "threads (asyncs) are not supported yet",
    A.Lock: "locks are not supported yet",
    A.Launch: "kernel launches are not supported yet",
}


class Scope:
    """Lexical scopes of one function body: a stack of dicts plus the set of all names, since
    a function may not redeclare a visible local (5.1)."""

    def __init__(self) -> None:
        self.frames: list[dict[str, T.Var]] = [{}]

    def lookup(self, name: str) -> T.Var | None:
        for f in reversed(self.frames):
            if name in f:
                return f[name]
        return None

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def declare(self, var: T.Var) -> None:
        self.frames[-1][var.name] = var

    def visible_names(self) -> list[str]:
        return [n for f in self.frames for n in f]


class Checker(ExprChecker):
    def __init__(self, module: A.Module, diags: Diagnostics, *, is_root: bool = True) -> None:
        super().__init__(diags)
        self.module = module
        self.path = module.path
        self.is_root = is_root
        self.functions: dict[str, T.FuncSym] = {}
        self.func_asts: dict[str, A.FuncDef] = {}
        self.loop_depth = 0
        self.cur_func: T.FuncSym | None = None

    # ------------------------------------------------------------ module
    def check(self) -> T.Program:
        mains: list[A.MainDef] = []
        for item in self.module.items:
            if isinstance(item, A.FuncDef):
                self.declare_function(item)
            elif isinstance(item, A.MainDef):
                mains.append(item)
            elif isinstance(item, A.ClassDef):
                self.error(item.span, "classes are not supported yet")
            elif isinstance(item, (A.Import, A.FromImport)):
                self.error(item.span, "imports are not supported yet")
            elif isinstance(item, A.TypeAlias):
                self.error(item.span, "type aliases are not supported yet")
            elif isinstance(item, A.Proto):
                self.error(item.span, "foreign declarations (proto) are not supported yet")
        main_sym = None
        if len(mains) > 1:
            for m in mains[1:]:
                self.error(m.span, "more than one main", "a program has exactly one main block")
        if self.is_root and not mains:
            self.error(Span(self.path, 1, 1), "missing main",
                       "the root file needs a main block: main")
        if mains:
            main_sym = T.FuncSym("main", "neve_main", [], VOID, mains[0].span)
        order = list(self.functions.values())
        for sym in order:
            self.check_function(sym, self.func_asts[sym.name])
        if main_sym is not None:
            self.check_body(main_sym, mains[0].body)
            order.append(main_sym)
        analyse(order)
        return T.Program(self.path, order, main_sym)

    def declare_function(self, fd: A.FuncDef) -> None:
        if fd.kind != "def":
            self.error(fd.span, f"{fd.kind} functions are not supported yet")
            return
        if fd.is_operator:
            self.error(fd.span, "operator definitions are not supported yet")
            return
        if fd.tparams:
            self.error(fd.span, "generic functions are not supported yet")
            return
        if fd.name in self.functions:
            self.error(fd.span, f"'{fd.name}' is already defined",
                       "functions are not overloaded; rename one of them")
            return
        if fd.name in PRIMS or fd.name in ("tid", "tN", "tHW"):
            self.error(fd.span, f"cannot define a function named '{fd.name}'")
            return
        params = []
        seen: set[str] = set()
        saw_default = False
        for p in fd.params:
            pt = self.resolve_or_error(p.type)
            if p.name in seen:
                self.error(p.span, f"duplicate parameter '{p.name}'")
            seen.add(p.name)
            if p.default is not None:
                saw_default = True
            elif saw_default:
                self.error(p.span, f"parameter '{p.name}' without default after one with a default")
            params.append(T.Var(p.name, pt, p.span, is_param=True))
        ret = self.resolve_or_error(fd.ret, allow_void=True)
        sym = T.FuncSym(fd.name, "nv_" + fd.name, params, ret, fd.span,
                        defaults=[p.default for p in fd.params])
        self.functions[fd.name] = sym
        self.func_asts[fd.name] = fd

    def check_function(self, sym: T.FuncSym, fd: A.FuncDef) -> None:
        self.check_body(sym, fd.body, params=sym.params)

    def check_body(self, sym: T.FuncSym, body: A.Block, params: list[T.Var] = ()) -> None:
        self.cur_func = sym
        self.scope = Scope()
        for p in params:
            try:
                self.check_local_name(p.name, p.span)
            except _Abandon:
                continue
            self.scope.declare(p)
        self.loop_depth = 0
        sym.body = self.block(body, new_scope=False)
        self.cur_func = None

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block, new_scope: bool = True) -> T.Block:
        if new_scope:
            self.scope.push()
        out: list[T.Stmt] = []
        for s in b.body:
            r = self.stmt(s)
            if r is not None:
                out.append(r)
        if new_scope:
            self.scope.pop()
        return T.Block(b.span, out)

    def stmt(self, s) -> T.Stmt | None:
        meth = getattr(self, "stmt_" + type(s).__name__, None)
        if meth is None:
            msg = PHASE_LATER.get(type(s), f"unsupported statement {type(s).__name__}")
            self.error(s.span, msg)
            return None
        try:
            return meth(s)
        except _Abandon:
            return None

    def stmt_ChanOp(self, s: A.ChanOp):
        left = self.expr(s.left)
        right = self.expr(s.right)
        if not any(isinstance(x.type, ChannelT) for x in (left, right)):
            self.error(s.span, "'<-' sends or receives, but neither side is a channel",
                       "write a < -1")
            return None
        self.error(s.span, "channels are not supported yet")
        return None

    def stmt_Pass(self, s: A.Pass):
        return None

    def stmt_Block(self, s: A.Block):
        return self.block(s)

    def stmt_ExprStmt(self, s: A.ExprStmt):
        e = self.expr(s.expr, allow_void=True)
        return T.ExprStmt(s.span, e)

    def stmt_VarDecl(self, s: A.VarDecl):
        out: list[T.Stmt] = []
        declared = self.resolve_or_error(s.type) if s.type is not None else None
        for it in s.items:
            if it.recv is not None:
                self.error(it.span, "channels are not supported yet")
                continue
            if it.ctor_args is not None:
                self.error(it.span, f"cannot construct a value of type {declared} with arguments")
                continue
            if declared is None:
                if it.init is None:
                    self.error(it.span, f"'var {it.name}' needs an initializer")
                    continue
                init = self.expr(it.init)
                if init.type == Prim("nil"):
                    self.error(it.init.span, "cannot infer a type from nil",
                               f"write the type: TYPE {it.name} = nil")
                    continue
                if init.type == VOID:
                    self.error(it.init.span, "a void call has no value")
                    continue
                vt = init.type
            else:
                vt = declared
                if it.init is not None:
                    init = self.coerce(self.expr(it.init, expected=vt), vt, it.init.span)
                else:
                    init = T.Zero(vt, it.span, fresh=True)
            self.check_local_name(it.name, it.span)
            var = T.Var(it.name, vt, it.span)
            self.scope.declare(var)
            out.append(T.Decl(it.span, var, init))
        if len(out) == 1:
            return out[0]
        return T.Block(s.span, out) if out else None

    def check_local_name(self, name: str, span: Span) -> None:
        if name in ("tid", "tN", "tHW"):
            self.error(span, f"cannot declare '{name}'", "it is predeclared (9.1)")
            raise _Abandon()
        if name in BUILTIN_GENERICS:
            self.error(span, f"local '{name}' is named like the generic function '{name}'",
                       "rename it: the name would change how `name <` parses")
            raise _Abandon()
        if self.scope.lookup(name) is not None:
            self.error(span, f"'{name}' is already declared in this function",
                       "locals cannot be redeclared or shadowed; pick another name")
            raise _Abandon()

    def stmt_Assign(self, s: A.Assign):
        if s.op is not None:
            return self.compound_assign(s)
        if len(s.targets) == 1 and len(s.values) == 1:
            value = self.expr(s.values[0], expected=self.peek_target_type(s.targets[0]))
            target = self.target(s.targets[0])
            return T.Assign(s.span, target, self.coerce(value, target.type, s.values[0].span))
        targets = [self.target(t) for t in s.targets]
        if len(s.values) == 1:
            v = self.expr(s.values[0])
            if not isinstance(v.type, TupleT) or len(v.type.elems) != len(targets):
                self.error(s.values[0].span,
                           f"cannot destructure {v.type} into {len(targets)} targets")
                return None
            for t, et, vs in zip(targets, v.type.elems, s.targets):
                if not self.convertible(et, t.type):
                    self.error(vs.span, f"cannot assign {et} to {t.type}")
            return T.MultiAssign(s.span, targets, [v])
        if len(s.values) != len(targets):
            self.error(s.span, f"{len(targets)} targets but {len(s.values)} values")
            return None
        values = [self.coerce(self.expr(v, expected=t.type), t.type, v.span)
                  for v, t in zip(s.values, targets)]
        return T.MultiAssign(s.span, targets, values)

    def peek_target_type(self, t) -> Type | None:
        if isinstance(t, A.Name):
            v = self.scope.lookup(t.id)
            return v.type if v else None
        return None

    def target(self, t) -> T.Expr:
        if isinstance(t, A.Name):
            v = self.scope.lookup(t.id)
            if v is None:
                if t.id in ("tid", "tN", "tHW"):
                    self.error(t.span, f"cannot assign to '{t.id}'")
                else:
                    self.error(t.span, f"unknown variable '{t.id}'",
                               f"declare it first: var {t.id} = ...")
                raise _Abandon()
            return T.Local(v.type, t.span, v)
        if isinstance(t, A.Index):
            e = self.expr(t)
            if isinstance(e, T.IndexGet):
                ot = e.obj.type
                if ot == STR:
                    self.error(t.span, "cannot assign to an element of a str",
                               "strings are immutable; build a new one")
                    raise _Abandon()
                if isinstance(ot, TupleT):
                    self.error(t.span, "cannot assign to a tuple element")
                    raise _Abandon()
                if isinstance(ot, FixedT) and not self.is_lvalue(e.obj):
                    self.error(t.span, "cannot assign to an element of a temporary fixed array")
                    raise _Abandon()
                return e
        if isinstance(t, A.Paren):
            return self.target(t.expr)
        self.error(t.span, "cannot assign to this expression",
                   "assign to a variable, a field or an element")
        raise _Abandon()

    def is_lvalue(self, e: T.Expr) -> bool:
        if isinstance(e, T.Local):
            return True
        if isinstance(e, T.IndexGet):
            return isinstance(e.obj.type, (ArrayT, BufferT)) or (
                isinstance(e.obj.type, FixedT) and self.is_lvalue(e.obj))
        return False

    def compound_assign(self, s: A.Assign):
        if len(s.targets) != 1 or len(s.values) != 1:
            self.error(s.span, "compound assignment takes one target and one value")
            return None
        target = self.target(s.targets[0])
        old = T.Placeholder(target.type, s.targets[0].span)
        rhs_ast = s.values[0]
        value = self.binary_typed(s.op, old, rhs_ast, s.span, old_ast=s.targets[0])
        if not self.convertible(value.type, target.type):
            hint = "use //= for integer division" if s.op == "/" and is_int(target.type) else None
            self.error(s.span, f"result of '{s.op}=' is {value.type}, which does not convert "
                               f"to {target.type}", hint)
            return None
        return T.Assign(s.span, target, self.coerce(value, target.type, s.span), compound=True)

    def stmt_Return(self, s: A.Return):
        fn = self.cur_func
        if not s.values:
            if fn.ret != VOID and fn.name != "main":
                return T.Return(s.span, T.Zero(fn.ret, s.span))
            return T.Return(s.span, None)
        if fn.ret == VOID:
            self.error(s.values[0].span,
                       "main cannot return a value" if fn.name == "main"
                       else f"void function '{fn.name}' cannot return a value")
            return None
        if len(s.values) > 1:
            if not isinstance(fn.ret, TupleT) or len(fn.ret.elems) != len(s.values):
                self.error(s.values[0].span, f"'{fn.name}' returns {fn.ret}, not "
                                             f"{len(s.values)} values")
                return None
            elems = [self.coerce(self.expr(v, expected=et), et, v.span)
                     for v, et in zip(s.values, fn.ret.elems)]
            return T.Return(s.span, T.TupleNew(fn.ret, s.span, elems))
        v = self.expr(s.values[0], expected=fn.ret)
        return T.Return(s.span, self.coerce(v, fn.ret, s.values[0].span))

    def stmt_Break(self, s: A.Break):
        if self.loop_depth == 0:
            self.error(s.span, "'break' outside a loop")
            return None
        return T.Break(s.span)

    def stmt_Continue(self, s: A.Continue):
        if self.loop_depth == 0:
            self.error(s.span, "'continue' outside a loop")
            return None
        return T.Continue(s.span)

    def stmt_If(self, s: A.If):
        cond = self.condition(s.cond)
        then = self.block(s.then)
        orelse = self.block(s.orelse) if s.orelse is not None else None
        return T.If(s.span, cond, then, orelse)

    def stmt_While(self, s: A.While):
        cond = self.condition(s.cond)
        return T.While(s.span, cond, self.loop_body(s.body))

    def loop_body(self, b: A.Block, vars: list[T.Var] = ()) -> T.Block:
        self.loop_depth += 1
        self.scope.push()
        for v in vars:
            self.scope.declare(v)
        out = self.block(b, new_scope=False)
        self.scope.pop()
        self.loop_depth -= 1
        return out

    def stmt_ForC(self, s: A.ForC):
        start = self.expr(s.start)
        if start.type in (Prim("nil"), VOID):
            self.error(s.start.span, "cannot infer the loop variable's type")
            return None
        self.check_local_name(s.var, s.var_span)
        var = T.Var(s.var, start.type, s.var_span)
        self.scope.push()
        self.scope.declare(var)
        cond = self.condition(s.cond)
        if s.step is not None:
            step_e = self.expr(s.step, expected=var.type)
            if not is_numeric(var.type):
                self.error(s.step.span, f"cannot step a loop variable of type {var.type}")
            step = self.binary_typed("+", T.Local(var.type, s.var_span, var), None, s.step.span,
                                     right_typed=step_e)
        else:
            if not is_numeric(var.type) and var.type != CHAR:
                self.error(s.var_span, f"loop variable of type {var.type} needs a step")
                self.scope.pop()
                return None
            step = self.binary_typed("+", T.Local(var.type, s.var_span, var), None, s.span,
                                     right_typed=T.Const(var.type, s.span, 1))
        step = self.coerce(step, var.type, s.span)
        body = self.loop_body(s.body)
        self.scope.pop()
        return T.ForC(s.span, var, start, cond, step, body)

    def stmt_ForIn(self, s: A.ForIn):
        it = self.expr(s.iterable)
        t = it.type
        if isinstance(t, (ArrayT, FixedT)):
            et = t.elem
        elif t == STR:
            et = CHAR
        else:
            self.error(s.iterable.span, f"cannot iterate over {t}")
            return None
        self.check_local_name(s.var, s.var_span)
        var = T.Var(s.var, et, s.var_span)
        body = self.loop_body(s.body, [var])
        return T.ForEach(s.span, var, it, body)

    def stmt_RangeLoop(self, s: A.RangeLoop):
        if len(s.names) > len(s.ranges):
            self.error(s.names[len(s.ranges)][1], "more loop variables than ranges")
            return None
        ranges = []
        for lo, hi in s.ranges:
            lo_e = self.coerce_int(self.expr(lo, expected=INT), lo.span)
            hi_e = self.coerce_int(self.expr(hi, expected=INT), hi.span)
            ranges.append((lo_e, hi_e))
        vars = []
        for i in range(len(s.ranges)):
            if i < len(s.names):
                name, sp = s.names[i]
                self.check_local_name(name, sp)
                vars.append(T.Var(name, INT, sp))
            else:
                vars.append(T.Var(f".r{i}", INT, s.span))
        body = self.loop_body(s.body, [v for v in vars if not v.name.startswith(".")])
        return T.RangeLoop(s.span, vars, ranges, body)
