"""Bounds checks proven before a loop (compiler/lower/loop_bounds.py): which loops get a copy
without the checks of their `a[i + c]` accesses, read from the LLVM IR that `--emit ir` prints.
The checked copy keeps one panic call per access; the proven copy has none."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

NSM = Path(sys.executable).parent / "nsm"

PROGRAM = """
def f64 dot(array<f64> a, array<f64> b)
    f64 s = 0.0
    for i = 0, i < a.size()
        s += a[i] * b[i]
    return s

def int window(array<int> xs)
    int s = 0
    for i = 1, i < xs.size() - 1
        s += xs[i - 1] * xs[i + 1]
    return s

def int nested(array<int> xs, int n)
    int s = 0
    for i = 0, i < n
        for j = i + 1, j <= n - 1, 2
            s += xs[i] * xs[j]
    return s

def int bump(array<int> xs)
    xs.append(1)
    return 1

def int calls(array<int> xs)
    int s = 0
    for i = 0, i < xs.size()
        s += xs[i] + bump(xs)
    return s

def int moves_index(array<int> xs)
    int s = 0
    for i = 0, i < xs.size()
        s += xs[i]
        i += 1
    return s

def int resizes(array<int> xs)
    int s = 0
    for i = 0, i < 3
        s += xs[i]
        xs.append(s)
    return s

main
    array<int> xs = [1, 2, 3, 4]
    print(dot([1.0], [2.0]), window(xs), nested(xs, 4), calls(xs), moves_index(xs), resizes(xs))
"""


def _functions(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "loops.nv").write_text(PROGRAM)
    r = subprocess.run([str(NSM), "run", "--emit", "ir", "loops.nv"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = {}
    for part in r.stdout.split("\ndefine ")[1:]:
        name = re.match(r'[^@]*@"[^"]*\.(\w+)"', part)
        if name:
            out[name.group(1)] = part
    return out


def test_proven_loops_have_one_checked_copy(tmp_path):
    fns = _functions(tmp_path)
    panics = {k: v.count('@"nv_panic_index"') for k, v in fns.items()}
    proven = {k: len(re.findall(r"^for\.proven[.\d]*:", v, re.M)) for k, v in fns.items()}
    # a[i], b[i]; xs[i - 1], xs[i + 1]: each loop lowered twice, checks only in one copy
    assert (proven["dot"], panics["dot"]) == (1, 2)
    assert (proven["window"], panics["window"]) == (1, 2)
    # the outer loop proves xs[i] and the inner one xs[j] (a step of 2, `<=`): the inner loop
    # is lowered in both outer copies; xs[i] is checked only in the outer checked copy's two
    # inner copies, xs[j] only in each inner checked copy
    assert proven["nested"] == 3 and panics["nested"] == 4
    # a call that may resize the array, an assigned index, a resizing method: one copy, checked
    for name in ("calls", "moves_index", "resizes"):
        assert (proven[name], panics[name]) == (0, 1), name
