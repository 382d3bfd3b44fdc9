"""Checking of foreign declarations (LANGUAGE.md 11): proto signatures and the type mapping of
11.3, the naming conventions of 11.2 (T_create, T_destroy, T_neg, A_B_op), ownership, and the
arguments of foreign calls. Methods by naming (7.2) and operators (6.5) then find protos like
any other top-level function."""
from __future__ import annotations

from dataclasses import dataclass

from .. import ast as A
from .. import tir as T
from .call import call_user
from ..types import (ArrayT, BufferT, ChannelT, ClassT, FixedT, ForeignT, FuncT, MapT, Prim,
                    TupleT, Type, ANY, CHAR, ERR, NIL, STR, U8, VOID, is_numeric)

# 11.2: the operator a declaration `R A_B_op(A a, B b)` defines
OPERATOR_SUFFIXES = {"add": "+", "sub": "-", "mult": "*", "div": "/", "floordiv": "//", "mod": "%",
                     "mma": "@", "equal": "==", "different": "!=", "minor": "<",
                     "minor_eq": "<=", "higher": ">", "higher_eq": ">="}
OWNED_MARK = "# neve: owned"


@dataclass(eq=False)
class ProtoInfo:
    """What lowering needs to call a proto: its C symbol and whether the pointer it returns is
    owned (a finalizer calls T_destroy on it, 11.2)."""
    c_name: str
    owned: bool = False


class ForeignChecker:
    # ------------------------------------------------------------ declarations
    def declare_proto(self, ms, p: A.Proto) -> T.FuncSym:
        """The FuncSym of `proto RET name(T1 a, ...)`: C symbol `name`, no Neve frame."""
        saved = self.ctx_swap(ms, {}, None)
        try:
            params = []
            for i, pp in enumerate(p.params):
                t = self.resolve_or_error(pp.type)
                self.check_c_type(p.name, t, pp.span, result=False)
                params.append(T.Var(pp.name or f"arg{i + 1}", t, pp.span, is_param=True))
            ret = self.resolve_or_error(p.ret, allow_void=True)
            self.check_c_type(p.name, ret, p.ret.span, result=True)
        finally:
            self.ctx_restore(saved)
        sym = T.FuncSym(p.name, p.name, params, ret, p.span, defaults=[None] * len(params))
        sym.ast, sym.scope, sym.env = p, ms, {}
        sym.foreign = ProtoInfo(p.name, owned=self.marked_owned(p))
        # a foreign call raises nothing itself; one taking a callback may run Neve code that does
        sym.may_raise = sym.raises_directly = any(isinstance(v.type, FuncT) for v in params)
        return sym

    def marked_owned(self, p: A.Proto) -> bool:
        """A proto whose source line ends with the comment `# neve: owned` returns an owned
        pointer (11.2; bindgen copies the header's `// neve: owned`)."""
        text = self.diags.sources.get(p.span.file)
        if text is None:
            return False
        lines = text.splitlines()
        line = lines[p.span.line - 1] if 0 < p.span.line <= len(lines) else ""
        return line.rstrip().endswith(OWNED_MARK)

    def check_c_type(self, name: str, t: Type, span, result: bool, callback: bool = False) -> None:
        """11.3: report a type that has no C equivalent (located at its spelling)."""
        why = c_type_problem(t, result)
        if why is None and isinstance(t, FuncT):
            if callback:
                why = "a callback cannot take or return another function"
            else:
                for x in (t.ret,) + t.params:
                    sub = c_type_problem(x, result=x is t.ret)
                    if sub is not None or isinstance(x, FuncT):
                        why = f"its callback type {x} cannot cross to C"
                        break
        if why is not None:
            self.error(span, f"proto '{name}': {t} cannot cross to C", why)

    def bind_protos(self, ms) -> None:
        """11.2 conventions over a module's protos: constructors, destructors, operators."""
        for sym in list(ms.functions.values()):
            if not isinstance(sym, T.FuncSym) or sym.foreign is None:
                continue
            n, ps, ret = sym.foreign.c_name, sym.params, sym.ret
            if isinstance(ret, ForeignT) and n == f"{ret.name}_create":
                ms.foreign_create[ret] = sym
                sym.foreign.owned = True
                continue
            if len(ps) == 1 and isinstance(ps[0].type, ForeignT):
                t = ps[0].type
                if n == f"{t.name}_destroy" and ret == VOID:
                    ms.foreign_destroy[t] = sym
                    continue
                if n == f"{t.name}_neg":
                    ms.operators.append(("-", sym))
                    continue
            if len(ps) == 2:
                for suffix, op in OPERATOR_SUFFIXES.items():
                    if n == f"{ps[0].type}_{ps[1].type}_{suffix}":
                        ms.operators.append((op, sym))
                        break

    # ------------------------------------------------------------ uses
    def foreign_arg(self, pt: Type, a, what: str) -> T.Expr:
        """An argument of a foreign call: as for Neve calls, except that an array<T> passes its
        storage where the proto says T[], and a Function must name a top-level function (C
        receives a plain function pointer)."""
        literal = isinstance(pt, BufferT) and isinstance(a, A.ArrayLit)
        x = self.expr(a, expected=ArrayT(pt.elem) if literal else pt)
        if isinstance(pt, BufferT) and isinstance(x.type, ArrayT) and x.type.elem == pt.elem:
            return x
        if isinstance(pt, FuncT) and x.type == ANY:
            return x            # a C address standing for a function (SQLITE_TRANSIENT)
        if pt == STR and (x.type in (BufferT(CHAR), BufferT(U8), ArrayT(CHAR), ArrayT(U8))):
            return x            # its storage itself, valid while the caller keeps it
        x = self.coerce(x, pt, a.span, what)
        if isinstance(pt, FuncT) and not (isinstance(x, T.Const) and x.value is None):
            fn = x.extra if isinstance(x, T.Builtin) and x.name == "func_ref" else None
            fn = fn[0] if isinstance(fn, tuple) else fn      # a method value (7.5)
            if fn is None or fn.owner is not None or fn.foreign is not None:
                self.fail(a.span, f"{what}: C takes a function pointer here; pass a top-level "
                                  f"function by name", "C cannot call a Function value or a method")
        return x

    def lookup_foreign(self, name: str) -> Type | None:
        """The foreign type visible here as `name` (declared or imported by `from`)."""
        if name in self.ms.foreign:
            return self.ms.foreign[name]
        if name in self.ms.from_names:
            dscope, dn = self.ms.from_names[name]
            return dscope.foreign.get(dn)
        return None

    def new_foreign(self, t: ForeignT, args, span) -> T.Expr:
        """`new mod.T(args)` and `mod.T x(args)` call T_create (11.2)."""
        scope = self.scope_of_key.get(t.module)
        create = scope.foreign_create.get(t) if scope is not None else None
        layout = scope.foreign_layout.get(t) if scope is not None else None
        if create is None and layout is not None:
            return self.new_cstruct(t, layout, args, span)
        if create is None:
            self.fail(span, f"foreign type {t} has no {t.name}_create; it cannot be created "
                            f"with new", f"declare proto {t} {t.name}_create(...) in its module")
        call = A.Call(span, A.Name(span, create.name), tuple(args))
        return call_user(self, call, create)


def c_type_problem(t: Type, result: bool) -> str | None:
    """Why t cannot be a parameter (or, with `result`, the result) of a proto; None if it can."""
    if t == ERR:
        return None
    if isinstance(t, Prim):
        if t == VOID:
            return None if result else "'void' is only a result type"
        if t == NIL:
            return "nil has no type of its own"
        return None                              # numbers, bool, char, str, any
    if isinstance(t, ForeignT):
        return None
    if isinstance(t, BufferT):
        e = t.elem
        if is_numeric(e) or e in (Prim("bool"), Prim("char")) or \
                (isinstance(e, BufferT) and c_type_problem(e, False) is None):
            return None
        return "a C buffer T[] holds numbers, bool, char or buffers"
    if isinstance(t, FuncT):
        if result:                               # (issue 15: the shape bindgen gives `signal`)
            return "C cannot hand Neve a function to call; declare the result as any"
        return None                              # its own types are checked by the caller
    if isinstance(t, ArrayT):
        return f"declare it as {t.elem}[]: an {t} argument then passes its storage" \
            if not result else "C cannot return a Neve array; return a buffer T[]"
    if isinstance(t, ClassT):
        return "a Neve class has no C layout; C sees opaque types (a name that is no class)"
    if isinstance(t, (TupleT, FixedT)):
        return "structs by value are not bindable; pass a buffer T[]"
    if isinstance(t, (MapT, ChannelT)):
        return f"a {'map' if isinstance(t, MapT) else 'channel'} has no C layout"
    return "no C equivalent"
