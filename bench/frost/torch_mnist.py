"""The PyTorch side of bench/frost: the same model, data, normalisation, batch order
(frost/data's SplitMix64 shuffle, replicated here), optimizer and schedule as
packages/frost/examples/mnist_train.nv, printing the same lines.

    python torch_mnist.py mlp|cnn --epochs 10 --seed 0 --save-init W.safetensors

--save-init writes the initial parameters (PyTorch's default initialisation under
torch.manual_seed(seed)) by state_dict name, for the Frost run to load with init=W.safetensors.
"""
from __future__ import annotations

import argparse
import gzip
import resource
import statistics
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

MNIST = Path(__file__).resolve().parents[2] / "packages" / "frost" / "data" / "mnist"
MASK = (1 << 64) - 1


def model_of(kind: str) -> nn.Sequential:
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.3),
                             nn.Linear(512, 256), nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(128, 10))


def idx(name: str) -> np.ndarray:
    raw = gzip.open(MNIST / f"{name}.gz").read()
    ndim = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def images(name: str) -> torch.Tensor:
    """u8 images -> float32 (N, 1, 28, 28) scaled by 1/255 as frost/data's gather (x * scale),
    then normalised as mnist_train.nv's x * s + t, all in float32."""
    x = idx(name).astype(np.float32) * np.float32(1.0 / 255.0)
    s = np.float32(1.0 / 0.3081)
    x = x * s + np.float32(-0.1307) * s
    return torch.from_numpy(np.ascontiguousarray(x[:, None]))


def epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    """frost/data.epoch_order: Fisher-Yates driven by SplitMix64 seeded with seed * 1000003 + epoch."""
    state = (seed * 1_000_003 + epoch) & MASK
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        j = (z >> 1) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=["mlp", "cnn"])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=0, help="default: 128 (mlp), 64 (cnn)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--train", type=int, default=0, help="first N training digits (0: all)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--save-init", default="")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    bs = a.batch or (128 if a.model == "mlp" else 64)
    torch.manual_seed(a.seed)
    model = model_of(a.model)
    if a.save_init:
        from safetensors.torch import save_file
        save_file({k: v.detach().contiguous() for k, v in model.named_parameters()}, a.save_init)
    xtr, ytr = images("train-images-idx3-ubyte"), torch.from_numpy(idx("train-labels-idx1-ubyte").astype(np.int64))
    if a.train:
        xtr, ytr = xtr[:a.train], ytr[:a.train]
    xte, yte = images("t10k-images-idx3-ubyte"), torch.from_numpy(idx("t10k-labels-idx1-ubyte").astype(np.int64))
    n = len(ytr)
    steps = (n + bs - 1) // bs
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, epochs=a.epochs, steps_per_epoch=steps)
    step_times: list[float] = []
    acc = 0.0
    for epoch in range(a.epochs):
        model.train()
        order = torch.tensor(epoch_order(n, a.seed, epoch))
        loss_sum, wait = 0.0, 0.0
        t0 = time.perf_counter()
        for b in range(steps):
            w0 = time.perf_counter()
            ix = order[b * bs:(b + 1) * bs]
            x, y = xtr[ix], ytr[ix]
            s0 = time.perf_counter()
            wait += s0 - w0
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            step_times.append(time.perf_counter() - s0)
            loss_sum += loss.item()
        secs = time.perf_counter() - t0
        model.eval()
        with torch.no_grad():
            acc = sum((model(xte[i:i + 500]).argmax(1) == yte[i:i + 500]).sum().item()
                      for i in range(0, len(yte), 500)) / len(yte)
        print(f"epoch {epoch + 1} loss {loss_sum / steps:.4f} test_accuracy {acc * 100:.2f}% "
              f"images_per_s {n / secs:.0f} data_wait {wait / secs * 100:.2f}%", flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"summary step_ms_median {statistics.median(step_times) * 1000:.3f} "
          f"test_accuracy {acc * 100:.2f}% peak_rss_mb {rss:.1f}")


if __name__ == "__main__":
    main()
