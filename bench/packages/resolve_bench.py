"""Resolver benchmarks (not timed tests): a generated registry of 1,000 packages x 10 versions,
each version depending on 3 random lower-numbered packages with ^ constraints (metadata in
memory), resolved from a root needing the top 20; and the trap where 40 versions of x each
need y<1 while the root needs y>=1. Run: .venv/bin/python bench/packages/resolve_bench.py"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nsm.errors import NsmError  # noqa: E402
from nsm.resolver import Requirement, resolve  # noqa: E402
from nsm.resolver.memory import MemoryIndex  # noqa: E402
from nsm.resolver.version import parse_constraint  # noqa: E402


def req(name: str, c: str) -> Requirement:
    return Requirement(name, name, parse_constraint(c))


def generated(n: int = 1000, versions: int = 10, seed: int = 1) -> MemoryIndex:
    """Package pN has versions 1.0.0 ... 1.9.0; each depends on 3 of p0..p(N-1) with ^1.k."""
    rnd = random.Random(seed)
    pkgs = {}
    for i in range(n):
        pkgs[f"p{i}"] = {
            f"1.{v}.0": ([req(f"p{j}", f"^1.{rnd.randrange(versions)}")
                          for j in rnd.sample(range(i), 3)] if i >= 3 else [])
            for v in range(versions)}
    return MemoryIndex(pkgs)


def trap(n: int = 40) -> MemoryIndex:
    pkgs = {"x": {f"{v}.0.0": [req("y", "<1")] for v in range(1, n + 1)},
            "y": {v: [] for v in ("0.1.0", "0.2.0", "1.0.0", "1.1.0")}}
    return MemoryIndex(pkgs)


def main() -> None:
    idx = generated()
    t = time.perf_counter()
    res = resolve([req(f"p{i}", "^1.0") for i in range(980, 1000)], idx)
    print(f"generated registry (1000 pkgs x 10 versions): {len(res.packages)} packages resolved "
          f"in {time.perf_counter() - t:.3f} s")
    t = time.perf_counter()
    try:
        resolve([req("x", "*"), req("y", ">=1")], trap())
        print("trap: resolved?!")
    except NsmError as e:
        print(f"trap (40 versions of x need y<1, root needs y>=1): failed in "
              f"{time.perf_counter() - t:.3f} s with:\n{e.message}")


if __name__ == "__main__":
    main()
