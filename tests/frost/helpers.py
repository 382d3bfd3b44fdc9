"""Running Frost programs from tests: `nsm run` in a folder, data exchanged as raw float32 files
(frost.save_raw / frost.load_raw, NumPy tofile / fromfile)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

NSM = str(Path(sys.executable).parent / "nsm")
HERE = Path(__file__).parent
FROST = HERE.parents[1] / "packages" / "frost"


def run_nv(program: Path, *args: str, cwd: Path, timeout: int = 600,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`nsm run program args...`; the test fails with the program's stderr when it exits non-zero."""
    e = dict(os.environ)
    e.setdefault("OMP_WAIT_POLICY", "passive")   # shared CI cores: no spinning OpenMP workers
    e.update(env or {})
    p = subprocess.run([NSM, "run", str(program), *args], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, env=e)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def save(path: Path, a: np.ndarray) -> None:
    np.asarray(a, dtype=np.float32).tofile(path)


def load(path: Path, shape) -> np.ndarray:
    return np.fromfile(path, dtype=np.float32).reshape(shape)


def finite_diff(f, inputs, name, gout, h=1e-6):
    """Central differences (step h) of sum(f(**inputs) * gout) with respect to inputs[name]:
    the reference gradient for an op's backward given the output gradient gout (float64)."""
    x = inputs[name]
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        up = np.sum(f(**inputs) * gout)
        x[i] = old - h
        down = np.sum(f(**inputs) * gout)
        x[i] = old
        g[i] = (up - down) / (2 * h)
    return g


def rel_err(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| relative to the largest magnitude of want (at least 1e-3)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-3)
    return float(np.abs(got - want).max(initial=0.0)) / scale


def torch_or_skip():
    """torch, or a skip; with CI=true a missing torch fails instead (issue 8)."""
    try:
        import torch
        return torch
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("torch is required in CI (pip install -e .[test])")
        pytest.skip("torch not installed")
