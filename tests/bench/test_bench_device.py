"""`nsm bench resnet20 --device cuda` (issue 19) against the fake driver (tests/kernels/c/
fake_cuda.c): the small CNN's training steps on "cuda" give the CPU run's losses, and without a
GPU the option is a runtime error with a hint, not a traceback."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from frost.helpers import NSM

SMALL = ["--steps", "2", "--warmup", "1", "--batch-size", "8", "--threads", "1"]
FAKE_C = Path(__file__).parents[1] / "kernels" / "c" / "fake_cuda.c"


def bench(tmp_path: Path, out: str, *extra: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([NSM, "bench", "resnet20", *SMALL, "--out", str(tmp_path / out), *extra],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **env))


# Two ResNet-20 builds and runs (minutes on 2 cores): tests/frost/test_device.py checks the same
# equivalence on an MLP and attention in CI; bench/gpu_check.sh runs the bench on a real device.
@pytest.mark.slow
def test_cuda_steps_match_the_cpu_run(tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    p = subprocess.run(["gcc", "-O1", "-shared", "-fPIC", str(FAKE_C), "-o",
                        str(fake / "libcuda.so.1")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    cpu = bench(tmp_path, "cpu", NEVE_DEVICE="cpu")
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    gpu = bench(tmp_path, "cuda", "--device", "cuda", NEVE_DEVICE="",
                LD_LIBRARY_PATH=str(fake), FAKE_CUDA_LOG=str(tmp_path / "calls.log"))
    assert gpu.returncode == 0, gpu.stderr[-3000:]
    lc = json.loads((tmp_path / "cpu" / "report.json").read_text())["systems"]["frost"]["raw"]
    lg = json.loads((tmp_path / "cuda" / "report.json").read_text())["systems"]["frost"]["raw"]
    assert lg["gpu_available"] and not lc["gpu_available"]
    assert len(lg["loss"]) == 3
    # The first loss is a forward pass: rounding only. Convolutions and batch norm run as device
    # kernels since issue 19 (their sums in another order than oneDNN, about 1e-6 relative per
    # gradient), and these 3 steps' rising loss amplifies that: 3e-4 relative at the third.
    assert abs(lc["loss"][0] - lg["loss"][0]) <= 1e-5 * abs(lc["loss"][0]), (lc["loss"], lg["loss"])
    for a, b in zip(lc["loss"], lg["loss"]):
        assert abs(a - b) <= 1e-3 * abs(a), (lc["loss"], lg["loss"])
    assert sum(c.startswith("launch") for c in (tmp_path / "calls.log").read_text().splitlines()) > 100


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    p = bench(tmp_path, "none", "--device", "cuda", NEVE_DEVICE="cpu")
    assert p.returncode != 0
    assert "no usable CUDA device" in p.stderr and "Traceback" not in p.stderr
