"""FROST_PROFILE=1: a small CNN's training steps profiled per op (forward, backward, native
kernels, optimizer step) with exact call counts and FLOPs, reset() dropping the warm-up step, the
table on stderr at exit and the JSON in FROST_PROFILE_JSON; nothing printed when it is off."""
from __future__ import annotations

import json
from pathlib import Path

from frost.helpers import run_nv

HERE = Path(__file__).parent
STEPS = 3


def test_profile_names_each_op_with_its_calls(tmp_path):
    out = tmp_path / "profile.json"
    p = run_nv(HERE / "profile_driver.nv", str(STEPS), "1", cwd=tmp_path,
               env={"FROST_PROFILE": "1", "FROST_PROFILE_JSON": str(out)})
    assert "enabled true" in p.stdout
    rep = json.loads(out.read_text())
    ops = {o["op"]: o for o in rep["ops"]}
    per_step = {"conv2d": 1, "conv2d backward": 1, "dnnl.conv_fwd": 1, "dnnl.conv_bwd_weights": 1,
                "batch_norm2d": 1, "batch_norm_fwd": 1, "batch_norm2d backward": 1,
                "batch_norm_bwd": 1, "relu": 1, "relu backward": 1, "pool2d": 1,
                "dnnl.max_pool_fwd": 1, "pool2d backward": 1, "dnnl.max_pool_bwd": 1,
                "linear": 1, "linear backward": 1, "blas.sgemm": 3, "cross_entropy": 1,
                "optimizer step": 1}
    for name, k in per_step.items():
        assert ops[name]["calls"] == k * STEPS, (name, ops[name])
    # the input needs no gradient: no backward-data convolution
    assert "dnnl.conv_bwd_data" not in ops
    # 2 N OC OH OW C KH KW per forward convolution
    assert abs(ops["dnnl.conv_fwd"]["gflop"] - STEPS * 2 * 4 * 4 * 8 * 8 * 2 * 9 / 1e9) < 1e-9
    assert ops["dnnl.conv_fwd"]["gflop_per_s"] > 0 and ops["relu"]["gflop"] == 0
    # own times add up to the total; the backward node includes its kernel
    assert abs(sum(o["total_ms"] for o in rep["ops"]) - rep["total_ms"]) < 0.01
    assert ops["conv2d backward"]["inclusive_ms"] >= ops["dnnl.conv_bwd_weights"]["inclusive_ms"]
    assert [o["total_ms"] for o in rep["ops"]] == sorted((o["total_ms"] for o in rep["ops"]), reverse=True)
    # the marked steps: each one's op time (the warm-up step's mark reset away), their median
    # and mean, which add up to the total
    steps = rep["step_ms"]
    assert rep["steps"] == STEPS == len(steps) and rep["median_step_ms"] == sorted(steps)[1]
    assert abs(rep["mean_step_ms"] - sum(steps) / STEPS) < 1e-3
    assert abs(sum(steps) - rep["total_ms"]) < 0.01
    table = p.stderr[p.stderr.index("frost profile:"):]
    assert table.splitlines()[1] == (f"per step: median {rep['median_step_ms']:.1f} ms of ops over "
                                     f"{STEPS} steps (mean {rep['mean_step_ms']:.1f} ms)")
    assert table.splitlines()[2].split() == ["op", "calls", "total", "ms", "%", "incl", "ms", "GFLOP/s"]
    assert any(line.split()[:2] == ["dnnl.conv_fwd", str(STEPS)] for line in table.splitlines())
    # a name longer than the default column widens it: the header and every row, fixed-width
    # columns after the name, have one length
    assert ops["a user scope named longer than the op column"]["calls"] == STEPS
    rows = table.splitlines()[2:len(rep["ops"]) + 3]
    assert len({len(r) for r in rows}) == 1, rows


def test_profile_off_records_nothing(tmp_path):
    p = run_nv(HERE / "profile_driver.nv", "1", "0", cwd=tmp_path, env={"FROST_PROFILE": "0"})
    assert "enabled false" in p.stdout and "frost profile" not in p.stderr
