"""int64 and bool tensors (issue 17): their own storage (int64 values beyond float32's 2^24 stay
exact), creation, conversions with PyTorch's rounding, comparisons giving bool, views, where and
masked_fill with bool masks, int64 indices and targets, printing, item; and the dtype errors of
ops that take float32 only, each naming the op and the dtypes."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from .helpers import HERE, NSM, torch_or_skip


def run_mode(mode: str, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    return subprocess.run([NSM, "run", str(HERE / "dtypes_driver.nv"), mode], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def values(tmp_path_factory) -> dict[str, str]:
    p = run_mode("values", tmp_path_factory.mktemp("dtypes"))
    assert p.returncode == 0, p.stderr[-3000:]
    out = {}
    for line in p.stdout.strip().splitlines():
        name, _, rest = line.partition(": ")
        out[name] = rest
    return out


EXPECTED = {
    "print_int": "tensor([[1, 2, 3], [4, 5, 6]])",
    "print_bool": "tensor([True, False])",
    "print_0d": "tensor(7) tensor(True)",
    "big": "[1099511627777, -9007199254740993]",
    "dtypes": "int64 float32 bool float32",
    "transpose": "tensor([[1, 4], [2, 5], [3, 6]]) false [1, 4, 2, 5, 3, 6]",
    "view_write": "[0, 2, 0, 0, 5, 0]",
    "long": "[1, -2, 0, 3]",
    "bool": "[1, 0, 0, 1]",
    "float": "[3.0, -4.0] tensor([1.0, 0.0])",
    "to_same": "true",
    "arange_int": "[0, 3, 6, 9] [5, 3, 1] 0",
    "zeros_ones": "tensor([0, 0, 0]) tensor([True, True]) tensor([-2, -2])",
    "gt_mixed": "bool tensor([[False, True, False], [False, True, False]])",
    "eq_exact": "tensor([False, True])",
    "lt_float": "tensor([True, False, False])",
    "sum_bool": "int64 2 tensor([0, 2, 0]) [2, 1]",
    "items": "5.0 5 5 0",
    "max_dim": "int64 tensor([2, 2]) tensor(1)",
    "masked_fill": "[100.0, -2.0, 100.0, -4.0] [0.0, 2.0, 0.0, 4.0]",
    "where_bool": "[10.0, -4.0, 10.0, -8.0]",
    "mixed_arith": "[0.0, 1.0, 0.0, 0.0, 2.5, 0.0] [1.0, 2.0, 1.0, 1.0, 2.0, 1.0]",
    "index_select": "[30.0, 31.0, 10.0, 11.0] [1, 2, 2]",
    "copy_": "[1, -1, 7] [1.0, 0.0]",
    "clone": "bool int64",
    "cat_int": "int64 tensor([[1, 2], [3, 4]]) tensor([[False, False], [True, True], [False, False]])",
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_values(values, name):
    assert values[name] == EXPECTED[name]


def test_conversions_and_masks_match_pytorch():
    """The conversions and mask ops above give PyTorch's values."""
    torch = torch_or_skip()
    assert torch.tensor([1.5, -2.7, 0.0, 3.99]).long().tolist() == [1, -2, 0, 3]
    assert torch.tensor([1.5, 0.0, -0.0, 2.0]).bool().int().tolist() == [1, 0, 0, 1]
    x = torch.tensor([[1.0, -2.0], [3.0, -4.0]], dtype=torch.float64, requires_grad=True)
    y = x.masked_fill(torch.tensor([True, False]), 100.0)
    (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)).sum().backward()
    assert y.flatten().tolist() == [100.0, -2.0, 100.0, -4.0]
    assert x.grad.flatten().tolist() == [0.0, 2.0, 0.0, 4.0]
    w = torch.where(x < 0, x * 2.0, torch.full((2, 1), 10.0, dtype=torch.float64))
    assert w.flatten().tolist() == [10.0, -4.0, 10.0, -8.0]


def test_cross_entropy_int64_target(values):
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], dtype=np.float32).astype(np.float64)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    want = -(logp[0, 0] + logp[1, 1]) / 2
    assert abs(float(values["cross_entropy"]) - want) <= 1e-5 * abs(want)


ERRORS = {
    "exp_int": "exp(): expected a tensor of dtype float32, got int64",
    "matmul_int": "matmul(): expected tensors of dtype float32, got float32 and int64",
    "softmax_bool": "softmax(): expected a tensor of dtype float32, got bool",
    "index_float": "index_select(): expected an index tensor of dtype int64, got float32",
    "target_float": "cross_entropy() target: expected an index tensor of dtype int64, got float32",
    "mask_float": "masked_fill(): expected a mask of dtype bool, got float32",
    "requires_grad_int": "requires_grad_(): only Tensors of floating point dtype can require gradients, got int64",
    "where_int": "where(): expected a condition of dtype bool (or a float32 0/1 mask), got int64",
    "unknown_dtype": 'to(): unknown dtype "float16" (float32, int64, bool)',
    "mean_int": "mean(): expected a tensor of dtype float32, got int64",
    "cat_mixed": "cat(): expected tensors of one dtype, got float32 and int64",
    "item_int_float": "item_int(): expected a tensor of dtype int64 or bool, got float32",
}


@pytest.mark.parametrize("mode", list(ERRORS))
def test_dtype_errors(tmp_path, mode):
    p = run_mode(mode, tmp_path)
    assert p.returncode == 1, p.stdout
    assert "runtime error: assertion failed: " + ERRORS[mode] in p.stderr, p.stderr[-2000:]
    assert "no error" not in p.stdout
