"""The CPU back end (LANGUAGE.md 12.4) against a NumPy float64 reference: block reductions with
shared memory and barriers, saxpy, threads returning before a barrier and warp shuffles, on
random inputs and many block sizes (1, 31, 32, 33, 256, 1024), to a relative error of 1e-5.
Also a kernel launched from another module through `nsm build` (separate compilation)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
NSM = Path(sys.executable).parent / "nsm"
N = 20_011
RTOL = 1e-5


def floats(line: str) -> np.ndarray:
    line = line.strip().strip("[]")
    return np.array([float(v) for v in line.split(", ")]) if line else np.array([])


def run(program: str, *args: str) -> list[str]:
    env = dict(os.environ, NEVE_DEVICE="cpu")
    p = subprocess.run([str(NSM), "run", str(HERE / "cpu" / program), *args],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, np.ndarray]:
    x = np.random.default_rng(7).random(N, dtype=np.float32)
    path = tmp_path_factory.mktemp("kernels") / "x.txt"
    path.write_text("\n".join(repr(float(v)) for v in x) + "\n")
    return path, x.astype(np.float64)


def close(got, want) -> None:
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-6)


@pytest.mark.parametrize("block", [1, 31, 32, 33, 256, 1024])
def test_reductions_saxpy_and_early_return(data, block):
    path, x = data
    total, sums, y, prefix = run("reduce.nv", str(path), str(block))
    g = -(-N // block)
    padded = np.zeros(g * block)
    padded[:N] = x
    close(float(total), x.sum())
    close(floats(sums), padded.reshape(g, block).sum(axis=1))
    close(floats(y), 1.5 * x + 1.0)
    m = max(1, block - 3)
    want = np.zeros(N)
    for b in range(g):                      # threads tx >= m returned before the barrier
        seg = padded[b * block:b * block + m]
        want[b * block:min(N, b * block + m)] = np.cumsum(seg)[:max(0, min(N - b * block, m))]
    close(floats(prefix), want)


@pytest.mark.parametrize("block", [32, 64, 1024])
def test_warp_shuffles(data, block):
    path, x = data
    down, bfly = run("shuffles.nv", str(path), str(block))
    g = -(-N // block)
    padded = np.zeros(g * block)
    padded[:N] = x
    warps = padded.reshape(-1, 32).sum(axis=1)
    close(floats(down), warps)
    close(floats(bfly), np.repeat(warps, 32))


def test_kernel_from_another_module_through_nsm_build(tmp_path):
    sys.path.insert(0, str(HERE.parent / "build"))
    from helpers import Package
    pkg = Package(tmp_path / "app", files={
        "src/ops.nv": "gpu float twice(float v)\n    return 2.0 * v\n\n"
                      "kernel void scale(float[] y, int n)\n    int i = bx * bdx + tx\n"
                      "    if i < n\n        y[i] = twice(y[i]) + float(i)\n",
        "src/main.nv": "import ops\n\nmain\n    int n = 300\n"
                       "    float[] y = to_device(ones_float(n))\n"
                       "    launch [n /| 128] [128] ops.scale(y, n)\n"
                       "    print(to_array(y, n)[299])\n",
    }, manifest_extra='entry = "main"\n')
    built = pkg.build()
    assert built.rc == 0, built.stderr
    exe = next((tmp_path / "app" / "build" / "debug" / "bin").iterdir())
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, NEVE_DEVICE="cpu"))
    assert p.stdout == "301.0\n", p.stderr
