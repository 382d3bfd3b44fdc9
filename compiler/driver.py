"""Runs the compiler stages in order (lex, parse, check, lower, optimise, emit), each timed.

This is the plug-in entry nsm calls. Every unexpected exception becomes one
`internal compiler error` diagnostic (exit status 3); bad input never shows a traceback.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import CompileError, Diagnostic, Diagnostics, InternalError
from .source import read_source
from .stages import timed as _timed

STAGES = ("tokens", "ast", "typed", "ir", "llvm", "asm", "ptx", "obj")
EXIT_ERROR, EXIT_ICE = 1, 3


@dataclass
class Unit:
    """One compiled module: object-file bytes and exported interface."""
    path: str
    key: str
    object: bytes
    interface: dict


@dataclass
class Result:
    """What one compilation produced: one Unit per module, the hash of every source read,
    and `dump`, the text of an --emit stage."""
    ok: bool
    diags: Diagnostics
    units: list[Unit] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)   # module path -> sha256
    dump: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    exit_code: int = 0


DEEP_STACK_BYTES = 1 << 30
DEEP_RECURSION_LIMIT = 1_000_000


def compile_file(path: str, *, release: bool = False, emit: str | None = None,
                 check_only: bool = False, source: bytes | None = None) -> Result:
    """Compile one root module. With `emit`, stop after that stage and return its text.

    The stages walk trees recursively; a left-deep chain such as `1 + 1 + ... + 1` is as deep
    as it is long (13.1 allows any length), so the work runs on a thread with a large stack
    and a high recursion limit."""
    return run_guarded(lambda res: _compile(path, release, emit, check_only, res, source))


def run_guarded(work) -> Result:
    """Run `work(result)` on a thread with a deep stack, at the driver boundary: compile
    errors and internal failures become diagnostics and an exit code, never a traceback.
    Separate compilation (compiler/unit.py) runs its stages through this too."""
    box: list[Result] = []
    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        t = threading.Thread(target=lambda: box.append(_compile_guarded(work)),
                             name="neve-compile")
        t.start()
    finally:
        threading.stack_size(old_size)
    t.join()
    return box[0]


def _compile_guarded(work) -> Result:
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
    try:
        return _compile_boundary(work)
    finally:
        sys.setrecursionlimit(old_limit)


def _compile_boundary(work) -> Result:
    diags = Diagnostics()
    res = Result(False, diags)
    try:
        work(res)
    except CompileError:
        pass
    except InternalError as e:          # a known internal failure, already worded for users
        diags.items.append(Diagnostic(None, f"internal compiler error: {e}"))
        res.exit_code = EXIT_ICE
        return res
    except RecursionError:
        diags.error(None, "internal compiler error: input nests too deeply for the compiler")
        res.exit_code = EXIT_ICE
        return res
    except Exception as e:  # noqa: BLE001 - the driver boundary: no tracebacks for users
        import traceback
        where = traceback.extract_tb(e.__traceback__)[-1]
        msg = f"internal compiler error: {type(e).__name__}: {e} " \
              f"(at {os.path.basename(where.filename)}:{where.lineno})"
        diags.items.append(Diagnostic(None, msg))
        res.exit_code = EXIT_ICE
        res.ok = False
        return res
    if diags.has_errors:
        res.ok = False
        res.exit_code = EXIT_ERROR
    else:
        res.ok = True
    return res


def _compile(path: str, release: bool, emit: str | None, check_only: bool, res: Result,
             source: bytes | None = None) -> None:
    from .lexer import tokenize
    from .parser import parse_module
    diags = res.diags
    src = read_source(path, diags, source)
    if src is None:
        return
    tokens = _timed(res, "lex", tokenize, src, path, diags)
    if emit == "tokens":
        res.dump = "\n".join(repr(t) for t in tokens) + "\n"
        return
    if diags.has_errors:
        return
    from .modules import Loader

    def parse(source, file, types, generics, into=diags):
        toks = tokens if file == path and source is src else tokenize(source, file, into)
        return parse_module(toks, file, into, types, generics)

    if emit == "ast":
        from .astdump import dump
        res.dump = dump(parse(src, path, frozenset(), frozenset())) + "\n"
        return
    loader = Loader(diags, parse)
    root = _timed(res, "parse", loader.load_root, path, src)
    if diags.has_errors:
        return
    from .check.checker import Checker
    program = _timed(res, "check", Checker(loader.order, root, diags, loader.std).check)
    if diags.has_errors:
        return
    if emit == "typed":
        from .astdump import dump
        res.dump = "\n".join(dump(f) for f in program.functions) + "\n"
        return
    # every module read, and every path probed and absent ("" = must still be absent)
    res.sources = {str(Path(m.path).resolve()): m.source_hash for m in loader.order}
    res.sources.update({p: "" for p in loader.missing})
    res.sources.update(loader.extra_sources)      # bindings.nv merged into entry modules
    if check_only:
        return
    from .backends import cpu
    from .lower.core import Lowerer
    tm = cpu.target_machine()
    dumps = []
    for m in loader.order:                # one object and one interface per module
        lowerer = Lowerer(program, tm.target_data, cpu.triple(), release=release,
                          module_name=m.path)
        llmod = _timed(res, "lower", lowerer.lower,
                       owns=lambda f, m=m: f.scope is not None and f.scope.mod is m,
                       is_root=m is root)
        if emit == "ptx":                 # lowering the kernels made their PTX (12.4)
            dumps += _module_ptx_dump(lowerer, m.path, diags)
            continue
        text = str(llmod)
        if emit == "ir":
            dumps.append(f"; module {m.path}\n{text}")
            continue
        mod = _timed(res, "verify", cpu.parse, text)
        _timed(res, "optimise", cpu.optimize, mod, tm, 3 if release else 2)
        if emit == "llvm":
            dumps.append(f"; module {m.path}\n{mod}")
        elif emit == "asm":
            dumps.append(f"# module {m.path}\n{cpu.emit_assembly(mod, tm)}")
        else:
            obj = _timed(res, "codegen", cpu.emit_object, mod, tm)
            res.units.append(Unit(m.path, m.key, obj, interface_of(program, m)))
    if emit in ("ir", "llvm", "asm", "ptx"):
        res.dump = "\n".join(dumps)


def _module_ptx_dump(lowerer, path: str, diags: Diagnostics) -> list[str]:
    """The PTX of one module's kernels (made by compiler.backends.nvptx.kernel_ptx while
    lowering), or an error saying why there is none; nothing for a module without kernels."""
    out = []
    for ptx, why in lowerer.__dict__.get("_nvptx_modules", {}).values():
        if ptx:
            out.append(f"// module {path}\n{ptx}")
        else:
            diags.error(None, f"no PTX for the kernels of {path}: {why}")
    return out


def interface_of(program, module) -> dict:
    """The exported interface of one module: its top-level functions' signatures and its
    classes' fields (what importers compile against)."""
    funcs = [f for f in program.functions
             if f.scope is not None and f.scope.mod is module and f.owner is None
             and not f.env and f.name != "main" and not f.name.startswith("$")]
    classes = [c for c in program.classes if c.decl.scope.mod is module]
    return {
        "module": module.path,
        "functions": {f.name: {"symbol": f.symbol, "ret": str(f.ret),
                               "params": [[p.name, str(p.type)] for p in f.params]}
                      for f in funcs},
        "classes": {str(c.type): {"fields": [[n, str(t)] for n, t in c.fields],
                                  "methods": sorted(c.methods)} for c in classes},
    }


def interface_json(iface: dict) -> str:
    return json.dumps(iface, indent=1, sort_keys=True) + "\n"
