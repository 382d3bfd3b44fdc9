"""Helpers for the separate-compilation tests: split a program into build units with nsm's
planner (its import graph's strongly connected components, imports first), compile each with
compiler.unit.compile_unit fed the planner's import map, link with the runtime, and run."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from compiler.unit import compile_unit

REPO = Path(__file__).resolve().parents[2]


def plan_units(root: Path):
    """The program's units in an order where every unit comes after the units it imports,
    and the import map they are compiled against."""
    from nsm.build.graph import plan
    from nsm.build.stamps import FileDB
    g = plan(FileDB(), [("prog", "bin", root.resolve())], root.resolve())
    return [sorted(m.path for m in u.modules) for u in g.units], g.imports


def build_units(root: Path) -> list[list[Path]]:
    return plan_units(root)[0]


def compile_program(root: Path, build: Path, release: bool = False) -> list[Path]:
    """Compile every unit of the program at `root`; return the object files."""
    nvi = build / "nvi"
    nvi.mkdir(parents=True, exist_ok=True)
    objs = []
    units, imports = plan_units(root)
    for unit in units:
        r = compile_unit(unit, nvi, imports, release=release)
        assert r.ok, r.diagnostics
        for key, data in r.interfaces.items():
            (nvi / f"{key}.nvi").write_bytes(data)
        for key, data in r.objects.items():
            obj = build / f"{key}.o"
            obj.write_bytes(data)
            objs.append(obj)
    return objs


def link_program(objs: list[Path], exe: Path) -> None:
    from nsm.build.runtime import ensure_runtime
    rt = ensure_runtime()
    cmd = ["g++", "-o", str(exe), *map(str, objs), str(rt.lib), *rt.link_args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


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
