"""Compile-speed table (issue 16, section 5): per-stage times of the Neve compiler on the
repository's largest programs, next to gcc -O2 on bench/core's C versions and CPython's start-up.

    .venv/bin/python bench/compile/run.py [--runs 3] [--markdown]

Each Neve program is compiled whole (compiler.driver.compile_file through nsm's import map, to
object code, as `nsm run` does on a cache miss) in this process after one warm-up compile, so the
figures are the compiler's own work from a warm cache of the runtime and std (no Python start-up,
no link). A row's figure is the median over the runs. gcc and CPython are timed as processes.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

STAGES = ("lex", "parse", "check", "lower", "optimize", "codegen")


def corpus() -> list[Path]:
    """The golden programs of 40 lines and more (limits/ excluded: generated stress tests; the
    issue's 120-180-line band holds only one), the 5,000-element literal of bench/compile, and
    Frost's example programs (with the Frost library they import)."""
    progs = [p for p in sorted((REPO / "tests" / "programs").glob("s*/*.nv"))
             if len(p.read_text().splitlines()) >= 40 and "error" not in p.read_text()]
    progs.append(Path(__file__).resolve().parent / "big_literal.nv")
    progs += [p for p in sorted((REPO / "packages" / "frost" / "examples").glob("*.nv"))
              if "\nmain" in p.read_text()]           # programs (mnist_train is their module)
    return progs


def compile_once(path: Path) -> dict[str, float]:
    from nsm.build.orchestrate import whole_program
    t0 = time.perf_counter()
    res = whole_program(path)
    total = time.perf_counter() - t0
    if not res.ok:
        raise SystemExit(f"{path}: does not compile:\n{res.diags.render_all()}")
    out = dict(res.timings)
    out["total"] = total
    return out


def neve_rows(runs: int) -> list[tuple[str, int, dict[str, float]]]:
    rows = []
    for p in corpus():
        compile_once(p)                       # warm-up: imports, std parsed once per process
        samples = [compile_once(p) for _ in range(runs)]
        keys = sorted({k for s in samples for k in s})
        med = {k: statistics.median(s.get(k, 0.0) for s in samples) for k in keys}
        rows.append((str(p.relative_to(REPO)), len(p.read_text().splitlines()), med))
    return rows


def gcc_rows(runs: int) -> list[tuple[str, int, float]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in sorted((REPO / "bench" / "core").glob("*.c")):
            ts = []
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run(["gcc", "-O2", "-c", "-o", f"{tmp}/x.o", str(c)], check=True)
                ts.append(time.perf_counter() - t0)
            rows.append((c.name, len(c.read_text().splitlines()), statistics.median(ts)))
    return rows


def python_startup(runs: int) -> float:
    ts = []
    for _ in range(max(runs, 5)):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rows = neve_rows(args.runs)
    stages = [s for s in STAGES if any(s in r[2] for r in rows)]
    stages += sorted({k for r in rows for k in r[2]} - set(stages) - {"total"})
    print("| Neve program | lines | " + " | ".join(f"{s} ms" for s in stages) +
          " | total ms | ms per 1,000 lines |")
    print("|---|---:|" + "---:|" * (len(stages) + 2))
    for name, lines, med in rows:
        cells = " | ".join(f"{med.get(s, 0.0) * 1000:.0f}" for s in stages)
        print(f"| {name} | {lines} | {cells} | {med['total'] * 1000:.0f} | "
              f"{med['total'] * 1e6 / lines:.0f} |")
    mid = sorted(rows, key=lambda r: r[1])
    print(f"\nmedian Neve compile: {statistics.median(r[2]['total'] for r in rows) * 1000:.0f} ms; "
          f"per 1,000 lines: {statistics.median(r[2]['total'] * 1e6 / r[1] for r in mid):.0f} ms")
    print("\n| C program (gcc -O2 -c) | lines | ms | ms per 1,000 lines |\n|---|---:|---:|---:|")
    g = gcc_rows(args.runs)
    for name, lines, t in g:
        print(f"| {name} | {lines} | {t * 1000:.0f} | {t * 1e6 / lines:.0f} |")
    print(f"\nmedian gcc -O2 per 1,000 lines: {statistics.median(t * 1e6 / n for _, n, t in g):.0f} ms")
    print(f"CPython start-up (`python -c pass`): {python_startup(args.runs) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
