"""Channel throughput: the runtime's channel, a mutex+condvar queue and Go's buffered channels.

    .venv/bin/python bench/concurrency/run.py [--msgs N] [--reps R]

Builds chan_bench.cpp with g++ -O2 against the runtime library (nsm's build, as programs link
it) into bench/out/concurrency/, runs it, then `go run chan_bench.go` with GOMAXPROCS=2 if `go`
is installed. Each line: implementation, capacity, producers (one consumer), median seconds,
messages/s at the median and at the best of R runs.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from nsm.build import runtime as rtbuild  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--msgs", type=int, default=2_000_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    rt = rtbuild.ensure_runtime()
    out = REPO / "bench" / "out" / "concurrency"
    out.mkdir(parents=True, exist_ok=True)
    exe = out / "chan_bench"
    subprocess.run(["g++", "-std=c++17", "-O2", "-I", str(rt.include), str(HERE / "chan_bench.cpp"),
                    str(rt.lib), *rt.link_args, "-o", str(exe)], check=True)
    print(f"# {os.cpu_count()} CPUs, {args.msgs} messages, median of {args.reps}", flush=True)
    subprocess.run([str(exe), str(args.msgs), str(args.reps)], check=True)
    go = shutil.which("go")
    if go:
        env = {**os.environ, "GOMAXPROCS": "2", "GOCACHE": str(out / "gocache"),
               "GOFLAGS": "-mod=mod", "GO111MODULE": "off"}
        subprocess.run([go, "run", str(HERE / "chan_bench.go"), str(args.msgs), str(args.reps)],
                       check=True, env=env)
    else:
        print("# go not installed: no Go column")
    return 0


if __name__ == "__main__":
    sys.exit(main())
