"""bench/kernels/hgemm.nv (issue 20: tensor-core HGEMM in Neve, double-buffered cp_async).

On the CPU back end at several shapes, ragged edges included (M, N not multiples of the 128 x 128
block tile, K not a multiple of the 32 of a K tile): z must equal the program's own host loop
exactly (its inputs are small multiples of 1/8, so every sum is exact in any order) and its
checksum must equal NumPy's. On NVPTX: ptxas assembles the kernel for sm_80 and sm_90 with its
accumulators in registers (no local-memory stack frame, which would cost the GPU gate).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compiler.backends import ptxas

REPO = Path(__file__).resolve().parents[2]
PROGRAM = REPO / "bench" / "kernels" / "hgemm.nv"
SHAPES = [(64, 64, 32), (128, 128, 64), (130, 200, 72), (257, 129, 40), (1, 1, 8)]

pytestmark = pytest.mark.skipif(not (REPO / "compiler" / "check" / "layouts.py").exists(),
                                reason="needs the phase-2 front end (issue 20, docs/phase2.md)")


def numpy_checksum(m: int, n: int, k: int) -> float:
    i = np.arange(m * k)
    x = ((i * 7 + i // k * 3) % 17 - 8) / 8.0
    i = np.arange(n * k)
    y = ((i * 5 + i // k) % 13 - 6) / 8.0
    z = x.reshape(m, k) @ y.reshape(n, k).T
    w = (np.arange(m)[:, None] + 2 * np.arange(n)[None, :]) % 5 + 1
    return float((z * w).sum())


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_hgemm_on_cpu(shape):
    env = dict(os.environ, NEVE_DEVICE="cpu")
    p = subprocess.run([sys.executable, "-m", "nsm.cli", "run", str(PROGRAM), *map(str, shape)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    out = dict(line.split() for line in p.stdout.splitlines()
               if line.startswith(("checksum", "max_diff")))
    assert float(out["max_diff"]) == 0.0
    assert float(out["checksum"]) == numpy_checksum(*shape)


def test_hgemm_ptx_keeps_accumulators_in_registers(ptxas_tool):
    from nsm.build.orchestrate import whole_program
    res = whole_program(str(PROGRAM), release=True, emit="ptx")
    assert res.ok
    entries = re.findall(r"\.entry\s+(\w+)\s*\(", res.dump)
    entry = next(e for e in entries if e.endswith("_hgemm"))
    for ins in ("cp.async.ca.shared.global", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"):
        assert ins in res.dump
    for d in ptxas.assemble(res.dump, [entry], ptxas=ptxas_tool, verbose=True):
        assert "0 bytes stack frame" in d.info, d.info
