"""Frost tensors on "cuda" (issue 19) against the fake driver (tests/kernels/c/fake_cuda.c): it
serves device memory from the host and runs each kernel through its CPU-back-end twin, so a
training step on cuda must give the CPU path's numbers (to float rounding: the device GEMM and
the atomic strided sums add in another order than OpenBLAS). Also the error paths: mixing devices,
to("cuda") with no GPU, and the caching allocator's statistics."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from .helpers import HERE, NSM, run_nv

DRIVER = HERE / "device_driver.nv"
FAKE_C = HERE.parent / "kernels" / "c" / "fake_cuda.c"
FAKE_BLAS_C = HERE.parent / "kernels" / "c" / "fake_cublas.c"


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fake_cuda")
    for src, lib in [(FAKE_C, "libcuda.so.1"), (FAKE_BLAS_C, "libcublas.so.13")]:
        p = subprocess.run(["gcc", "-O1", "-shared", "-fPIC", str(src), "-o", str(d / lib)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    return d


def on_cuda(fake: Path, log: Path) -> dict[str, str]:
    return {"LD_LIBRARY_PATH": str(fake), "FAKE_CUDA_LOG": str(log), "NEVE_DEVICE": ""}


def parse(out: str) -> list[tuple[str, str, np.ndarray]]:
    """The driver's `label device [v, ...]` lines, as (label, device, values)."""
    rows = []
    for line in out.splitlines():
        m = re.fullmatch(r"([\w.]+) (cpu|cuda:0) \[(.*)\]", line)
        if m:
            rows.append((m[1], m[2], np.array([float(v) for v in m[3].split(", ")])))
    return rows


@pytest.mark.parametrize("mode", ["mlp", "attn"])
def test_training_step_on_cuda_matches_cpu(fake, tmp_path, mode):
    cpu = parse(run_nv(DRIVER, mode, "cpu", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout)
    log = tmp_path / "calls.log"
    gpu = parse(run_nv(DRIVER, mode, "cuda", cwd=tmp_path, env=on_cuda(fake, log)).stdout)
    assert len(cpu) == len(gpu) >= 4
    for (label, dev, want), (glabel, gdev, got) in zip(cpu, gpu):
        assert (label, dev, glabel, gdev) == (label, "cpu", label, "cuda:0")
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-7)
    calls = log.read_text().splitlines()
    # the ops ran as kernels on the device, through allocations of the caching allocator
    assert sum(c.startswith("launch") for c in calls) > 30
    assert any(c.startswith("alloc") for c in calls) and "free" not in calls
    # without NEVE_CUBLAS_LIB the fake driver gets no cuBLAS: GEMM is Frost's kernel
    assert "twin nv_frost__devices_gemm_k" in calls
    assert not any(c.startswith("cublas") for c in calls)


def test_gemm_through_cublas(fake, tmp_path):
    """NEVE_CUBLAS_LIB loads the fake libcublas: GEMMs go through the binding (one handle on
    the thread's stream), with the CPU's numbers; a library that does not load is a warning and
    the Neve kernel."""
    cpu = parse(run_nv(DRIVER, "mlp", "cpu", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout)
    log = tmp_path / "calls.log"
    env = {**on_cuda(fake, log), "NEVE_CUBLAS_LIB": str(fake / "libcublas.so.13")}
    gpu = parse(run_nv(DRIVER, "mlp", "cuda", cwd=tmp_path, env=env).stdout)
    assert len(gpu) == len(cpu)
    for (_, _, want), (_, _, got) in zip(cpu, gpu):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-7)
    calls = log.read_text().splitlines()
    assert calls.count("cublas create") == 1 and calls.count("cublas stream") == 1
    # 3 steps of 2 linear layers, each 2 forward GEMMs (x 8x6 @ w1^T is column-major n 16, m 8,
    # k 6) and 3 backward (dx of layer 2, dw of both; x needs no gradient)
    assert "cublas sgemm 16 8 6" in calls
    assert sum(c.startswith("cublas sgemm") for c in calls) == 3 * (2 + 3)
    assert "twin nv_frost__devices_gemm_k" not in calls
    bad = {**on_cuda(fake, tmp_path / "log2"), "NEVE_CUBLAS_LIB": str(tmp_path / "nope.so")}
    p = run_nv(DRIVER, "mlp", "cuda", cwd=tmp_path, env=bad)
    assert parse(p.stdout)[0][2] == gpu[0][2]
    assert f"warning: NEVE_CUBLAS_LIB={tmp_path / 'nope.so'}: " in p.stderr
    assert "GEMM runs as a Neve kernel" in p.stderr


def test_mixing_devices_names_both(fake, tmp_path):
    e = dict(on_cuda(fake, tmp_path / "log"))
    p = subprocess.run([NSM, "run", str(DRIVER), "mix"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env={**__import__("os").environ, **e})
    assert p.returncode == 1
    assert "runtime error: assertion failed: add: tensors on cuda:0 and cpu" in p.stderr
    assert "Traceback" not in p.stderr


def test_to_cuda_without_a_gpu_is_an_error_with_a_hint(tmp_path):
    import os
    p = subprocess.run([NSM, "run", str(DRIVER), "mix"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=dict(os.environ, NEVE_DEVICE="cpu"))
    assert p.returncode == 1
    assert ('to("cuda:0"): no usable CUDA device for cuda:0 (no driver or GPU, or '
            'NEVE_DEVICE=cpu); keep the tensor on "cpu"') in p.stderr


def test_memory_statistics(fake, tmp_path):
    out = run_nv(DRIVER, "memory", cwd=tmp_path, env=on_cuda(fake, tmp_path / "log")).stdout
    # 1000 floats = 4000 bytes, in the 4096-byte size class
    assert out.splitlines() == ["true 4096 cuda:0 true", "true"]


def test_pin_memory_batches_copy_asynchronously(fake, tmp_path):
    """A pin_memory DataLoader's buffers are registered with the driver, and moving a batch to
    cuda enqueues its copy with no wait (an event marks it, which the worker waits for before
    refilling the buffer); the numbers are the CPU run's."""
    cpu = run_nv(DRIVER, "loader", "cpu", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout
    log = tmp_path / "calls.log"
    gpu = run_nv(DRIVER, "loader", "cuda", cwd=tmp_path, env=on_cuda(fake, log)).stdout
    assert gpu.replace("cuda:0", "cpu") == cpu
    assert cpu.splitlines()[:3] == ["batch cpu [6.0, 25.0, 44.0, 63.0]",
                                    "batch cpu [82.0, 101.0, 120.0, 139.0]",
                                    "batch cpu [158.0, 177.0]"]
    calls = log.read_text().splitlines()
    # 2 ping-pong buffers of inputs and targets, one page each, then the last smaller batches
    assert calls.count("pin 4096") >= 4
    # a full batch's inputs (4 x 3 floats) and targets (4 int64): copied, then an event, no
    # sync, for the 2 full batches of each of the 2 epochs (the other copies of those sizes
    # are the test's own reads, to_array)
    after = [calls[i + 1] for i, c in enumerate(calls) if c in ("copy 48", "copy 32")]
    assert after.count("event") == 2 * 2 * 2, after


def test_user_kernel_given_host_memory_names_the_kernel_and_argument(fake, tmp_path):
    p = subprocess.run([NSM, "run", str(DRIVER), "user", "cuda"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600,
                       env={**__import__("os").environ, **on_cuda(fake, tmp_path / "log")})
    assert p.stdout == "twice cuda:0 [2.0, 2.0, 2.0, 2.0, 2.0]\n"
    assert p.returncode == 1
    assert ("device_driver.nv:86:5: runtime error: kernel 'twice': argument 'y' is host memory, "
            "but the kernel runs on the GPU (pass device memory: device_buffer, to_device, or a "
            'tensor on "cuda")') in p.stderr
    cpu = run_nv(DRIVER, "user", "cpu", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout
    assert cpu == "twice cpu [2.0, 2.0, 2.0, 2.0, 2.0]\n" * 2


def test_default_device_follows_the_gpu(fake, tmp_path):
    """LANGUAGE.md 12.4: with a usable GPU (the fake driver) a program that names no device
    trains on cuda:0, through the int64 kernels for its accuracy counts, with the CPU run's
    numbers; NEVE_DEVICE=cpu keeps the same program on the CPU."""
    cpu = run_nv(DRIVER, "default", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout
    log = tmp_path / "calls.log"
    gpu = run_nv(DRIVER, "default", cwd=tmp_path, env=on_cuda(fake, log)).stdout
    assert cpu.splitlines()[:3] == ["default cpu", "loss cpu [1.2055221]", "correct cpu int64 2"]
    assert gpu.splitlines()[0] == "default cuda:0"
    assert [ln.split()[2] for ln in gpu.splitlines() if ln.startswith("correct")] == \
        [ln.split()[2] for ln in cpu.splitlines() if ln.startswith("correct")] == ["int64"] * 6
    c_lines = [ln for ln in cpu.splitlines() if ln.startswith("correct")]
    assert [ln.replace("cuda:0", "cpu") for ln in gpu.splitlines() if ln.startswith("correct")] == c_lines
    want, got = parse(cpu), parse(gpu)
    assert len(want) == len(got) == 6 + 4 + 2
    for (label, dev, w), (glabel, gdev, g) in zip(want, got):
        assert (label, dev, gdev) == (glabel, "cpu", "cuda:0")
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-7)
    assert got[-2][2].tolist() == [2.5, 6.0, 9.5] and got[-1][2].tolist() == [4.0, 4.0]
    calls = log.read_text().splitlines()
    ran = {c.split()[1] for c in calls if c.startswith("twin ")}
    assert {f"nv_frost__int_kernels_{k}" for k in
            ["compare_i64_k", "sum_i64_k", "arange_i64_k", "arange_f32_k", "strided_i64_k"]} <= ran
    # the loader's batches come from pinned buffers
    assert calls.count("pin 4096") >= 2


def test_neve_device_cuda_without_a_gpu_is_an_error(tmp_path):
    import os
    env = dict(os.environ, NEVE_DEVICE="cuda", LD_LIBRARY_PATH=str(tmp_path))
    p = subprocess.run([NSM, "run", str(DRIVER), "default"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=env)
    assert p.returncode == 1
    assert ("runtime error: assertion failed: NEVE_DEVICE=cuda: no usable CUDA device (no driver "
            "or no GPU); unset NEVE_DEVICE, or set NEVE_DEVICE=cpu for the CPU") in p.stderr
    assert "Traceback" not in p.stderr
