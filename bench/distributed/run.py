"""Frost DataParallel over MPI against PyTorch DDP over Gloo: MNIST CNN and ResNet-20 images/s at
1 and 2 ranks with one thread each, scaling efficiency (images/s at 2 / (2 x images/s at 1)), and
Frost's communication-wait fraction of a step. Prints a Markdown table.

    python bench/distributed/run.py [--steps 20] [--warmup 3] [--batch 64]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
NSM = str(Path(sys.executable).parent / "nsm")
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive"}


def result(cmd: list[str]) -> tuple[float, float]:
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **ONE_THREAD))
    for line in p.stdout.splitlines():
        parts = line.split()
        if "result" in parts:
            i = parts.index("result")
            return float(parts[i + 3]), float(parts[i + 4])
    raise SystemExit(f"no result from {' '.join(cmd)}:\n{p.stdout}\n{p.stderr}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64, help="per-rank batch")
    ap.add_argument("--models", default="mnist,resnet20")
    a = ap.parse_args()
    rows = []
    for model in a.models.split(","):
        args = [model, str(a.batch), str(a.steps), str(a.warmup)]
        frost = {n: result([NSM, "run", "--release", "--nproc", str(n), str(HERE / "ddp_bench.nv"), *args])
                 for n in (1, 2)}
        torch = {n: result([sys.executable, str(HERE / "ddp_torch.py"), *args, str(n)]) for n in (1, 2)}
        for who, r in (("Frost (MPI)", frost), ("PyTorch DDP (Gloo)", torch)):
            eff = r[2][0] / (2 * r[1][0])
            wait = f"{r[2][1]:.2f}" if r[2][1] >= 0 else "n/a"
            rows.append(f"| {model} | {who} | {r[1][0]:.0f} | {r[2][0]:.0f} | {eff:.2f} | {wait} |")
    print(f"batch {a.batch} per rank, {a.steps} steps after {a.warmup}, 1 thread per rank\n")
    print("| model | framework | img/s 1 rank | img/s 2 ranks | efficiency | comm wait |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
