"""Checking of names that lead somewhere else: function values and calls (6.3), classes, objects
and globals (7), member resolution (7.4), module members (8), operators (6.5)."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .call import call_site, call_user
from .expr import Abandon
from .symbols import ClassInfo, GenericFunc
from .strbuilder import new_builder
from ..builtins import SB_T
from ..types import ArrayT, ChannelT, ClassT, ForeignT, FuncT, MapT, Prim, Type, INT, ERR


class MemberChecker:
    # ------------------------------------------------------------ functions as values and calls
    def function_value(self, f, e) -> T.Expr:
        if isinstance(f, GenericFunc) and f.ast.cparams:
            self.fail(e.span, f"'{f.name}' has compile-time parameters: it is not a value")
        if isinstance(f, GenericFunc):
            if not e.targs:
                self.fail(e.span, f"generic function '{f.name}' is a value only with explicit "
                                  f"type arguments", f"write {f.name}<...>")
            f = self.instantiate_explicit(f, e.targs, e.span)
        return self.func_ref(f, e.span)

    def func_ref(self, f: T.FuncSym, span) -> T.Expr:
        if f.kind != "def":
            self.fail(span, f"{'kernel' if f.kind == 'kernel' else 'gpu function'} '{f.name}' "
                            f"is not a value")
        ft = FuncT(f.ret, tuple(p.type for p in f.params))
        if self.cur_func is not None:
            self.cur_func.calls.add(f)
        return T.Builtin(ft, span, "func_ref", [], f)

    def call_function(self, e: A.Call, fn, targs_ast, expected) -> T.Expr:
        if isinstance(fn, GenericFunc) and fn.ast.cparams:
            return call_user(self, e, self.cparam_instance(fn, e))
        if isinstance(fn, GenericFunc):
            if targs_ast:
                fn = self.instantiate_explicit(fn, targs_ast, call_site(e))
            else:
                fn = self.instantiate(fn, self.infer(fn, e), call_site(e))
        return call_user(self, e, fn)

    def call_value(self, e: A.Call, callee: T.Expr) -> T.Expr:
        ft = callee.type
        if not isinstance(ft, FuncT):
            self.fail(e.span, f"cannot call a value of type {ft}")
        if len(e.args) != len(ft.params):
            self.fail(e.span, f"this Function takes {len(ft.params)} arguments, got {len(e.args)}")
        args = []
        for i, (a, pt) in enumerate(zip(e.args, ft.params)):
            if a.keyword or a.split:
                self.fail(a.span, "calls through a Function value take positional arguments")
            args.append(self.coerce(self.expr(a.value, expected=pt), pt, a.value.span,
                                    f"argument {i + 1}"))
        self.mark_raises()
        return T.Builtin(ft.ret, call_site(e), "call_value", [callee] + args)

    # ------------------------------------------------------------ classes
    def lookup_class_name(self, name: str) -> ClassInfo | None:
        """A class named `name` here (directly, imported by `from`, or through an alias)."""
        ms = self.ms
        if name in ms.classes and not ms.classes[name].ast.tparams:
            return self.class_info(ms.classes[name], (), ms.classes[name].ast.span)
        if name in ms.from_names:
            dscope, dn = ms.from_names[name]
            if dn in dscope.classes and not dscope.classes[dn].ast.tparams:
                return self.class_info(dscope.classes[dn], (), dscope.classes[dn].ast.span)
            if dn in dscope.aliases:
                t = self.alias_type(dscope, dn)
                return self.classes_by_type.get(t)
        if name in ms.aliases:
            t = self.alias_type(ms, name)
            return self.classes_by_type.get(t)
        return None

    def lookup_alias(self, name: str) -> Type | None:
        """The type an alias visible here as `name` stands for."""
        ms = self.ms
        if name in ms.aliases:
            return self.alias_type(ms, name)
        if name in ms.from_names:
            dscope, dn = ms.from_names[name]
            if dn in dscope.aliases:
                return self.alias_type(dscope, dn)
        return None

    def info_of(self, t: Type) -> ClassInfo:
        info = self.classes_by_type[t]
        self.complete_class(info)
        return info

    def call_class_name(self, e: A.Call, info: ClassInfo, f) -> T.Expr:
        """`C(a)`: a checked conversion of an `any` to class C (3.3)."""
        if len(e.args) != 1 or e.args[0].keyword:
            self.fail(e.span, f"{info.type}(...) converts an any to {info.type}",
                      f"to create an object write new {info.type}(...)")
        x = self.expr(e.args[0].value)
        if not x.type.is_ref:          # a slip for `new C(...)`, not a conversion (13.1)
            self.fail(call_site(e), f"cannot convert {x.type} to {info.type}",
                      f"to create an object write new {info.type}(...)")
        return self.explicit_convert(x, info.type, call_site(e), e.args[0].value.span)

    def new_object(self, t: Type, args, span) -> T.Expr:
        info = self.info_of(t)
        self.check_instantiable(info, span)
        if info.ctor is None:
            if args:
                self.fail(span, f"class {t} has no ctor; it takes no arguments")
            init = info.init                 # 7.5: the base's ctor, without arguments
            if init is None:
                return T.Builtin(t, span, "new_object", [], (info, None))
            args = ()
        else:
            init = info.ctor
        call = A.Call(span, A.Name(span, "ctor"), tuple(args))
        inner = call_user(self, call, init, skip_self=True)
        self.mark_raises()
        if isinstance(inner, T.Seq):       # keyword arguments evaluated into temporaries first
            return T.Seq(t, span, inner.stmts,
                         T.Builtin(t, span, "new_object", inner.value.args, (info, init)))
        return T.Builtin(t, span, "new_object", inner.args, (info, init))

    def ex_New(self, e: A.New, expected):
        t = self.resolve_type(e.type)
        if isinstance(t, ArrayT):
            if e.args:
                self.fail(e.span, f"new {t}() takes no arguments")
            return T.Zero(t, e.span, fresh=True)
        if isinstance(t, MapT):
            if e.args:
                self.fail(e.span, f"new {t}() takes no arguments")
            return T.Zero(t, e.span, fresh=True)
        if isinstance(t, ChannelT):
            cap = self.channel_capacity(e.type)
            if cap is None:
                if len(e.args) != 1:
                    self.fail(e.span, f"new {t}(n) takes the capacity")
                cap = self.coerce_int(self.expr(e.args[0].value, expected=INT), e.args[0].span)
            elif e.args:
                self.fail(e.span, "the capacity is already given in the type")
            self.mark_raises()
            return T.Builtin(t, e.span, "chan.new", [cap])
        if isinstance(t, ClassT) and t in self.classes_by_type:
            return self.new_object(t, e.args, e.span)
        if isinstance(t, ForeignT):
            return self.new_foreign(t, e.args, e.span)
        if t == SB_T:
            return new_builder(self, e.args, e.span)
        self.fail(e.span, f"cannot create a {t} with new")

    def ex_SelfRef(self, e: A.SelfRef, expected):
        v = self.scope.lookup("self") if self.scope else None
        if v is None:
            self.fail(e.span, "'self' outside a method")
        return T.Local(v.type, e.span, v)

    def ex_GlobalRef(self, e: A.GlobalRef, expected):
        ms = self.ms
        scope = ms
        name = e.name
        if e.module is not None:
            scope = self.import_scope(e.module, e.span)
        t = None
        if name in scope.classes:
            decl = scope.classes[name]
            if decl.ast.tparams:
                self.fail(e.span, f"${name}: a generic class has no global instance")
            t = self.class_info(decl, (), e.span).type
        elif name in scope.aliases:
            t = self.alias_type(scope, name)
        elif e.module is None and name in ms.from_names:
            dscope, dn = ms.from_names[name]
            if dn in dscope.classes:
                t = self.class_info(dscope.classes[dn], (), e.span).type
            elif dn in dscope.aliases:
                t = self.alias_type(dscope, dn)
        if t is None or t not in self.classes_by_type:
            self.fail(e.span, f"unknown class '{name}' in ${name}")
        info = self.info_of(t)
        self.check_instantiable(info, e.span)
        # 7.3: globals are created in the order of their first mention in the source,
        # imported modules first; every mention is seen once the whole program is checked
        here = (self.modules.index(self.ms.mod), e.span.line, e.span.col)
        self.note_global(info, here, e.span, name)
        self.mark_raises()
        return T.Builtin(t, e.span, "global", [], info)

    def note_global(self, info: ClassInfo, here: tuple, span, name: str) -> None:
        """Record a mention of $C at `here` = (module index, line, col): the program creates
        its globals in the order of their first mentions (7.3)."""
        if info in self.global_spans:
            self.global_spans[info] = min(self.global_spans[info], here)
        if info not in self.globals:
            if not global_capable(info):
                self.fail(span, f"${name} needs a ctor callable without arguments")
            self.globals.append(info)
            self.global_spans[info] = here
            if info.maker is None:
                self.make_maker(info)

    def make_maker(self, info: ClassInfo) -> T.FuncSym:
        """The function creating the instance $C. It is located at the class (not at a
        mention), so it is the same whichever module mentions $C first."""
        span = info.decl.ast.span
        saved = self.ctx_swap(info.decl.scope, {}, None)
        try:
            maker = T.FuncSym(f"${info.type.name}", f"nvglobal.make.{info.decl.scope.key}."
                              f"{info.type.name}", [], info.type, span)
            maker.scope, maker.env = info.decl.scope, {}
            outer = self.cur_func
            self.cur_func = maker
            try:
                made = self.new_object(info.type, (), span)
            finally:
                self.cur_func = outer
        finally:
            self.ctx_restore(saved)
        maker.body = T.Block(span, [T.Return(span, made)])
        info.maker = maker
        self.extra_funcs.append(maker)
        return maker

    # ------------------------------------------------------------ members (7.4)
    def ex_Attribute(self, e: A.Attribute, expected):
        obj = e.obj
        if isinstance(obj, A.SuperRef):
            self.super_base(obj.span)
            self.fail(obj.span, f"super.{e.name} must be called: super.{e.name}(...)")
        if isinstance(obj, A.Name) and (self.scope is None or self.scope.lookup(obj.id) is None):
            if obj.id in self.ms.imports or obj.id in self.ms.ambiguous:
                return self.module_member(self.import_scope(obj.id, obj.span), e)
            info = self.lookup_class_name(obj.id) if not obj.targs else \
                self.classes_by_type.get(self.resolve_type(A.TypeName(obj.span, obj.id, obj.targs)))
            if info is not None:
                return self.method_value(self.info_of(info.type), e)
        x = self.expr(obj)
        t = x.type
        if isinstance(t, ForeignT):
            r = self.cfield(x, e.name, e.span)
            if r is not None:
                return r
        if isinstance(t, ClassT) and t in self.classes_by_type:
            info = self.info_of(t)
            if e.name in info.field_index:
                i = info.field_index[e.name]
                self.mark_raises()
                return T.Builtin(info.fields[i][1], e.span, "field", [x], (info, i))
            if e.name in info.methods:
                self.fail(e.span, f"method '{e.name}' must be called",
                          f"write x.{e.name}(...), or {t}.{e.name} for a function value")
        if t == ERR:                   # already reported (13.1: no cascades)
            raise Abandon()
        self.fail(e.span, f"no member '{e.name}' in {t}")

    def module_member(self, scope, e: A.Attribute) -> T.Expr:
        f = scope.functions.get(e.name)
        if f is not None:
            return self.function_value(f, A.Name(e.span, e.name, e.targs))
        c = self.constant_use(scope, e.name, e.span)
        if c is not None:
            return c
        self.fail(e.span, f"module '{e.obj.id}' has no member '{e.name}'")

    def method_value(self, info: ClassInfo, e: A.Attribute) -> T.Expr:
        m = info.methods.get(e.name)
        if m is None:
            self.fail(e.span, f"no method '{e.name}' in {info.type}")
        ref = self.func_ref(m, e.span)
        ref.extra = (m, info, info.slots.index(e.name))   # 7.5: dispatches on the receiver
        return ref

    def method_call(self, e: A.Call, f: A.Attribute, obj: T.Expr, expected):
        """`x.m(args)` for x of a class type: field holding a Function, or a method."""
        info = self.info_of(obj.type)
        if f.name in info.field_index:
            i = info.field_index[f.name]
            self.mark_raises()
            fv = T.Builtin(info.fields[i][1], f.span, "field", [obj], (info, i))
            return self.call_value(e, fv)
        m = info.methods.get(f.name)
        if m is None:
            return None
        call = call_user(self, e, m, receiver=obj)
        self.mark_raises()
        return self.virtual_call(call, info, f.name, obj)

    def named_method(self, e: A.Call, f: A.Attribute, obj: T.Expr):
        """Methods by naming (7.2): `x.m(args)` is `T_m(x, args)`."""
        t = obj.type
        if not isinstance(t, (Prim, ClassT)):
            return None
        found = []
        for level in self.base_chain(t):     # 7.5: an exact match, else the nearest base's
            found = self.named_methods_of(level, f.name)
            if found:
                break
        if len(found) > 1:
            self.fail(f.span, f"two functions give {t} the method '{f.name}': "
                              f"{found[0].name} and {found[1].name}")
        fn = found[0] if found else None
        if fn is None:
            return None
        return call_user(self, e, fn, receiver=obj)

    def named_methods_of(self, t: Type, m: str) -> list:
        names = [f"{t.name}_{m}"] + [f"{a}_{m}" for a in self.aliases_of(t)]
        found = []                    # 8: visible from this module and everything it imports
        for scope in self.ms.visible + ([self.ms.std] if self.ms.std else []):
            for n in names:
                g = scope.functions.get(n)
                if isinstance(g, T.FuncSym) and g.params and g.params[0].type == t \
                        and g not in found:
                    found.append(g)
        return found

    def aliases_of(self, t: Type) -> list[str]:
        out = []
        for scope in self.ms.visible:
            for n in scope.aliases:
                try:
                    if self.alias_type(scope, n) == t:
                        out.append(n)
                except Abandon:
                    pass
        return out

    # ------------------------------------------------------------ user operators (6.5)
    def user_operator(self, op: str, args: list[T.Expr], span) -> T.Expr | None:
        """The visible definition of `op` for these operand types: exact match first, then
        implicit widening; two candidates are an error."""
        cands = []
        for scope in self.ms.visible:
            for o, f in scope.operators:
                if o != op:
                    continue
                if isinstance(f, GenericFunc):
                    f = self.instantiate_operator(f, args, span)
                if f is not None and len(f.params) == len(args):
                    cands.append(f)
        exact = [f for f in cands if all(p.type == a.type for p, a in zip(f.params, args))]
        pick = exact or [f for f in cands
                         if all(self.convertible(a.type, p.type) for p, a in zip(f.params, args))]
        if not pick:
            return None
        if len(pick) > 1:             # 7.5: the definition for the nearest bases
            dist = {id(f): sum(self.base_distance(a.type, p.type) for p, a in zip(f.params, args))
                    for f in pick}
            best = min(dist.values())
            pick = [f for f in pick if dist[id(f)] == best]
        if len(pick) > 1:
            self.fail(span, f"two definitions of operator '{op}' match "
                            f"{', '.join(str(a.type) for a in args)}")
        f = pick[0]
        if self.cur_func is not None:
            self.cur_func.calls.add(f)
        cargs = [self.coerce(a, p.type, a.span) for a, p in zip(args, f.params)]
        return T.CallFn(f.ret, span, f, cargs)


def global_capable(info: ClassInfo) -> bool:
    """Whether $C can exist: C's ctor is callable without arguments (7.3)."""
    return info.init is None or all(p.default is not None for p in info.init.ast.params)
