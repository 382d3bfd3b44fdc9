"""`nsm bench ... --nproc N` (issue 21): the Frost side again as 2 DataParallel ranks through
mpirun: the report holds the 2-rank run with global throughput (rank 0's step times, 2 x the
per-rank batch) and the scaling efficiency computed from the two; a PyTorch comparison, whose
side is one process, is refused with a message."""
from __future__ import annotations

import json
import os
import statistics

import pytest

from .test_bench import nsm_bench
from .test_gpt_bench import TINY


def check_scaling(rep: dict, unit: str, per_step: int) -> None:
    one, two = rep["systems"]["frost"], rep["systems"]["frost x2"]
    assert one["raw"]["ranks"] == 1 and two["raw"]["ranks"] == 2
    w = two["raw"]["warmup"]
    med = statistics.median(two["raw"]["step_s"][w:])
    assert two["summary"][unit] == pytest.approx(2 * per_step / med)
    s = rep["scaling"]
    assert s["nproc"] == 2 and s["unit"] == unit
    assert s["efficiency"] == pytest.approx(two["summary"][unit] / (2 * one["summary"][unit]))
    assert 0.0 < s["efficiency"] < 2.0


def test_resnet_two_ranks_report_global_images_and_efficiency(tmp_path):
    out = tmp_path / "r"
    p = nsm_bench("resnet20", "--steps", "3", "--warmup", "1", "--batch-size", "8", "--nproc", "2",
                  "--out", str(out), cwd=tmp_path)
    assert "Frost scaling, 2 ranks:" in p.stdout and "efficiency" in p.stdout
    rep = json.loads((out / "report.json").read_text())
    assert rep["options"]["threads"] == max(1, (os.cpu_count() or 1) // 2)   # unless --threads
    check_scaling(rep, "images_per_s", 8)
    assert len(rep["systems"]["frost x2"]["raw"]["loss"]) == 4


def test_gpt_two_ranks_report_global_tokens_and_efficiency(tmp_path):
    out = tmp_path / "g"
    p = nsm_bench("gpt", *TINY, "--nproc", "2", "--out", str(out), cwd=tmp_path)
    assert "Frost scaling, 2 ranks:" in p.stdout
    rep = json.loads((out / "report.json").read_text())
    check_scaling(rep, "tokens_per_s", 4 * 32)
    # each train line holds both ranks' offsets: 2 x batch 4
    train = [ln for ln in (out / "batches.txt").read_text().splitlines() if ln.startswith("train")]
    assert len(train) == 5 and all(len(ln.split()) == 1 + 8 for ln in train)


@pytest.mark.parametrize("bench", ["resnet18", "gpt"])
def test_torch_comparison_with_nproc_is_refused(tmp_path, bench):
    p = nsm_bench(bench, "--compare", "torch", "--nproc", "2", "--out", str(tmp_path / "x"),
                  cwd=tmp_path, ok=False)
    assert p.returncode == 1
    assert p.stderr == (
        "error: --compare torch with --nproc 2: the PyTorch side of nsm bench runs as one process, "
        "not as DistributedDataParallel ranks\n"
        "hint: drop --compare torch to measure Frost's scaling, or run python "
        "bench/distributed/run.py for Frost against PyTorch DDP over Gloo\n")
