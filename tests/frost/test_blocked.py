"""Tensors kept in oneDNN's blocked layout (packages/frost/blocked.nv): a blocked convolution
output read element-wise, reshaped, viewed, printed, saved and used by non-oneDNN ops gives
exactly the plain output's values, and a conv-BN-ReLU-conv-BN-add-ReLU chain computes the plain
chain's outputs, gradients and running statistics (batch norm sums in another order: 1e-5)."""
from __future__ import annotations

import numpy as np
import pytest

from frost.helpers import HERE, load, rel_err, run_nv


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    d = tmp_path_factory.mktemp("blocked")
    p = run_nv(HERE / "blocked_driver.nv", str(d), cwd=d)
    lines = dict(line.split(" ", 1) for line in p.stdout.splitlines() if " " in line)
    return d, lines, p.stdout


def test_blocked_output_is_blocked_and_plain_is_not(result):
    _, lines, _ = result
    assert lines["layout"] == "true true [2, 16, 5, 5]"


@pytest.mark.parametrize("path", ["reshape", "view", "print", "print_long", "mul", "sum",
                                  "narrow", "clone", "alias"])
def test_read_paths_give_the_plain_values(result, path):
    _, lines, out = result
    assert lines[path] == "true", out


def test_element_access_reads_plain_and_converts_in_place(result):
    _, lines, _ = result
    assert lines["at"] == "true true"


def test_eval_batch_norm_keeps_the_layout_and_the_values(result):
    _, lines, out = result
    assert lines["eval"] == "true true", out


def test_saved_file_is_byte_identical(result):
    d, _, _ = result
    assert (d / "blocked.safetensors").read_bytes() == (d / "plain.safetensors").read_bytes()


def test_chain_stays_blocked(result):
    _, lines, out = result
    assert lines["chain_layouts"] == "true true true", out
    assert out.rstrip().endswith("done")


@pytest.mark.parametrize("name,shape", [("y", (4, 16, 6, 6)), ("gw1", (16, 16, 3, 3)),
                                        ("gw2", (16, 16, 3, 3)), ("gg1", (16,)), ("gb2", (16,)),
                                        ("rv", (16,))])
def test_chain_matches_plain(result, name, shape):
    d, _, _ = result
    got = load(d / f"{name}_blocked.f32", shape)
    want = load(d / f"{name}_plain.f32", shape)
    assert np.abs(want).max() > 0
    assert rel_err(got, want) < 1e-5, (name, rel_err(got, want))
