"""Which recursive functions are unrolled (compiler/lower/unroll.py), read from the lowered IR: the
clones f.u1 ... f.uK, always inlined. What unrolled recursion computes and its traces are in the
golden programs (s06_functions/recursion_unrolled.nv, s13_errors/error_in_unrolled_recursion.nv,
limits/stack_overflow*.nv)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

PROGRAM = """\
def int fib(int n)
    if n < 2
        return n
    return fib(n - 1) + fib(n - 2)

def int depth(int n)
    if n == 0
        return 0
    return depth(n - 1) + 1

def int big(int n)
    if n == 0
        return 0
    int a = n * 2 + n * 3 + n * 4 + n * 5 + n * 6 + n * 7 + n * 8 + n * 9 + n * 10 + n * 11
    int b = a * 2 + a * 3 + a * 4 + a * 5 + a * 6 + a * 7 + a * 8 + a * 9 + a * 10 + a * 11
    int c = b * 2 + b * 3 + b * 4 + b * 5 + b * 6 + b * 7 + b * 8 + b * 9 + b * 10 + b * 11
    return big(n - 1) + a + b + c

def bool is_even(int n)
    if n == 0
        return true
    return is_odd(n - 1)

def bool is_odd(int n)
    if n == 0
        return false
    return is_even(n - 1)

def int as_value(int n)
    Function<int, int> f = as_value
    if n == 0
        return 0
    return as_value(n - 1) + 1

class Link
    int v
    Link next

    def int sum()
        if self.next == nil
            return self.v
        return self.v + self.next.sum()

    def int sum_as_value()
        Function<int, Link> g = Link.sum_as_value
        if self.next == nil
            return self.v
        return self.v + self.next.sum_as_value()

def void spawning(int n)
    if n == 0
        return
    finish
        async spawning(n - 1)

main
    print(fib(5), depth(3), big(1), is_even(2), as_value(1), new Link().sum(), new Link().sum_as_value())
    spawning(2)
"""


@pytest.fixture(scope="module")
def clones(tmp_path_factory) -> dict[str, tuple[int, bool]]:
    """Per function of PROGRAM: its number of clones, and whether all of them are alwaysinline."""
    p = tmp_path_factory.mktemp("unroll") / "unroll.nv"
    p.write_text(PROGRAM)
    r = subprocess.run([str(BIN / "nsm"), "run", "--emit", "ir", str(p)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out: dict[str, tuple[int, bool]] = {}
    for m in re.finditer(r'^define .*@"nv\.unroll_[0-9a-f]+\.([\w.]+?)(\.u\d+)?"\(.*$', r.stdout, re.M):
        n, inline = out.get(m.group(1), (0, True))
        if m.group(2):
            out[m.group(1)] = (n + 1, inline and "alwaysinline" in m.group(0))
        else:
            out.setdefault(m.group(1), (0, True))
    return out


def test_fib_runs_eight_levels_per_frame(clones):
    # 18 typed-IR nodes, two self-calls: 255 copies of the body fit the budget, 511 do not
    assert clones["fib"] == (7, True)


def test_one_self_call_unrolls_to_the_level_limit(clones):
    assert clones["depth"] == (8, True)


def test_a_method_calling_itself_directly_is_unrolled(clones):
    assert clones["Link.sum"] == (8, True)


def test_a_body_over_the_size_limit_is_not_unrolled(clones):
    assert clones["big"][0] == 0


@pytest.mark.parametrize("fn", ["is_even", "is_odd", "as_value", "Link.sum_as_value", "spawning"])
def test_mutual_recursion_function_values_and_threads_are_not_unrolled(clones, fn):
    assert clones[fn][0] == 0
