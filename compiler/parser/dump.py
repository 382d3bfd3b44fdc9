"""S-expression dump of syntax trees, for the parser's tests and debugging."""
from __future__ import annotations

from .. import ast


def dump(node) -> str:
    """An S-expression picture of a tree (for tests and debugging): `(+ 1 (* 2 3))`. Iterative, so a
    left-deep chain of any length prints without recursion."""
    out: list[str] = []
    stack: list = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        else:
            stack.extend(reversed(_pieces(x)))
    return "".join(out)


def _join(items, sep: str = " ") -> list:
    out: list = []
    for i, x in enumerate(items):
        if i:
            out.append(sep)
        out.append(x)
    return out


def _quote(b: bytes) -> str:
    s = []
    for c in b:
        ch = chr(c)
        if ch in '"\\':
            s.append("\\" + ch)
        elif ch == "\n":
            s.append("\\n")
        elif ch == "\t":
            s.append("\\t")
        elif 32 <= c < 127:
            s.append(ch)
        else:
            s.append(f"\\x{c:02x}")
    return '"' + "".join(s) + '"'


def _targs_pieces(targs) -> list:
    return ["<", *_join(targs, ", "), ">"] if targs else []


def _pieces(x) -> list:
    if x is None:
        return ["_"]
    if isinstance(x, bool):
        return ["true" if x else "false"]
    if isinstance(x, (int, float)):
        return [str(x)]
    if isinstance(x, bytes):
        return [_quote(x)]
    if isinstance(x, (tuple, list)):
        return ["[", *_join(x), "]"]
    n = x
    if isinstance(n, (ast.IntLit, ast.FloatLit)):
        return [n.text]
    if isinstance(n, ast.BoolLit):
        return ["true" if n.value else "false"]
    if isinstance(n, ast.NilLit):
        return ["nil"]
    if isinstance(n, ast.SelfRef):
        return ["self"]
    if isinstance(n, ast.SuperRef):
        return ["super"]
    if isinstance(n, ast.CharLit):
        return ["'" + _quote(bytes([n.value]))[1:-1] + "'"]
    if isinstance(n, ast.StrLit):
        return [_quote(n.value)]
    if isinstance(n, ast.FStrLit):
        return ["(fstr", *[p for part in n.parts for p in (" ", part)], ")"]
    if isinstance(n, ast.FStrField):
        return ["{", n.expr, "" if n.spec is None else ":" + n.spec, "}"]
    if isinstance(n, ast.Name):
        return [n.id, *_targs_pieces(n.targs)]
    if isinstance(n, ast.GlobalRef):
        return ["$" + (n.module + "." if n.module else "") + n.name]
    if isinstance(n, ast.Unary):
        return ["(", n.op, " ", n.operand, ")"]
    if isinstance(n, (ast.Binary, ast.Logical)):
        return ["(", n.op, " ", n.left, " ", n.right, ")"]
    if isinstance(n, ast.Call):
        cargs = ["<", *_join(n.cargs), ">"] if n.cargs else []
        return ["(call ", n.func, *[p for a in n.args for p in (" ", a)], ")", *cargs]
    if isinstance(n, ast.Arg):
        prefix = n.keyword + "=" if n.keyword else n.split or ""
        return [prefix, n.value]
    if isinstance(n, ast.Attribute):
        return ["(. ", n.obj, " ", n.name, *_targs_pieces(n.targs), ")"]
    if isinstance(n, ast.Index):
        return ["([] ", n.obj, " ", n.index, ")"]
    if isinstance(n, ast.Slice):
        return ["([:] ", n.obj, " ", n.lo, " ", n.hi, ")"]
    if isinstance(n, ast.MultiIndex):
        return ["([,] ", n.obj, *[p for i in n.indices for p in (" ", i)], ")"]
    if isinstance(n, ast.AddrOf):
        return ["({} ", n.obj, *[p for i in n.indices for p in (" ", i)], ")"]
    if isinstance(n, ast.LayoutNew):
        return ["(layout-new ", n.type, *[p for a in n.args for p in (" ", a)], ")"]
    if isinstance(n, ast.LayoutType):
        return ["layout<", n.elem, *[p for d in n.dims for p in (", ", d)],
                ", smem" if n.smem else "", ">"]
    if isinstance(n, ast.New):
        return ["(new ", n.type, *[p for a in n.args for p in (" ", a)], ")"]
    if isinstance(n, ast.Convert):
        return ["(convert ", n.type, " ", n.arg, ")"]
    if isinstance(n, ast.ArrayLit):
        return ["(array", *[p for e in n.elems for p in (" ", e)], ")"]
    if isinstance(n, ast.TupleLit):
        return ["(tuple", *[p for e in n.elems for p in (" ", e)], ")"]
    if isinstance(n, ast.MapLit):
        return ["(map", *[p for k, v in n.items for p in (" (", k, " ", v, ")")], ")"]
    if isinstance(n, ast.Paren):
        return ["(paren ", n.expr, ")"]
    if isinstance(n, ast.Fold):
        return ["(", n.kind, " ", n.op, " ", n.operand, ")"]
    if isinstance(n, ast.MapIt):
        return ["(mapit ", n.operand, " ", n.var, " ", n.body, ")"]
    if isinstance(n, ast.TypeName):
        args = list(n.args) + ([n.capacity] if n.capacity is not None else [])
        return [(n.module + "." if n.module else "") + n.name, *_targs_pieces(args)]
    if isinstance(n, ast.BufferType):
        return [n.elem, "[]"]
    if isinstance(n, ast.FixedArrayType):
        return [n.elem, "[", n.size, "]"]
    if isinstance(n, ast.DeclItem):
        if n.init is not None:
            return ["(", n.name, " = ", n.init, ")"]
        if n.recv is not None:
            return ["(", n.name, " <- ", n.recv, ")"]
        if n.ctor_args is not None:
            return ["(", n.name, " ctor", *[p for a in n.ctor_args for p in (" ", a)], ")"]
        return [n.name]
    if isinstance(n, ast.VarDecl):
        return ["(decl ", "var" if n.type is None else n.type,
                *[p for i in n.items for p in (" ", i)], ")"]
    if isinstance(n, ast.Assign):
        def side(xs):
            return [xs[0]] if len(xs) == 1 else ["(", *_join(xs), ")"]
        return ["(", (n.op or "") + "=", " ", *side(n.targets), " ", *side(n.values), ")"]
    if isinstance(n, ast.ChanOp):
        return ["(<- ", n.left, " ", n.right, ")"]
    if isinstance(n, ast.ExprStmt):
        return [n.expr]
    if isinstance(n, ast.Return):
        return ["(return", *[p for v in n.values for p in (" ", v)], ")"]
    if isinstance(n, ast.Break):
        return ["break"]
    if isinstance(n, ast.Continue):
        return ["continue"]
    if isinstance(n, ast.Pass):
        return ["pass"]
    if isinstance(n, ast.Block):
        return ["(block", *[p for s in n.body for p in (" ", s)], ")"]
    if isinstance(n, ast.If):
        tail = [" ", n.orelse] if n.orelse is not None else []
        return ["(if ", n.cond, " ", n.then, *tail, ")"]
    if isinstance(n, ast.While):
        return ["(while ", n.cond, " ", n.body, ")"]
    if isinstance(n, ast.ForC):
        return ["(for ", n.var, " ", n.start, " ", n.cond, " ", n.step, " ", n.body, ")"]
    if isinstance(n, ast.ForIn):
        return ["(for ", n.var, " in ", n.iterable, " ", n.body, ")"]
    if isinstance(n, ast.RangeLoop):
        ranges = [p for lo, hi in n.ranges for p in (" (", lo, " ", hi, ")")][1:]
        return ["(range ((", *ranges, ") (", *_join([nm for nm, _ in n.names]), ") ", n.body, ")"]
    if isinstance(n, ast.Finish):
        return ["(finish ", n.body, ")"]
    if isinstance(n, ast.Async):
        return ["(", n.kind, " ", n.body, ")"]
    if isinstance(n, ast.Asyncs):
        return ["(asyncs ", n.count, " ", n.call if n.call is not None else n.body, ")"]
    if isinstance(n, ast.Lock):
        what = _quote(n.name.encode("utf-8", "surrogateescape")) if n.name is not None else n.obj
        return ["(lock ", what, " ", n.body, ")"]
    if isinstance(n, ast.Launch):
        on = [" (on ", n.stream, ")"] if n.stream is not None else []
        return ["(launch (", *_join(n.grid), ") (", *_join(n.block), ") ", n.smem, *on, " ", n.call, ")"]
    if isinstance(n, ast.Param):
        tail = [" = ", n.default] if n.default is not None else []
        return ["(", n.type, " ", n.name, *tail, ")"]
    if isinstance(n, ast.FuncDef):
        tps = ["<", ", ".join(n.tparams), ">"] if n.tparams else []
        cps = ["<", *_join(n.cparams), ">"] if n.cparams else []
        return ["(", n.kind, " ", n.ret, " ", n.name, *tps, " (", *_join(n.params), ")", *cps, " ",
                n.body, ")"]
    if isinstance(n, ast.CtorDef):
        return ["(ctor (", *_join(n.params), ") ", n.body, ")"]
    if isinstance(n, ast.FieldDecl):
        return ["(field ", n.type, *[" " + nm for nm, _ in n.names], ")"]
    if isinstance(n, ast.ClassDef):
        tps = ["<", ", ".join(n.tparams), ">"] if n.tparams else []
        members = [*n.fields, *([n.ctor] if n.ctor else []), *n.methods]
        base = ["(", n.base, ")"] if n.base is not None else []
        return ["(class ", n.name, *tps, *base, *[p for m in members for p in (" ", m)], ")"]
    if isinstance(n, ast.TypeAlias):
        return ["(type ", n.name, " ", n.type, ")"]
    if isinstance(n, ast.Import):
        return ["(import ", "/".join(n.path), *([" as ", n.alias] if n.alias else []), ")"]
    if isinstance(n, ast.FromImport):
        return ["(from ", "/".join(n.path), *[" " + nm for nm, _ in n.names], ")"]
    if isinstance(n, ast.ProtoParam):
        return [n.type, *([" ", n.name] if n.name else [])]
    if isinstance(n, ast.Proto):
        return ["(proto ", n.ret, " ", n.name, " (", *_join(n.params, ", "), "))"]
    if isinstance(n, ast.ProtoConst):
        return ["(proto-const ", n.type, " ", n.name, " ", repr(n.value), ")"]
    if isinstance(n, ast.ProtoField):
        return [n.type, " ", n.name, f" @{n.offset}", *([" ", n.storage] if n.storage else [])]
    if isinstance(n, ast.ProtoStruct):
        return [f"(proto-struct {n.name} {n.size}", *[p for f in n.fields for p in (" (", f, ")")], ")"]
    if isinstance(n, ast.MainDef):
        return ["(main ", n.body, ")"]
    if isinstance(n, ast.Module):
        return ["(module", *[p for i in n.items for p in (" ", i)], ")"]
    return [repr(n)]
