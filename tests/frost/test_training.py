"""Training with Frost against PyTorch CPU: optimizer trajectories (SGD plain, with momentum,
dampening and weight decay, Nesterov; AdamW) over 20 steps from the same weights to 1e-5; a small
full model's loss and gradients; a one-epoch MNIST run on 2,000 digits; bounded memory."""
from __future__ import annotations

import re

import numpy as np
import pytest

from .helpers import FROST, HERE, load, rel_err, run_nv, save, torch_or_skip

KINDS = ["sgd", "sgd_momentum", "sgd_nesterov", "adamw"]


@pytest.fixture(scope="module")
def optim_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("optim")
    rng = np.random.default_rng(5)
    for name, shape in [("x", (8, 5)), ("y", (8, 3)), ("w0", (3, 5)), ("b0", (3,))]:
        save(d / name, rng.standard_normal(shape))
    for kind in KINDS:
        run_nv(HERE / "train_driver.nv", "optim", str(d), kind, cwd=d)
    return d


@pytest.mark.parametrize("kind", KINDS)
def test_optimizer_trajectory_matches_pytorch(optim_dir, kind):
    torch = torch_or_skip()
    d = optim_dir
    x, y = (torch.tensor(load(d / n, s)) for n, s in [("x", (8, 5)), ("y", (8, 3))])
    lin = torch.nn.Linear(5, 3)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(load(d / "w0", (3, 5))))
        lin.bias.copy_(torch.tensor(load(d / "b0", (3,))))
    opt = {"sgd": lambda p: torch.optim.SGD(p, lr=0.05),
           "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.1,
                                                     weight_decay=0.01),
           "sgd_nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01,
                                                     nesterov=True),
           "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, betas=(0.9, 0.999), eps=1e-8,
                                                weight_decay=0.1)}[kind](lin.parameters())
    losses = []
    for _ in range(20):
        loss = torch.nn.functional.mse_loss(lin(x), y)
        losses.append(loss.item())
        loss.backward()
        opt.step()
        opt.zero_grad()
    np.testing.assert_allclose(load(d / f"{kind}.w", (3, 5)), lin.weight.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(load(d / f"{kind}.b", (3,)), lin.bias.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(load(d / f"{kind}.loss", (20,)), losses, rtol=1e-5, atol=1e-5)


def test_small_model_matches_pytorch(tmp_path):
    torch = torch_or_skip()
    nn = torch.nn
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(1, 4, 3, 1, 1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(4, 6, 3, 2, 1), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
                      nn.Linear(6, 5), nn.ReLU(), nn.Dropout(0.0), nn.Linear(5, 3))
    params = list(m.parameters())
    for i, p in enumerate(params):
        save(tmp_path / f"p{i}", p.detach().numpy())
    x = torch.randn(4, 1, 8, 8)
    t = torch.tensor([0, 2, 1, 2])
    save(tmp_path / "x", x.numpy())
    save(tmp_path / "t", t.numpy().astype(np.float32))
    run_nv(HERE / "train_driver.nv", "model", str(tmp_path), cwd=tmp_path)
    loss = nn.functional.cross_entropy(m(x), t)
    loss.backward()
    assert rel_err(load(tmp_path / "loss", ()), loss.detach().numpy()) < 1e-4
    for i, p in enumerate(params):
        assert rel_err(load(tmp_path / f"g{i}", tuple(p.shape)), p.grad.numpy()) < 1e-3, f"param {i}"
    m.eval()
    with torch.no_grad():
        assert rel_err(load(tmp_path / "eval", (4, 3)), m(x).numpy()) < 1e-4


@pytest.mark.parametrize("kernels", ["1", "0"])
def test_dropout_mask(tmp_path, kernels):
    """Dropout zeroes a fraction p, scales the rest by 1 / (1 - p), draws a new mask per call,
    backpropagates through the same mask, and gives the same masks as Neve kernels and as loops."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (200, 500))
    save(tmp_path / "x", x)
    run_nv(HERE / "train_driver.nv", "dropout", str(tmp_path), cwd=tmp_path,
           env={"FROST_KERNELS": kernels})
    x = load(tmp_path / "x", (200, 500))
    d1, d2, g = (load(tmp_path / n, (200, 500)) for n in ("drop1", "drop2", "dgrad"))
    keep1, keep2 = d1 != 0, d2 != 0
    assert abs(1 - keep1.mean() - 0.3) < 0.01 and abs(1 - keep2.mean() - 0.3) < 0.01
    np.testing.assert_allclose(d1[keep1], x[keep1] / np.float32(0.7), rtol=1e-6)
    assert (keep1 != keep2).mean() > 0.3          # a new mask per call
    np.testing.assert_allclose(g, np.where(keep1, x / np.float32(0.7), 0), rtol=1e-6)
    want = tmp_path.parent / "dropout_masks.npy"  # same masks with kernels on and off
    if want.exists():
        np.testing.assert_array_equal(np.load(want), keep1)
    else:
        np.save(want, keep1)


def test_mnist_one_epoch_on_2000_digits(tmp_path):
    """The CNN example with its DataLoader and one-cycle schedule, one epoch over the first 2,000
    training digits (batch 16, max lr 2e-3): >= 90% on the 2,000 test digits (92.3% here; the
    MLP reaches only ~88% in one such epoch, the schedule's warm-up taking 30% of it)."""
    p = run_nv(FROST / "examples" / "mnist_cnn.nv", "epochs=1", "train=2000", "batch=16",
               "lr=0.002", cwd=FROST.parents[1])
    acc = float(re.search(r"test_accuracy ([0-9.]+)%", p.stdout).group(1))
    assert acc >= 90.0, p.stdout


def test_memory_is_bounded_in_a_training_loop(tmp_path):
    """RSS at step 500 within 10 MB of step 50 (issue 8, part 6)."""
    p = run_nv(HERE / "train_driver.nv", "rss", "500", cwd=tmp_path)
    rss = {int(s): int(b) for s, b in re.findall(r"rss (\d+) (\d+)", p.stdout)}
    assert rss[500] - rss[50] < 10 * 2**20, p.stdout
