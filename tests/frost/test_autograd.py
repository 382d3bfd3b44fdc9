"""Autograd safety (issue 17): Frost raises where PyTorch raises (a freed graph reused, backward
on a loss needing no grad, in-place writes to saved tensors, view() of a non-contiguous tensor)
and otherwise matches PyTorch's gradients (retain_graph, an in-place write backward does not
read)."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from .helpers import HERE, NSM, torch_or_skip

W = [2.0, -1.0, 0.5]
X = [1.0, 3.0, -2.0]


def run_mode(mode: str, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    return subprocess.run([NSM, "run", str(HERE / "autograd_driver.nv"), mode], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=env)


def grad_of(p: subprocess.CompletedProcess) -> np.ndarray:
    assert p.returncode == 0, p.stderr[-2000:]
    return np.array(eval(p.stdout.strip().splitlines()[-1]))


def torch_grad(mode: str) -> np.ndarray:
    torch = torch_or_skip()
    w = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    x = torch.tensor(X, dtype=torch.float64)
    if mode == "retain":
        h = w * w
        (h * 3).sum().backward(retain_graph=True)
        (h * h).sum().backward()
    else:
        l = (w + x).sum()
        with torch.no_grad():
            x.fill_(2.0)
        l.backward()
    return w.grad.numpy()


@pytest.mark.parametrize("mode", ["retain", "inplace_unread"])
def test_gradients_match_pytorch(tmp_path, mode):
    got = grad_of(run_mode(mode, tmp_path))
    np.testing.assert_allclose(got, torch_grad(mode), rtol=1e-6)


def test_grad_mode_is_per_thread(tmp_path):
    """no_grad() on a worker thread leaves the main thread recording; a new thread starts with
    grad enabled (PyTorch's thread-local grad mode)."""
    p = run_mode("thread_nograd", tmp_path)
    lines = p.stdout.strip().splitlines()
    assert lines[:2] == ["worker true false false", "main true true"], p.stdout + p.stderr[-2000:]
    np.testing.assert_allclose(grad_of(p), 2 * np.array(W) * np.array(X), rtol=1e-6)


def test_threads_training_at_once_match_sequential_runs(tmp_path):
    """Two threads train small models at once on the one tape ($Backprop): each thread's losses
    and final weights equal the same run alone (the two runs differ from each other)."""
    p = subprocess.run([NSM, "run", str(HERE / "autograd_driver.nv"), "thread_train", "200"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    assert (p.returncode, p.stdout.splitlines()[-1:]) == (0, ["same true true false"]), p.stderr


def test_threads_recording_at_once_get_distinct_increasing_seqs(tmp_path):
    """The tape's sequence numbers (backward's order) stay distinct and increasing per thread
    when 4 threads record 50000 operations each at once (an atomic counter)."""
    p = subprocess.run([NSM, "run", str(HERE / "autograd_driver.nv"), "thread_seq", "50000"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    assert (p.returncode, p.stdout.splitlines()[-1:]) == (
        0, ["distinct 200000 of 200000, increasing 199996 of 199996"]), p.stderr


ERRORS = {
    "freed": "Trying to backward through the graph a second time",
    "twice": "Trying to backward through the graph a second time",
    "nograd": "element 0 of tensors does not require grad and does not have a grad_fn",
    "inplace": "modified by an inplace operation: tensor of shape [3], input 1 of mul, is at version 1; expected version 0",
    "inplace_view": "modified by an inplace operation: tensor of shape [3], input 1 of mul, is at version 1; expected version 0",
    "inplace_output": "modified by an inplace operation: the output of relu (shape [3]) is at version 1; expected version 0",
    "view_noncontiguous": "view size is not compatible with input tensor's size and stride (shape [3, 2], strides [1, 3]); use reshape() instead",
}


@pytest.mark.parametrize("mode", list(ERRORS))
def test_runtime_error_where_pytorch_raises(tmp_path, mode):
    p = run_mode(mode, tmp_path)
    assert p.returncode != 0, p.stdout
    assert ERRORS[mode] in p.stderr, p.stderr[-2000:]
    assert "Traceback" not in p.stderr
