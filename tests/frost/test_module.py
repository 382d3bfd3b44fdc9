"""nn.Module, its containers, the Dataset base and AutogradFunction (issue 18, part 1): state_dict
names equal PyTorch's for the same tree and load into it strictly; a user-defined layer inside
Sequential; load_state_dict's errors; a user op's gradients against finite differences; a user
Dataset through the DataLoader."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from .helpers import HERE, NSM, load, rel_err, run_nv, save, torch_or_skip

DRIVER = HERE / "module_driver.nv"
ROOT = HERE.parents[1]


def fails(*args: str, cwd) -> str:
    """Run the driver expecting a runtime error; its stderr."""
    p = subprocess.run([NSM, "run", str(DRIVER), *args], cwd=cwd, capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    assert p.returncode != 0, p.stdout
    assert "Traceback" not in p.stderr, p.stderr
    return p.stderr


def names(stdout: str, tag: str) -> list[tuple[str, list[int]]]:
    return [(k, [int(d) for d in re.findall(r"-?\d+", s)])
            for k, s in re.findall(rf"^{tag} (\S+) (\[.*\])$", stdout, re.M)]


@pytest.fixture(scope="module")
def keys_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    save(d / "x", np.random.default_rng(0).standard_normal((4, 1, 4, 4)))
    return d, run_nv(DRIVER, "keys", str(d), cwd=d).stdout


def test_resnet_state_dict_names_equal_pytorchs_and_load_strictly(keys_run):
    torch = torch_or_skip()
    sys.path.insert(0, str(ROOT))
    from nsm.bench.torch_models import build
    from safetensors.torch import load_file
    d, out = keys_run
    m = build("resnet20")
    want = [(k, list(v.shape)) for k, v in m.state_dict().items()]
    assert names(out, "resnet20_state") == want
    assert names(out, "resnet20_param") == [(k, list(p.shape)) for k, p in m.named_parameters()]
    assert "resnet20_count 272464 64" in out
    m.load_state_dict(load_file(str(d / "resnet20.safetensors")), strict=True)
    assert m.layer2[0].shortcut[1].num_batches_tracked.item() == 0


def test_mlp_state_dict_loads_into_torch_with_the_same_output(keys_run):
    torch = torch_or_skip()
    from safetensors.torch import load_file
    d, out = keys_run
    nn = torch.nn
    m = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
    assert names(out, "mlp_state") == [(k, list(v.shape)) for k, v in m.state_dict().items()]
    m.load_state_dict(load_file(str(d / "mlp.safetensors")), strict=True)
    m.eval()
    with torch.no_grad():
        y = m(torch.tensor(load(d / "x", (4, 1, 4, 4)))).numpy()
    assert rel_err(load(d / "mlp_y", (4, 3)), y) < 1e-6


def test_user_layer_in_containers(tmp_path):
    out = run_nv(DRIVER, "tree", cwd=tmp_path).stdout.splitlines()
    assert out == [
        "forward [2.5, 0.0]",
        'modules ["", "0", "0.inner", "1", "2"]',
        'params ["0.scale", "0.inner.weight"] buffers ["0.shift"]',
        "eval =0 0=0 0.inner=0 1=0 2=0",
        "train =1 0=1 0.inner=1 1=1 2=1",
        "grad [1.0, 0.0] [2.0, -6.0, 0.0, 0.0]",
        "zero_grad true true",
        "loaded [3.0, 3.0] [1.0, 1.0] 0 0",
        'non_strict ["0.shift"] ["extra"]',
        'list 3 ["0.weight", "0.bias", "1.scale", "1.inner.weight", "2.weight", "2.bias"]',
        'dict ["enc", "head"] ["head.weight", "head.bias"] true',
        'tied ["0.weight"] ["0.weight", "1.weight"]',
    ]


@pytest.mark.parametrize("case,message", [
    ("missing", 'Error(s) in loading state_dict for Sequential: Missing key(s) in state_dict: "0.bias", "2.weight"'),
    ("unexpected", 'Error(s) in loading state_dict for Sequential: Unexpected key(s) in state_dict: "3.weight"'),
    ("shape", "size mismatch for 2.weight: copying a param with shape [3, 1] from checkpoint, "
              "the shape in current model is [1, 3]"),
])
def test_load_state_dict_errors(tmp_path, case, message):
    err = fails("load", case, cwd=tmp_path)
    assert "runtime error: assertion failed: load_state_dict: " in err and message in err, err


def test_autograd_function_against_finite_differences(tmp_path):
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((3, 4)) for _ in range(3))
    for n, v in zip("abc", (a, b, c)):
        save(tmp_path / n, v)
    out = run_nv(DRIVER, "function", str(tmp_path), cwd=tmp_path).stdout
    assert "recorded true ScaledExp" in out and "no_grad false" in out
    a, b, c = (load(tmp_path / n, (3, 4)).astype(np.float64) for n in "abc")
    f = lambda a, b: float(np.sum(a * np.exp(b) * c))
    assert rel_err(load(tmp_path / "out", (3, 4)), a * np.exp(b)) < 1e-6
    h = 1e-6
    for name, got in (("a", load(tmp_path / "ga", (3, 4))), ("b", load(tmp_path / "gb", (3, 4)))):
        fd = np.zeros((3, 4))
        for i in np.ndindex(3, 4):
            e = np.zeros((3, 4))
            e[i] = h
            fd[i] = (f(a + e, b) - f(a - e, b)) / (2 * h) if name == "a" else \
                (f(a, b + e) - f(a, b - e)) / (2 * h)
        assert rel_err(got, fd) < 1e-5, name


def test_autograd_function_catches_a_saved_tensor_modified_in_place(tmp_path):
    err = fails("function_inplace", cwd=tmp_path)
    assert ("modified by an inplace operation: tensor of shape [3], input 1 of ScaledExp, "
            "is at version 1; expected version 0 instead") in err, err


def test_user_dataset_through_the_dataloader(tmp_path):
    outs = [run_nv(DRIVER, "dataset", w, cwd=tmp_path).stdout for w in ("0", "2")]
    assert outs[0] == outs[1]                      # the same batches with worker threads
    lines = outs[0].splitlines()
    assert lines[0] == "batches 3 7"
    seen = []
    for line in lines[1:4]:
        m = re.match(r"0 \[(.*?)\] \[(.*?)\] \[(.*?)\] \[(.*?)\] \[(.*?)\]$", line)
        idx, labels, shape, inputs, targets = ([float(v) for v in g.split(", ")] for g in m.groups())
        assert labels == [i % 3 for i in idx] and targets == labels
        assert shape == [len(idx), 2, 2]
        assert inputs == [i + k for i in idx for k in range(4)]
        seen += idx
    assert sorted(seen) == list(range(7))
    assert lines[1] != lines[4]                    # a new order each epoch
