"""Separate compilation (compiler/unit.py): programs compiled unit by unit, linked and run,
behave exactly as `nsm run` of the same root file; interfaces change exactly when importers
depend on what changed."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.unit import compile_unit
from nsm.build.orchestrate import import_map_for
from nsm.project import bundled_root, module_key as stable_module_key, package_entry

from .harness import REPO, nsm_run, unit_run

PROGRAMS = REPO / "tests" / "programs"

# ------------------------------------------------------------------ programs in a package

GEOMETRY = {
    "geo/shapes.nv": """
        class Vec
            int x, y
            ctor(int x, int y)
                self.x = x
                self.y = y
            def str to_str()
                return f"({self.x}, {self.y})"

        class Pair<T>
            T a, b
            ctor(T a, T b)
                self.a = a
                self.b = b
            def T first()
                return self.a

        type point = Vec

        def Vec +(Vec p, Vec q)
            return new Vec(p.x + q.x, p.y + q.y)

        def int Vec_norm1(Vec v)
            return abs(v.x) + abs(v.y)

        def T biggest<T>(array<T> xs)
            T best = xs[0]
            for x in xs
                if x > best
                    best = x
            return best

        def Vec origin(int shift = 0)
            return new Vec(shift, shift)
        """,
    "stats.nv": """
        import geo/shapes

        def int total(array<shapes.Vec> vs)
            shapes.Vec acc = shapes.origin()
            for v in vs
                acc = acc + v
            return acc.norm1()

        def float top(array<float> xs)
            return shapes.biggest(xs)

        def str pair_first(shapes.Pair<str> p)
            return p.first()
        """,
    "main.nv": """
        import geo/shapes
        import stats
        from geo/shapes import Vec

        main
            array<Vec> vs = [new Vec(1, 2), new Vec(-3, 4)]
            print(stats.total(vs))
            shapes.point o = shapes.origin(5)
            print(o, " ", vs[0] + vs[1], " ", o.norm1())
            print(shapes.biggest([3, 9, 2]), " ", stats.top([1.5, 0.5]))
            shapes.Pair<str> p = new shapes.Pair<str>("left", "right")
            print(stats.pair_first(p), " ", shapes.biggest(["b", "a"]))
            shapes.Pair<int> q = new shapes.Pair<int>(4, 5)
            print(q.first() + q.b, " ", sqrt(16.0), " ", len(zeros_int(3)), " ", ones_float(2)[1])
        """,
}

RAISES = {
    "low.nv": """
        def int ratio(int a, int b)
            return a // b

        def int safe(int a)
            return a + 1
        """,
    "mid.nv": """
        import low

        def int scaled(int x)
            int s = low.safe(x)
            return low.ratio(s, x)
        """,
    "main.nv": """
        import mid

        main
            print(mid.scaled(3))
            print(mid.scaled(0))
        """,
}

GLOBALS = {
    "config.nv": """
        class Config
            int batch
            ctor()
                print("make Config")
                self.batch = 32

        class Log
            array<str> lines
            ctor()
                print("make Log")

        def void note(str s)
            $Log.lines.append(s)
        """,
    "worker.nv": """
        import config

        class Counter
            int n
            ctor()
                print("make Counter, batch ", $config.Config.batch)

        def int step()
            $Counter.n += 1
            config.note("step")
            return $Counter.n
        """,
    "main.nv": """
        import worker
        import config

        class Local
            int v
            ctor()
                print("make Local")

        main
            print($Local.v)
            print(worker.step(), " ", worker.step())
            print(len($config.Log.lines), " ", $config.Config.batch)
        """,
}

CYCLE = {
    "even.nv": """
        import odd

        def bool is_even(int n)
            if n == 0
                return true
            if n < 0
                return odd.bad(n)
            return odd.is_odd(n - 1)
        """,
    "odd.nv": """
        import even

        class Tally
            int calls
            ctor()
                print("make Tally")

        def bool is_odd(int n)
            $Tally.calls += 1
            if n == 0
                return false
            return even.is_even(n - 1)

        def int calls()
            return $Tally.calls

        def bool bad(int n)
            return 10 // (n - n) == 1
        """,
    "main.nv": """
        import even
        import odd

        main
            print(even.is_even(10), " ", odd.is_odd(7))
            print(odd.calls())
            print(even.is_even(-1))
        """,
}


def write_package(root: Path, files: dict[str, str], name: str = "app") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "neve.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n')
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "main.nv"


def same_as_nsm_run(main: Path, build: Path, **kw) -> tuple[int, str, str]:
    got = unit_run(main, build, release=kw.get("release", False))
    want = nsm_run(main, flags=("--release",) if kw.get("release") else ())
    assert got == want
    return got


def test_classes_generics_operators_std_across_modules(tmp_path):
    code, out, err = same_as_nsm_run(write_package(tmp_path / "app", GEOMETRY), tmp_path / "b")
    assert (code, err) == (0, "")
    assert out.splitlines() == ["8", "(5, 5) (-2, 6) 10", "9 1.5", "left b", "9 4.0 3 1.0"]


def test_runtime_error_trace_through_two_units(tmp_path):
    code, out, err = same_as_nsm_run(write_package(tmp_path / "app", RAISES), tmp_path / "b")
    assert code == 1 and out == "1\n"
    assert err.splitlines() == [
        "low.nv:2:14: runtime error: integer division by zero",
        "  at ratio (low.nv:2:14)", "  at scaled (mid.nv:5:16)", "  at main (main.nv:5:15)"]


def test_globals_created_in_program_order(tmp_path):
    code, out, err = same_as_nsm_run(write_package(tmp_path / "app", GLOBALS), tmp_path / "b")
    assert (code, err) == (0, "")
    assert out.splitlines()[:4] == ["make Log", "make Config", "make Counter, batch 32",
                                    "make Local"]


def test_import_cycle_is_one_unit(tmp_path):
    main = write_package(tmp_path / "app", CYCLE)
    code, out, err = same_as_nsm_run(main, tmp_path / "b")
    assert code == 1 and out == "make Tally\ntrue true\n9\n"
    assert err.splitlines()[1:] == ["  at bad (odd.nv:18:15)", "  at is_even (even.nv:7:20)",
                                    "  at main (main.nv:7:16)"]


def test_release_build_matches(tmp_path):
    same_as_nsm_run(write_package(tmp_path / "app", GEOMETRY), tmp_path / "b", release=True)


@pytest.mark.parametrize("name", ["app_basic", "app_cycle", "app_ops", "app_naming_import",
                                  "app_qualified_generic"])
def test_golden_module_programs(name, tmp_path):
    code, out, err = same_as_nsm_run(PROGRAMS / "s08_modules" / name / "main.nv", tmp_path)
    assert code == 0 and out


# ------------------------------------------------------------------ interfaces

@pytest.fixture(scope="module")
def std_nvi(tmp_path_factory) -> Path:
    """An interface folder holding std's interface."""
    d = tmp_path_factory.mktemp("nvi")
    r = compile_unit([package_entry(bundled_root() / "std")], d, import_map_for(package_entry(bundled_root() / "std")))
    assert r.ok, r.diagnostics
    assert list(r.objects) == ["std__include"] and not r.interfaces_read
    for key, data in r.interfaces.items():
        (d / f"{key}.nvi").write_bytes(data)
    return d


LIB = """
    # helpers for the interface tests
    def T pick<T>(array<T> xs)
        return xs[0]

    class Acc
        int total
        def void add(int n)
            self.total += n

    def int scale(int x, int k = 2)
        return x * k
    """


@pytest.fixture
def nvi(tmp_path, std_nvi) -> Path:
    """A fresh interface folder holding std's interface."""
    d = tmp_path / "nvi"
    d.mkdir()
    for f in std_nvi.iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    return d


def lib_interface(tmp_path: Path, nvi: Path, text: str, name: str = "lib.nv") -> bytes:
    p = tmp_path / "pkg" / name
    if not (tmp_path / "pkg" / "neve.toml").exists():
        write_package(tmp_path / "pkg", {})
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    r = compile_unit([p], nvi, import_map_for(p))
    assert r.ok, r.diagnostics
    key = stable_module_key(p)
    assert list(r.interfaces) == [key] == list(r.objects)
    return r.interfaces[key]


def test_interface_ignores_bodies_and_comments(tmp_path, nvi):
    base = lib_interface(tmp_path, nvi, LIB)
    assert lib_interface(tmp_path, nvi, LIB) == base          # deterministic
    body = LIB.replace("return x * k", "int y = x\n        return y * k")
    assert lib_interface(tmp_path, nvi, body) == base
    # comments that move no generic definition (their lines show in importers' traces)
    comments = LIB.replace("# helpers for", "# reworded helpers for").replace(
        "class Acc", "# accumulates\n    class Acc").replace(
        "return x * k", "# doubles by default\n        return x * k  # trailing") + "# end\n"
    assert lib_interface(tmp_path, nvi, comments) == base


@pytest.mark.parametrize("change", [
    ("def int scale(int x, int k = 2)", "def int scale(int x, int k = 2, int j = 0)"),
    ("int k = 2", "int k = 3"),                                      # a default value
    ("return x * k", "return x // k"),                               # may now raise
    ("return xs[0]", "return xs[len(xs) - 1]"),                      # a generic body
    ("int total", "int total, count"),                               # a class field
    ("self.total += n", "self.total += n\n            self.add(0)"),     # now recursive
], ids=["signature", "default", "may_raise", "generic_body", "field", "recursion"])
def test_interface_changes(tmp_path, nvi, change):
    base = lib_interface(tmp_path, nvi, LIB)
    assert lib_interface(tmp_path, nvi, LIB.replace(*change)) != base


def test_importer_interface_follows_its_import(tmp_path, nvi):
    def build(lib_text):
        lib_bytes = lib_interface(tmp_path, nvi, lib_text)
        (nvi / f"{stable_module_key(tmp_path / 'pkg' / 'lib.nv')}.nvi").write_bytes(lib_bytes)
        return lib_interface(tmp_path, nvi, "import lib\n\ndef int twice(int x)\n"
                                               "    return lib.scale(x)\n", "user.nv")
    base = build(LIB)
    assert build(LIB.replace("return x * k", "return k * x")) == base
    assert build(LIB.replace("return x * k", "return x // k")) != base


def test_missing_interface_is_an_internal_error(tmp_path, nvi):
    write_package(tmp_path / "pkg", {"a.nv": "def int f()\n    return 1\n",
                                     "b.nv": "import a\n\ndef int g()\n    return a.f()\n"})
    r = compile_unit([tmp_path / "pkg" / "b.nv"], nvi, import_map_for(tmp_path / "pkg" / "b.nv"))
    assert (r.ok, r.exit_code) == (False, 3) and not r.objects
    assert r.diagnostics.startswith("error: internal compiler error: missing interface ")
    assert "app__a.nvi" in r.diagnostics


def test_unit_diagnostics_and_cli(tmp_path, nvi):
    write_package(tmp_path / "pkg", {"bad.nv": "def int f()\n    return totl\n"})
    bad = tmp_path / "pkg" / "bad.nv"
    r = compile_unit([bad], nvi, import_map_for(bad))
    assert (r.ok, r.exit_code) == (False, 1)
    assert "error: unknown variable 'totl'" in r.diagnostics and "    return totl\n" in r.diagnostics
    imap = tmp_path / "imports.json"
    imap.write_text(import_map_for(bad).to_json())
    p = subprocess.run([sys.executable, "-m", "compiler.unit", "--nvi-dir", str(nvi),
                        "--imports", str(imap), str(bad)], cwd=REPO, capture_output=True, text=True)
    assert p.returncode == 1 and "unknown variable 'totl'" in p.stderr
    assert "Traceback" not in p.stderr and not list((tmp_path / "pkg").glob("*.o"))


# ------------------------------------------------------------------ keys

def test_stable_module_keys(tmp_path):
    write_package(tmp_path / "proj", {"models/user.nv": "", "main.nv": ""}, name="my-app")
    assert stable_module_key(tmp_path / "proj" / "models" / "user.nv") == "my_app__models_user"
    assert stable_module_key(tmp_path / "proj" / "main.nv") == "my_app__main"
    assert stable_module_key(package_entry(bundled_root() / "std")) == "std__include"
    assert stable_module_key(bundled_root() / "frost" / "include.nv") == "frost__include"
    (tmp_path / "loose.nv").write_text("")
    key = stable_module_key(tmp_path / "loose.nv")
    assert key.startswith("loose_") and key == stable_module_key(tmp_path / "x" / ".." / "loose.nv")


def test_key_function_is_cheap_to_import():
    code = ("import sys, compiler.unit; "
            "bad = [m for m in ('llvmlite', 'compiler.check', 'compiler.parser') "
            "if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
