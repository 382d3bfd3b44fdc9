"""`nsm bench`: a 3-step ResNet-20 run side by side with PyTorch writes a valid JSON report and a
PNG; the same seed on one thread gives identical losses; the synthetic stream is deterministic by
seed; --data reads a small CIFAR-10 binary folder written here (and rejects a malformed one);
the replayed data order and augmentation match Frost's (the first losses agree)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from frost.helpers import NSM, torch_or_skip
from nsm.bench import data

SMALL = ["--steps", "3", "--warmup", "1", "--batch-size", "8", "--threads", "1"]


def nsm_bench(*args: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([NSM, "bench", *args], cwd=cwd, capture_output=True, text=True,
                       timeout=600, env=dict(os.environ))
    if ok:
        assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def test_synthetic_stream_is_deterministic_by_seed(tmp_path):
    a = data.synthetic_arrays(3, 50)
    b = data.synthetic_arrays(3, 50)
    c = data.synthetic_arrays(4, 50)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[1], c[1])
    f = data.synthetic_files(tmp_path, 3, 50, 10)
    labels, images = data.read_cifar(f.train[0])
    assert f.synthetic and np.array_equal(labels, a[0]) and images.shape == (50, 3, 32, 32)
    assert [data.epoch_order(50, 3, 0).tolist()] == [data.epoch_order(50, 3, 0).tolist()]
    assert sorted(data.epoch_order(50, 3, 1).tolist()) == list(range(50))


def test_three_step_run_writes_report_and_plot(tmp_path):
    torch_or_skip()
    out = tmp_path / "a"
    p = nsm_bench("resnet20", *SMALL, "--compare", "torch", "--out", str(out), cwd=tmp_path)
    assert "Frost/PyTorch throughput" in p.stdout
    rep = json.loads((out / "report.json").read_text())
    assert rep["data"]["synthetic"] and "synthetic" in rep["data"]["description"]
    for name in ("frost", "torch"):
        s = rep["systems"][name]
        assert len(s["raw"]["loss"]) == 4 and s["summary"]["measured_steps"] == 3
        assert s["summary"]["images_per_s"] > 0 and s["summary"]["peak_rss_mb"] > 10
        assert s["raw"]["num_parameters"] == 272_464
    env = rep["environment"]
    assert env["threads"] == 1 and env["git_commit"] and env["versions"]["torch"]
    assert "bench resnet20" in env["command_line"]
    assert rep["headline"]["throughput_ratio_frost_over_torch"] > 0
    # same weights, batches and augmentation: the first step's loss agrees
    lf, lt = rep["systems"]["frost"]["raw"]["loss"], rep["systems"]["torch"]["raw"]["loss"]
    assert abs(lf[0] - lt[0]) <= 1e-4 * abs(lt[0])
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Frost's per-op profile of the 3 measured steps (the warm-up step reset away): ResNet-20's
    # 21 convolutions (stem, 18 in blocks, 2 shortcuts) per step
    ops = {o["op"]: o for o in rep["profile"]["ops"]}
    assert ops["dnnl.conv_fwd"]["calls"] == 3 * 21 and ops["conv2d"]["ms_per_step"] > 0
    assert ops["dnnl.conv_fwd"]["gflop_per_s"] > 0 and "Frost per-op profile" in p.stdout
    # its per-step op time is a median of the 3 measured steps, as the step times are
    prof = rep["profile"]
    assert prof["steps"] == 3 and prof["median_step_ms"] == sorted(prof["step_ms"])[1]
    assert "Frost per-op profile: median" in p.stdout
    assert all(s["summary"]["median_cpu_step_s"] > 0 for s in rep["systems"].values())
    assert rep["goals"] == []          # issue 23's goals are ResNet-18's
    # a second single-thread run with the same seed: identical Frost losses
    nsm_bench("resnet20", *SMALL, "--out", str(tmp_path / "b"), cwd=tmp_path)
    rep2 = json.loads((tmp_path / "b" / "report.json").read_text())
    assert rep2["systems"]["frost"]["raw"]["loss"] == lf


def test_data_option_reads_cifar_binary(tmp_path):
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for name, n in (("data_batch_1.bin", 24), ("data_batch_2.bin", 16), ("test_batch.bin", 12)):
        data.write_cifar(folder / name, rng.integers(0, 10, n).astype(np.uint8),
                         rng.integers(0, 256, (n, 3072)).astype(np.uint8))
    out = tmp_path / "out"
    nsm_bench("resnet20", "--data", str(tmp_path), "--epochs", "1", "--batch-size", "8",
              "--threads", "1", "--out", str(out), cwd=tmp_path)
    rep = json.loads((out / "report.json").read_text())
    assert not rep["data"]["synthetic"] and rep["data"]["batches_per_epoch"] == 5
    s = rep["systems"]["frost"]
    assert s["summary"]["measured_steps"] == 5 and len(s["raw"]["accuracy"]) == 1
    assert 0.0 <= s["raw"]["accuracy"][0] <= 1.0
    (folder / "data_batch_2.bin").write_bytes(b"\0" * 100)
    p = nsm_bench("resnet20", "--data", str(folder), "--out", str(out), cwd=tmp_path, ok=False)
    assert p.returncode == 1 and "not a whole number of CIFAR-10 records" in p.stderr
    assert "Traceback" not in p.stderr


def test_list_and_bad_options(tmp_path):
    from click.testing import CliRunner
    from nsm.cli import cli
    r = CliRunner().invoke(cli, ["bench", "--list"])
    assert r.exit_code == 0 and all(n in r.output for n in ("resnet18", "resnet20", "mnist"))
    r = CliRunner().invoke(cli, ["bench", "mnist", "--models", "rnn", "--out", str(tmp_path)])
    assert r.exit_code == 1 and "unknown MNIST model" in r.output
    r = CliRunner().invoke(cli, ["bench", "resnet20", "--data", str(tmp_path / "none"),
                                 "--out", str(tmp_path)])
    assert r.exit_code != 0 and "Traceback" not in r.output


def test_peak_rss_is_the_child_process_own(tmp_path):
    """run_process reports the child's own peak RSS, not the forking process's (issue 17: the
    MNIST MLP showed nsm's 376 MB for both systems)."""
    from nsm.bench.resnet import run_process
    ballast = bytearray(300 * 2**20)   # this process: 300 MB resident
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    grow = "b = bytearray(80 * 2**20); b[::4096] = b'x' * len(b[::4096]); import time; time.sleep(0.3)"
    rc, wall, rss = run_process(["python3", "-c", grow], dict(os.environ), tmp_path / "log")
    assert rc == 0 and wall > 0.3
    assert 80 * 2**20 < rss < 150 * 2**20, rss / 2**20
    del ballast


def test_goals_pass_or_fail_at_their_batch_sizes():
    from nsm.bench.report import goals

    def rep(batch, threads, ips, ratio=None):
        r = {"benchmark": "resnet18", "options": {"batch": batch, "threads": threads},
             "systems": {"frost": {"summary": {"images_per_s": ips}}}}
        if ratio is not None:
            r["headline"] = {"throughput_ratio_frost_over_torch": ratio}
        return r

    g = goals(rep(32, 2, 41.0, 1.5))
    assert [(x["target"], x["passed"], x["applies"]) for x in g] == [(40.0, True, True), (1.6, False, True)]
    assert g[0]["goal"] == "Frost >= 40 images/s (batch 32 and 128, 2 threads)"
    assert [x["passed"] for x in goals(rep(128, 2, 39.9))] == [False]
    assert [x["applies"] for x in goals(rep(64, 2, 50.0, 2.0))] == [False, False]
    assert goals(dict(rep(32, 2, 50.0), benchmark="resnet20")) == []


def test_profile_per_step_says_its_statistic():
    from nsm.bench.report import profile_per_step
    marked = {"total_ms": 900.0, "measured_steps": 3, "steps": 3, "median_step_ms": 250.0,
              "mean_step_ms": 300.0, "step_ms": [250.0, 200.0, 450.0]}
    assert profile_per_step(marked) == "median 250 ms of ops per step over 3 steps (mean 300)"
    old = {"total_ms": 900.0, "measured_steps": 3, "steps": 0}
    assert profile_per_step(old) == "mean 300 ms of ops per step"


@pytest.mark.parametrize("args, message", [
    (["mnist", "--epochs", "0"], "error: --epochs must be at least 1, got 0"),
    (["mnist", "--threads", "0"], "error: --threads must be at least 1, got 0"),
    (["resnet18", "--workers", "-1"], "error: --workers must be at least 0, got -1"),
    (["resnet18", "--crop-pad", "-3"], "error: --crop-pad must be at least 0, got -3"),
    (["resnet18", "--epochs", "0"], "error: --epochs must be at least 1, got 0"),
    (["resnet20", "--steps", "0"], "error: --steps must be at least 1, got 0"),
    (["resnet18", "--warmup", "-1"], "error: --warmup must be at least 0, got -1"),
    (["resnet18", "--lr", "0"],
     "error: --lr must be positive and --weight-decay at least 0, got 0.0 and 0.0005"),
    (["mnist", "--out", "/proc/nsm-bench"],
     "error: cannot create the output folder /proc/nsm-bench: No such file or directory"),
    (["resnet18", "--out", "/proc/nsm-bench"],
     "error: cannot create the output folder /proc/nsm-bench: No such file or directory"),
    (["gpt", "--out", "/proc/nsm-bench"],
     "error: cannot create the output folder /proc/nsm-bench: No such file or directory"),
])
def test_bad_counts_and_out_folder_are_errors(args, message):
    """Checked before anything is built or run: one error line, exit 1, no traceback."""
    from click.testing import CliRunner
    from nsm.cli import cli
    r = CliRunner().invoke(cli, ["bench", *args])
    assert r.exit_code == 1 and r.output.splitlines()[0] == message, r.output
