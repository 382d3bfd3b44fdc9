"""Prime counting with a balanced (strided, `:v`) split: speed-up of 2 threads over 1.

    .venv/bin/python bench/concurrency/primes_speedup.py [--n N] [--runs R]

Builds primes.nv once with `nsm run --release` in a temporary NEVE_HOME, then times the cached
executable with 1 and 2 threads, alternating runs, and prints the medians and their ratio
(target >= 1.8 on 2 cores; see bench/README.md for why the seed's contiguous split is not used).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NSM = Path(sys.executable).parent / "nsm"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, NEVE_HOME=home)
        prog = str(HERE / "primes.nv")
        first = subprocess.run([str(NSM), "run", "--release", prog, "1000", "1"], env=env,
                               capture_output=True, text=True)
        if first.returncode != 0:
            print(first.stderr)
            return 1
        exe = next(Path(home, "cache", "programs").glob("*/program"))
        times: dict[int, list[float]] = {1: [], 2: []}
        outputs = set()
        for _ in range(args.runs):
            for t in (1, 2):
                t0 = time.perf_counter()
                out = subprocess.run([str(exe), str(args.n), str(t)], capture_output=True,
                                     text=True, check=True).stdout
                times[t].append(time.perf_counter() - t0)
                outputs.add(out)
        m1, m2 = statistics.median(times[1]), statistics.median(times[2])
        print(f"primes below {args.n}: {outputs.pop().split(': ')[1].strip()} "
              f"({'same' if not outputs else 'DIFFERENT'} result with 1 and 2 threads)")
        print(f"{'threads':>8} {'median s':>9} {'best s':>8}")
        for t in (1, 2):
            print(f"{t:>8} {statistics.median(times[t]):9.3f} {min(times[t]):8.3f}")
        ratio = m1 / m2
        print(f"speed-up 2 threads / 1 thread: {ratio:.2f} (target >= 1.8): "
              f"{'PASS' if ratio >= 1.8 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
