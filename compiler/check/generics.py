"""Generics (6.4, 7.1): type arguments given or inferred from the arguments, and the
monomorphised instances of generic functions and operators."""
from __future__ import annotations

from .. import ast as A
from .. import tir as T
from .call import bind_args
from .expr import Abandon
from .symbols import GenericFunc
from ..types import (ArrayT, BufferT, ChannelT, ClassT, FixedT, FuncT, MapT, TupleT, Type, NIL, VOID, ERR,
                     MAX_INSTANTIATION_DEPTH)


class GenericChecker:
    """The Checker's part for generic functions: instances are declared here, checked later."""

    def instantiate(self, g: GenericFunc, targs: tuple, span) -> T.FuncSym:
        if targs in g.instances:
            return g.instances[targs]
        depth = self.inst_depth + 1
        if depth > MAX_INSTANTIATION_DEPTH:
            self.fail(span, "generic instantiation too deep")
        env = dict(zip(g.ast.tparams, targs))
        sym = self.declare_function(g.scope, g.ast, env)
        sym.name = f"{g.name}<{', '.join(map(str, targs))}>"
        sym.inst_site = (span, sym.name, depth)
        g.instances[targs] = sym
        return sym

    def instantiate_explicit(self, g: GenericFunc, targs_ast, span) -> T.FuncSym:
        targs = tuple(self.resolve_type(t) for t in targs_ast)
        if len(targs) != len(g.ast.tparams):
            self.fail(span, f"'{g.name}' takes {len(g.ast.tparams)} type arguments, got {len(targs)}")
        return self.instantiate(g, targs, span)

    def infer(self, g: GenericFunc, e: A.Call) -> tuple:
        """Type arguments from the first argument whose parameter type mentions each (6.4)."""
        names = [p.name for p in g.ast.params]
        bound = bind_args(self, e, names, g.name)
        tps = g.ast.tparams
        env: dict[str, Type] = {}
        for p, a in zip(g.ast.params, bound):
            if a is None or not mentions(p.type, tps, env):
                continue
            at = self.expr(a).type
            self.unify(p.type, at, tps, env, a.span, g.name)
        missing = [t for t in tps if t not in env]
        if missing:
            self.fail(e.span, f"cannot infer type parameter '{missing[0]}' of {g.name}",
                      f"give it explicitly: {g.name}<{', '.join(tps)}>(...)")
        return tuple(env[t] for t in tps)

    def unify(self, te, t: Type, tps, env, span, fname) -> None:
        if isinstance(te, A.TypeName):
            if te.name in tps and te.module is None and not te.args:
                if t in (NIL, VOID, ERR):
                    self.fail(span, f"cannot infer type parameter '{te.name}' of {fname} from {t}")
                if te.name in env and env[te.name] != t:
                    self.fail(span, f"conflicting types for '{te.name}' in {fname}: "
                                    f"{env[te.name]} and {t}")
                env.setdefault(te.name, t)
                return
            pairs = []
            if te.name == "array" and isinstance(t, ArrayT):
                pairs = [(te.args[0], t.elem)]
            elif te.name == "map" and isinstance(t, MapT):
                pairs = [(te.args[0], t.key), (te.args[1], t.val)]
            elif te.name == "tuple" and isinstance(t, TupleT) and len(te.args) == len(t.elems):
                pairs = list(zip(te.args, t.elems))
            elif te.name == "channel" and isinstance(t, ChannelT):
                pairs = [(te.args[0], t.elem)]
            elif te.name == "Function" and isinstance(t, FuncT) and len(te.args) == len(t.params) + 1:
                pairs = list(zip(te.args, (t.ret,) + t.params))
            elif isinstance(t, ClassT) and te.name == t.name and len(te.args) == len(t.targs):
                pairs = list(zip(te.args, t.targs))
            for a, b in pairs:
                self.unify(a, b, tps, env, span, fname)
        elif isinstance(te, A.BufferType) and isinstance(t, BufferT):
            self.unify(te.elem, t.elem, tps, env, span, fname)
        elif isinstance(te, A.FixedArrayType) and isinstance(t, FixedT):
            self.unify(te.elem, t.elem, tps, env, span, fname)

    def instantiate_operator(self, g: GenericFunc, args, span) -> T.FuncSym | None:
        """A generic operator definition specialised for these operands, if they fit."""
        mark = len(self.diags.items)
        targs = _operator_infer(self, g, args, span)
        del self.diags.items[mark:]          # a non-matching candidate is not an error
        if targs is None:
            return None
        return self.instantiate(g, targs, span)


def _operator_infer(ck, g: GenericFunc, args, span):
    if len(g.ast.params) != len(args):
        return None
    env: dict = {}
    try:
        for p, a in zip(g.ast.params, args):
            ck.unify(p.type, a.type, g.ast.tparams, env, span, g.name)
    except Abandon:
        return None
    if any(t not in env for t in g.ast.tparams):
        return None
    return tuple(env[t] for t in g.ast.tparams)


def mentions(te, tps, env) -> bool:
    """Whether the syntax type te mentions a type parameter not yet bound."""
    if isinstance(te, A.TypeName):
        if te.name in tps and te.name not in env and te.module is None:
            return True
        return any(mentions(a, tps, env) for a in te.args)
    if isinstance(te, (A.BufferType, A.FixedArrayType)):
        return mentions(te.elem, tps, env)
    return False
