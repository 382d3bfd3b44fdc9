"""Separate compilation: one build unit (a module, or the modules of one import cycle) to one
object file and one interface (.nvi) per module, against the interfaces of its imports.

nsm's build graph (`nsm build` and `nsm run`) runs one compile per unit from ninja, in import
order, each fed the build's import map; linking every unit's objects with the runtime gives
the program.

    python -m compiler.unit --nvi-dir D --imports MAP [--release] SRC...   # diagnostics only
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .imports import ImportMap
from .modules import shown_path

EXIT_ERROR, EXIT_ICE = 1, 3
_MAIN_LINE = re.compile(r"^main[ \t]*(#.*)?$", re.M)


@dataclass
class UnitResult:
    ok: bool
    exit_code: int                  # 0, 1 (diagnostics), 3 (internal compiler error)
    diagnostics: str                # rendered as nsm run renders them
    objects: dict[str, bytes] = field(default_factory=dict)      # module key -> object file
    interfaces: dict[str, bytes] = field(default_factory=dict)   # module key -> .nvi bytes
    interfaces_read: list[str] = field(default_factory=list)     # keys of other modules' .nvi
    ptx: dict[str, str | None] = field(default_factory=dict)     # module key -> its PTX file
    warnings: str = ""              # shown even when the compile succeeds


def compile_unit(sources: list[Path], nvi_dir: Path, imports: ImportMap, *,
                 release: bool = False) -> UnitResult:
    """Compile the modules `sources` (one module, or all modules of one import cycle) as one
    unit, finding imports through `imports`. Modules they import are read for their
    declarations only; facts from their bodies come from `nvi_dir/<key>.nvi`, which their own
    unit compiles wrote (a missing one is an internal compiler error naming it)."""
    from .driver import run_guarded
    out = UnitResult(False, 0, "")
    res = run_guarded(lambda r: _compile_unit([Path(s) for s in sources], Path(nvi_dir),
                                              imports, release, r, out))
    out.ok = res.ok
    out.exit_code = res.exit_code
    out.diagnostics = res.diags.render_all()
    if not res.ok:
        out.objects, out.interfaces, out.ptx, out.warnings = {}, {}, {}, ""
    return out


def _compile_unit(sources: list[Path], nvi_dir: Path, imports: ImportMap, release: bool, res,
                  out: UnitResult):
    from .diagnostics import InternalError
    from .source import read_source
    from .stages import timed as _timed
    from .modules import Loader
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
    loader = Loader(diags, imports)
    root = _timed(res, "parse", loader.load_root, shown_path(root_path), texts[root_path])
    unit = {root}
    for p in sources:
        if p is not root_path:
            unit.add(loader.load(p, shown_path(p), texts[p]))
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
    """One object (and its kernels' PTX) per unit module: its own functions, strong;
    generic instances and the creators of other units' globals, linkonce_odr (every unit
    using them has a copy, the linker keeps one), placed with the unit's main module."""
    from .codegen import compile_module
    home = root if root is not None else min(unit, key=lambda m: m.key)

    def place(f):
        return f.scope.mod if f.scope is not None and f.scope.mod in unit else home

    def linkage(f):
        shared = bool(f.env) or f.scope is None or f.scope.mod not in unit
        return "linkonce_odr" if shared else None

    for m in sorted(unit, key=lambda m: m.key):
        got = compile_module(program, m.path, res, release=release,
                             owns=lambda f, m=m: place(f) is m,
                             is_root=m is root and program.main is not None, linkage=linkage,
                             check_ptx=True)
        out.objects[m.key] = got.obj
        out.ptx[m.key] = None if got.ptx is None else got.ptx.file_text(m.path)
        if got.ptx is not None and not got.ptx.text:
            out.warnings += (f"warning: no PTX for the kernels of {m.path}: {got.ptx.why}; "
                             "they run on the CPU back end only\n")


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m compiler.unit",
                                 description="Compile one build unit; print its diagnostics.")
    ap.add_argument("--nvi-dir", required=True, type=Path,
                    help="folder holding the .nvi interfaces of the imported modules")
    ap.add_argument("--imports", required=True, type=Path,
                    help="the import map (written by nsm's planner: build/<profile>/imports.json)")
    ap.add_argument("--release", action="store_true")
    ap.add_argument("sources", nargs="+", type=Path)
    args = ap.parse_args(argv)
    try:
        imports = ImportMap.read(args.imports)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: {e}\n")
        return EXIT_ERROR
    r = compile_unit(args.sources, args.nvi_dir, imports, release=args.release)
    sys.stderr.write(r.diagnostics + r.warnings)
    if r.ok:
        for key in sorted(r.objects):
            print(f"{key}: object {len(r.objects[key])} bytes, interface "
                  f"{len(r.interfaces[key])} bytes")
        if r.interfaces_read:
            print("read: " + " ".join(r.interfaces_read))
    return r.exit_code


if __name__ == "__main__":
    sys.exit(main())
