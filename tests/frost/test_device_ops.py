"""The ops with device kernels of their own (issue 19: convolution, pooling, batch norm, losses,
max/min/argmax, index_select, gather, embedding, int64 and bool comparisons, exact sums and
creation) on "cuda" against the fake driver
(tests/kernels/c/fake_cuda.c, kernels run through their CPU twins): values and gradients equal
the CPU path's (oneDNN, plain loops) to float rounding, and the fake driver's log shows the
op's own kernels ran, not host copies."""
from __future__ import annotations

import os
import subprocess

import numpy as np

from .helpers import HERE, NSM, run_nv
from .test_device import fake, on_cuda, parse as rows  # noqa: F401  (the fake driver fixture)

DRIVER = HERE / "device_ops_driver.nv"

# Every kernel that the driver's ops must launch on cuda.
KERNELS = {
    "conv_kernels": ["conv_gemm_k", "channel_sums_k", "pool_k", "pool_backward_k",
                     "adaptive_pool_k", "adaptive_pool_backward_k", "bn_stats_k", "bn_apply_k",
                     "bn_running_k", "bn_grad_sums_k", "bn_backward_k"],
    "index_kernels": ["check_index_k", "index_select_k", "index_add_k", "gather_k",
                      "scatter_add_k", "nll_k", "nll_backward_k", "smoothing_weights_k",
                      "extreme_k", "extreme_backward_k"],
    "attention": ["mask_scores_k"],
    "dtypes": ["convert_k"],
    "int_kernels": ["strided_i64_k", "strided_u8_k", "compare_i64_k", "sum_i64_k",
                    "arange_i64_k", "arange_f32_k"],
}


def test_device_ops_match_the_cpu_path(fake, tmp_path):  # noqa: F811
    cpu = rows(run_nv(DRIVER, "ops", "cpu", cwd=tmp_path, env={"NEVE_DEVICE": "cpu"}).stdout)
    log = tmp_path / "calls.log"
    gpu = rows(run_nv(DRIVER, "ops", "cuda", cwd=tmp_path, env=on_cuda(fake, log)).stdout)
    assert [r[0] for r in cpu] == [r[0] for r in gpu]
    assert len(cpu) == 54 + 8
    for (label, dev, want), (_, gdev, got) in zip(cpu, gpu):
        assert (dev, gdev) == ("cpu", "cuda:0"), label
        assert got.shape == want.shape, label
        # the conv GEMM and the f64 channel sums add in another order than oneDNN
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=3e-6, err_msg=label)
    ran = {c.split()[1] for c in log.read_text().splitlines() if c.startswith("twin ")}
    want_k = {f"nv_frost__{m}_{k}" for m, ks in KERNELS.items() for k in ks}
    assert want_k <= ran, sorted(want_k - ran)


def test_a_bad_index_on_cuda_is_the_cpu_error(fake, tmp_path):  # noqa: F811
    for dev, env in [("cpu", {"NEVE_DEVICE": "cpu"}), ("cuda", on_cuda(fake, tmp_path / "l"))]:
        p = subprocess.run([NSM, "run", str(DRIVER), "badindex", dev], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600, env={**os.environ, **env})
        assert p.returncode == 1, dev
        assert ("runtime error: assertion failed: index_select(): index 3 is out of bounds for "
                "dimension with size 3") in p.stderr, dev
        assert "Traceback" not in p.stderr
