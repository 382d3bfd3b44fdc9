"""The Optimizer base and its algorithms (issue 18, part 1) against torch.optim: Adam (with L2
decay), AdamW, RMSprop (plain; centered with momentum and decay), Lion (the paper's rule, written
here in torch), parameter groups with their own lr and weight decay, clip_grad_norm_ with SGD
momentum; 10 steps from the same weights; state_dict names and values; resuming from a
state_dict; step() bumping the version counter."""
from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from .helpers import HERE, NSM, load, rel_err, run_nv, save, torch_or_skip

DRIVER = HERE / "optim_driver.nv"
STEPS = 10


@pytest.fixture(scope="module")
def optim_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("optim")
    rng = np.random.default_rng(5)
    for name, shape in [("x", (8, 5)), ("y", (8, 3)), ("w0", (3, 5)), ("b0", (3,))]:
        save(d / name, rng.standard_normal(shape))
    return d, run_nv(DRIVER, "optim", str(d), cwd=d).stdout


class Lion:
    """Chen et al. 2023, Algorithm 2, in torch (torch.optim has no Lion)."""

    def __init__(self, params, lr, betas=(0.9, 0.99), weight_decay=0.0):
        self.params, self.lr, self.betas, self.wd = list(params), lr, betas, weight_decay
        self.m = [None] * len(self.params)

    def step(self):
        import torch
        b1, b2 = self.betas
        for i, p in enumerate(self.params):
            with torch.no_grad():
                if self.m[i] is None:
                    self.m[i] = torch.zeros_like(p)
                m, g = self.m[i], p.grad
                p.mul_(1 - self.lr * self.wd)
                p.add_(torch.sign(m * b1 + g * (1 - b1)), alpha=-self.lr)
                m.mul_(b2).add_(g, alpha=1 - b2)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


def torch_run(d, kind):
    torch = torch_or_skip()
    x, y = (torch.tensor(load(d / n, s)) for n, s in [("x", (8, 5)), ("y", (8, 3))])
    lin = torch.nn.Linear(5, 3)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(load(d / "w0", (3, 5))))
        lin.bias.copy_(torch.tensor(load(d / "b0", (3,))))
    ps = list(lin.parameters())
    o = torch.optim
    opt = {"adam": lambda: o.Adam(ps, lr=0.01),
           "adam_l2": lambda: o.Adam(ps, lr=0.01, weight_decay=0.1),
           "adamw": lambda: o.AdamW(ps, lr=0.01, weight_decay=0.1),
           "lion": lambda: Lion(ps, lr=0.01, weight_decay=0.1),
           "rmsprop": lambda: o.RMSprop(ps, lr=0.01),
           "rmsprop_full": lambda: o.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1,
                                             momentum=0.9, centered=True),
           "groups": lambda: o.AdamW([{"params": [lin.weight], "lr": 0.01, "weight_decay": 0.1},
                                      {"params": [lin.bias], "lr": 0.05, "weight_decay": 0.0}]),
           "clip": lambda: o.SGD(ps, lr=0.1, momentum=0.9)}[kind]()
    losses, norms = [], []
    for _ in range(STEPS):
        loss = torch.nn.functional.mse_loss(lin(x), y)
        losses.append(loss.item())
        loss.backward()
        if kind == "clip":
            norms.append(torch.nn.utils.clip_grad_norm_(ps, 2.0).item())
        opt.step()
        opt.zero_grad()
    return lin, opt, losses, norms


@pytest.mark.parametrize("kind", ["adam", "adam_l2", "adamw", "lion", "rmsprop", "rmsprop_full",
                                  "groups", "clip"])
def test_trajectory_matches_pytorch(optim_run, kind):
    d, _ = optim_run
    lin, _, losses, norms = torch_run(d, kind)
    # 1e-6 of each tensor's largest magnitude (float32 gradients differ in their last bits)
    assert rel_err(load(d / f"{kind}.w", (3, 5)), lin.weight.detach().numpy()) < 1e-6
    assert rel_err(load(d / f"{kind}.b", (3,)), lin.bias.detach().numpy()) < 1e-6
    assert rel_err(load(d / f"{kind}.loss", (STEPS,)), np.array(losses)) < 1e-6
    if kind == "clip":
        assert min(norms) < 2.0 < max(norms)        # clipped at some steps, not at others
        assert rel_err(load(d / "clip.norm", (STEPS,)), np.array(norms)) < 1e-6


def test_loop_twins_match_the_kernels(optim_run, tmp_path):
    """With FROST_KERNELS=0 (as with a GPU present) the plain loops give the kernels' numbers."""
    d, _ = optim_run
    for name in ("x", "y", "w0", "b0"):
        (tmp_path / name).write_bytes((d / name).read_bytes())
    run_nv(DRIVER, "optim", str(tmp_path), cwd=tmp_path, env={"FROST_KERNELS": "0"})
    for kind in ("adam", "adam_l2", "adamw", "lion", "rmsprop", "rmsprop_full", "groups", "clip"):
        assert rel_err(load(tmp_path / f"{kind}.w", (3, 5)), load(d / f"{kind}.w", (3, 5))) < 1e-6, kind


def test_state_dict_matches_pytorchs(optim_run):
    torch = torch_or_skip()
    from safetensors.torch import load_file
    d, out = optim_run
    _, opt, _, _ = torch_run(d, "adamw")
    sd = opt.state_dict()
    want = []
    for i, st in sd["state"].items():
        want += [(f"state.{i}.step", "[]")] + [(f"state.{i}.{k}", str(list(v.shape)))
                                                for k, v in st.items() if k != "step"]
    for g, group in enumerate(sd["param_groups"]):
        want += [(f"param_groups.{g}.lr", "[]"), (f"param_groups.{g}.weight_decay", "[]")]
    assert re.findall(r"^state (\S+) (\[.*\])$", out, re.M) == want
    got = load_file(str(d / "adamw_state.safetensors"))
    for i, st in sd["state"].items():
        assert got[f"state.{i}.step"].item() == st["step"].item() == STEPS
        for k in ("exp_avg", "exp_avg_sq"):
            # the moments sum float32 gradients, which agree with torch's to about 1e-5
            assert rel_err(got[f"state.{i}.{k}"].numpy(), st[k].numpy()) < 1e-4
    assert got["param_groups.0.lr"].item() == pytest.approx(0.01)


def test_resume_from_state_dict_continues_the_trajectory(optim_run):
    d, _ = optim_run
    run_nv(DRIVER, "resume", str(d), cwd=d)
    np.testing.assert_array_equal(load(d / "resume.w", (3, 5)), load(d / "adamw.w", (3, 5)))


def test_step_bumps_the_version_counter(tmp_path):
    p = subprocess.run([NSM, "run", str(DRIVER), "version"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    assert p.returncode != 0
    assert ("runtime error: assertion failed: backward(): one of the variables needed for gradient "
            "computation has been modified by an inplace operation: tensor of shape [3], input 0 "
            "of mul, is at version 1; expected version 0 instead") in p.stderr, p.stderr
