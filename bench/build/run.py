"""`nsm build` on generated packages, side by side with ninja's own no-op.

    .venv/bin/python bench/build/run.py [--scale 1.0] [--repeat 9]

Packages (generated in a temporary folder, with a fresh NEVE_HOME: only the runtime library
and std, built first by a one-module package, are in the cache):
  chain   1,000 Neve modules, each importing the previous one
  tree    1,000 Neve modules, a binary tree of imports
  mixed   200 Neve modules (a tree) plus a native part of 20 C++ files
For each: full build time; no-op `nsm build` (median of --repeat runs) next to `ninja -C`
on the same build folder (the target is a no-op within 100 ms); rebuild time after editing
one leaf module's function body. Prints one table; times in seconds.
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

NSM = str(Path(sys.executable).parent / "nsm")


def _module(i: int, imports: list[int]) -> str:
    head = "".join(f"import m{j}\n" for j in imports)
    call = " + ".join(f"m{j}.fn{j}(x)" for j in imports) or "x"
    return f"{head}\n# module {i}\ndef int fn{i}(int x)\n    return {call} + 1\n"


def generate(root: Path, kind: str, n: int, cxx: int = 0) -> None:
    src = root / "src"
    src.mkdir(parents=True)
    native = '\n[native]\nsources = ["native/*.cpp"]\n' if cxx else ""
    (root / "neve.toml").write_text(f'[package]\nname = "{kind}"\nversion = "0.1.0"\n'
                                    f'src = "src"\n{native}')
    for i in range(n):
        if kind == "chain":
            deps = [i - 1] if i else []
        else:
            deps = [c for c in (2 * i + 1, 2 * i + 2) if c < n]
        (src / f"m{i}.nv").write_text(_module(i, deps))
    top = n - 1 if kind == "chain" else 0
    (src / "main.nv").write_text(f"import m{top}\nmain\n    print(m{top}.fn{top}(0))\n")
    if cxx:
        (root / "include").mkdir()
        decls = "".join(f"int64_t {kind}__c{k}(int64_t x);\n" for k in range(cxx))
        (root / "include" / "native.h").write_text(
            f'#include <stdint.h>\n#ifdef __cplusplus\nextern "C" {{\n#endif\n{decls}'
            "#ifdef __cplusplus\n}\n#endif\n")
        (root / "native").mkdir()
        for k in range(cxx):
            (root / "native" / f"c{k}.cpp").write_text(
                f'#include "native.h"\n#include <vector>\n#include <numeric>\n'
                f"int64_t {kind}__c{k}(int64_t x) {{ std::vector<int64_t> v(x, {k});"
                f" return std::accumulate(v.begin(), v.end(), int64_t(0)); }}\n")


def timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}:\n{p.stderr[-3000:]}")
    return dt


def bench(root: Path, kind: str, n: int, cxx: int, repeat: int) -> dict:
    generate(root, kind, n, cxx)
    full = timed([NSM, "build"], root)
    noop = statistics.median(timed([NSM, "build"], root) for _ in range(repeat))
    import ninja
    nj = str(Path(ninja.BIN_DIR) / "ninja")
    ninja_noop = statistics.median(timed([nj, "-C", "build/debug"], root) for _ in range(repeat))
    leaf = root / "src" / f"m{0 if kind == 'chain' else n - 1}.nv"
    leaf.write_text(leaf.read_text().replace("+ 1\n", "+ 2\n"))
    edit = timed([NSM, "build"], root)
    return {"package": f"{kind} ({n} modules{f', {cxx} C++' if cxx else ''})", "full": full,
            "noop": noop, "ninja_noop": ninja_noop, "leaf_edit": edit}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="module counts x SCALE")
    ap.add_argument("--repeat", type=int, default=9)
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="nsm-bench-") as tmp:
        os.environ["NEVE_HOME"] = str(Path(tmp) / "home")
        generate(Path(tmp) / "warm", "tree", 1)      # runtime library and std built once, first
        timed([NSM, "build"], Path(tmp) / "warm")
        for kind, n, cxx in (("chain", 1000, 0), ("tree", 1000, 0), ("mixed", 200, 20)):
            n = max(2, int(n * a.scale))
            rows.append(bench(Path(tmp) / kind, kind, n, cxx, a.repeat))
            print(f"done {rows[-1]['package']}", file=sys.stderr, flush=True)
    print(f"{'package':<30} {'full (s)':>9} {'no-op (s)':>10} {'ninja no-op':>12} "
          f"{'no-op/ninja':>12} {'leaf edit (s)':>14}")
    for r in rows:
        print(f"{r['package']:<30} {r['full']:>9.2f} {r['noop']:>10.3f} {r['ninja_noop']:>12.3f} "
              f"{r['noop'] / r['ninja_noop']:>12.1f} {r['leaf_edit']:>14.2f}")


if __name__ == "__main__":
    main()
