"""Training memory (issue 23 part 6): the autograd tape keeps alive only what backward reads (a
chain of shape-only ops holds none of its intermediates), and tensors the program still holds
(a view of an intermediate the tape dropped, a saved intermediate) keep their values through
backward, retain_graph and collections, also while another thread allocates."""
from __future__ import annotations

import re

import pytest

from .helpers import HERE, run_nv


@pytest.fixture(scope="module")
def lines(tmp_path_factory) -> dict[str, str]:
    out = run_nv(HERE / "memory_driver.nv", cwd=tmp_path_factory.mktemp("memory")).stdout
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w+?)_\w+ (.*)$", out, re.M)}


def test_tape_keeps_no_intermediate_of_shape_only_ops(lines):
    live = float(lines["chain"].split()[0])
    # 20 intermediates of 4 MiB each: 80 MiB and more when the tape holds them (672 before)
    assert live < 64, lines["chain"]
    assert lines["chain"].split()[1:] == ["grad_sum", "1048576.0", "grad_is_leaf_only", "true"]


def test_view_and_saved_intermediate_survive_backward(lines):
    assert lines["kept"] == ("[0.0, 1.0, 6.0] saved [6.0, -3.0, 1.5, 9.0] "
                             "grad [24.0, 0.0, 6.0, 36.0] saved_grad_nil true")


def test_retain_graph_backward_twice(lines):
    # d/dw sum(relu(w + 1) * w) = [3, 0, 7], twice
    assert lines["retain"] == "[6.0, 0.0, 14.0]"


def test_gradients_unchanged_while_another_thread_allocates(lines):
    # d/dw sum(relu(w^2 + 1) * w) = 3 w^2 + 1
    assert lines["threads"] == "true grad [1.75, 7.75, 13.0]"
