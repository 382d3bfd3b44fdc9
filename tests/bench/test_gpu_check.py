"""bench/gpu_check.sh without a GPU: --dry-run runs its steps' frame only, so the per-step
limits, the summary (one line per step, even after a step timed out) and the order of the steps
are checked here; the real run refuses a machine without a usable GPU."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "gpu_check.sh"
ORDER = ["doctor", "frost_device", "hgemm", "nccl", "kernels", "gemm", "bandwidth", "resnet18",
         "mnist"]


def check(tmp_path: Path, *args: str, **env: str):
    e = dict(os.environ, OUT=str(tmp_path / "out"), PY=sys.executable, **env)
    e.pop("GPU_CHECK_INNER", None)
    t0 = time.monotonic()
    p = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                       env=e)
    return p, time.monotonic() - t0


def summary(p) -> list[tuple[str, str]]:
    tail = p.stdout.split("summary (results in")[1].splitlines()[1:]
    return [tuple(line.split()[:2]) for line in tail]


def test_each_step_is_bounded_and_summarised(tmp_path):
    p, took = check(tmp_path, "--dry-run", GPU_CHECK_HGEMM_S="2", GPU_CHECK_DRY_HANG="hgemm",
                    GPU_CHECK_DRY_FAIL="gemm")
    assert p.returncode == 1, p.stderr
    want = {"hgemm": "TIMEOUT", "gemm": "FAIL"}
    assert summary(p) == [(s, want.get(s, "PASS")) for s in ORDER]
    assert took < 30                      # the hanging step was stopped after its 2 s
    assert (tmp_path / "out" / "summary.txt").read_text().split()[:2] == ["doctor", "PASS"]


def test_steps_left_without_time_are_reported(tmp_path):
    # 14 s in all, 8 of them kept for the summary: frost_device hangs and uses the rest
    p, _ = check(tmp_path, "--dry-run", GPU_CHECK_TIMEOUT="14", GPU_CHECK_DRY_HANG="frost_device")
    assert p.returncode == 1, p.stderr
    got = summary(p)
    assert got[:2] == [("doctor", "PASS"), ("frost_device", "TIMEOUT")]
    assert got[2:] == [(s, "TIMEOUT") for s in ORDER[2:]]
    assert "hgemm         TIMEOUT   0 s (not started: no time left)" in p.stdout


def test_all_passing_dry_run_exits_zero(tmp_path):
    p, _ = check(tmp_path, "--dry-run")
    assert p.returncode == 0, p.stderr
    assert summary(p) == [(s, "PASS") for s in ORDER]


def test_without_a_gpu_nothing_runs(tmp_path):
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from kernels.gpu_harness import Gpu
    if Gpu.open() is not None:
        pytest.skip("a GPU is usable here: the real check would run")
    p, _ = check(tmp_path)
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == "gpu_check: no usable GPU; nothing checked"
    assert "summary" not in p.stdout
