"""Datasets and the DataLoader of packages/frost/data.nv: IDX readers (raw and gzipped, every
IDX type) and CIFAR binary batches on small files the tests write; the bundled MNIST subset
(counts, shapes, known labels, the class histogram of its README, pixel values); the DataLoader
delivering every sample exactly once per epoch with 0, 1, 2 and 4 workers, in the same order
whatever the number of workers, shuffled by seed (a new order each epoch), drop_last, batches
that hold the right samples, clean shutdown (threads joined by close(), a loop left early still
lets the program end), and the data-wait measurement. One Neve program serves every test (a
case per command-line argument), so it compiles once."""
from __future__ import annotations

import gzip
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

NSM = [str(Path(sys.executable).parent / "nsm")]
MNIST = Path(__file__).resolve().parents[2] / "packages" / "frost" / "data" / "mnist"

PROGRAM = """
import frost
import frost/data

def void show_idx(str path)
    array<int> shape
    int code
    shape, code = data.idx_shape(path)
    array<float> v
    array<int> s
    v, s = data.read_idx(path)
    print(code, "|", shape, "|", v)
    if code == 8
        array<u8> b
        b, s = data.read_idx_u8(path)
        print(b)

def void show_dataset(data.ArrayDataset d)
    print(d.size(), "|", d.sample_shape, "|", d.targets)
    [0..d.size()] i
        print(d.sample(i) mapit x: int(round(x * 255.0)))

# A float dataset of n samples of shape (2, 3): sample i holds i, i + 0.5, ... ; class i % 10.
def data.Dataset numbered(int n)
    array<float> vals
    array<int> labels
    [0..n] i
        [0..6] j
            vals.append(float(i) + float(j) * 0.5)
        labels.append(i % 10)
    return data.float_dataset(vals, [2, 3], labels)

def int threads()
    for line in read_lines("/proc/self/status")
        if line.startswith("Threads:")
            return to_int(line[8:])
    return -1

# Whether the thread count comes back to n within a second: a joined thread can still be
# counted in /proc for a moment after pthread_join returns, on a loaded machine.
def bool threads_back_to(int n)
    [0..100]
        if threads() == n
            return true
        sleep(0.01)
    return false

# Every epoch: batch sizes, whether every sample came once (drop_last: at most once), whether
# each batch holds the samples its indices name, and the order.
def void loader(int workers, bool shuffle, int seed, bool drop, int bs, int epochs, int n)
    data.Dataset ds = numbered(n)
    data.DataLoader dl = new data.DataLoader(ds, batch_size=bs, shuffle=shuffle, seed=seed, drop_last=drop, num_workers=workers)
    [0..epochs] e
        array<int> seen = zeros_int(n)
        array<int> sizes
        array<int> order
        bool right = true
        dl.start()
        while dl.has_next()
            data.Batch b = dl.next()
            sizes.append(b.size())
            right = right and b.inputs.shape == [b.size(), 2, 3] and b.targets.shape == [b.size()]
            [0..b.size()] k
                int i = b.indices[k]
                order.append(i)
                seen[i] += 1
                right = right and b.labels[k] == i % 10 and b.targets.idata[k] == i % 10 and b.targets.dtype == "int64"
                [0..6] j
                    right = right and b.inputs.data[k * 6 + j] == float(i) + float(j) * 0.5
        print(dl.size(), "|", sizes, "|", seen.min(), "|", seen.max(), "|", right, "|", order)
    dl.close()

def void shutdown()
    data.DataLoader dl = new data.DataLoader(numbered(500), batch_size=4, shuffle=true, num_workers=4)
    int before = threads()
    [0..3] e
        dl.start()
        int k = 0
        while dl.has_next()
            data.Batch b = dl.next()
            k += 1
            if k == 5 + e
                break
        dl.close()
        print(threads_back_to(before))
    # left early without close(): the workers stay blocked, and main may still end
    int k = 0
    [0..dl.size()]
        data.Batch b = dl.next()
        k += 1
        if k == 3
            break
    print("left", " ", dl.has_next())

# Seconds of loading while the consumer works ~work_ms per step, as the wait fraction.
def void wait(int workers, f64 work_ms)
    data.DataLoader dl = new data.DataLoader(data.MNIST(), batch_size=128, shuffle=true, num_workers=workers)
    dl.next()
    dl.reset_stats()
    f64 t0 = clock()
    int images = 0
    while dl.has_next()
        data.Batch b = dl.next()
        images += b.size()
        f64 until = clock() + work_ms / 1000.0
        while clock() < until
            pass
    f64 total = clock() - t0
    print(dl.batches_served(), " ", images, " ", dl.wait_seconds(), " ", total, " ", dl.wait_seconds() / total)

main
    array<str> a = argv()
    str case = a[1]
    if case == "idx"
        show_idx(a[2])
    elif case == "cifar"
        show_dataset(data.CIFAR10(a[2], train=a[3] == "train"))
    elif case == "cifar100"
        show_dataset(data.read_cifar(a[2], label_bytes=2))
    elif case == "mnist"
        data.ArrayDataset tr = data.MNIST()
        data.ArrayDataset te = data.MNIST(train=false)
        print(tr.size(), " ", te.size(), " ", tr.sample_shape, " ", te.sample_shape)
        print(tr.targets[0:10], " ", te.targets[0:10], " ", te.targets[-5:])
        array<int> h = zeros_int(10)
        for t in tr.targets
            h[t] += 1
        for t in te.targets
            h[t] += 1
        print(h)
        array<float> s = tr.sample(0)
        print(s.size(), " ", s.min(), " ", s.max(), " ", s mapit x: int(round(x * 255.0)))
    elif case == "loader"
        loader(to_int(a[2]), a[3] == "shuffle", to_int(a[4]), a[5] == "drop", to_int(a[6]), to_int(a[7]), to_int(a[8]))
    elif case == "shutdown"
        shutdown()
    elif case == "wait"
        wait(to_int(a[2]), to_f64(a[3]))
    print("done")
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("data_prog") / "data_cases.nv"
    path.write_text(PROGRAM.lstrip())
    return path


def run(prog: Path, *args: str, cwd: Path | None = None, timeout: float = 300) -> list[str]:
    p = subprocess.run(NSM + ["run", str(prog), *args], cwd=cwd or prog.parent,
                       capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[-1] == "done"
    return lines[:-1]


def ints(text: str) -> list[int]:
    return [int(x) for x in text.strip(" []").split(",") if x.strip()]


def floats(text: str) -> list[float]:
    return [float(x) for x in text.strip(" []").split(",") if x.strip()]


def write_idx(path: Path, arr: np.ndarray, code: int, big: str) -> None:
    head = bytes([0, 0, code, arr.ndim]) + b"".join(struct.pack(">i", d) for d in arr.shape)
    body = head + arr.astype(big).tobytes()
    path.write_bytes(gzip.compress(body) if path.suffix == ".gz" else body)


def test_idx_every_type_raw_and_gzipped(prog, tmp_path):
    rng = np.random.default_rng(0)
    cases = [
        ("u8.idx", rng.integers(0, 256, (3, 4, 5)).astype(np.uint8), 0x08, ">u1"),
        ("u8.idx.gz", rng.integers(0, 256, (7,)).astype(np.uint8), 0x08, ">u1"),
        ("i8.idx", np.array([-128, 0, 127], np.int8), 0x09, ">i1"),
        ("i16.idx.gz", np.array([[-300, 2], [32767, -32768]], np.int16), 0x0B, ">i2"),
        ("i32.idx", np.array([-70000, 1 << 20], np.int32), 0x0C, ">i4"),
        ("f32.idx.gz", rng.standard_normal((2, 2, 2)).astype(np.float32), 0x0D, ">f4"),
        ("f64.idx", np.array([0.1, -2.5]), 0x0E, ">f8"),
    ]
    for name, arr, code, big in cases:
        write_idx(tmp_path / name, arr, code, big)
        lines = run(prog, "idx", str(tmp_path / name))
        got_code, shape, values = lines[0].split("|")
        assert int(got_code) == code and ints(shape) == list(arr.shape), name
        assert np.array_equal(np.array(floats(values), np.float32), arr.astype(np.float32).ravel()), name
        if code == 0x08:
            assert ints(lines[1]) == arr.ravel().tolist()
    (tmp_path / "bad.idx").write_bytes(b"\x01\x02\x08\x01\x00\x00\x00\x01\x05")
    p = subprocess.run(NSM + ["run", str(prog), "idx", str(tmp_path / "bad.idx")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "not an IDX file (bad magic number)" in p.stderr


def test_cifar_batches(prog, tmp_path):
    rng = np.random.default_rng(1)
    root = tmp_path / "cifar" / "cifar-10-batches-bin"
    root.mkdir(parents=True)
    files = {f"data_batch_{k}.bin": 2 for k in range(1, 6)} | {"test_batch.bin": 3}
    recs = {}
    for name, n in files.items():
        labels = rng.integers(0, 10, n).astype(np.uint8)
        pixels = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
        (root / name).write_bytes(b"".join(bytes([l]) + p.tobytes() for l, p in zip(labels, pixels)))
        recs[name] = (labels, pixels)
    for split, names in (("train", [f"data_batch_{k}.bin" for k in range(1, 6)]),
                         ("test", ["test_batch.bin"])):
        lines = run(prog, "cifar", str(tmp_path / "cifar"), split)
        n, shape, targets = lines[0].split("|")
        labels = np.concatenate([recs[x][0] for x in names])
        pixels = np.concatenate([recs[x][1] for x in names])
        assert int(n) == len(labels) and ints(shape) == [3, 32, 32]
        assert ints(targets) == labels.tolist()
        for i, line in enumerate(lines[1:]):
            assert ints(line) == pixels[i].tolist()
    # CIFAR-100 layout: coarse and fine label bytes; the fine one is kept
    (tmp_path / "c100.bin").write_bytes(bytes([3, 42]) + bytes(range(256)) * 12)
    lines = run(prog, "cifar100", str(tmp_path / "c100.bin"))
    assert lines[0].split("|")[2].strip() == "[42]"
    assert ints(lines[1]) == list(range(256)) * 12
    (tmp_path / "short.bin").write_bytes(b"\x00" * 3000)
    p = subprocess.run(NSM + ["run", str(prog), "cifar100", str(tmp_path / "short.bin")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "not a CIFAR binary batch (size 3000" in p.stderr


def test_bundled_mnist(prog):
    lines = run(prog, "mnist")
    assert lines[0] == "8000 2000 [1, 28, 28] [1, 28, 28]"
    train_labels = np.frombuffer(gzip.open(MNIST / "train-labels-idx1-ubyte.gz").read()[8:], np.uint8)
    test_labels = np.frombuffer(gzip.open(MNIST / "t10k-labels-idx1-ubyte.gz").read()[8:], np.uint8)
    assert lines[1] == f"{train_labels[:10].tolist()} {test_labels[:10].tolist()} {test_labels[-5:].tolist()}"
    assert lines[1].startswith("[9, 7, 8, 7, 3, 0, 3, 2, 2, 6]")
    # the class counts of packages/frost/data/mnist/README.md
    assert ints(lines[2]) == [1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978]
    image0 = np.frombuffer(gzip.open(MNIST / "train-images-idx3-ubyte.gz").read()[16:16 + 784], np.uint8)
    size, lo, hi, pixels = lines[3].split(" ", 3)
    assert (int(size), float(lo), float(hi)) == (784, 0.0, image0.max() / 255.0)
    assert ints(pixels) == image0.tolist()


def loader_epochs(prog, *args) -> list[tuple[int, list[int], int, int, str, list[int]]]:
    out = []
    for line in run(prog, "loader", *map(str, args)):
        nb, sizes, lo, hi, right, order = line.split("|")
        out.append((int(nb), ints(sizes), int(lo), int(hi), right.strip(), ints(order)))
    return out


@pytest.mark.parametrize("workers", [0, 1, 2, 4])
def test_loader_every_sample_once_per_epoch(prog, workers):
    # 1003 samples in batches of 10: 100 full batches and one of 3
    epochs = loader_epochs(prog, workers, "shuffle", 5, "keep", 10, 3, 1003)
    orders = []
    for nb, sizes, lo, hi, right, order in epochs:
        assert nb == 101 and sizes == [10] * 100 + [3]
        assert (lo, hi, right) == (1, 1, "true")
        assert sorted(order) == list(range(1003))
        orders.append(order)
    assert orders[0] != orders[1] != orders[2] and orders[0] != list(range(1003))
    # the same order whatever the number of workers: compare with the synchronous loader
    if workers:
        assert [e[5] for e in loader_epochs(prog, 0, "shuffle", 5, "keep", 10, 3, 1003)] == orders


def test_loader_seed_and_order(prog):
    a = loader_epochs(prog, 2, "shuffle", 1, "keep", 16, 2, 200)
    b = loader_epochs(prog, 2, "shuffle", 1, "keep", 16, 2, 200)
    c = loader_epochs(prog, 2, "shuffle", 2, "keep", 16, 2, 200)
    assert [e[5] for e in a] == [e[5] for e in b]
    assert a[0][5] != c[0][5] and a[1][5] != c[1][5]
    plain = loader_epochs(prog, 2, "inorder", 0, "keep", 16, 2, 200)
    assert all(e[5] == list(range(200)) for e in plain)


def test_loader_drop_last(prog):
    for nb, sizes, lo, hi, right, order in loader_epochs(prog, 4, "shuffle", 3, "drop", 7, 2, 100):
        assert nb == 14 and sizes == [7] * 14 and (lo, hi, right) == (0, 1, "true")
        assert len(set(order)) == 98
    (nb, sizes, lo, hi, right, order), = loader_epochs(prog, 1, "inorder", 0, "drop", 7, 1, 98)
    assert nb == 14 and lo == 1 and order == list(range(98))


def test_loader_shutdown(prog):
    # close() joins the workers of an epoch left early (thread count back to its value before),
    # and a program leaving a loop early without close() still ends
    assert run(prog, "shutdown", timeout=60) == ["true", "true", "true", "left true"]


def test_loader_wait_measurement(prog):
    """The hook for the issue's target (data wait under 5% of step time when workers keep
    up): measured here, asserted loosely (a busy CI machine); bench/ reports the numbers."""
    steps, images, wait, total, fraction = run(prog, "wait", "2", "2.0")[0].split()
    assert int(steps) == 62 and int(images) == 8000 - 128
    assert 0.0 <= float(wait) <= float(total) and float(fraction) < 0.5
