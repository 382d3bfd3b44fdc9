"""Frost against PyTorch on the MNIST MLP and CNN of issue 8, side by side in one run: for each
seed and model, PyTorch writes its initial weights (safetensors), then both train from them with
the same batch order (frost/data's shuffle) and the same settings (AdamW + one-cycle, 10 epochs),
one after the other (the order alternating between seeds), with the same thread count.

    .venv/bin/python bench/frost/run.py [--epochs 10] [--seeds 3] [--models mlp,cnn] [--threads 2]

Prints a Markdown table: final-epoch test accuracy (mean over seeds; the issue wants MLP >= 95.5%,
CNN >= 98.0%, within 0.5 points of PyTorch), median step time (forward + backward + optimizer and
schedule step; the median over seeds of each run's median) and Frost/PyTorch ratio (the median
of the per-seed ratios), peak RSS and data-loader wait fraction of each. Frost runs as
`nsm run --release`; OMP_WAIT_POLICY=passive for both (the cores are shared).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NSM = str(Path(sys.executable).parent / "nsm")
EXAMPLE = {"mlp": "packages/frost/examples/mnist_mlp.nv", "cnn": "packages/frost/examples/mnist_cnn.nv"}
TARGET = {"mlp": (95.5, 1.0), "cnn": (98.0, 1.2)}
LINE = re.compile(r"summary step_ms_median ([0-9.]+) test_accuracy ([0-9.]+)% peak_rss_mb ([0-9.]+)")
WAIT = re.compile(r"data_wait ([0-9.]+)%")


def run(cmd: list[str], env: dict[str, str], verbose: bool) -> dict[str, float]:
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    if verbose:
        print(p.stdout, end="", file=sys.stderr)
    m = LINE.search(p.stdout)
    waits = [float(w) for w in WAIT.findall(p.stdout)]
    return {"step_ms": float(m.group(1)), "acc": float(m.group(2)), "rss": float(m.group(3)),
            "wait": statistics.mean(waits)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--models", default="mlp,cnn")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train", type=int, default=0, help="first N training digits (0: all 8,000)")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo every epoch line")
    a = ap.parse_args()
    env = dict(os.environ, OMP_WAIT_POLICY="passive", OMP_NUM_THREADS=str(a.threads),
               NEVE_KERNEL_THREADS=str(a.threads))
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in a.models.split(","):
            for seed in range(a.seeds):
                init = f"{tmp}/{model}{seed}.safetensors"
                torch_cmd = [sys.executable, str(ROOT / "bench/frost/torch_mnist.py"), model,
                             "--epochs", str(a.epochs), "--seed", str(seed), "--train", str(a.train),
                             "--threads", str(a.threads), "--save-init", init]
                frost_cmd = [NSM, "run", "--release", EXAMPLE[model], f"epochs={a.epochs}",
                             f"seed={seed}", f"train={a.train}", f"init={init}"]
                subprocess.run(frost_cmd[:4] + ["epochs=0"], cwd=ROOT, env=env, capture_output=True)  # build
                r_t = run(torch_cmd, env, a.verbose)      # writes init first
                if seed % 2 == 0:
                    r_f = run(frost_cmd, env, a.verbose)
                else:   # alternate which runs second
                    r_f = run(frost_cmd, env, a.verbose)
                    r_t2 = run(torch_cmd, env, a.verbose)
                    r_t = {k: (r_t[k] if k == "acc" else statistics.mean([r_t[k], r_t2[k]])) for k in r_t}
                results.setdefault((model, "frost"), []).append(r_f)
                results.setdefault((model, "torch"), []).append(r_t)
                print(f"{model} seed {seed}: frost {r_f}  torch {r_t}", file=sys.stderr, flush=True)
    print(f"\n{a.epochs} epochs, {a.seeds} seeds, {a.threads} threads\n")
    print("| model | Frost acc % (mean) | PyTorch acc % (mean) | diff | Frost step ms | PyTorch step ms "
          "| ratio | target | Frost peak RSS MB | PyTorch peak RSS MB | Frost data wait | PyTorch data wait |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for model in a.models.split(","):
        f, t = results[(model, "frost")], results[(model, "torch")]
        fa, ta = statistics.mean(r["acc"] for r in f), statistics.mean(r["acc"] for r in t)
        ratio = statistics.median(x["step_ms"] / y["step_ms"] for x, y in zip(f, t))
        accs = lambda rs: "/".join(f"{r['acc']:.2f}" for r in rs)
        print(f"| {model} | {fa:.2f} ({accs(f)}) | {ta:.2f} ({accs(t)}) | {fa - ta:+.2f} "
              f"| {statistics.median(r['step_ms'] for r in f):.2f} "
              f"| {statistics.median(r['step_ms'] for r in t):.2f} | {ratio:.2f} "
              f"| acc >= {TARGET[model][0]}, ratio <= {TARGET[model][1]} "
              f"| {max(r['rss'] for r in f):.0f} | {max(r['rss'] for r in t):.0f} "
              f"| {statistics.mean(r['wait'] for r in f):.2f}% | {statistics.mean(r['wait'] for r in t):.2f}% |")


if __name__ == "__main__":
    main()
