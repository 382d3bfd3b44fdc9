"""PyTorch DDP over Gloo, the configuration of ddp_bench.nv: same models, synthetic data, SGD with
momentum, one thread per rank, every step timed on rank 0; prints
`result MODEL RANKS IMAGES_PER_S WAIT_FRACTION` (images/s from the median step; the wait fraction
is not observable inside DDP: -1) and `breakdown step MS forward MS backward MS optimizer MS`
(per-step medians; DDP's all-reduce runs inside backward).

    python bench/distributed/ddp_torch.py mnist 64 60 5 2
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:   # a 1x1 projection, as frost/models' BasicBlock
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, 0, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


def resnet20() -> nn.Module:
    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    cin = 16
    for width, stride in [(16, 1), (32, 2), (64, 2)]:
        for b in range(3):
            layers.append(Block(cin, width, stride if b == 0 else 1))
            cin = width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10, bias=False)]
    return nn.Sequential(*layers)


def mnist_cnn() -> nn.Module:
    return nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))


def worker(rank: int, world: int, name: str, batch: int, steps: int, warmup: int, port: int) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = nn.parallel.DistributedDataParallel(resnet20() if name == "resnet20" else mnist_cnn())
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    shape = (batch, 3, 32, 32) if name == "resnet20" else (batch, 1, 28, 28)
    x = torch.randn(shape)
    y = torch.tensor([(i * 7 + rank) % 10 for i in range(batch)])
    times: dict[str, list[float]] = {"step": [], "forward": [], "backward": [], "optimizer": []}
    for s in range(warmup + steps):
        if s == warmup:
            dist.barrier()
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(x), y)
        t1 = time.perf_counter()
        opt.zero_grad()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        if s >= warmup:
            for k, v in zip(times, (t3 - t0, t1 - t0, t2 - t1, t3 - t2)):
                times[k].append(v)
    dist.barrier()
    med = {k: statistics.median(v) for k, v in times.items()}
    if rank == 0:
        print(f"result {name} {world} {batch * world / med['step']} -1", flush=True)
        print("breakdown " + " ".join(f"{k} {v * 1000:.3f}" for k, v in med.items()), flush=True)
    dist.destroy_process_group()


def main() -> None:
    name, batch, steps, warmup, world = sys.argv[1], *map(int, sys.argv[2:6])
    port = 29500 + os.getpid() % 1000
    mp.spawn(worker, args=(world, name, batch, steps, warmup, port), nprocs=world, join=True)


if __name__ == "__main__":
    main()
