"""Ingests a module's AST and produces the typed IR: name resolution, types, conversions.

Statements are checked here; expressions in expr.py; calls, intrinsics included, in call.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import ast as A
from .. import tir as T
from .callgraph import analyse
from .decl import DeclChecker
from .inherit import InheritChecker
from .members import MemberChecker
from .generics import GenericChecker
from .foreign import ForeignChecker
from .cstructs import CStructChecker
from .threads import ThreadChecker
from .kernels import KernelChecker, PREDECLARED
from .layouts import LayoutChecker
from .cparams import CParamChecker
from .scope import Scope
from .symbols import ModScope
from ..parser import BUILTIN_GENERICS
from .expr import Abandon as _Abandon, ExprChecker
from ..diagnostics import Diagnostics, Span
from ..builtins import FILE_T, SB_T
from .strbuilder import new_builder
from ..types import (ArrayT, BufferT, ChannelT, ClassT, ForeignT, ERR, FixedT, MapT, Prim, TupleT, Type, INT, STR, VOID, CHAR, is_numeric, is_int)

if TYPE_CHECKING:                  # the loader's Module, named in annotations only
    from ..modules import Module

PHASE_LATER: dict = {}


class Checker(DeclChecker, InheritChecker, MemberChecker, GenericChecker, ForeignChecker, CStructChecker, ThreadChecker, KernelChecker, LayoutChecker, CParamChecker, ExprChecker):
    """Checks a whole program: the root module and every module it imports."""

    def __init__(self, modules: list[Module], root: Module, diags: Diagnostics,
                 std: Module | None = None) -> None:
        super().__init__(diags)
        self.modules = modules
        self.root = root
        self.std_module = std
        self.ms: ModScope | None = None
        self.env: dict = {}
        self.cur_class = None
        self.queue: list[T.FuncSym] = []
        self.classes_by_type: dict = {}
        self.pending_classes: list = []
        self.class_stack: list = []      # classes being completed (inheritance cycles, 7.5)
        self.alias_stack: list = []
        self.inst_depth = 0
        self.globals: list = []
        self.global_spans: dict = {}
        self.extra_funcs: list[T.FuncSym] = []
        self.func_values: dict = {}
        self.loop_depth = 0
        self.cur_func: T.FuncSym | None = None
        self.require_main = True     # False when compiling one build unit (compiler/unit.py)

    # ------------------------------------------------------------ program
    def check(self) -> T.Program:
        scopes = self.build_scopes(self.modules)
        self.declare_pending(scopes)
        root_scope = next(ms for ms in scopes if ms.mod is self.root)
        for ms in scopes:
            self.ms = ms
            for n in ms.aliases:
                try:
                    self.alias_type(ms, n)
                except _Abandon:
                    pass
            for decl in ms.classes.values():
                if not decl.ast.tparams:
                    self.class_info(decl, (), decl.ast.span)
            if ms is not root_scope and ms.main is not None:
                self.error(ms.main.span, "an imported module cannot have a main",
                           "only the program's root file has main")
        main_sym = None
        if root_scope.main is None:
            if self.require_main:
                self.error(Span(self.root.path, 1, 1), "missing main",
                           "the root file needs a main block: main")
        else:
            main_sym = T.FuncSym("main", "neve_main", [], VOID, root_scope.main.span)
            main_sym.ast, main_sym.scope, main_sym.env, main_sym.owner = \
                root_scope.main, root_scope, {}, None
            self.queue.append(main_sym)
            self.main_sym = main_sym
        self.before_bodies(scopes)
        checked: list[T.FuncSym] = []
        while self.queue or self.pending_classes:
            if self.pending_classes:
                self.complete_class(self.pending_classes.pop(0))
                continue
            sym = self.queue.pop(0)
            self.check_function(sym)
            checked.append(sym)
        self.plan_deferred()
        checked += self.extra_funcs
        checked = self.analyse_calls(checked)
        classes = [c for c in self.classes_by_type.values()]
        globals_ = sorted(self.globals, key=lambda g: self.global_spans[g])
        return T.Program(self.root.path, checked, main_sym, globals=globals_, classes=classes,
                         closed=self.require_main)

    def before_bodies(self, scopes: list[ModScope]) -> None:
        """Hook run once every declaration is known, before any body is checked."""

    def analyse_calls(self, checked: list[T.FuncSym]) -> list[T.FuncSym]:
        """Call-graph facts (frames, recursion) of the checked functions, which it returns."""
        analyse(checked)
        self.report_kernel_recursion(checked)
        return checked

    def check_function(self, sym: T.FuncSym) -> None:
        saved = self.ctx_swap(sym.scope, sym.env, sym.owner)
        site = getattr(sym, "inst_site", None)
        old_depth = self.inst_depth
        if site is not None:
            self.inst_depth = site[2]
        mark = len(self.diags.items)
        try:
            self.check_body(sym, sym.ast.body, params=sym.params)
            if sym.kind != "def":
                self.check_kernel_body(sym)
        finally:
            self.inst_depth = old_depth
            self.ctx_restore(saved)
        if site is not None:
            span, name, _ = site
            for k in range(mark, len(self.diags.items)):
                d = self.diags.items[k]
                self.diags.items[k] = type(d)(d.span, d.message, d.hint,
                                              d.notes + (f"in {name} called at {span}",))

    def check_body(self, sym: T.FuncSym, body: A.Block, params: list[T.Var] = ()) -> None:
        self.cur_func = sym
        self.scope = Scope()
        for p in params:
            if p.name == "self":
                self.scope.declare(p)
                continue
            try:
                self.check_local_name(p.name, p.span)
            except _Abandon:
                continue
            self.scope.declare(p)
        self.loop_depth = 0
        is_ctor = isinstance(sym.ast, A.CtorDef) and sym.owner is not None and \
            sym.owner.base is not None
        first = body.body[0] if body.body else None
        self.super_first = first.expr if isinstance(first, A.ExprStmt) and \
            isinstance(first.expr, A.Call) and isinstance(first.expr.func, A.SuperRef) else None
        self.super_called = False
        sym.body = self.block(body, new_scope=False)
        if is_ctor and not self.super_called:       # 7.5: the base's ctor runs first
            pre = self.implicit_super(sym)
            if pre is not None:
                sym.body.body.insert(0, pre)
        if sym is getattr(self, "main_sym", None):
            # 9.1: main acts as if wrapped in a finish (its wait is located at `main`)
            self.mark_raises()
            sym.body = T.Block(body.span, [T.Finish(sym.span, sym.body)])
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
            try:
                if it.recv is not None:
                    if declared is None:
                        self.error(it.span, f"'var {it.name} <- ch' needs a type: TYPE {it.name} <- ch")
                        continue
                    init = self.recv_init(it, declared)
                    self.check_local_name(it.name, it.span)
                    var = T.Var(it.name, declared, it.span)
                    self.scope.declare(var)
                    out.append(T.Decl(it.span, var, init))
                    continue
                if it.ctor_args is not None:
                    self.check_local_name(it.name, it.span)
                    init = self.construct(declared, it.ctor_args, it.span)
                    var = T.Var(it.name, declared, it.span)
                    self.scope.declare(var)
                    out.append(T.Decl(it.span, var, init))
                    continue
                if declared is None:
                    if it.init is None:
                        self.error(it.span, f"'var {it.name}' needs an initializer")
                        continue
                    init = self.layout_init(it.name, self.expr(it.init))
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
                        cap = self.channel_capacity(s.type)
                        init = T.Builtin(vt, it.span, "chan.new", [cap]) if cap is not None \
                            else new_builder(self, [], it.span) if vt == SB_T \
                            else T.Zero(vt, it.span, fresh=True)
                self.check_local_name(it.name, it.span)
                var = T.Var(it.name, vt, it.span)
                self.scope.declare(var)
                self.note_layout(var, init)
                out.append(T.Decl(it.span, var, init))
            except _Abandon:
                # 13.1: the name exists from here on, with the error type, so its uses say nothing more
                if self.scope.lookup(it.name) is None and it.name not in BUILTIN_GENERICS:
                    self.scope.declare(T.Var(it.name, ERR, it.span))
                raise
        if len(out) == 1:
            return out[0]
        return T.Block(s.span, out) if out else None

    def construct(self, t: Type, args, span) -> T.Expr:
        """`C x(args)`: the object `new C(args)` (7.1); also `File f(path, mode)` (14.7)."""
        if t == FILE_T:
            vals = [a.value for a in args]
            if not 1 <= len(vals) <= 2 or any(a.keyword or a.split for a in args):
                self.fail(span, "File takes a path and an optional mode: File f(path, \"r\")")
            path = self.coerce(self.expr(vals[0]), STR, vals[0].span, "argument 1 of File")
            mode = self.coerce(self.expr(vals[1]), STR, vals[1].span, "argument 2 of File") \
                if len(vals) > 1 else T.Const(STR, span, b"r")
            self.mark_raises()
            return T.Builtin(FILE_T, span, "file_open", [path, mode])
        if t == SB_T:
            return new_builder(self, args, span)
        if isinstance(t, ClassT) and t in self.classes_by_type:
            return self.new_object(t, args, span)
        if isinstance(t, ForeignT):
            return self.new_foreign(t, args, span)
        if t == ERR:
            raise _Abandon()
        self.fail(span, f"cannot construct a value of type {t} with arguments")

    def check_local_name(self, name: str, span: Span) -> None:
        if name in ("tid", "tN", "tHW"):
            self.error(span, f"cannot declare '{name}'", "it is predeclared (9.1)")
            raise _Abandon()
        if name in PREDECLARED and self.in_kernel():
            self.error(span, f"cannot declare '{name}' in kernel code", "it is predeclared (12.2)")
            raise _Abandon()
        if name in BUILTIN_GENERICS:
            self.error(span, f"'{name}' is a builtin (the generic function {name}<T>); "
                             "a local cannot take its name",
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
            if isinstance(s.targets[0], A.Name):
                value = self.expr(s.values[0], expected=self.peek_target_type(s.targets[0]))
                target = self.target(s.targets[0])
            else:       # a field or element: its type gives `[]`, `{}` and the like theirs
                target = self.target(s.targets[0])
                if isinstance(target, T.Builtin) and target.name == "cfield":
                    return self.cfield_store(s, target)
                value = self.expr(s.values[0], expected=target.type)
            return T.Assign(s.span, target, self.coerce(value, target.type, s.values[0].span))
        targets = [self.target(t) for t in s.targets]
        for t in targets:
            if isinstance(t, T.Builtin) and t.name == "cfield":
                return self.cfield_store(s, t)
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
                    owner = self.cur_class
                    self.error(t.span, f"unknown variable '{t.id}'",
                               f"did you mean 'self.{t.id}'?" if owner is not None and
                               t.id in owner.field_index else f"declare it first: var {t.id} = ...")
                raise _Abandon()
            if getattr(v, "captured", False):
                self.fail(t.span, f"cannot assign to captured variable '{t.id}' inside a thread",
                          "use a channel, a field or an array element to pass results out")
            return T.Local(v.type, t.span, v)
        if isinstance(t, A.MultiIndex):
            return self.ex_MultiIndex(t, None)
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
                if isinstance(ot, MapT):
                    return e
                base = e.obj
                while isinstance(base, T.IndexGet) and isinstance(base.obj.type, FixedT):
                    base = base.obj
                if isinstance(ot, FixedT) and isinstance(base, T.Local) and \
                        getattr(base.var, "captured", False):
                    self.fail(base.span, f"cannot assign to captured variable '{base.var.name}' "
                                      f"inside a thread", "a fixed array is copied into the thread")
                if isinstance(ot, FixedT) and not self.is_lvalue(e.obj):
                    self.error(t.span, "cannot assign to an element of a temporary fixed array")
                    raise _Abandon()
                return e
        if isinstance(t, (A.Attribute, A.GlobalRef)):
            e = self.expr(t)
            if isinstance(e, T.Builtin) and e.name == "field":
                return e
            if isinstance(e, T.Builtin) and e.name == "cfield":
                return e        # stmt_Assign stores it; other assignments refuse it
            if isinstance(e, T.Builtin) and e.name == "global":
                self.fail(t.span, "cannot assign to a global instance", "assign to its fields")
        if isinstance(t, A.Paren):
            return self.target(t.expr)
        self.error(t.span, "cannot assign to this expression",
                   "assign to a variable, a field or an element")
        raise _Abandon()

    def is_lvalue(self, e: T.Expr) -> bool:
        if isinstance(e, T.Local) or (isinstance(e, T.Builtin) and e.name == "field"):
            return True
        if isinstance(e, T.IndexGet):
            return isinstance(e.obj.type, (ArrayT, BufferT)) or (
                isinstance(e.obj.type, FixedT) and self.is_lvalue(e.obj))
        return False

    def compound_assign(self, s: A.Assign):
        if len(s.targets) != 1 or len(s.values) != 1:
            self.error(s.span, "compound assignment takes one target and one value")
            return None
        if s.op == "+" and isinstance(s.values[0], A.Binary) and s.values[0].op == "@" \
                and self.in_kernel():
            return self.gpu_operator_call(s)            # docs/phase2.md
        target = self.target(s.targets[0])
        if isinstance(target, T.Builtin) and target.name == "cfield":
            return self.cfield_store(s, target)          # refused there, with the form to use
        old = T.Placeholder(target.type, s.targets[0].span)
        rhs_ast = s.values[0]
        value = self.binary_typed(s.op, old, rhs_ast, s.span)
        if not self.convertible(value.type, target.type):
            hint = "use //= for integer division" if s.op == "/" and is_int(target.type) else None
            self.error(s.span, f"result of '{s.op}=' is {value.type}, which does not convert "
                               f"to {target.type}", hint)
            return None
        return T.Assign(s.span, target, self.coerce(value, target.type, s.span), compound=True)

    def stmt_Return(self, s: A.Return):
        fn = self.cur_func
        if getattr(fn, "is_thread", False):
            if s.values:
                self.fail(s.values[0].span, "a thread body cannot return a value",
                          "a bare return ends the thread")
            return T.Return(s.span, None)
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
        elif isinstance(t, MapT):
            et = t.key
            self.mark_raises()
        elif isinstance(t, ChannelT):
            et = t.elem
            self.mark_raises()
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
