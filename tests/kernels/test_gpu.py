"""GPU execution: PTX from the NVPTX back end run on a real device through cuda-python, compared
with NumPy; and Neve kernel programs run by their compiled executables with the GPU back end.

Skipped cleanly when cuda-python is missing or cuInit fails (no driver or no device), which is
always so in CI. bench/gpu_check.sh runs this file on a GPU machine.
"""
from __future__ import annotations

import numpy as np
import pytest

from compiler.backends import nvptx
from compiler.lower.kernels_gpu import F32, F64, I64, NvvmBuiltins
from .gpu_harness import Gpu
from .test_nvptx_backend import gid, kernel


@pytest.fixture(scope="module")
def gpu():
    g = Gpu.open()
    if g is None:
        pytest.skip(f"no usable GPU: {Gpu.why}")
    return g


def _saxpy(b, nv, a):        # y[i] = a * x[i] + y[i] for i < n; params y, x, a(f64 bits), n
    i = gid(b, nv)
    with b.if_then(b.icmp_signed("<", i, a[2])):
        y = b.gep(a[0], [i])
        b.store(b.fadd(b.fmul(F32(2.5), b.load(b.gep(a[1], [i]))), b.load(y)), y)


def _block_sum(b, nv, a):    # shared memory tree reduction, one atomic per block
    tx = nv.special(b, "tx")
    i = gid(b, nv)
    s = nv.shared(b, F32, I64(0))
    b.store(F32(0.0), b.gep(s, [tx]))
    with b.if_then(b.icmp_signed("<", i, a[2])):
        b.store(b.load(b.gep(a[1], [i])), b.gep(s, [tx]))
    nv.syncthreads(b)
    step = nv.special(b, "bdx")
    for _ in range(8):                         # 256 threads: unrolled halving steps
        step = b.lshr(step, I64(1))
        with b.if_then(b.icmp_signed("<", tx, step)):
            p = b.gep(s, [tx])
            b.store(b.fadd(b.load(p), b.load(b.gep(s, [b.add(tx, step)]))), p)
        nv.syncthreads(b)
    with b.if_then(b.icmp_signed("==", tx, I64(0))):
        nv.atomic_add(b, b.gep(a[0], [I64(0)]), b.load(s))


def _warp_sum(b, nv, a):     # shfl_down reduction per warp, lane 0 adds with an f64 atomic
    i = gid(b, nv)
    v = b.fpext(b.load(b.gep(a[1], [i])), F64)
    for k in (16, 8, 4, 2, 1):
        v = b.fadd(v, nv.shuffle(b, "down", v, I64(k)))
    with b.if_then(b.icmp_signed("==", nv.special(b, "lane"), I64(0))):
        nv.atomic_add(b, b.gep(a[0], [I64(0)]), v)


def _math(b, nv, a):
    i = gid(b, nv)
    x = b.load(b.gep(a[1], [i]))
    y = nv.math(b, "tanh", [nv.math(b, "exp", [x])])
    y = b.fadd(y, nv.math(b, "pow", [nv.math(b, "sqrt", [x]), F32(3.0)]))
    b.store(b.fadd(y, nv.math(b, "log", [b.fadd(x, F32(1.0))])), b.gep(a[0], [i]))


def test_saxpy(gpu):
    n = 1_000_003
    rng = np.random.default_rng(1)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    k = gpu.load(nvptx.compile_ptx(kernel(_saxpy), ["k"])).function("k")
    dy, dx = gpu.to_device(y), gpu.to_device(x)
    k([(n + 255) // 256], [256], dy, dx, np.int64(n))
    gpu.sync()
    np.testing.assert_allclose(dy.get(np.float32, n), 2.5 * x.astype(np.float64) + y, rtol=1e-6)


def test_block_sum_shared_memory_and_atomics(gpu):
    n = 100_000
    x = np.random.default_rng(2).random(n, dtype=np.float32)
    k = gpu.load(nvptx.compile_ptx(kernel(_block_sum), ["k"])).function("k")
    out, dx = gpu.to_device(np.zeros(1, np.float32)), gpu.to_device(x)
    k([(n + 255) // 256], [256], out, dx, np.int64(n), smem=256 * 4)
    gpu.sync()
    assert out.get(np.float32, 1)[0] == pytest.approx(x.astype(np.float64).sum(), rel=1e-5)


def test_warp_shuffle_sum_f64(gpu):
    n = 32 * 1024
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    k = gpu.load(nvptx.compile_ptx(kernel(_warp_sum, ("f64", "f32", "n")), ["k"])).function("k")
    out, dx = gpu.to_device(np.zeros(1, np.float64)), gpu.to_device(x)
    k([n // 128], [128], out, dx, np.int64(n))
    gpu.sync()
    assert out.get(np.float64, 1)[0] == pytest.approx(x.astype(np.float64).sum(), rel=1e-9)


def test_libdevice_math(gpu):
    n = 4096
    x = np.linspace(0.0, 3.0, n, dtype=np.float32)
    k = gpu.load(nvptx.compile_ptx(kernel(_math), ["k"])).function("k")
    out, dx = gpu.alloc(4 * n), gpu.to_device(x)
    k([n // 256], [256], out, dx, np.int64(n))
    gpu.sync()
    xd = x.astype(np.float64)
    want = np.tanh(np.exp(xd)) + np.sqrt(xd) ** 3 + np.log(xd + 1)
    np.testing.assert_allclose(out.get(np.float32, n), want, rtol=1e-5, atol=1e-6)


def test_both_arches_load(gpu):
    """The sm_80 PTX the runtime embeds is JIT-compiled for whatever device this is."""
    ptx = nvptx.compile_ptx(kernel(_saxpy), ["k"])
    assert ".target sm_80" in ptx
    gpu.load(ptx).function("k")


# ---------------------------------------------------------------- Neve programs on the GPU

from .test_ptx import PROGRAMS, ptx_of  # noqa: E402


def _numbers(text: str) -> list[float]:
    import re
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|nan|inf", text)]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_program_ptx_loads_in_the_driver(gpu, path):
    """The driver's JIT accepts every module's PTX and finds each entry."""
    import re
    ptx = ptx_of(path)
    mod = gpu.load(ptx)
    for e in re.findall(r"\.entry\s+(\w+)\s*\(", ptx):
        mod.function(e)


# programs pinned to the CPU back end (`# env: NEVE_DEVICE=cpu`) are not run on the GPU
GPU_RUNS = [p for p in PROGRAMS if "NEVE_DEVICE=cpu" not in p.read_text()]


@pytest.mark.parametrize("path", GPU_RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_program_gpu_matches_cpu_back_end(gpu, path, tmp_path):
    """The compiled program (its runtime loads libcuda itself) prints on the GPU what it prints
    with NEVE_DEVICE=cpu, up to float rounding (12.4: last bits of math, atomic order)."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NEVE_DEVICE"}
    nsm = [sys.executable, "-m", "nsm.cli", "run", str(path)]
    on_gpu = subprocess.run(nsm, capture_output=True, text=True, timeout=300,
                            env={**env, "NEVE_CUDA_SYNC": "1"})
    on_cpu = subprocess.run(nsm, capture_output=True, text=True, timeout=300,
                            env={**env, "NEVE_DEVICE": "cpu"})
    assert on_gpu.returncode == on_cpu.returncode, (on_gpu.stderr, on_cpu.stderr)
    if on_cpu.returncode != 0:                 # a runtime error at a launch: the same report
        assert on_gpu.stderr.splitlines()[:1] == on_cpu.stderr.splitlines()[:1]
    if "gpu_available" in path.read_text():     # the builtin programs say which back end ran
        assert "gpu true" in on_gpu.stdout and "gpu false" in on_cpu.stdout
    got, want = _numbers(on_gpu.stdout), _numbers(on_cpu.stdout)
    assert len(got) == len(want), (on_gpu.stdout, on_cpu.stdout)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
