"""Module interfaces (.nvi) for separate compilation: what importers compile against.

An interface holds a module's declarations without non-generic bodies, the facts the
call-graph analysis found in those bodies (may_raise, recursion), generic bodies with their
positions (importers instantiate them, and runtime traces show those lines), the `$Name`
mentions its unit checked (the program root orders global creation by them, 7.3), and the
hash of the interface of each module it imports, so a change propagates along import chains.
Encoded as sorted JSON: the same facts give the same bytes.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from enum import Enum

from . import ast as A
from .diagnostics import Span

FORMAT = "neve-interface 1"
IN_UNIT = "unit"        # an import compiled in the same unit (an import cycle): no hash


def ast_data(node, positions: bool):
    """A JSON-able picture of a syntax tree. Without `positions`, spans are left out, so
    moving code (a comment line above it) does not change the picture."""
    if isinstance(node, Span):
        return [node.line, node.col] if positions else None
    if dataclasses.is_dataclass(node):
        out = {"": type(node).__name__}
        for f in dataclasses.fields(node):
            if f.name == "span" and not positions:
                continue
            out[f.name] = ast_data(getattr(node, f.name), positions)
        return out
    if isinstance(node, (list, tuple)):
        return [ast_data(x, positions) for x in node]
    if isinstance(node, dict):
        return {str(k): ast_data(v, positions) for k, v in sorted(node.items(), key=str)}
    if node is None or isinstance(node, (str, int, bool)):
        return node
    if isinstance(node, bytes):
        return {"bytes": node.hex()}
    if isinstance(node, Enum):
        return node.name
    return {"repr": repr(node)}          # floats, decimals: exact text


def declarations(module) -> list:
    """Every top-level item of `module`: generic and gpu definitions whole, with positions; the rest
    without positions and without the bodies of functions, methods and ctors."""
    out = []
    for item in module.ast.items:
        if isinstance(item, A.MainDef):
            out.append({"": "MainDef"})        # importers only need to know it is there
        elif isinstance(item, (A.FuncDef, A.ClassDef)) and item.tparams or \
                isinstance(item, A.FuncDef) and item.kind == "gpu":
            # importers instantiate generics, and compile the gpu functions their kernels
            # call into their own PTX (12.4): both travel whole
            out.append(ast_data(item, positions=True))
        elif isinstance(item, A.FuncDef):
            out.append(ast_data(dataclasses.replace(item, body=None), positions=False))
        elif isinstance(item, A.ClassDef):
            ctor = item.ctor and dataclasses.replace(item.ctor, body=None)
            methods = tuple(dataclasses.replace(m, body=None) for m in item.methods)
            out.append(ast_data(dataclasses.replace(item, ctor=ctor, methods=methods),
                                positions=False))
        else:
            out.append(ast_data(item, positions=False))
    return out


def exported_facts(functions, module) -> dict[str, list[bool]]:
    """symbol -> [may_raise, recursive] for the non-generic functions, methods, ctors and
    operators of `module` that importers can call (threads, makers and main excluded)."""
    facts = {}
    for f in functions:
        if f.scope is None or f.scope.mod is not module or f.env or f.name == "main" \
                or f.name.startswith("$") or getattr(f, "is_thread", False):
            continue
        facts[f.symbol] = [bool(f.may_raise), f.scc is not None]
    return facts


def build(module, functions, imports: dict[str, str], mentions: list) -> dict:
    """The interface of one module of the unit just checked. `imports` maps each imported
    module's key to the sha256 of its interface bytes (IN_UNIT for one of the same unit);
    `mentions` are [module key, line, col, class module key, class name] of `$Name`."""
    return {
        "format": FORMAT,
        "module": module.key,
        "imports": dict(sorted(imports.items())),
        "decls": declarations(module),
        "facts": exported_facts(functions, module),
        "globals": sorted(mentions),
    }


def encode(iface: dict) -> bytes:
    return (json.dumps(iface, sort_keys=True, separators=(",", ":")) + "\n").encode()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode(data: bytes, where: str) -> dict:
    """Parse interface bytes; ValueError names `where` when they are not an interface."""
    try:
        iface = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{where} is not a module interface ({e})") from None
    if not isinstance(iface, dict) or iface.get("format") != FORMAT:
        raise ValueError(f"{where} is not a module interface of format '{FORMAT}'")
    return iface
