"""frost/models against PyTorch: parameter counts of ResNet-18 (CIFAR) and the original
benchmark's ResNet-20 layout, and equal forward outputs from the same weights (Frost's initial
state saved as safetensors, loaded by nsm/bench/torch_models.py), eval and train mode."""
from __future__ import annotations

import re

import numpy as np
import pytest

from nsm.bench.torch_models import RESNETS, build, load_safetensors

from frost.helpers import load, rel_err, run_nv, save, torch_or_skip
from pathlib import Path

HERE = Path(__file__).parent


def test_parameter_counts(tmp_path):
    p = run_nv(HERE / "models_driver.nv", "count", cwd=tmp_path)
    counts = {name: int(n) for name, n in re.findall(r"(resnet\d+) (\d+)", p.stdout)}
    assert counts == {"resnet18": 11_173_962, "resnet20": 272_464}
    torch = torch_or_skip()
    for name, spec in RESNETS.items():
        assert sum(p.numel() for p in build(name).parameters()) == spec["params"], name
    del torch


@pytest.mark.parametrize("name", ["resnet20", "resnet18"])
def test_forward_matches_pytorch(tmp_path, name):
    torch = torch_or_skip()
    n = 4
    x = np.random.default_rng(3).standard_normal((n, 3, 32, 32)).astype(np.float32)
    save(tmp_path / "x", x)
    run_nv(HERE / "models_driver.nv", "forward", str(tmp_path), name, str(n), cwd=tmp_path)
    torch.set_num_threads(2)
    model = build(name)
    load_safetensors(model, tmp_path / "init.safetensors")
    with torch.no_grad():
        model.eval()
        want = model(torch.from_numpy(x)).numpy()
        model.train()
        want_train = model(torch.from_numpy(x)).numpy()
    assert rel_err(load(tmp_path / "y", (n, 10)), want) < 1e-4
    assert rel_err(load(tmp_path / "y_train", (n, 10)), want_train) < 1e-4
