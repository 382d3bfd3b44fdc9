"""Offline PTX checks with NVIDIA's assembler `ptxas` (CUDA toolkit, or the nvidia-cuda-nvcc wheel).

ptxas rejects what the driver's JIT would reject at run time (a wrong `.version`, type
mismatches, unresolved externs), in milliseconds and without a GPU. It is never given `-c`,
which would accept unresolved externs. ptxas exits 0 for a module whose kernel lost its
`.entry` (it became a `.func`), so `check` also looks for every entry by name.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .nvptx import ARCHES, _wheel_dirs, has_entry


class PtxasError(Exception):
    """ptxas rejected the PTX, or an entry is missing; the message holds ptxas's output."""


def find_ptxas() -> Path | None:
    """ptxas: $NEVE_PTXAS, the nvidia-cuda-nvcc wheel, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin."""
    env = os.environ.get("NEVE_PTXAS")
    if env:
        return Path(env) if Path(env).is_file() else None
    cands = []
    for d in _wheel_dirs():
        cands += sorted(d.glob("cu*/bin/ptxas"), reverse=True)
        cands.append(d / "cuda_nvcc" / "bin" / "ptxas")
    on_path = shutil.which("ptxas")
    if on_path:
        cands.append(Path(on_path))
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            cands.append(Path(root) / "bin" / "ptxas")
    return next((c for c in cands if c.is_file() and os.access(c, os.X_OK)), None)


def version(ptxas: Path) -> str:
    """The release line of `ptxas --version`, e.g. 'Cuda compilation tools, release 13.0, V13.0.88'."""
    out = subprocess.run([str(ptxas), "--version"], capture_output=True, text=True).stdout
    lines = [ln for ln in out.splitlines() if "release" in ln]
    return lines[0].strip() if lines else out.strip().splitlines()[-1] if out.strip() else "?"


@dataclass
class Assembled:
    arch: str
    cubin_bytes: int
    info: str          # ptxas -v output: registers and shared memory per entry


def assemble(ptx: str, entries: list[str], arches=ARCHES, ptxas: Path | None = None,
             verbose: bool = False) -> list[Assembled]:
    """Assemble `ptx` for each arch (default sm_80 and sm_90) and check each entry is present.

    Raises PtxasError naming the arch with ptxas's messages; FileNotFoundError when no ptxas
    is found (callers decide whether that skips or fails).
    """
    tool = ptxas or find_ptxas()
    if tool is None:
        raise FileNotFoundError("ptxas not found (install nvidia-cuda-nvcc==13.0.* or a CUDA "
                                "toolkit, or set NEVE_PTXAS)")
    missing = [e for e in entries if not has_entry(ptx, e)]
    if missing:
        raise PtxasError(f"no .entry for {', '.join(missing)} in the PTX")
    done = []
    with tempfile.TemporaryDirectory(prefix="neve-ptxas-") as tmp:
        src = Path(tmp) / "k.ptx"
        src.write_text(ptx)
        for arch in arches:
            out = Path(tmp) / f"k.{arch}.cubin"
            cmd = [str(tool), f"-arch={arch}", str(src), "-o", str(out)] + (["-v"] if verbose else [])
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                msg = re.sub(re.escape(str(src)), "<ptx>", (p.stdout + p.stderr).strip())
                raise PtxasError(f"ptxas -arch={arch} rejected the PTX:\n{msg}")
            done.append(Assembled(arch, out.stat().st_size, (p.stdout + p.stderr).strip()))
    return done
