"""Native packages end to end (LANGUAGE.md 11.2): a package with a [native] table whose C code
is built into build/native/lib<name>.so, its bindings.nv merged into the entry module, the
naming conventions (T_create, T_destroy, methods, operators, pkg__fn, initialize__pkg), owned and
borrowed pointers, and finalizers that really run."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NSM = [str(Path(sys.executable).parent / "nsm")]

HEADER = """\
#pragma once
#include <stdint.h>
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct counter counter;
typedef struct vec vec;
counter* counter_create(int64_t start);
void counter_destroy(counter* c);
int64_t counter_bump(counter* c, int64_t by);
double tally__mean(const double* xs, int64_t n);
int64_t tally__destroyed(void);
counter* counter_self(counter* c);
counter* tally__make_owned(int64_t v);  // neve: owned
counter* tally__make_borrowed(int64_t v);
counter* tally__nothing(void);
void initialize__tally(void);
int64_t tally__inits(void);
vec* vec_create(double x, double y);
vec* vec_vec_add(vec* a, vec* b);
vec* vec_neg(vec* a);
bool vec_vec_equal(vec* a, vec* b);
double vec_x(vec* a);
double vec_float_mult(vec* a, float k);
#ifdef __cplusplus
}
#endif
"""

SOURCE = """\
#include <atomic>
#include "tally.h"
struct counter { int64_t n; };
struct vec { double x, y; };
static std::atomic<int64_t> destroyed{0};
static int64_t inits = 0;
counter* counter_create(int64_t start) { return new counter{start}; }
void counter_destroy(counter* c) { c->n = -999; destroyed++; }   // kept: a double free shows
int64_t counter_bump(counter* c, int64_t by) { return c->n += by; }
double tally__mean(const double* xs, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += xs[i];
    return n ? s / n : 0;
}
int64_t tally__destroyed(void) { return destroyed.load(); }
counter* counter_self(counter* c) { return c; }
counter* tally__make_owned(int64_t v) { return new counter{v}; }
counter* tally__make_borrowed(int64_t v) { return new counter{v}; }
counter* tally__nothing(void) { return nullptr; }
void initialize__tally(void) { inits++; }
int64_t tally__inits(void) { return inits; }
vec* vec_create(double x, double y) { return new vec{x, y}; }
vec* vec_vec_add(vec* a, vec* b) { return new vec{a->x + b->x, a->y + b->y}; }
vec* vec_neg(vec* a) { return new vec{-a->x, -a->y}; }
bool vec_vec_equal(vec* a, vec* b) { return a->x == b->x && a->y == b->y; }
double vec_x(vec* a) { return a->x; }
double vec_float_mult(vec* a, float k) { return a->x * k; }
"""

# What bindgen writes for HEADER (11.2); written by hand so these tests check the compiler.
BINDINGS = """\
proto counter counter_create(int start)
proto void counter_destroy(counter c)
proto int counter_bump(counter c, int by)
proto f64 tally__mean(f64[] xs, int n)
proto int tally__destroyed()
proto counter counter_self(counter c)
proto counter tally__make_owned(int v)  # neve: owned
proto counter tally__make_borrowed(int v)
proto counter tally__nothing()
proto void initialize__tally()
proto int tally__inits()
proto vec vec_create(f64 x, f64 y)
proto vec vec_vec_add(vec a, vec b)
proto vec vec_neg(vec a)
proto bool vec_vec_equal(vec a, vec b)
proto f64 vec_x(vec a)
proto f64 vec_float_mult(vec a, float k)
"""

# Allocate until the collector has finalized something (or give up): finalizers run on a
# runtime thread at a time of the collector's choosing.
WAIT = """
proto void GC_gcollect()

def bool wait_destroyed(int at_least)
    int tries = 0
    while tally.destroyed() < at_least and tries < 300
        array<int> junk = zeros_int(1000)
        GC_gcollect()
        sleep(0.01)
        tries += 1
    return tally.destroyed() >= at_least
"""


@pytest.fixture()
def tally(tmp_path: Path) -> Path:
    """The `tally` package of 11.2, its native part built into build/native/."""
    root = tmp_path / "tally"
    (root / "native").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "neve.toml").write_text('[package]\nname = "tally"\nversion = "0.1.0"\n\n'
                                    '[native]\nsources = ["native/*.cpp"]\n')
    (root / "include" / "tally.h").write_text(HEADER)
    (root / "native" / "tally.cpp").write_text(SOURCE)
    out = root / "build" / "native"
    out.mkdir(parents=True)
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", f"-I{root / 'include'}", "-o",
                    str(out / "libtally.so"), str(root / "native" / "tally.cpp")], check=True)
    (out / "bindings.nv").write_text(BINDINGS)
    return root


def run(root: Path, body: str, name: str = "app.nv") -> subprocess.CompletedProcess:
    (root / name).write_text(textwrap.dedent(body).lstrip())
    return subprocess.run(NSM + ["run", name], cwd=root, capture_output=True, text=True,
                          timeout=300)


def ok(root: Path, body: str) -> list[str]:
    p = run(root, body)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_spec_example(tally):
    assert ok(tally, """
        import include as tally
        main
            tally.counter c(5)
            print(c.bump(2))
            array<f64> xs = [1.0, 2.0, 6.0]
            print(tally.mean(xs, xs.size()))
            tally.counter d = new tally.counter(10)
            print(d.bump(-1), " ", c.bump(0))
        """) == ["7", "3.0", "9 7"]


def test_operators_and_identity(tally):
    assert ok(tally, """
        import include as tally
        main
            tally.vec a = new tally.vec(1.0, 2.0)
            tally.vec s = a + a
            print(s.x(), " ", (-a).x(), " ", a * 3.0)
            print(a + a == s, " ", a == s, " ", a != s)
            tally.counter c(1)
            tally.counter same = tally.counter_self(c)
            print(c == same, " ", str(c) == str(same), " ", str(c).startswith("<counter 0x"))
            map<tally.counter, str> names
            names[c] = "first"
            names[same] = "second"
            print(names.size(), " ", names[c])
            print(tally.nothing() == nil, " ", tally.nothing())
        """) == ["2.0 -1.0 3.0", "true false true", "true true true", "1 second", "true nil"]


def test_initializer_runs_once_before_globals_and_main(tally):
    assert ok(tally, """
        import include as tally
        class Cfg
            int seen
            ctor()
                self.seen = tally.inits()
        main
            print($Cfg.seen, " ", tally.inits())
        """) == ["1 1"]


def test_finalizer_of_owned_pointers_runs(tally):
    assert ok(tally, textwrap.dedent("""
        import include as tally
        def void churn(int n)
            [0..n]
                tally.counter c(1)
                c.bump(1)
        """) + WAIT + textwrap.dedent("""
        main
            churn(20000)
            print(wait_destroyed(1))
        """)) == ["true"]


def test_owned_comment_gives_a_finalizer(tally):
    assert ok(tally, textwrap.dedent("""
        import include as tally
        def void churn(int n)
            [0..n]
                tally.counter c = tally.make_owned(3)
                c.bump(1)
        """) + WAIT + textwrap.dedent("""
        main
            churn(20000)
            print(wait_destroyed(1))
        """)) == ["true"]


def test_borrowed_pointers_get_no_finalizer(tally):
    out = ok(tally, """
        import include as tally
        proto void GC_gcollect()
        def void churn(tally.counter keep, int n)
            [0..n]
                tally.counter alias = tally.counter_self(keep)
                tally.counter other = tally.make_borrowed(2)
                alias.bump(0)
                other.bump(1)
        main
            tally.counter keep = tally.make_borrowed(7)
            churn(keep, 20000)
            [0..20]
                array<int> junk = zeros_int(100000)
                GC_gcollect()
                sleep(0.005)
            print(tally.destroyed(), " ", keep.bump(0))
        """)
    assert out == ["0 7"]


def test_entry_module_merges_bindings(tally):
    (tally / "include.nv").write_text(textwrap.dedent("""
        # Neve code of the package beside its generated bindings: unqualified foreign names
        def int counter_twice(counter c)
            counter again = counter_self(c)
            return again.bump(0) * 2
        def counter fresh()
            counter c(4)
            return c
        """))
    assert ok(tally, """
        import include as tally
        main
            tally.counter c = tally.fresh()
            print(c.twice(), " ", tally.mean([2.0, 4.0], 2))
        """) == ["8 3.0"]


def test_native_package_not_built(tmp_path):
    root = tmp_path / "raw"
    root.mkdir()
    (root / "neve.toml").write_text('[package]\nname = "raw"\nversion = "0.1.0"\n\n'
                                    '[native]\nsources = ["native/*.cpp"]\n')
    p = run(root, """
        import include as raw
        main
            print(1)
        """)
    assert p.returncode == 1        # nsm builds native parts before compiling: here it cannot
    assert f"error: {root / 'neve.toml'}: [native] source 'native/*.cpp' matches no file" in p.stderr
