"""Benchmark data: CIFAR-10 binary files (real, or a seeded synthetic stand-in written in the same
format), and the Python replay of the Frost driver's data order and augmentation, so the PyTorch
side trains on exactly the batches Frost trains on.

Format (https://www.cs.toronto.edu/~kriz/cifar.html): records of 1 label byte and 3,072 pixel
bytes (1,024 red, 1,024 green, 1,024 blue, rows of 32). Order: frost/data's DataLoader (shuffle
by SplitMix64 seeded from (seed, epoch), drop_last); augmentation: SplitMix64 seeded from
(seed, step) in nsm/bench/drivers/resnet.nv.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import NsmError

RECORD = 3073
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


@dataclass
class CifarFiles:
    """Where the training and test records are, and whether they are synthetic."""
    train: list[Path]
    test: Path | None
    synthetic: bool
    description: str


def write_cifar(path: Path, labels: np.ndarray, pixels: np.ndarray) -> None:
    """Write labels (N,) and pixels (N, 3072) uint8 as one CIFAR-10 binary file (atomically)."""
    rec = np.empty((len(labels), RECORD), dtype=np.uint8)
    rec[:, 0] = labels
    rec[:, 1:] = pixels.reshape(len(labels), 3072)
    tmp = path.with_name(path.name + ".tmp")
    rec.tofile(tmp)
    os.replace(tmp, path)


def read_cifar(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """labels (N,) int64 and images (N, 3, 32, 32) uint8 of one CIFAR-10 binary file.
    Error: a size that is not a multiple of 3,073 bytes (NsmError naming the file)."""
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size == 0 or raw.size % RECORD:
        raise NsmError(f"{path}: {raw.size} bytes is not a whole number of CIFAR-10 records "
                       f"({RECORD} bytes each)", "use the binary version (cifar-10-batches-bin)")
    rec = raw.reshape(-1, RECORD)
    return rec[:, 0].astype(np.int64), rec[:, 1:].reshape(-1, 3, 32, 32)


def synthetic_arrays(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n seeded CIFAR-shaped samples: labels uniform in 0..9, pixels uniform in 0..127 plus
    12 x label (so a network can learn the class from brightness and the loss falls)."""
    rng = np.random.default_rng([seed, n])
    labels = rng.integers(0, 10, size=n, dtype=np.int64)
    pixels = rng.integers(0, 128, size=(n, 3072), dtype=np.int64) + 12 * labels[:, None]
    return labels.astype(np.uint8), pixels.astype(np.uint8)


def synthetic_files(folder: Path, seed: int, n_train: int, n_test: int) -> CifarFiles:
    """Write the synthetic stream for seed as CIFAR-10 binary files under folder (reused when
    already there) and return them."""
    folder.mkdir(parents=True, exist_ok=True)
    train = folder / f"synthetic_train_s{seed}_n{n_train}.bin"
    test = folder / f"synthetic_test_s{seed}_n{n_test}.bin"
    for path, count, s in ((train, n_train, seed), (test, n_test, seed + 1_000_000)):
        if not path.exists() or path.stat().st_size != count * RECORD:
            write_cifar(path, *synthetic_arrays(s, count))
    return CifarFiles([train], test, True,
                      f"synthetic CIFAR-shaped stream (seed {seed}; {n_train} train / {n_test} "
                      f"test samples, random pixels with a class-dependent offset): NOT real data")


def cifar_files(root: str) -> CifarFiles:
    """The CIFAR-10 binary batches in root or root/cifar-10-batches-bin: data_batch_*.bin
    (train) and test_batch.bin (optional). Error: no training batch (NsmError)."""
    base = Path(root)
    if not base.is_dir():
        raise NsmError(f"--data {root}: no such folder")
    if not list(base.glob("data_batch_*.bin")) and (base / "cifar-10-batches-bin").is_dir():
        base = base / "cifar-10-batches-bin"
    train = sorted(base.glob("data_batch_*.bin"))
    if not train:
        raise NsmError(f"--data {root}: no data_batch_*.bin files",
                       "point --data at CIFAR-10's binary version (cifar-10-batches-bin)")
    for f in train:
        read_cifar(f)                       # validates the size with a clear error
    test = base / "test_batch.bin"
    n = sum(f.stat().st_size for f in train) // RECORD
    return CifarFiles(train, test if test.exists() else None, False,
                      f"CIFAR-10 binary from {base} ({n} train samples)")


# ---------------------------------------------------------------- replay of the Frost driver

class SplitMix:
    """SplitMix64 exactly as frost/data.nv's SplitMix (64-bit wrap-around, logical shifts)."""

    def __init__(self, seed: int):
        self.state = seed & MASK

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next_u64() >> 1) % n


def epoch_order(n: int, seed: int, epoch: int) -> np.ndarray:
    """frost/data's epoch_order(n, shuffle=true, seed, epoch): a Fisher-Yates shuffle."""
    order = list(range(n))
    rng = SplitMix(seed * 1_000_003 + epoch)
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return np.asarray(order, dtype=np.int64)


def aug_params(seed: int, step: int, n: int, pad: int, flip: bool):
    """The driver's aug_params: (dy, dx, flip) arrays for the n samples of one step."""
    rng = SplitMix(seed * 1_000_003 + 0x5851F42D4C957F2D + step * 7_919)
    draws = np.array([[rng.below(9), rng.below(9), rng.below(2)] for _ in range(n)],
                     dtype=np.int64).reshape(n, 3)
    span = 2 * pad + 1
    dy = draws[:, 0] % span if pad > 0 else np.zeros(n, np.int64)
    dx = draws[:, 1] % span if pad > 0 else np.zeros(n, np.int64)
    fl = draws[:, 2] if flip else np.zeros(n, np.int64)
    return dy, dx, fl


def crop_flip_normalize(x: np.ndarray, dy, dx, fl, pad: int, mean, std) -> np.ndarray:
    """frost/transforms' crop_flip_normalize in float32: x (N, C, H, W) in [0, 1]."""
    n, c, h, w = x.shape
    mean = np.asarray(mean, np.float32)[None, :, None, None]
    std = np.asarray(std, np.float32)[None, :, None, None]
    if pad > 0:
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        out = np.empty_like(x)
        for k in range(n):
            out[k] = xp[k, :, dy[k]:dy[k] + h, dx[k]:dx[k] + w]
    else:
        out = x.copy()
    flipped = np.asarray(fl) != 0
    out[flipped] = out[flipped][..., ::-1]
    return (out - mean) / std


class Batches:
    """The driver's batches in order: (step, labels, float32 images in [0, 1]) per step, for
    train images (N, 3, 32, 32) uint8, with frost/data's shuffle and drop_last."""

    def __init__(self, labels: np.ndarray, images: np.ndarray, batch: int, seed: int):
        if len(labels) < batch:
            raise NsmError(f"{len(labels)} training samples are fewer than one batch of {batch}")
        self.labels, self.images, self.batch, self.seed = labels, images, batch, seed
        self.per_epoch = len(labels) // batch
        self.epoch, self.order, self.pos = -1, None, self.per_epoch

    def next(self) -> tuple[np.ndarray, np.ndarray]:
        if self.pos == self.per_epoch:
            self.epoch += 1
            self.order = epoch_order(len(self.labels), self.seed, self.epoch)
            self.pos = 0
        idx = self.order[self.pos * self.batch:(self.pos + 1) * self.batch]
        self.pos += 1
        x = self.images[idx].astype(np.float32) * np.float32(1.0 / 255.0)
        return self.labels[idx], x
