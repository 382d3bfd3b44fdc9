"""CPU back end vs C -O2 on saxpy and the 12.3 block reduction (LANGUAGE.md 12.4).

    .venv/bin/python bench/kernels/run.py [--n 50000000] [--reps 7] [--rounds 3]

Builds the C programs with gcc -O2 and the Neve ones with `nsm build` (NEVE_DEVICE=cpu),
then runs them alternately; each process times REPS launches (Neve) or loops (C) and the table
shows the median ms and the ratio Neve / C. The C versions are the same algorithms as plain
single-threaded loops; the Neve kernels use the CPU back end's worker pool (all cores).
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

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "out" / "kernels"
NSM = Path(sys.executable).parent / "nsm"
PROGRAMS = ("saxpy", "reduce")


def build(name: str) -> tuple[Path, Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    c_exe = OUT / f"{name}_c"
    subprocess.run(["gcc", "-O2", "-o", str(c_exe), str(HERE / f"{name}.c")], check=True)
    pkg = Path(tempfile.mkdtemp(prefix=f"nvk-{name}-", dir=OUT))
    (pkg / "src").mkdir()
    shutil.copy(HERE / f"{name}.nv", pkg / "src" / "main.nv")
    (pkg / "neve.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n'
                                   f'src = "src"\nentry = "main"\n')
    p = subprocess.run([str(NSM), "build", "--release"], cwd=pkg, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"nsm build of {name} failed:\n{p.stderr}")
    return c_exe, next((pkg / "build" / "release" / "bin").iterdir())


def times(exe: Path, n: int, reps: int, threads: int = 0) -> tuple[list[float], str]:
    env = dict(os.environ, NEVE_DEVICE="cpu")
    if threads:
        env["NEVE_KERNEL_THREADS"] = str(threads)
    p = subprocess.run([str(exe), str(n), str(reps)], capture_output=True, text=True, env=env,
                       check=True)
    lines = p.stdout.split("\n")
    ms = [float(l.split()[1]) for l in lines if l.startswith("ms ")]
    check = next(l.split()[1] for l in lines if l.startswith("check "))
    return ms[1:] or ms, check           # the first rep warms caches and the worker pool


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU back end threads (NEVE_KERNEL_THREADS; default all)")
    a = ap.parse_args()
    exes = {name: build(name) for name in PROGRAMS}
    print(f"n = {a.n:,} floats, {a.reps} reps x {a.rounds} rounds, Neve on "
          f"{a.threads or os.cpu_count()} thread(s)")
    print(f"{'kernel':<8} {'C -O2 ms':>10} {'Neve CPU ms':>12} {'ratio':>7}  checks")
    for name, (c_exe, nv_exe) in exes.items():
        c_ms, nv_ms, checks = [], [], set()
        for _ in range(a.rounds):
            t, c1 = times(c_exe, a.n, a.reps)
            c_ms += t
            t, c2 = times(nv_exe, a.n, a.reps, a.threads)
            nv_ms += t
            checks |= {c1, c2}
        c, v = statistics.median(c_ms), statistics.median(nv_ms)
        print(f"{name:<8} {c:>10.2f} {v:>12.2f} {v / c:>7.2f}  {' '.join(sorted(checks))}")


if __name__ == "__main__":
    main()
