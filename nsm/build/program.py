"""Build one Neve program (a root file) into a cached executable.

Cache layout: $NEVE_HOME/cache/programs/<key>/ holding <module>.o, <module>.nvi (the exported
interface) and the linked executable, where key = hash(source bytes, compiler version, flags,
runtime key). A rerun of an unchanged program finds the executable without importing the
compiler or llvmlite.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import paths

EXE_NAME = "program"


class BuildError(Exception):
    """Compilation or linking failed; `exit_code` is the status nsm should exit with and
    `message` is already formatted for stderr."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def compiler_version() -> str:
    """Hash of the compiler's own sources, so any change to it invalidates cached programs."""
    root = Path(__file__).resolve().parents[2] / "compiler"
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def program_key(root: Path, source: bytes, release: bool, runtime_key: str) -> str:
    """Cache key of a program: the compiler, the runtime, the flags and the root file (path
    and bytes). The other modules it imports are checked against deps.json in the cache."""
    h = hashlib.sha256()
    for part in (compiler_version(), runtime_key, "release" if release else "debug",
                 str(root.resolve())):
        h.update(part.encode() + b"\0")
    h.update(source)
    return h.hexdigest()[:24]


DEPS_FILE = "deps.json"


def deps_current(out_dir: Path) -> bool:
    """Whether every module the cached build read still has the same content."""
    try:
        deps = json.loads((out_dir / DEPS_FILE).read_text())
        for path, digest in deps.items():
            if not digest:                     # probed and absent when built
                if Path(path).exists():
                    return False
            elif hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
                return False
    except (OSError, ValueError):
        return False
    return True


@dataclass
class Built:
    exe: Path
    cached: bool
    timings: dict


def build_program(path: str, *, release: bool = False, verbose: bool = False) -> Built:
    """Return the executable for the program at `path`, compiling and linking if needed.

    Each module becomes its own object (<key>.o) and interface (<key>.nvi) in the cache
    folder. Raises BuildError with rendered diagnostics on compile errors (exit 1), internal
    compiler errors (exit 3) and link failures (exit 1)."""
    from .runtime import ensure_runtime
    try:
        source = Path(path).read_bytes()
    except OSError as e:
        raise BuildError(f"error: cannot read {path}: {e.strerror}\n")
    rt = ensure_runtime(verbose=verbose)
    key = program_key(Path(path), source, release, rt.key)
    out_dir = paths.programs_cache_dir() / key
    exe = out_dir / EXE_NAME
    if exe.exists() and deps_current(out_dir):
        return Built(exe, True, {})
    from ..errors import NsmError
    from .native import natives_reached
    try:
        natives = natives_reached(Path(path), verbose)   # built before the compiler reads them
    except NsmError as e:
        raise BuildError(e.render())
    from compiler.driver import compile_file, interface_json
    res = compile_file(path, release=release, source=source)   # the bytes the key hashed
    if not res.ok:
        raise BuildError(res.diags.render_all(), res.exit_code or 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    objs = []
    for unit in res.units:
        obj = out_dir / f"{unit.key}.o"
        write_atomic(obj, unit.object)
        write_atomic(out_dir / f"{unit.key}.nvi", interface_json(unit.interface).encode())
        objs.append(obj)
    link(obj_files=objs, rt=rt, exe=exe, extra=[a for s in natives for a in s.link_args()])
    write_atomic(out_dir / DEPS_FILE, json.dumps(res.sources, indent=1, sort_keys=True).encode())
    return Built(exe, False, res.timings)


def link(obj_files: list[Path], rt, exe: Path, extra: list[str] = ()) -> None:
    """Link objects with the runtime and `extra` arguments (packages' native libraries) into
    `exe` (atomically: temp name, then rename)."""
    tmp = exe.with_name(f".{exe.name}.{os.getpid()}.tmp")
    cmd = ["g++", "-o", str(tmp), *map(str, obj_files), str(rt.lib), *extra, *rt.link_args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"error: linking failed:\n{p.stderr}")
    os.replace(tmp, exe)


def write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
