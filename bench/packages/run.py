"""Resolver benchmark, new (PubGrub-style, nsm.resolver) against old (resolvelib,
nsm.resolver.legacy) side by side on in-memory metadata: the traps that must fail fast with
the two-chain explanation, and a generated registry of 1,000 packages x 10 versions that must
still resolve. Run: .venv/bin/python bench/packages/run.py [--skip-slow-old]"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nsm.errors import NsmError  # noqa: E402
from nsm.resolver import Requirement, legacy, resolve  # noqa: E402
from nsm.resolver.memory import MemoryIndex  # noqa: E402
from nsm.resolver.version import parse_constraint  # noqa: E402

OLD_LIMIT = 120.0               # seconds; the old resolver is not run on cases known to take longer


def req(name: str, c: str = "*") -> Requirement:
    return Requirement(name, name, parse_constraint(c))


def trap(n: int) -> tuple[list[Requirement], MemoryIndex]:
    """n versions of x each need y<1; the root needs x and y>=1."""
    return [req("x"), req("y", ">=1")], MemoryIndex({
        "x": {f"{v}.0.0": [req("y", "<1")] for v in range(1, n + 1)},
        "y": {v: [] for v in ("0.1.0", "0.2.0", "1.0.0", "1.1.0")}})


def nested(n: int, levels: int = 2) -> tuple[list[Requirement], MemoryIndex]:
    """root -> xb (n versions, each needing the next level) -> ... -> w (n versions, each
    needing y<1); the root needs y>=1."""
    names = ["xb", "w", "v", "u"][:levels]
    pkgs = {}
    for k, name in enumerate(names):
        need = req(names[k + 1]) if k + 1 < levels else req("y", "<1")
        pkgs[name] = {f"{v}.0.0": [need] for v in range(1, n + 1)}
    pkgs["y"] = {v: [] for v in ("0.1.0", "0.2.0", "1.0.0", "1.1.0")}
    return [req("xb"), req("y", ">=1")], MemoryIndex(pkgs)


def generated(n: int = 1000, versions: int = 10, seed: int = 1):
    """pN has 1.0.0 ... 1.9.0, each needing 3 of p0..p(N-1) with ^1.k; the root needs the
    top 20."""
    rnd = random.Random(seed)
    pkgs = {f"p{i}": {f"1.{v}.0": ([req(f"p{j}", f"^1.{rnd.randrange(versions)}")
                                    for j in rnd.sample(range(i), 3)] if i >= 3 else [])
                      for v in range(versions)} for i in range(n)}
    return [req(f"p{i}", "^1.0") for i in range(n - 20, n)], MemoryIndex(pkgs)


def timed(fn, roots, idx) -> tuple[float, str]:
    t = time.perf_counter()
    try:
        res = fn(roots, idx)
        what = f"{len(res.packages)} resolved"
    except NsmError as e:
        what = e.message
    return time.perf_counter() - t, what


CASES = [("trap 40", lambda: trap(40)), ("trap 200", lambda: trap(200)),
         ("nested 60 x 60", lambda: nested(60)), ("nested 80 x 80", lambda: nested(80)),
         ("nested 3 levels x 20", lambda: nested(20, 3)),
         ("nested 3 levels x 30", lambda: nested(30, 3)),
         ("1,000 pkgs x 10 versions", generated)]
SLOW_OLD = {"nested 3 levels x 30"}     # minutes with resolvelib


def main() -> None:
    skip = "--skip-slow-old" in sys.argv
    print(f"{'case':<26} {'new s':>8} {'old s':>8} {'new/old':>8}  same text")
    for label, make in CASES:
        roots, idx = make()
        new, new_text = timed(resolve, roots, idx)
        if skip and label in SLOW_OLD:
            print(f"{label:<26} {new:8.3f} {'(skip)':>8} {'':>8}")
            continue
        old, old_text = timed(legacy.resolve, roots, make()[1])
        print(f"{label:<26} {new:8.3f} {old:8.3f} {new / old:8.3f}  "
              f"{'yes' if new_text == old_text else 'NO'}")
        if new_text != old_text:
            print(f"  new: {new_text}\n  old: {old_text}")


if __name__ == "__main__":
    main()
