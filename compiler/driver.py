"""Runs the compiler stages in order (lex, parse, check, lower, optimise, emit), each timed.

This is the plug-in entry nsm calls. Every unexpected exception becomes one
`internal compiler error` diagnostic (exit status 3); bad input never shows a traceback.
"""
from __future__ import annotations

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
    """One compiled module: its object-file bytes."""
    path: str
    key: str
    object: bytes


@dataclass
class Result:
    """What one compilation produced: one Unit per module (for --emit obj), and `dump`, the
    text of an --emit stage."""
    ok: bool
    diags: Diagnostics
    units: list[Unit] = field(default_factory=list)
    dump: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    exit_code: int = 0


DEEP_STACK_BYTES = 1 << 30
DEEP_RECURSION_LIMIT = 1_000_000


def compile_file(path: str, imports, *, release: bool = False, emit: str | None = None,
                 check_only: bool = False, source: bytes | None = None) -> Result:
    """Compile one root module and everything it imports, as `imports` (an ImportMap: nsm's
    planner makes it) says where each import is. With `emit`, stop after that stage and return
    its text. Builds go through nsm's build graph (compiler.unit per unit); this whole-program
    path serves `--emit` and `nsm check`.

    The stages walk trees recursively; a left-deep chain such as `1 + 1 + ... + 1` is as deep
    as it is long (13.1 allows any length), so the work runs on a thread with a large stack
    and a high recursion limit."""
    return run_guarded(lambda res: run_stages(path, imports, res, release=release, emit=emit,
                                              check_only=check_only, source=source))


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


def run_stages(path: str, imports, res: Result, *, release: bool = False, emit: str | None = None,
               check_only: bool = False, source: bytes | None = None) -> None:
    """The stages of a whole-program compile in order (lex, parse, check, then per module the
    back half of compiler/codegen.py), filling `res`; without the driver boundary, so an
    internal error escapes with its traceback (compile_file wraps this)."""
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
        _parse_errors_before(tokens, path, diags)
        return
    from .modules import Loader
    if emit == "ast":
        from .astdump import dump
        res.dump = dump(parse_module(tokens, path, diags)) + "\n"
        return
    loader = Loader(diags, imports)
    root = _timed(res, "parse", loader.load_root, path, src, tokens)
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
    if check_only:
        return
    from .codegen import compile_module
    dumps = []
    for m in loader.order:                # one object and one interface per module
        out = compile_module(program, m.path, res, release=release,
                             owns=lambda f, m=m: f.scope is not None and f.scope.mod is m,
                             is_root=m is root, until=emit or "obj", check_ptx=emit == "ptx")
        if emit == "ptx":
            dumps += _ptx_dump(out.ptx, m.path, diags)
        elif emit == "ir":
            dumps.append(f"; module {m.path}\n{out.ir}")
        elif emit == "llvm":
            dumps.append(f"; module {m.path}\n{out.llvm}")
        elif emit == "asm":
            dumps.append(f"# module {m.path}\n{out.asm}")
        else:
            res.units.append(Unit(m.path, m.key, out.obj))
    if emit in ("ir", "llvm", "asm", "ptx"):
        res.dump = "\n".join(dumps)


def _parse_errors_before(tokens, path: str, diags: Diagnostics) -> None:
    """After lexical errors, add the parser's errors that come before the first of them, so the
    first error in source order is reported (13.1); later ones could be cascades of the lexer's."""
    from .diagnostics import CompileError
    from .parser import parse_module
    first = min(((d.span.line, d.span.col) for d in diags.items if d.span is not None),
                default=(0, 0))
    parsed = Diagnostics()
    parsed.sources = diags.sources
    try:
        parse_module(tokens, path, parsed)
    except CompileError:
        pass
    for d in parsed.items:
        if d.span is not None and (d.span.line, d.span.col) < first:
            diags.error(d.span, d.message, d.hint, d.notes)


def _ptx_dump(ptx, path: str, diags: Diagnostics) -> list[str]:
    """The PTX of one module's kernels, or an error saying why there is none; nothing for a
    module without kernels."""
    if ptx is None:
        return []
    if not ptx.text:
        diags.error(None, f"no PTX for the kernels of {path}: {ptx.why}")
        return []
    return [f"// module {path}\n{ptx.text}"]
