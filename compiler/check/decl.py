"""Declarations: module scopes, type names (aliases, classes, generics), class layouts,
function signatures, and the instances of generic classes (7.1; generic functions: generics.py)."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .expr import Abandon, builtin_meaning, builtin_operand
from .suggest import similar
from ..foreign_names import foreign_type_names, is_initializer, proto_neve_name
from .symbols import ClassDecl, ClassInfo, GenericFunc, ModScope
from ..types import (ClassT, ForeignT, Prim, Type, PRIMS, VOID, MAX_INSTANTIATION_DEPTH, type_depth)

BUILTIN_CLASSES = ("File", "StrBuilder", "gpu_stream")


class DeclChecker:
    # ------------------------------------------------------------ module scopes
    def build_scopes(self, modules) -> list[ModScope]:
        scopes = {m: ModScope(m) for m in modules}
        for m, ms in scopes.items():
            for item in m.ast.items:
                self.collect(ms, item)
            for name, span in foreign_type_names(m.ast).items():   # 11.2: opaque C types
                if name in ms.functions:
                    self.error(span, f"'{name}' is already defined in this module",
                               "a foreign type and a function cannot share a name")
                ms.foreign[name] = ForeignT(ms.key, name)
        std = next((ms for m, ms in scopes.items() if m is self.std_module), None)
        for m, ms in scopes.items():
            for name, dep in m.imports.items():
                if dep is not None:
                    ms.imports[name] = scopes[dep]
            if std is not None and ms is not std:
                ms.std = std                    # 8: visible in every module, also as std.NAME
                ms.imports.setdefault("std", std)
            ms.ambiguous = set(m.ambiguous)
            for item, dep in m.from_imports:
                dscope = scopes[dep]
                for n, sp in item.names:
                    if not (n in dscope.functions or n in dscope.classes or n in dscope.aliases
                            or n in dscope.foreign or n in dscope.constants):
                        self.error(sp, f"module '{'/'.join(item.path)}' has no member '{n}'")
                        continue
                    if n in ms.functions or n in ms.classes or n in ms.aliases:
                        self.error(sp, f"'{n}' is both defined here and imported")
                        continue
                    if n in ms.from_names and ms.from_names[n][0] is not dscope:
                        self.error(sp, f"'{n}' is imported from two modules")
                        continue
                    ms.from_names[n] = (dscope, n)
        for ms in scopes.values():
            seen, order, stack = set(), [], [ms]
            while stack:
                s = stack.pop()
                if s in seen:
                    continue
                seen.add(s)
                order.append(s)
                stack.extend(scopes[d] for d in s.mod.deps if d in scopes)
            ms.visible = order
        self.scope_of_key = {ms.key: ms for ms in scopes.values()}   # foreign types' modules
        return list(scopes.values())

    def collect(self, ms: ModScope, item) -> None:
        def taken(name: str, span) -> bool:
            if name in ms.functions or name in ms.classes or name in ms.aliases \
                    or name in ms.constants:
                self.error(span, f"'{name}' is already defined in this module",
                           "top-level names are unique in their module")
                return True
            return False

        if isinstance(item, A.FuncDef):
            if item.is_operator and item.kind == "gpu":
                if any(op == item.name for op, _ in ms.gpu_operators):
                    self.error(item.span, f"gpu operator '{item.name}' is already defined in "
                                          f"this module", "a gpu operator has one definition "
                                          "per symbol: its parameters' types are not overloads")
                    return
                ms.gpu_operators.append((item.name, item))       # docs/phase2.md
                return
            if item.is_operator:
                ms.operators.append((item.name, self.declare_operator(ms, item)))
                return
            if taken(item.name, item.span):
                return
            if item.name in PRIMS:
                self.error(item.span, f"cannot define a function named '{item.name}'")
                return
            ms.functions[item.name] = GenericFunc(item, ms) if item.tparams or item.cparams else None
            if item.cparams:
                self.check_cparam_decl(item)
            elif not item.tparams:
                ms.functions[item.name] = PendingFunc(item)
        elif isinstance(item, A.ClassDef):
            if not taken(item.name, item.span):
                ms.classes[item.name] = ClassDecl(item, ms)
                self.check_base_form(item)
        elif isinstance(item, A.TypeAlias):
            if not taken(item.name, item.span):
                ms.aliases[item.name] = item
        elif isinstance(item, A.MainDef):
            if ms.main is not None:
                self.error(item.span, "more than one main", "a program has exactly one main block")
            else:
                ms.main = item
        elif isinstance(item, A.ProtoConst):
            if not taken(item.name, item.span):
                ms.constants[item.name] = item
        elif isinstance(item, A.Proto):
            if is_initializer(item):
                if ms.foreign_init is not None:
                    self.error(item.span, f"more than one {item.name} in this module")
                ms.foreign_init = PendingProto(item)
                return
            name = proto_neve_name(item.name)
            if not taken(name, item.span):
                ms.functions[name] = PendingProto(item)

    def declare_operator(self, ms: ModScope, fd: A.FuncDef):
        if fd.tparams:
            return GenericFunc(fd, ms)
        return PendingFunc(fd)

    def declare_pending(self, scopes: list[ModScope]) -> None:
        """Turn every non-generic function's AST into a FuncSym with a resolved signature."""
        for ms in scopes:
            self.declare_cstructs(ms)
        for ms in scopes:
            for name, f in list(ms.functions.items()):
                if isinstance(f, PendingFunc):
                    ms.functions[name] = self.declare_function(ms, f.ast, {})
                elif isinstance(f, PendingProto):
                    ms.functions[name] = self.declare_proto(ms, f.ast)
            if isinstance(ms.foreign_init, PendingProto):
                ms.foreign_init = self.declare_proto(ms, ms.foreign_init.ast)
            self.bind_protos(ms)
            ops = []
            for op, f in ms.operators:
                if isinstance(f, PendingFunc):
                    f = self.declare_function(ms, f.ast, {})
                    self.check_operator(op, f)
                ops.append((op, f))
            ms.operators = ops
            ms.gpu_operators = [(op, self.declare_gpu_operator(ms, fd) if isinstance(fd, A.FuncDef)
                                 else fd) for op, fd in ms.gpu_operators]

    def check_operator(self, op: str, f: T.FuncSym) -> None:
        """6.5: definable only for operand types without a built-in meaning of the operator."""
        n = len(f.params)
        if n != (1 if op == "-" and n == 1 else 2):
            self.error(f.span, f"operator '{op}' takes two parameters" +
                       (" (or one, for unary minus)" if op == "-" else ""))
            return
        types = [p.type for p in f.params]
        if all(builtin_operand(t) for t in types) and builtin_meaning(op, types):
            self.error(f.span, f"operator '{op}' is built in for "
                               f"{' and '.join(map(str, types))}; it cannot be redefined",
                       "define operators for your own classes")

    def declare_function(self, ms: ModScope, fd: A.FuncDef, env: dict, owner: ClassInfo | None = None,
                         symbol: str | None = None) -> T.FuncSym:
        saved = self.ctx_swap(ms, env, owner)
        try:
            params = []
            if owner is not None:
                params.append(T.Var("self", owner.type, fd.span, is_param=True))
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
            ret = self.resolve_or_error(fd.ret, allow_void=True) if isinstance(fd, A.FuncDef) else VOID
        finally:
            self.ctx_restore(saved)
        name = fd.name if isinstance(fd, A.FuncDef) else "ctor"
        shown = f"{owner.type}.{name}" if owner is not None else name
        if symbol is None:
            symbol = mangle(ms.key, shown, env)
            if isinstance(fd, A.FuncDef) and fd.is_operator:   # operators overload by type
                symbol += "(" + ",".join(str(p.type) for p in params) + ")"
        sym = T.FuncSym(shown, symbol, params, ret, fd.span,
                        defaults=([None] if owner else []) + [p.default for p in fd.params])
        sym.ast = fd
        sym.scope = ms
        sym.env = env
        sym.owner = owner
        if isinstance(fd, A.FuncDef) and fd.kind != "def":
            sym.kind = fd.kind
            self.check_kernel_signature(sym)
        self.queue.append(sym)
        return sym

    # ------------------------------------------------------------ context
    def ctx_swap(self, ms, env, owner):
        saved = (self.ms, self.env, self.cur_class)
        self.ms, self.env, self.cur_class = ms, env, owner
        return saved

    def ctx_restore(self, saved) -> None:
        self.ms, self.env, self.cur_class = saved

    # ------------------------------------------------------------ type names
    def resolve_named(self, te: A.TypeName) -> Type:
        """Class, alias, type parameter or qualified name (`mod.T`)."""
        n = te.name
        if te.module is None and n in self.env and not te.args:
            if not isinstance(self.env[n], Type):
                self.fail(te.span, f"'{n}' is a compile-time parameter (an int), not a type")
            return self.env[n]
        ms = self.ms
        if te.module is not None:
            target = self.import_scope(te.module, te.span)
            return self.type_in_scope(target, n, te, qualified=True)
        if n in ms.classes or n in ms.aliases or n in ms.foreign:
            return self.type_in_scope(ms, n, te)
        if n in ms.from_names:
            dscope, dn = ms.from_names[n]
            return self.type_in_scope(dscope, dn, te)
        if n in BUILTIN_CLASSES and not te.args:
            return ClassT("std", n)
        cands = list(PRIMS) + ["array", "map", "tuple", "channel", "Function"] + \
            list(ms.classes) + list(ms.aliases) + list(self.env)
        s = similar(n, cands)
        self.fail(te.span, f"unknown type '{n}'", f"did you mean '{s}'?" if s else None)

    def import_scope(self, name: str, span) -> ModScope:
        ms = self.ms
        if name in ms.ambiguous:
            self.fail(span, f"'{name}' is ambiguous: two imports bind it",
                      "bind one of them under another name with `as`")
        if name not in ms.imports:
            self.fail(span, f"unknown module '{name}'")
        return ms.imports[name]

    def type_in_scope(self, scope: ModScope, n: str, te: A.TypeName, qualified=False) -> Type:
        if n in scope.aliases:
            if te.args:
                self.fail(te.span, f"type alias '{n}' takes no type arguments")
            return self.alias_type(scope, n)
        if n in scope.classes:
            decl = scope.classes[n]
            targs = tuple(self.resolve_type(a) for a in te.args)
            if len(targs) != len(decl.ast.tparams):
                if not decl.ast.tparams:
                    self.fail(te.span, f"class '{n}' takes no type arguments")
                self.fail(te.span, f"class '{n}' takes {len(decl.ast.tparams)} type argument"
                                   f"{'s' if len(decl.ast.tparams) != 1 else ''}, got {len(targs)}",
                          f"write {n}<{', '.join(decl.ast.tparams)}>")
            return self.class_info(decl, targs, te.span).type
        if n in scope.foreign:
            if te.args:
                self.fail(te.span, f"foreign type '{n}' takes no type arguments")
            return scope.foreign[n]
        self.fail(te.span, f"unknown type '{n}'" if not qualified else
                  f"module has no type '{n}'")

    def alias_type(self, scope: ModScope, n: str) -> Type:
        """The type an alias stands for (3.5), resolved once; cycles are errors."""
        if n in scope.alias_cache:
            return scope.alias_cache[n]
        key = (scope, n)
        if key in self.alias_stack:
            names = [x[1] for x in self.alias_stack[self.alias_stack.index(key):]] + [n]
            self.fail(scope.aliases[names[0]].span, "type alias cycle: " + " -> ".join(names))
        te = scope.aliases[n].type
        self.alias_stack.append(key)
        saved = self.ctx_swap(scope, {}, None)
        try:
            if isinstance(te, A.TypeName) and te.module is None and not te.args and \
                    te.name in scope.classes and scope.classes[te.name].ast.tparams:
                self.fail(te.span, f"type alias of generic class '{te.name}' needs type arguments")
            t = self.resolve_type(te)
        finally:
            self.alias_stack.pop()
            self.ctx_restore(saved)
        scope.alias_cache[n] = t
        return t

    # ------------------------------------------------------------ classes
    def class_info(self, decl: ClassDecl, targs: tuple, span) -> ClassInfo:
        if targs in decl.instances:
            return decl.instances[targs]
        ct = ClassT(decl.scope.key, decl.name, targs)
        if type_depth(ct) > MAX_INSTANTIATION_DEPTH:   # Layer<T> using Layer<Layer<T>> (6.4)
            self.fail(span, "generic instantiation too deep")
        env = dict(zip(decl.ast.tparams, targs))
        info = ClassInfo(decl, ct, env)
        decl.instances[targs] = info
        self.classes_by_type[ct] = info
        self.pending_classes.append(info)
        return info

    def complete_class(self, info: ClassInfo) -> None:
        """Resolve fields and declare the ctor and methods of one concrete class (a base
        first: its fields and method slots come first, 7.5)."""
        if info.ready:
            return
        info.ready = True
        cd = info.decl.ast
        ms = info.decl.scope
        self.class_stack.append(info)
        try:
            self.inherit_base(info)
        finally:
            self.class_stack.pop()
        saved = self.ctx_swap(ms, info.env, info)
        try:
            for fdecl in cd.fields:
                ft = self.resolve_or_error(fdecl.type)
                try:
                    cap = self.channel_capacity(fdecl.type)
                except Abandon:
                    cap = None
                for name, _ in fdecl.names:
                    if cap is not None:
                        info.field_caps[name] = cap.value
                for name, sp in fdecl.names:
                    if self.field_clashes_base(info, name, sp):
                        continue
                    if name in info.field_index:
                        self.error(sp, f"duplicate field '{name}' in class {info.type}")
                        continue
                    info.field_index[name] = len(info.fields)
                    info.fields.append((name, ft))
        finally:
            self.ctx_restore(saved)
        key = mangle(ms.key, str(info.type), {})
        for m in cd.methods:
            if self.method_clashes_base(info, m):
                continue
            if m.name in info.field_index:
                self.error(m.span, f"class {info.type} has a field and a method named '{m.name}'")
                continue
            if m.name in info.own_methods:
                self.error(m.span, f"method '{m.name}' is already defined in class {info.type}")
                continue
            sym = self.declare_function(ms, m, info.env, info, symbol=f"{key}.{m.name}")
            self.add_method(info, m.name, sym)
        if cd.ctor is not None:
            info.ctor = self.declare_function(ms, cd.ctor, info.env, info, symbol=f"{key}.ctor")
        self.finish_class(info)
        ts = info.methods.get("to_str")
        if ts is not None and ts.ret == Prim("str") and len(ts.params) == 1:
            info.to_str = ts
        elif ts is not None:        # else printing would silently ignore it
            self.error(ts.span, f"to_str of class {info.decl.name} must be 'def str to_str()' "
                                "to give its text (10.1)")


class PendingFunc:
    """A non-generic function seen by collect() before signatures can be resolved."""

    def __init__(self, ast: A.FuncDef) -> None:
        self.ast = ast


class PendingProto:
    """A `proto` seen by collect(); declared with the functions (foreign.declare_proto)."""

    def __init__(self, ast: A.Proto) -> None:
        self.ast = ast


def mangle(module_key: str, name: str, env: dict) -> str:
    """Object-file symbol of a Neve function (unique per module, name and type arguments)."""
    s = f"nv.{module_key}.{name}"
    if env:
        s += "<" + ",".join(str(t) for t in env.values()) + ">"
    return s
