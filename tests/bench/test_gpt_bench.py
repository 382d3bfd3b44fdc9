"""`nsm bench gpt` (issue 18): a few steps of a small GPT side by side with PyTorch from Frost's
initial weights on the same replayed batches: the first-step loss and every parameter's gradient
agree to 1e-4 (the whole forward and backward of the model, attention included), the report and
the plot are written, and bad options are refused with a message."""
from __future__ import annotations

import json

from frost.helpers import torch_or_skip

from .test_bench import nsm_bench

TINY = ["--steps", "4", "--warmup", "1", "--n-layer", "2", "--n-head", "2", "--n-embd", "32",
        "--block-size", "32", "--batch-size", "4", "--threads", "1", "--eval-interval", "2",
        "--eval-iters", "2"]


def test_first_step_agrees_with_torch(tmp_path):
    torch_or_skip()
    out = tmp_path / "gpt"
    p = nsm_bench("gpt", *TINY, "--compare", "torch", "--out", str(out), cwd=tmp_path)
    assert "Frost/PyTorch step time" in p.stdout
    rep = json.loads((out / "report.json").read_text())
    h = rep["headline"]
    assert h["first_loss_rel_diff"] <= 1e-5
    assert h["first_grad_max_rel_diff"] is not None and h["first_grad_max_rel_diff"] <= 1e-4
    for name in ("frost", "torch"):
        r = rep["systems"][name]["raw"]
        assert len(r["loss"]) == 5 and r["eval_steps"] == [2, 4, 5]
        assert 3.0 < r["loss"][0] < 4.5          # about ln(65) from nanoGPT's N(0, 0.02) init
    lf, lt = rep["systems"]["frost"]["raw"], rep["systems"]["torch"]["raw"]
    assert max(abs(a - b) for a, b in zip(lf["loss"], lt["loss"])) <= 1e-3
    assert (out / "plot.png").stat().st_size > 10_000


def test_bad_options_are_refused(tmp_path):
    p = nsm_bench("gpt", "--n-embd", "30", "--n-head", "4", "--out", str(tmp_path / "x"),
                  cwd=tmp_path, ok=False)
    assert p.returncode == 1
    assert "--n-embd 30 is not a multiple of --n-head 4" in p.stderr


def test_no_eval_batches_is_refused(tmp_path):
    p = nsm_bench("gpt", "--eval-iters", "0", "--out", str(tmp_path / "x"), cwd=tmp_path, ok=False)
    assert p.returncode == 1
    assert "--eval-iters must be at least 1, got 0 (--eval-interval 0 turns the estimates off)" \
        in p.stderr
