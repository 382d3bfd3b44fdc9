"""Channel throughput: the runtime's channel, a mutex+condvar queue and Go's buffered channels.

    .venv/bin/python bench/concurrency/run.py [--msgs N] [--reps R]

Builds chan_bench.cpp with g++ -O2 against the runtime library (nsm's build, as programs link
it) into bench/out/concurrency/, runs it, then `go run chan_bench.go` with GOMAXPROCS=2 if `go`
is installed. Each line: implementation, capacity, producers (one consumer), median seconds,
messages/s at the median and at the best of R runs. Last, issue 23's goals for capacity-1
ping-pong (one producer, median rate) with PASS/FAIL: >= 3 M msgs/s and >= 0.3x Go.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from nsm.build import runtime as rtbuild  # noqa: E402

GOAL_RATE = 3e6        # capacity-1 ping-pong, messages/s
GOAL_GO_RATIO = 0.3    # of Go's rate on the same machine


def run_lines(cmd: list[str], env: dict | None = None) -> str:
    """Runs cmd, echoing its stdout line by line as it comes; returns all of it."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    out = []
    for line in p.stdout:
        print(line, end="", flush=True)
        out.append(line)
    if p.wait() != 0:
        raise SystemExit(f"{cmd[0]} failed with exit status {p.returncode}")
    return "".join(out)


def pingpong_rate(text: str, impl: str) -> float | None:
    """Median rate of IMPL's capacity-1, one-producer line in chan_bench output."""
    m = re.search(rf"^{impl}\s+cap=1\s+producers=1 .*? rate=(\d+)", text, re.M)
    return float(m.group(1)) if m else None


def goal_lines(neve: float | None, go: float | None) -> list[str]:
    if neve is None:
        return ["goal cap=1 ping-pong: no neve cap=1 producers=1 line"]
    lines = [f"goal cap=1 ping-pong >= {GOAL_RATE / 1e6:g} M msgs/s: "
             f"{'PASS' if neve >= GOAL_RATE else 'FAIL'} ({neve / 1e6:.2f} M)"]
    if go:
        r = neve / go
        lines.append(f"goal cap=1 ping-pong >= {GOAL_GO_RATIO:g}x Go: "
                     f"{'PASS' if r >= GOAL_GO_RATIO else 'FAIL'} ({r:.2f}x of {go / 1e6:.2f} M)")
    else:
        lines.append(f"goal cap=1 ping-pong >= {GOAL_GO_RATIO:g}x Go: n/a (no Go column)")
    return lines


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
    neve = pingpong_rate(run_lines([str(exe), str(args.msgs), str(args.reps)]), "neve")
    go = shutil.which("go")
    go_rate = None
    if go:
        env = {**os.environ, "GOMAXPROCS": "2", "GOCACHE": str(out / "gocache"),
               "GOFLAGS": "-mod=mod", "GO111MODULE": "off"}
        text = run_lines([go, "run", str(HERE / "chan_bench.go"), str(args.msgs), str(args.reps)],
                         env=env)
        go_rate = pingpong_rate(text, "go")
    else:
        print("# go not installed: no Go column")
    for line in goal_lines(neve, go_rate):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
