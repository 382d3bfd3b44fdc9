"""Compile-time parameters of kernels and gpu functions (docs/phase2.md): `<int BM>` declared after
the parameters, given after the arguments (`f(x)<128>`), one instance per distinct value list."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .call import call_site, call_user
from .layouts import const_value
from .symbols import CInt, GenericFunc
from ..types import INT, MAX_INSTANTIATION_DEPTH, is_int

NOT_CONSTANT = "compile-time parameters take constant integers"


def has_cparams(fn) -> bool:
    """Whether fn declares compile-time parameters (`<int BM, ...>`, docs/phase2.md)."""
    return isinstance(fn, GenericFunc) and bool(fn.ast.cparams)


class CParamChecker:
    """Checker mixin: compile-time parameter lists at calls and launches (one instance each)."""
    def cparam_const(self, name: str, span) -> T.Expr | None:
        """`BM` inside an instance: its value (the environment holds CInt for it)."""
        c = self.env.get(name)
        return T.Const(INT, span, c.value) if isinstance(c, CInt) else None

    def cparam_values(self, e: A.Call) -> tuple[int, ...]:
        out = []
        for c in e.cargs:
            x = self.expr(c, expected=INT)
            v = const_value(x) if is_int(x.type) else None
            if v is None:
                self.fail(c.span, NOT_CONSTANT)
            out.append(v)
        return tuple(out)

    def cparam_instance(self, g: GenericFunc, e: A.Call) -> T.FuncSym:
        """The instance of `g` that the compile-time list of call (or launch) `e` names."""
        names = [p.name for p in g.ast.cparams]
        what = "kernel" if g.ast.kind == "kernel" else "gpu function"
        if not e.cargs:
            self.fail(call_site(e), f"{what} '{g.name}' has compile-time parameters: give them "
                                    f"after the arguments", f"{g.name}(...)<{', '.join(names)}>")
        if len(e.cargs) != len(names):
            n = len(names)
            self.fail(e.cargs[0].span, f"'{g.name}' takes {n} compile-time parameter"
                                       f"{'s' if n != 1 else ''}, got {len(e.cargs)}",
                      f"{g.name}(...)<{', '.join(names)}>")
        values = self.cparam_values(e)
        if values in g.instances:
            return g.instances[values]
        depth = self.inst_depth + 1
        if depth > MAX_INSTANTIATION_DEPTH:
            self.fail(call_site(e), "compile-time instantiation too deep")
        env = {p.name: CInt(v) for p, v in zip(g.ast.cparams, values)}
        sym = self.declare_function(g.scope, g.ast, env)
        sym.name = f"{g.name}<{', '.join(map(str, values))}>"
        sym.inst_site = (call_site(e), sym.name, depth)
        g.instances[values] = sym
        return sym

    def cparam_call(self, e: A.Call) -> T.Expr:
        """`f(x)<128>`: a gpu function with compile-time parameters, here or in a module."""
        f, fn, name = e.func, None, None
        if isinstance(f, A.Name) and (self.scope is None or self.scope.lookup(f.id) is None):
            name, fn = f.id, self.lookup_func(f.id)
        elif isinstance(f, A.Attribute) and isinstance(f.obj, A.Name) and f.obj.id in self.ms.imports:
            name = f.name
            fn = self.import_scope(f.obj.id, f.obj.span).functions.get(name)
        if not has_cparams(fn):
            self.no_cparams(e, name)
        return call_user(self, e, self.cparam_instance(fn, e))

    def no_cparams(self, e: A.Call, name: str | None) -> None:
        who = f"'{name}'" if name else "this call"
        self.fail(e.cargs[0].span, f"{who} has no compile-time parameters",
                  "compile-time parameters are declared after a kernel's or gpu function's "
                  "parameters: <int N>")

    def check_cparam_decl(self, fd: A.FuncDef) -> None:
        names = {p.name for p in fd.params}
        seen: set[str] = set()
        for p in fd.cparams:
            if p.name in names or p.name in seen:
                self.error(p.span, f"duplicate parameter '{p.name}'")
            seen.add(p.name)
