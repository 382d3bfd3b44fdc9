"""GPU bandwidth of Neve kernels: saxpy and a sum reduction, as fractions of the device's copy
bandwidth measured in the same run (cuMemcpyDtoD), timed with CUDA events (issue 7 target:
>= 0.8 of copy bandwidth).

    .venv/bin/python bench/gpu_bench.py [--n 50000000] [--reps 20] [--json out.json]

The PTX comes from bench/gpu/saxpy.nv and bench/gpu/reduce.nv through the compiler (the same
text `nsm run --emit ptx` prints) and is loaded with cuda-python (tests/kernels/gpu_harness.py),
so the numbers are the kernels' alone: no host copies, no launch-site checks. Bytes moved: a
copy of B bytes reads and writes B (2B); saxpy reads x and y and writes y (12 bytes per element);
the reduction reads 4 bytes per element. Exit status 1 without a usable GPU.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from kernels.gpu_harness import Gpu  # noqa: E402


def neve_ptx(path: Path) -> str:
    from nsm.build.orchestrate import whole_program as compile_file
    res = compile_file(str(path), release=True, emit="ptx")
    if not res.ok:
        res.diags.print()
        raise SystemExit(f"cannot compile {path}")
    return res.dump


def entry(ptx: str, name: str) -> str:
    found = re.findall(r"\.entry\s+([\w$]*" + name + r"[\w$]*)\s*\(", ptx)
    if not found:
        raise SystemExit(f"no .entry for {name} in the PTX")
    return found[0]


def timed(gpu: Gpu, reps: int, fn) -> float:
    """Mean seconds of fn() over reps runs, after one warm-up, by CUDA events."""
    fn()
    start, end = gpu.event(), gpu.event()
    gpu.check(gpu.cu.cuEventRecord(start, 0))
    for _ in range(reps):
        fn()
    gpu.check(gpu.cu.cuEventRecord(end, 0))
    gpu.check(gpu.cu.cuEventSynchronize(end))
    return gpu.elapsed_ms(start, end) / reps / 1000.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50_000_000)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    gpu = Gpu.open()
    if gpu is None:
        print(f"gpu_bench: no usable GPU ({Gpu.why})", file=sys.stderr)
        return 1
    n = args.n
    sax_ptx, red_ptx = neve_ptx(ROOT / "bench/gpu/saxpy.nv"), neve_ptx(ROOT / "bench/gpu/reduce.nv")
    saxpy = gpu.load(sax_ptx).function(entry(sax_ptx, "saxpy"))
    reduce_sum = gpu.load(red_ptx).function(entry(red_ptx, "reduce_sum"))
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    dx, dy, dcopy = gpu.to_device(x), gpu.to_device(y), gpu.alloc(4 * n)
    out = gpu.alloc(4)

    t_copy = timed(gpu, args.reps, lambda: gpu.copy_dtod(dcopy, dx, 4 * n))
    t_saxpy = timed(gpu, args.reps, lambda: saxpy([(n + 255) // 256], [256], dy, dx,
                                                  np.float32(1.0), np.int64(n)))
    _, sms = gpu.cu.cuDeviceGetAttribute(
        gpu.cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.dev)
    blocks = sms * 8                           # enough resident warps to cover memory latency

    def run_reduce():
        out.zero()
        reduce_sum([blocks], [256], out, dx, np.int64(n))
    t_reduce = timed(gpu, args.reps, run_reduce)

    # correctness of the last runs, against NumPy in float64
    run_reduce()
    gpu.sync()
    total = float(out.get(np.float32, 1)[0])
    ok_sum = abs(total - float(x.astype(np.float64).sum())) <= 1e-3 * n
    runs = 1 + args.reps                   # saxpy's warm-up and timed runs, each y += 1.0 * x
    want_y = y.astype(np.float64) + runs * x.astype(np.float64)
    got_y = dy.get(np.float32, n)
    ok_saxpy = np.allclose(got_y[:1000], want_y[:1000], rtol=1e-4)

    bw = {"copy": 2 * 4 * n / t_copy, "saxpy": 12 * n / t_saxpy, "reduce": 4 * n / t_reduce}
    print(f"device: {gpu.name()}   n = {n:,} floats   reps = {args.reps}")
    for k, v in bw.items():
        print(f"{k:>7}: {v / 1e9:8.1f} GB/s   {v / bw['copy']:6.2f} of copy")
    print(f"checks: reduce {'ok' if ok_sum else 'WRONG'} ({total:.6g}), "
          f"saxpy {'ok' if ok_saxpy else 'WRONG'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": gpu.name(), "n": n, "bytes_per_s": bw,
                                               "fraction_of_copy": {k: v / bw["copy"] for k, v in bw.items()},
                                               "ok": ok_sum and ok_saxpy}, indent=1))
    return 0 if ok_sum and ok_saxpy else 1


if __name__ == "__main__":
    sys.exit(main())
