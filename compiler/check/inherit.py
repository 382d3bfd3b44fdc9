"""Inheritance (LANGUAGE.md 7.5): base classes, inherited fields and method slots, overrides,
abstract classes, `super`, and the subclass relation behind upcasts, casts and `isa`."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .call import call_user
from .symbols import ClassInfo
from ..types import BOOL, ClassT, ERR, ForeignT, Type


class InheritChecker:
    # ------------------------------------------------------------ the class hierarchy
    def inherit_base(self, info: ClassInfo) -> None:
        """Resolve `class B(A)`'s base A, complete it, and start B with A's fields and slots."""
        cd = info.decl.ast
        if cd.base is None:
            return
        te = cd.base
        if not self.check_base_form(cd, report=False):
            return
        saved = self.ctx_swap(info.decl.scope, info.env, info)
        try:
            bt = self.resolve_or_error(te)
        finally:
            self.ctx_restore(saved)
        if isinstance(bt, ForeignT) or not isinstance(bt, ClassT) or bt not in self.classes_by_type:
            if bt != ERR:
                self.error(te.span, f"class {cd.name} cannot extend {bt}",
                           "a base is a Neve class of this or an imported module")
            return
        base = self.classes_by_type[bt]
        if base in self.class_stack:
            chain = self.class_stack[self.class_stack.index(base):] + [base]
            self.error(chain[0].decl.ast.span, "class inheritance cycle: " +
                       " -> ".join(c.decl.name for c in chain))
            return
        self.complete_class(base)
        info.base = base
        info.fields = list(base.fields)
        info.field_index = dict(base.field_index)
        info.field_caps = dict(base.field_caps)
        info.methods = dict(base.methods)
        info.slots = list(base.slots)

    def base_defining(self, info: ClassInfo, name: str, fields: bool) -> ClassInfo | None:
        """The nearest base of `info` with a field (or method) `name`, or None."""
        c = info.base
        while c is not None:
            names = [f for f, _ in c.fields] if fields else c.methods
            if name in names:
                top = c
                while top.base is not None and name in (
                        [f for f, _ in top.base.fields] if fields else top.base.methods):
                    top = top.base
                return top
            c = c.base
        return None

    def check_base_form(self, cd: A.ClassDef, report: bool = True) -> bool:
        """A type parameter is no base (checked once per class, generic or not)."""
        te = cd.base
        if isinstance(te, A.TypeName) and te.module is None and te.name in cd.tparams:
            if report:
                self.error(te.span, f"class {cd.name} cannot extend its type parameter "
                                    f"'{te.name}'", "a base is a class: class B(A), or class "
                                                    "B<T>(Box<T>)")
            return False
        return True

    def field_clashes_base(self, info: ClassInfo, name: str, span) -> bool:
        if info.base is None:
            return False
        b = self.base_defining(info, name, fields=True)
        if b is not None:
            self.error(span, f"field '{name}' is already a field of base class {b.type}",
                       "a subclass adds fields; it cannot redeclare one")
            return True
        b = self.base_defining(info, name, fields=False)
        if b is not None:
            self.error(span, f"field '{name}' has the name of a method of base class {b.type}")
            return True
        return False

    def method_clashes_base(self, info: ClassInfo, m: A.FuncDef) -> bool:
        if info.base is None or m.name not in info.base.field_index:
            return False
        b = self.base_defining(info, m.name, fields=True)
        self.error(m.span, f"method '{m.name}' has the name of a field of base class {b.type}")
        return True

    def add_method(self, info: ClassInfo, name: str, sym: T.FuncSym) -> None:
        """Declare a method of `info`: a new slot, or an override checked against the base."""
        old = info.methods.get(name)
        if old is not None and name not in info.own_methods:
            self.check_override(info, sym, old)
        else:
            info.slots.append(name)
        info.methods[name] = sym
        info.own_methods.add(name)

    def check_override(self, info: ClassInfo, new: T.FuncSym, old: T.FuncSym) -> None:
        name = new.ast.name
        base = old.owner.type
        np, op = [p.type for p in new.params[1:]], [p.type for p in old.params[1:]]
        if np != op:
            self.error(new.span, f"method '{name}' overrides {base}.{name} with other parameter "
                                 f"types: ({', '.join(map(str, np))}) instead of "
                                 f"({', '.join(map(str, op))})",
                       "an override repeats the parameter types exactly")
        elif not (new.ret == old.ret or self.is_subclass(new.ret, old.ret)):
            self.error(new.span, f"method '{name}' overrides {base}.{name} with result type "
                                 f"{new.ret} instead of {old.ret}",
                       "an override returns the same type, or a subclass of a class result")

    def finish_class(self, info: ClassInfo) -> None:
        """The first abstract method (bases' slots first) makes the class abstract; a class
        without a ctor runs its base's without arguments, which must be possible."""
        info.abstract = next((n for n in info.slots if info.methods[n].ast.abstract), None)
        cd = info.decl.ast
        if cd.ctor is None and info.base is not None and not no_arg_ctor(info.base.init):
            self.error(cd.span, f"class {info.type} needs a ctor calling super(...): the ctor of "
                                f"base class {info.base.type} needs arguments")

    def is_subclass(self, src: Type, dst: Type) -> bool:
        """src is dst or a class derived from it (7.5)."""
        if not (isinstance(src, ClassT) and isinstance(dst, ClassT)) or \
                src not in self.classes_by_type or dst not in self.classes_by_type:
            return False
        return self.info_of(src).extends(self.info_of(dst))

    def common_base(self, a: Type, b: Type) -> Type | None:
        """The nearest class both a and b convert to (a literal's element type), or None."""
        if not (isinstance(a, ClassT) and isinstance(b, ClassT)) or \
                a not in self.classes_by_type or b not in self.classes_by_type:
            return None
        c = self.info_of(a)
        while c is not None:
            if self.info_of(b).extends(c):
                return c.type
            c = c.base
        return None

    def base_chain(self, t: Type) -> list[Type]:
        """t, then its bases nearest first (t alone when it is not a class)."""
        out = [t]
        if isinstance(t, ClassT) and t in self.classes_by_type:
            c = self.info_of(t).base
            while c is not None:
                out.append(c.type)
                c = c.base
        return out

    def base_distance(self, src: Type, dst: Type) -> int:
        """Steps from class src up to dst (0: the same type; other conversions count 1000)."""
        chain = self.base_chain(src)
        return chain.index(dst) if dst in chain else 1000

    def check_instantiable(self, info: ClassInfo, span) -> None:
        if info.abstract is not None:
            self.fail(span, f"cannot instantiate abstract class {info.type}: "
                            f"{info.abstract}() is abstract")

    # ------------------------------------------------------------ super (7.5)
    def super_base(self, span) -> ClassInfo:
        cls = self.cur_class
        f = self.cur_func
        if cls is None or f is None or f.owner is not cls:
            self.fail(span, "'super' outside a method or ctor of a class")
        if cls.base is None:
            self.fail(span, f"'super' in class {cls.type}, which has no base class")
        return cls.base

    def self_local(self, span) -> T.Expr:
        return T.Local(self.cur_class.type, span, self.scope.lookup("self"))

    def super_ctor_call(self, e: A.Call) -> T.Expr:
        """`super(args)`: only as the first statement of a ctor."""
        base = self.super_base(e.func.span)
        if not isinstance(self.cur_func.ast, A.CtorDef):
            self.fail(e.func.span, "super(...) calls the base's ctor: only in a ctor",
                      "in a method, super.m(...) calls the base's method")
        if e is not getattr(self, "super_first", None):
            self.fail(e.func.span, "super(...) must be the ctor's first statement")
        self.super_called = True
        init = base.init
        if init is None:
            if e.args:
                self.fail(e.span, f"base class {base.type} has no ctor; super() takes no arguments")
            return T.Const(BOOL, e.span, False)      # nothing to run
        call = call_user(self, A.Call(e.span, A.Attribute(e.func.span, e.func, "super"), e.args), init,
                         receiver=self.self_local(e.span))
        self.mark_raises()
        return call

    def implicit_super(self, sym: T.FuncSym) -> T.Stmt | None:
        """The base ctor a ctor without `super(...)` runs first (no arguments), or None."""
        base = sym.owner.base
        init = base.init if base is not None else None
        if init is None:
            return None
        if not no_arg_ctor(init):
            self.error(sym.span, f"this ctor must start with super(...): the ctor of base class "
                                 f"{base.type} needs arguments")
            return None
        call = call_user(self, A.Call(sym.span, A.Attribute(sym.span, A.SuperRef(sym.span), "super"), ()), init,
                         receiver=self.self_local(sym.span))
        self.mark_raises()
        return T.ExprStmt(sym.span, call)

    def super_method_call(self, e: A.Call, f: A.Attribute) -> T.Expr:
        """`super.m(args)`: the base's implementation, called directly."""
        base = self.super_base(f.obj.span)
        m = base.methods.get(f.name)
        if m is None:
            self.fail(f.span, f"no method '{f.name}' in base class {base.type}")
        if m.ast.abstract:
            self.fail(f.span, f"super.{f.name}() is abstract in {m.owner.type}")
        call = call_user(self, e, m, receiver=self.self_local(f.obj.span))
        self.mark_raises()
        return call

    def ex_SuperRef(self, e: A.SuperRef, expected):
        self.super_base(e.span)
        self.fail(e.span, "'super' is used as super(...) in a ctor or super.m(...) in a method")

    def virtual_call(self, call: T.Expr, info: ClassInfo, name: str, obj: T.Expr) -> T.Expr:
        """Mark the method call `call` (x.m(...) on static class `info`) as dispatched through
        the vtable; lowering calls directly when it can know the target (7.5)."""
        inner = call.value if isinstance(call, T.Seq) else call
        if isinstance(inner, T.CallFn):
            inner.virtual = info.slots.index(name)
            inner.static_class = info
            inner.recv_check = (name, str(obj.type))   # a call on nil names the static type
        return call


def no_arg_ctor(ctor: T.FuncSym | None) -> bool:
    return ctor is None or all(p.default is not None for p in ctor.ast.params)

