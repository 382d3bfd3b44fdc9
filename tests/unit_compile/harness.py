"""Helpers for the separate-compilation tests: split a program into build units (its import
graph's strongly connected components, imports first, std first of all), compile each with
compiler.unit.compile_unit, link with the runtime as nsm/build/program.py does, and run."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from compiler.diagnostics import Diagnostics
from compiler.modules import Loader
from compiler.unit import compile_unit, stable_module_key

REPO = Path(__file__).resolve().parents[2]


def build_units(root: Path) -> list[list[Path]]:
    """The program's units in an order where every unit comes after the units it imports."""
    from compiler.lexer import tokenize
    from compiler.parser import parse_module
    diags = Diagnostics()

    def parse(source, file, types, generics, into=diags):
        return parse_module(tokenize(source, file, into), file, into, types, generics)

    loader = Loader(diags, parse, key_of=stable_module_key)
    loader.load_root(str(root), root.read_text())
    assert not diags.has_errors, diags.render_all()
    path_of = {m: p for p, m in loader.by_file.items()}
    from compiler.scc import strongly_connected      # components come out imports first
    order = [sorted(path_of[m] for m in comp)
             for comp in strongly_connected(loader.order, lambda m: m.deps)]
    std = [u for u in order if loader.std is not None and path_of[loader.std] in u]
    return std + [u for u in order if u not in std]


def compile_program(root: Path, build: Path, release: bool = False) -> list[Path]:
    """Compile every unit of the program at `root`; return the object files."""
    nvi = build / "nvi"
    nvi.mkdir(parents=True, exist_ok=True)
    objs = []
    for unit in build_units(root):
        r = compile_unit(unit, nvi, release=release)
        assert r.ok, r.diagnostics
        for key, data in r.interfaces.items():
            (nvi / f"{key}.nvi").write_bytes(data)
        for key, data in r.objects.items():
            obj = build / f"{key}.o"
            obj.write_bytes(data)
            objs.append(obj)
    return objs


def link_program(objs: list[Path], exe: Path) -> None:
    from nsm.build.program import link
    from nsm.build.runtime import ensure_runtime
    link(obj_files=objs, rt=ensure_runtime(), exe=exe)


def run_exe(exe: Path, cwd: Path, args=(), stdin: str = "") -> tuple[int, str, str]:
    p = subprocess.run([str(exe), *args], cwd=cwd, input=stdin, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def nsm_run(root: Path, args=(), flags=(), stdin: str = "") -> tuple[int, str, str]:
    """`nsm run` of the same program, from the root file's folder, by file name."""
    nsm = Path(sys.executable).parent / "nsm"
    p = subprocess.run([str(nsm), "run", *flags, root.name, *args], cwd=root.parent,
                       input=stdin, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    return p.returncode, p.stdout, p.stderr


def unit_run(root: Path, build: Path, args=(), release: bool = False,
             stdin: str = "") -> tuple[int, str, str]:
    """Compile unit by unit from the root file's folder (so paths print as nsm run prints
    them), link, run."""
    old = os.getcwd()
    os.chdir(root.parent)
    try:
        objs = compile_program(Path(root.name), build, release)
    finally:
        os.chdir(old)
    exe = build / "program"
    link_program(objs, exe)
    return run_exe(exe, root.parent, args, stdin)
