"""Separate compilation: one build unit (a module, or the modules of one import cycle) to one
object file and one interface (.nvi) per module, against the interfaces of its imports.

`nsm build` runs one compile per unit from ninja, in import order; linking every unit's
objects with the runtime gives the program `nsm run` builds in one process. Importing this
module is cheap (no llvmlite, no checker): nsm calls stable_module_key for every module when
it writes build.ninja.

    python -m compiler.unit --nvi-dir D [--release] SRC...   # diagnostics only, writes nothing
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .modules import BUNDLED, bundled_root, package_name, package_root, resolved

EXIT_ERROR, EXIT_ICE = 1, 3
_MAIN_LINE = re.compile(r"^main[ \t]*(#.*)?$", re.M)


def _symbol_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def stable_module_key(path: Path) -> str:
    """The symbol-safe key of the module at `path`, whichever unit compiles it: the package's
    name and the path relative to the package root (`app__models_user` for
    models/user.nv of package app); the bundled std and frost likewise; a file outside any
    package is named by its stem and a hash of its absolute path."""
    real = resolved(path)
    for name in BUNDLED:                     # frost may have no manifest yet
        top = resolved(bundled_root() / name)
        if real.is_relative_to(top):
            return f"{name}__{_symbol_safe(real.relative_to(top).with_suffix('').as_posix())}"
    pkg = package_root(real)
    if pkg is not None:
        rel = real.relative_to(resolved(pkg)).with_suffix("").as_posix()
        return f"{_symbol_safe(package_name(pkg) or pkg.name)}__{_symbol_safe(rel)}"
    tag = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return f"{_symbol_safe(real.stem)}_{tag}"


@dataclass
class UnitResult:
    ok: bool
    exit_code: int                  # 0, 1 (diagnostics), 3 (internal compiler error)
    diagnostics: str                # rendered as nsm run renders them
    objects: dict[str, bytes] = field(default_factory=dict)      # module key -> object file
    interfaces: dict[str, bytes] = field(default_factory=dict)   # module key -> .nvi bytes
    interfaces_read: list[str] = field(default_factory=list)     # keys of other modules' .nvi


def shown_path(p: Path) -> str:
    """How diagnostics and traces name a module: as the whole-program loader names an
    imported file (relative to the working directory when under it)."""
    real = p.resolve()
    if str(real).startswith(str(Path.cwd())):
        return os.path.relpath(real)
    return str(p) if p.is_absolute() else str(real)


def compile_unit(sources: list[Path], nvi_dir: Path, *, release: bool = False) -> UnitResult:
    """Compile the modules `sources` (one module, or all modules of one import cycle) as one
    unit. Modules they import are read for their declarations only; facts from their bodies
    come from `nvi_dir/<key>.nvi`, which their own unit compiles wrote (a missing one is an
    internal compiler error naming it)."""
    from .driver import run_guarded
    out = UnitResult(False, 0, "")
    res = run_guarded(lambda r: _compile_unit([Path(s) for s in sources], Path(nvi_dir),
                                              release, r, out))
    out.ok = res.ok
    out.exit_code = res.exit_code
    out.diagnostics = res.diags.render_all()
    if not res.ok:
        out.objects, out.interfaces = {}, {}
    return out


def _compile_unit(sources: list[Path], nvi_dir: Path, release: bool, res, out: UnitResult):
    from .diagnostics import InternalError
    from .source import read_source
    from .stages import timed as _timed
    from .lexer import tokenize
    from .modules import Loader
    from .parser import parse_module
    from . import interface as I
    diags = res.diags
    if not sources:
        raise InternalError("a build unit needs at least one source file")
    texts = {}
    for p in sources:
        text = read_source(shown_path(p), diags)
        if text is None:
            return
        texts[p] = text
    # the module holding main is loaded first, as the whole-program build loads its root:
    # the load order decides the order globals are created in (7.3)
    root_path = next((p for p in sources if _MAIN_LINE.search(texts[p])), sources[0])

    def parse(source, file, types, generics, into=diags):
        return parse_module(tokenize(source, file, into), file, into, types, generics)

    loader = Loader(diags, parse, key_of=stable_module_key)
    root = _timed(res, "parse", loader.load_root, shown_path(root_path), texts[root_path])
    unit = {root}
    for p in sources:
        if p is not root_path:
            unit.add(loader._load(p, shown_path(p), texts[p]))
    if diags.has_errors:
        return
    ifaces, raw = {}, {}
    for m in loader.order:
        if m in unit:
            continue
        where = nvi_dir / f"{m.key}.nvi"
        try:
            raw[m.key] = where.read_bytes()
            ifaces[m.key] = I.decode(raw[m.key], str(where))
        except OSError:
            raise InternalError(f"missing interface {where} of module {m.path}: compile its "
                                f"unit first") from None
        except ValueError as e:
            raise InternalError(str(e)) from None
    out.interfaces_read = sorted(ifaces)
    from .check.unit import UnitChecker
    checker = UnitChecker(loader.order, root, diags, loader.std, unit, ifaces)
    program = _timed(res, "check", checker.check)
    if diags.has_errors:
        return
    mentions = checker.unit_mentions()
    for m in unit:
        deps = list(m.deps) + ([loader.std] if loader.std is not None and m is not loader.std
                               else [])
        imports = {d.key: (I.IN_UNIT if d in unit else I.digest(raw[d.key])) for d in deps}
        out.interfaces[m.key] = I.encode(I.build(m, program.functions, imports, mentions[m]))
    _emit_objects(program, unit, root, release, res, out)


def _emit_objects(program, unit, root, release: bool, res, out: UnitResult) -> None:
    """One object per unit module: its own functions, strong; generic instances and the
    creators of other units' globals, linkonce_odr (every unit using them has a copy, the
    linker keeps one), placed with the unit's main module."""
    from .backends import cpu
    from .driver import _timed
    from .lower.core import Lowerer
    tm = cpu.target_machine()
    home = root if root is not None else min(unit, key=lambda m: m.key)

    def place(f):
        return f.scope.mod if f.scope is not None and f.scope.mod in unit else home

    def linkage(f):
        shared = bool(f.env) or f.scope is None or f.scope.mod not in unit
        return "linkonce_odr" if shared else None

    for m in sorted(unit, key=lambda m: m.key):
        lowerer = Lowerer(program, tm.target_data, cpu.triple(), release=release,
                          module_name=m.path)
        llmod = _timed(res, "lower", lowerer.lower, owns=lambda f, m=m: place(f) is m,
                       is_root=m is root and program.main is not None, linkage=linkage)
        mod = _timed(res, "verify", cpu.parse, str(llmod))
        _timed(res, "optimise", cpu.optimize, mod, tm, 3 if release else 2)
        out.objects[m.key] = _timed(res, "codegen", cpu.emit_object, mod, tm)


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m compiler.unit",
                                 description="Compile one build unit; print its diagnostics.")
    ap.add_argument("--nvi-dir", required=True, type=Path,
                    help="folder holding the .nvi interfaces of the imported modules")
    ap.add_argument("--release", action="store_true")
    ap.add_argument("sources", nargs="+", type=Path)
    args = ap.parse_args(argv)
    r = compile_unit(args.sources, args.nvi_dir, release=args.release)
    sys.stderr.write(r.diagnostics)
    if r.ok:
        for key in sorted(r.objects):
            print(f"{key}: object {len(r.objects[key])} bytes, interface "
                  f"{len(r.interfaces[key])} bytes")
        if r.interfaces_read:
            print("read: " + " ".join(r.interfaces_read))
    return r.exit_code


if __name__ == "__main__":
    sys.exit(main())
