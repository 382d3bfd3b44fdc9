"""What each name of a checked document means: from the recording checker's tables, a map from
a source position to a Target (its kind, type, signature, definition and docstring)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from compiler import ast as A
from compiler import tir as TI
from compiler.check.symbols import ClassDecl, ClassInfo, GenericFunc
from compiler.diagnostics import Span
from compiler.tokens import T
from compiler.types import ClassT


@dataclass
class Target:
    """What a name denotes. `span` is its definition; `detail` the hover's code line."""
    kind: str                  # local param function method field class alias module value
    name: str
    detail: str
    span: Span | None = None
    type: object = None
    obj: object = None


def doc_comment(text: str | None, line: int) -> str:
    """The docstring of a definition on `line`: the contiguous `#` lines right above it."""
    if not text:
        return ""
    lines = text.split("\n")
    out = []
    n = line - 2
    while 0 <= n < len(lines) and lines[n].strip().startswith("#"):
        out.append(lines[n].strip()[1:].removeprefix(" ").rstrip())
        n -= 1
    return "\n".join(reversed(out))


def signature(f) -> str:
    """`def RET name(T a, U b = ...)` of a FuncSym or a GenericFunc."""
    if isinstance(f, GenericFunc):
        fd = f.ast
        ps = ", ".join(_type_text(p.type) + " " + p.name + (" = ..." if p.default else "")
                       for p in fd.params)
        return f"def {_type_text(fd.ret)} {fd.name}<{', '.join(fd.tparams)}>({ps})"
    params = [p for p in f.params if p.name != "self"]
    defaults = f.defaults[len(f.params) - len(params):]
    ps = ", ".join(f"{p.type} {p.name}" + (" = ..." if d is not None else "")
                   for p, d in zip(params, defaults + [None] * len(params)))
    if isinstance(f.ast, A.CtorDef):
        return f"ctor {f.owner.type}({ps})" if f.owner is not None else f"ctor({ps})"
    kind = {"kernel": "kernel", "gpu": "gpu"}.get(f.kind, "def")
    if getattr(f, "foreign", None) is not None:
        kind = "proto"
    return f"{kind} {f.ret} {f.name}({ps})"


def param_labels(f) -> list[str]:
    if isinstance(f, GenericFunc):
        return [_type_text(p.type) + " " + p.name for p in f.ast.params]
    return [f"{p.type} {p.name}" for p in f.params if p.name != "self"]


def _type_text(te) -> str:
    if isinstance(te, A.TypeName):
        base = f"{te.module}.{te.name}" if te.module else te.name
        return base + (f"<{', '.join(_type_text(a) for a in te.args)}>" if te.args else "")
    if isinstance(te, A.BufferType):
        return _type_text(te.elem) + "[]"
    if isinstance(te, A.FixedArrayType):
        return _type_text(te.elem) + "[N]"
    return "?"


def func_target(f) -> Target:
    if isinstance(f, GenericFunc):
        return Target("function", f.name, signature(f), f.ast.span, None, f)
    kind = "method" if f.owner is not None else "function"
    if isinstance(f.ast, A.CtorDef) and f.owner is not None:
        return class_target(f.owner.decl, f)
    return Target(kind, f.name.split(".")[-1], signature(f), f.span, f.ret, f)


def class_target(decl: ClassDecl, obj=None) -> Target:
    ast = decl.ast
    tp = f"<{', '.join(ast.tparams)}>" if ast.tparams else ""
    base = f"({_type_text(ast.base)})" if ast.base is not None else ""
    return Target("class", ast.name, f"class {ast.name}{tp}{base}", ast.span, None, obj or decl)


def field_target(info: ClassInfo, i: int) -> Target:
    name, t = info.fields[i]
    c = info
    while c is not None:
        for fd in c.decl.ast.fields:
            for n, sp in fd.names:
                if n == name:
                    return Target("field", name, f"{t} {c.type}.{name}", sp, t, info)
        c = c.base
    return Target("field", name, f"{t} {info.type}.{name}", None, t, info)


def var_target(v: TI.Var) -> Target:
    kind = "param" if v.is_param else "local"
    return Target(kind, v.name, f"{v.type} {v.name}", v.span, v.type, v)


def module_target(name: str, mod) -> Target:
    return Target("module", name, f"import {name}  # {mod.path}", Span(mod.path, 1, 1), None, mod)


def typed_target(node, typed) -> Target | None:
    """The meaning of a checked expression `node` whose typed form is `typed`."""
    t = typed
    while isinstance(t, TI.Seq):          # a call whose keywords reorder its arguments
        t = t.value
    if isinstance(t, TI.Local):
        return var_target(t.var)
    if isinstance(t, TI.CallFn):
        return func_target(t.func)
    if isinstance(t, TI.Builtin):
        if t.name == "func_ref":
            f = t.extra[0] if isinstance(t.extra, tuple) else t.extra
            return func_target(f)
        if t.name == "field" and isinstance(t.extra, tuple):
            return field_target(*t.extra)
    name = getattr(node, "id", getattr(node, "name", "")) or type(node).__name__
    return Target("value", str(name), f"{typed.type}", None, typed.type, None)


class Index:
    """Position (file, line, col) -> Target for every name of one analysis's root module."""

    def __init__(self, analysis) -> None:
        self.a = analysis
        self.at: dict[tuple[int, int], Target] = {}
        self.classes: dict = {}
        ck = analysis.checker
        root = analysis.root
        if ck is None or root is None:
            return
        self.file = root.path
        self.classes = {t: info for t, info in getattr(ck, "classes_by_type", {}).items()}
        self._declarations(ck)
        self._uses(ck)
        self._imports(root)

    def _put(self, span: Span | None, target: Target, replace: bool = False) -> None:
        if span is None or span.file != self.file:
            return
        key = (span.line, span.col)
        if replace or key not in self.at:
            self.at[key] = target

    def _declarations(self, ck) -> None:
        for ms in ck.scopes:
            for f in ms.functions.values():
                self._put(f.ast.span if isinstance(f, GenericFunc) else f.span, func_target(f))
            for decl in ms.classes.values():
                self._put(decl.ast.span, class_target(decl))
                for info in decl.instances.values():
                    for i in range(len(info.fields)):
                        tg = field_target(info, i)
                        self._put(tg.span, tg)
                    for m in info.methods.values():
                        self._put(m.span, func_target(m))
                    if info.ctor is not None:
                        for p in info.ctor.params:
                            self._put(p.span, var_target(p))
                    break
            for name, al in ms.aliases.items():
                self._put(al.span, Target("alias", name, f"alias {name} = {_type_text(al.type)}",
                                          al.span))
        for f in ck.functions:
            for p in f.params:
                if p.name != "self":
                    self._put(p.span, var_target(p))
            for v in _vars(f.body):
                self._put(v.span, var_target(v))

    def _uses(self, ck) -> None:
        for entries in ck.exprs.values():
            for node, typed in entries:
                if isinstance(node, A.Call):
                    if isinstance(node.func, (A.Name, A.Attribute)):
                        tg = typed_target(node.func, typed)
                        if tg is not None and tg.kind != "value":
                            self._put(node.func.span, tg, replace=True)
                    continue
                if isinstance(node, A.New):
                    continue
                tg = typed_target(node, typed)
                if tg is not None:
                    self._put(node.span, tg, replace=tg.kind != "value")
        for entries in ck.types.values():
            for te, (t, ms) in entries:
                tg = self._type_target(te, t, ms)
                if tg is not None:
                    self._put(te.span, tg)

    def _type_target(self, te, t, ms) -> Target | None:
        if not isinstance(te, A.TypeName):
            return None
        if isinstance(t, ClassT) and t in self.classes:
            return class_target(self.classes[t].decl)
        scope = ms
        if te.module is not None and ms is not None:
            scope = ms.imports.get(te.module)
        if scope is not None:
            if te.name in scope.aliases:
                al = scope.aliases[te.name]
                return Target("alias", te.name, f"alias {te.name} = {_type_text(al.type)}", al.span)
            if te.name in getattr(scope, "from_names", {}):
                dscope, dn = scope.from_names[te.name]
                if dn in dscope.classes:
                    return class_target(dscope.classes[dn])
        return Target("value", te.name, f"type {t}", None, t)

    def _imports(self, root) -> None:
        for item in root.ast.items:
            if isinstance(item, A.Import):
                dep = root.imports.get(item.alias or item.path[-1])
                if dep is not None:
                    self._import_path_tokens(item, module_target(item.alias or item.path[-1], dep))
            elif isinstance(item, A.FromImport):
                dep = next((d for fi, d in root.from_imports if fi is item), None)
                if dep is None:
                    continue
                self._import_path_tokens(item, module_target("/".join(item.path), dep))
                for n, sp in item.names:
                    tg = self.member_of_module(dep, n)
                    if tg is not None:
                        self._put(sp, tg, replace=True)

    def _import_path_tokens(self, item, target: Target) -> None:
        for t in self.a.tokens:
            if t.span.line == item.span.line and t.text in item.path:
                self._put(t.span, target)

    def member_of_module(self, mod, name: str) -> Target | None:
        """A top-level name of loaded module `mod`."""
        ck = self.a.checker
        ms = next((s for s in getattr(ck, "scopes", []) if s.mod is mod), None)
        if ms is None:
            return None
        if name in ms.functions:
            return func_target(ms.functions[name])
        if name in ms.classes:
            return class_target(ms.classes[name])
        if name in ms.aliases:
            al = ms.aliases[name]
            return Target("alias", name, f"alias {name} = {_type_text(al.type)}", al.span)
        return None

    def target(self, tok, col: int | None = None) -> Target | None:
        """The meaning of token `tok` of the root module (inside an f-string: of the name
        at column `col` of one of its fields)."""
        if tok.kind is T.FSTRING and col is not None:
            inside = [(c, t) for (ln, c), t in self.at.items() if ln == tok.span.line and
                      tok.span.col < c <= col <= c + len(t.name) and t.kind != "value"]
            return max(inside, key=lambda x: x[0])[1] if inside else None
        tg = self.at.get((tok.span.line, tok.span.col))
        if tg is not None:
            return tg
        root = self.a.root
        if root is not None and tok.text in root.imports and root.imports[tok.text] is not None:
            return module_target(tok.text, root.imports[tok.text])
        return None

    def scope_of(self, mod):
        return next((s for s in getattr(self.a.checker, "scopes", []) if s.mod is mod), None)


def _vars(node):
    """Every Var a typed body declares (locals, loop variables), in order."""
    out = []
    todo = [node]
    seen = set()
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, (list, tuple)):
            todo.extend(reversed(n))
            continue
        if isinstance(n, TI.Var):
            if not n.name.startswith("."):
                out.append(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (TI.FuncSym, Span)):
            continue
        if isinstance(n, TI.Spawn):
            todo.append(n.func.body)
        for f in dataclasses.fields(n):
            if f.name in ("type", "span", "func", "extra"):
                continue
            todo.append(getattr(n, f.name))
    return out
