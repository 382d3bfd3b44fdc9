"""frost/distributed over MPI with 2 ranks on loopback (issue 21): an MLP trained by 2 ranks of
batch B equals 1 rank of batch 2B on the same global batches (SGD 1e-5, AdamW 1e-4, with and
without bucketing); a batch-norm CNN's loss falls as the single process's does; a failing or hung
rank ends the job non-zero within seconds; DistributedSampler shards are disjoint and cover the
epoch; `nsm run --nproc` prefixes output with the rank; the NCCL backend is a stub that refuses."""
from __future__ import annotations

import os
import re
import subprocess
import time

import numpy as np
import pytest

from .helpers import HERE, NSM, run_nv

DRIVER = HERE / "dist_driver.nv"


def nproc(n: int, *args: str, cwd, env: dict[str, str] | None = None,
          ok: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([NSM, "run", "--nproc", str(n), str(DRIVER), *args], cwd=cwd,
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive", **(env or {})))
    if ok:
        assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def params(path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file
    return load_file(str(path))


def max_rel(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float:
    assert sorted(a) == sorted(b)
    return max(float(np.abs(a[k] - b[k]).max() / np.abs(b[k]).max()) for k in a)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("dist")
    run_nv(DRIVER, "sampler", "4", "2", "1", cwd=d)     # compiles once for every test below
    return d


@pytest.mark.parametrize("opt,tol", [("sgd", 1e-5), ("adamw", 1e-4)])
def test_two_ranks_equal_one_rank_of_twice_the_batch(built, opt, tol):
    d = built
    run_nv(DRIVER, "mlp", str(d / f"one_{opt}"), opt, "25", "16", "5", cwd=d)
    one = params(d / f"one_{opt}")
    # 25 MB: one bucket; 0.004 MB (1048 floats): 4 buckets, started during backward;
    # 0: no bucketing, one buffer after backward
    for mb, buckets in [("25", 1), ("0.004", 4), ("0", 1)]:
        p = nproc(2, "mlp", str(d / f"two_{opt}_{mb}"), opt, mb, "8", "5", cwd=d)
        assert f"[0] buckets {buckets}\n" in p.stdout
        assert max_rel(params(d / f"two_{opt}_{mb}"), one) < tol, mb
    # without the gradient average, rank 0 alone (its half of each batch) is far off
    run_nv(DRIVER, "mlp", str(d / f"half_{opt}"), opt, "25", "8", "5", cwd=d)
    assert max_rel(params(d / f"half_{opt}"), one) > 1e-2


def test_batch_norm_cnn_loss_falls_like_one_process(built):
    d = built
    one = [float(x) for x in re.search(r"^loss (\S+) (\S+)$", run_nv(DRIVER, "cnn", "24", cwd=d).stdout, re.M).groups()]
    two = [float(x) for x in re.search(r"^\[0\] loss (\S+) (\S+)$", nproc(2, "cnn", "24", cwd=d).stdout, re.M).groups()]
    assert one[1] < 0.85 * one[0] and two[1] < 0.85 * two[0], (one, two)
    assert abs(two[1] - one[1]) < 0.1, (one, two)


def test_failing_rank_ends_the_job_within_seconds(built):
    t0 = time.monotonic()
    p = nproc(2, "fail", cwd=built, ok=False)
    assert time.monotonic() - t0 < 30
    assert p.returncode != 0
    assert "[1] " in p.stderr and "runtime error: assertion failed: rank 1 fails at step 2" in p.stderr
    assert "rank 0 finished" not in p.stdout


def test_hung_rank_ends_the_job_by_the_timeout(built):
    t0 = time.monotonic()
    p = nproc(2, "hang", cwd=built, env={"FROST_DIST_TIMEOUT": "2"}, ok=False)
    assert time.monotonic() - t0 < 30
    assert p.returncode != 0
    assert ("[0] frost/distributed: rank 0: MPI_Allreduce of a gradient bucket did not finish "
            "within 2 s (FROST_DIST_TIMEOUT); another rank failed or stopped calling it") in p.stderr


def test_sampler_shards_are_disjoint_and_cover_each_epoch(built):
    out = run_nv(DRIVER, "sampler", "10", "3", "2", cwd=built).stdout
    rows = re.findall(r"^epoch (\d) rank (\d) (\d+) \[([\d, ]*)\]$", out, re.M)
    assert len(rows) == 6
    orders = []
    for epoch in range(2):
        shards = [[int(x) for x in idx.split(", ")] for e, _, _, idx in rows if int(e) == epoch]
        assert all(len(s) == 4 for s in shards)          # ceil(10 / 3), padded as PyTorch
        flat = sum(shards, [])
        assert sorted(set(flat)) == list(range(10))       # covers the epoch
        assert len(flat) - len(set(flat)) == 2             # only the 2 padding samples repeat
        orders.append(flat)
    assert orders[0] != orders[1]                          # set_epoch reshuffles


def test_nproc_refuses_a_package_run(tmp_path):
    p = subprocess.run([NSM, "run", "--nproc", "2"], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stderr == "error: nsm run --nproc takes a program file (nsm run --nproc 2 prog.nv)\n"


def test_nccl_backend_refuses_clearly(built):
    p = subprocess.run([NSM, "run", str(DRIVER), "nccl"], cwd=built, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 1
    assert ("runtime error: assertion failed: dist.init: backend \"nccl\" is not available: "
            "Frost's tensors are CPU-only in this build and NCCL is not bound yet") in p.stderr
    assert "Traceback" not in p.stderr
