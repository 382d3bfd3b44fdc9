"""PyTorch counterparts of Frost's MNIST examples (issue 8's models and settings), printing the
examples' per-epoch line: `python -m nsm.bench.mnist_torch mlp|cnn EPOCHS BATCH SEED THREADS
[INIT]` (with INIT, the initial weights are also saved there as safetensors). AdamW (weight
decay 0.01) with OneCycleLR (max_lr 1e-3, cos, beta1 0.95 -> 0.85 -> 0.95), as the examples.
Data: the bundled digits ($FROST_MNIST), normalised as the examples: (x / 255 - 0.1307) / 0.3081."""
from __future__ import annotations

import gzip
import os
import sys
import time

import numpy as np


def _idx(path: str) -> np.ndarray:
    raw = gzip.open(path, "rb").read()
    ndim = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def main(model: str, epochs: int, batch: int, seed: int, threads: int, init: str = "") -> None:
    import torch
    import torch.nn as nn
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    d = os.environ["FROST_MNIST"]

    def images(name):
        return torch.from_numpy(((_idx(f"{d}/{name}").astype(np.float32) / 255 - 0.1307) / 0.3081))

    xtr, xte = images("train-images-idx3-ubyte.gz"), images("t10k-images-idx3-ubyte.gz")
    ytr = torch.from_numpy(_idx(f"{d}/train-labels-idx1-ubyte.gz").astype(np.int64))
    yte = torch.from_numpy(_idx(f"{d}/t10k-labels-idx1-ubyte.gz").astype(np.int64))
    if model == "mlp":
        xtr, xte = xtr.reshape(-1, 784), xte.reshape(-1, 784)
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.3), nn.Linear(512, 256),
                            nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, 10))
    else:
        xtr, xte = xtr.reshape(-1, 1, 28, 28), xte.reshape(-1, 1, 28, 28)
        net = nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.3),
                            nn.Linear(128, 10))
    if init:
        from safetensors.torch import save_file
        save_file({k: v.contiguous() for k, v in net.state_dict().items()
                   if not k.endswith(("running_mean", "running_var", "num_batches_tracked"))}, init)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
    n = len(ytr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=max(1, epochs * -(-n // batch)))
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(n)
        total, batches, t0 = 0.0, 0, time.perf_counter()
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            batches += 1
        secs = time.perf_counter() - t0
        net.eval()
        with torch.no_grad():
            acc = (net(xte).argmax(1) == yte).float().mean().item()
        print(f"epoch {epoch} loss {total / batches:.4f} test_accuracy {acc * 100:.2f}% "
              f"images_per_s {n / secs:.0f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:6]), *sys.argv[6:7])
