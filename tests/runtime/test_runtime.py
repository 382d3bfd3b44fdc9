"""The C++ runtime through its C ABI (runtime_cpp/include/neve_rt.h).

The runtime is built once per module into a temporary NEVE_HOME (by two processes at once, to
check the build lock); small C programs in tests/runtime/c/ are linked against it and act as
compiled Neve code would: they push NvFrames by hand, build values through NvType descriptors
and print through NvBuf.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from nsm import paths
from nsm.build import runtime as rtbuild

C_DIR = Path(__file__).parent / "c"
REPO = Path(__file__).resolve().parents[2]
PROGRAMS = ["fmt_floats", "strs", "parse", "arrays", "trace", "overflow", "threads", "misc"]


@pytest.fixture(scope="module")
def neve_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("neve_home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEVE_HOME", str(home))
        yield home


@pytest.fixture(scope="module")
def runtime(neve_home):
    # Two first runs at the same time: the file lock lets exactly one of them build.
    code = ("from nsm.build.runtime import ensure_runtime\n"
            "r = ensure_runtime()\n"
            "print(r.built, r.lib)")
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=REPO, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(out.split())
    assert sorted(r[0] for r in results) == ["False", "True"]
    assert results[0][1] == results[1][1]
    rt = rtbuild.ensure_runtime()
    assert not rt.built and rt.lib.is_file() and (rt.include / "neve_rt.h").is_file()
    assert str(rt.lib) == results[0][1]
    return rt


@pytest.fixture(scope="module")
def exe(runtime, tmp_path_factory):
    out = tmp_path_factory.mktemp("rt_bin")

    def build(name: str) -> Path:
        target = out / name
        cmd = ["gcc", "-O1", "-g", "-I", str(runtime.include), str(C_DIR / f"{name}.c"),
               str(runtime.lib), *runtime.link_args, "-o", str(target)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return target

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(PROGRAMS, pool.map(build, PROGRAMS)))


def run(path: Path, *args: str, merge: bool = False, env: dict | None = None):
    return subprocess.run([str(path), *args], capture_output=not merge, text=True, timeout=60,
                          stdout=subprocess.PIPE if merge else None,
                          stderr=subprocess.STDOUT if merge else None,
                          env={**os.environ, **(env or {})})


# ------------------------------------------------------------------ the build

def test_second_call_is_a_stat(runtime, monkeypatch):
    def no_build(*a, **k):
        raise AssertionError("rebuilt although the library exists")

    monkeypatch.setattr(rtbuild, "_build", no_build)
    mtime = runtime.lib.stat().st_mtime_ns
    t = time.perf_counter()
    again = rtbuild.ensure_runtime()
    elapsed = time.perf_counter() - t
    assert again.key == runtime.key and again.lib == runtime.lib and not again.built
    assert runtime.lib.stat().st_mtime_ns == mtime
    assert elapsed < 0.5
    assert runtime.link_args[:3] == ["-lgc", "-lpthread", "-lm"]


def test_compile_error_is_reported(neve_home, tmp_path, monkeypatch):
    src = tmp_path / "runtime_cpp"
    shutil.copytree(paths.runtime_src_dir() / "include", src / "include")
    (src / "broken").mkdir()
    (src / "broken" / "oops.cpp").write_text('#include "neve_rt.h"\nint f( { return 0; }\n')
    monkeypatch.setattr(paths, "runtime_src_dir", lambda: src)
    with pytest.raises(rtbuild.RuntimeBuildError) as info:
        rtbuild.ensure_runtime()
    msg = str(info.value)
    assert "oops.cpp" in msg and "error" in msg
    key = rtbuild.runtime_key(src)
    assert not (paths.runtime_cache_dir() / key).exists()
    assert not list(paths.runtime_cache_dir().glob(f".tmp-{key}-*"))


# ------------------------------------------------------------------ printing

FLOATS = """
0.1 0.33333334 0.3333333333333333 1e+16 1e-05 1.2345678901234568e+17 2.5e+20 -0.0 nan nan inf
-inf 3.0 0.001 1234567.0 1.5e+300 0.0001 9999999999999998.0 0.30000000000000004 5e-324
1.7976931348623157e+308 -2.5 100.0 0.0 9.900000000000001e-05
16777216.0 1e+16 3.4028235e+38 1e-45 -0.0 2.5e-05 nan -inf
0.1 0.334 3.0 -0.0 nan 1e+20
0.1 65500.0 inf 6e-08 -2.5
""".split()


def test_float_text(exe):
    p = run(exe["fmt_floats"])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[:len(FLOATS)] == FLOATS
    assert lines[len(FLOATS):] == ["n=3 half=1.5 big=true -9223372036854775808", "1000"]


def test_threads_never_tear_lines(exe):
    p = run(exe["threads"])
    assert p.returncode == 0, p.stderr
    seen = Counter()
    for line in p.stdout.splitlines():
        m = re.fullmatch(r"thread (\d) line (\d+) ([a-d]+) end", line)
        assert m, f"torn line: {line!r}"
        t, i = int(m[1]), int(m[2])
        assert m[3] == chr(ord("a") + t) * (20 + i % 13)
        assert i == seen[t]          # each thread's lines in order
        seen[t] += 1
    assert seen == {0: 3000, 1: 3000, 2: 3000, 3: 3000}


# ------------------------------------------------------------------ strings and parsing

STRS = r'''
["a", "", "b", ""]
[""]
["a", "b", "c"]
[""]
["one", "two", "three"]
[]
x y
x  
  x
4
7
-1
0
5
2
4
a::b::c

abc
mixed 123
MIXED 123
x, y, z

foobar

1
0
1
1
1
-1
1
1
111
el
llo

hello
["a\"b\\c\n\t\r\0\x01\x7fé", ""]
['a', '\'', '\\', '\n']
Z
raw "text"
'''.lstrip("\n")


def test_str_methods(exe):
    p = run(exe["strs"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == STRS


@pytest.mark.parametrize("mode, stderr", [
    ("at", "strs.nv:4:11: runtime error: index 7 out of range for str of length 5\n"
           "  at main (strs.nv:4:11)\n"),
    ("split_empty", "runtime error: split: empty separator\n"),
])
def test_str_errors(exe, mode, stderr):
    p = run(exe["strs"], mode)
    assert (p.returncode, p.stdout, p.stderr) == (1, "", stderr)


def test_parse_valid(exe):
    p = run(exe["parse"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "42", "-17", "5", "9223372036854775807", "-9223372036854775808", "0",
        "0.1 0.1", "1000.0 1000.0", "-0.0025 -0.0025", "inf inf", "-inf -inf", "nan nan",
        "0.5 0.5", "5.0 5.0", "inf 1e+39"]


@pytest.mark.parametrize("kind, text, message", [
    ("int", "12x", 'to_int: invalid integer "12x"'),
    ("int", "9223372036854775808", 'to_int: invalid integer "9223372036854775808"'),
    ("int", "-9223372036854775809", 'to_int: invalid integer "-9223372036854775809"'),
    ("int", "", 'to_int: invalid integer ""'),
    ("int", " - 1", 'to_int: invalid integer " - 1"'),
    ("int", "1\t2\n", 'to_int: invalid integer "1\\t2\\n"'),
    ("float", "abc", 'to_float: invalid number "abc"'),
    ("float", "0x1p3", 'to_float: invalid number "0x1p3"'),
    ("f64", "1e", 'to_f64: invalid number "1e"'),
    ("f64", "nan(1)", 'to_f64: invalid number "nan(1)"'),
])
def test_parse_errors(exe, kind, text, message):
    p = run(exe["parse"], kind, text)
    assert p.returncode == 1
    assert p.stdout == "before\n"     # flushed before the error
    assert p.stderr == f"parse.nv:3:9: runtime error: {message}\n  at main (parse.nv:3:9)\n"


# ------------------------------------------------------------------ arrays

ARRAYS = """
[5, 3, 9, 1, 3]
[1, 3, 3, 5, 9]
[5, 3, 9, 1, 3]
9
5
[100, 1, 3, 200, 3, 300]
[100, 1, 3, 200, 3, 300, 100, 1, 3, 200, 3, 300]
[300, 3, 200, 3, 1, 100, 300, 3, 200, 3, 1, 100]
1
-1
[9, 1, 3]
[]
499500
21 405 1 9 [5, 8, 17, 18, 21] [5, 15, 135, 135, 405] [5, 3, 3, 1, 1] [5, 5, 9, 9, 9]
7.5 3.75 0.5 2.5 [0.5, 1.5, 3.0, 5.0, 7.5] [0.5, 0.5, 0.75, 1.5, 3.75] [0.5, 0.5, 0.5, 0.5, 0.5] [0.5, 1.0, 1.5, 2.0, 2.5]
47 56 100 102 [100, -55, 47] [100, 116, 56] [100, 100, 100] [100, 101, 102]
51 224 7 200 [200, 44, 51] [200, 32, 224] [200, 100, 7] [200, 200, 200]
0.6 0.00604 0.1 0.3 [0.1, 0.3, 0.6] [0.1, 0.02, 0.00604] [0.1, 0.1, 0.1] [0.1, 0.2, 0.3]
0.0
1.0
[]
nan
-1
[-1.0, 0.0, -0.0, 2.0, 3.5, nan]
["apple", "apple", "banana", "fig", "pear"]
3
[false, false, true, true]
[[5, 3, 9], [], nil]
nil
[(1, "x"), (-2, "y z"), (1, "a")]
(1, "x")
[(-2, "y z"), (1, "a"), (1, "x")]
2
('q', [1.5, -0.0], true)
[1.5, -0.0]
1
0
[10, 7, 4, 1]
[0, 1, 2, 3, 4]
[]
[1.0, 0.75, 0.5, 0.25]
[1, 1, 1]
[0.0, 0.0]
81
0
-27
1
""".lstrip("\n")


def test_arrays(exe):
    p = run(exe["arrays"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == ARRAYS


@pytest.mark.parametrize("mode, message", [
    ("pop_empty", "pop from empty array"),
    ("min_empty", "min of empty array"),
    ("max_empty", "max of empty array"),
    ("remove_oob", "index 7 out of range for array of length 5"),
    ("insert_oob", "index -7 out of range for array of length 5"),
    ("arange0", "arange step must not be zero"),
    ("pow_neg", "negative exponent in pow"),
])
def test_array_errors(exe, mode, message):
    p = run(exe["arrays"], mode)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == f"arrays.nv:10:5: runtime error: {message}\n  at main (arrays.nv:10:5)\n"


def test_temporaries_are_collected(exe):
    # 300k iterations of split/join/arange allocate ~0.5 GB in total; the collector must keep
    # the peak small (13.3).
    proc = subprocess.Popen([str(exe["arrays"]), "gc"], stdout=subprocess.PIPE)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert (proc.returncode, out) == (0, b"gc ok\n")
    assert usage.ru_maxrss < 100 * 1024   # KiB


# ------------------------------------------------------------------ errors and traces

def test_trace_format(exe):
    p = run(exe["trace"], "divzero")
    assert (p.returncode, p.stdout) == (1, "line 1 of stdout\n")
    assert p.stderr == ("stats.nv:7:18: runtime error: integer division by zero\n"
                        "  at average (stats.nv:7:18)\n"
                        "  at main (stats.nv:22:5)\n")


def test_error_without_frames(exe):
    p = run(exe["trace"], "plain", merge=True)
    assert (p.returncode, p.stdout) == (1, "line 1 of stdout\nruntime error: boom\n")


@pytest.mark.parametrize("mode, message", [
    ("nil_call", "called deposit() on nil Account"),
    ("assert", "assertion failed: balance >= 0"),
    ("assert_empty", "assertion failed"),
    ("panic_str", "custom"),
    ("modzero", "integer modulo by zero"),
])
def test_panic_messages(exe, mode, message):
    p = run(exe["trace"], mode)
    assert p.returncode == 1
    assert p.stderr == (f"bank.nv:12:3: runtime error: {message}\n"
                        "  at Account.deposit (bank.nv:12:3)\n"
                        "  at main (stats.nv:23:7)\n")


def test_segfault_is_a_runtime_error(exe):
    p = run(exe["trace"], "segv")
    assert p.returncode == 1
    assert p.stderr == ("bank.nv:13:9: runtime error: segmentation fault\n"
                        "  at Account.deposit (bank.nv:13:9)\n"
                        "  at main (stats.nv:23:7)\n")


def _walk_frames(n: int) -> list[str]:
    # walk(depth) sits at line 2 + depth % 3; the innermost has depth n - 1
    return [f"  at walk (deep.nv:{2 + d % 3}:5)" for d in range(n - 1, 0, -1)] + \
        ["  at main (stats.nv:30:2)"]


def test_trace_of_40_frames_is_whole(exe):
    p = run(exe["trace"], "walk40")
    lines = p.stderr.splitlines()
    assert lines[0] == "deep.nv:2:5: runtime error: too deep"
    assert lines[1:] == _walk_frames(40)


def test_long_trace_omits_middle(exe):
    p = run(exe["trace"], "walk100")
    lines = p.stderr.splitlines()
    frames = _walk_frames(100)
    assert lines[1:] == frames[:20] + ["  ... 60 more frames ..."] + frames[-20:]


def test_exit_and_stream_order(exe):
    p = run(exe["trace"], "exit")
    assert (p.returncode, p.stdout, p.stderr) == (3, "line 1 of stdout\nbye\n", "")
    p = run(exe["trace"], "eprint", merge=True)
    assert (p.returncode, p.stdout) == (
        0, "line 1 of stdout\nto stdout\nto stderr\nstdout again\n")


@pytest.mark.parametrize("mode", ["main", "thread"])
def test_stack_overflow(exe, mode):
    p = run(exe["overflow"], mode)
    assert p.returncode == 1, f"died with {p.returncode}"
    assert p.stdout == "start\n"
    lines = p.stderr.splitlines()
    assert lines[0] == "deep.nv:3:12: runtime error: stack overflow"
    assert lines[1:21] == ["  at recurse (deep.nv:3:12)"] * 20
    assert re.fullmatch(r"  \.\.\. \d{4,} more frames \.\.\.", lines[21])
    if mode == "main":
        assert lines[22:] == ["  at recurse (deep.nv:3:12)"] * 19 + ["  at main (deep.nv:10:1)"]
    else:
        assert lines[22:] == ["  at recurse (deep.nv:3:12)"] * 19 + [
            "  at worker (deep.nv:6:3)", "in thread tid=2 started at deep.nv:9:5"]


# ------------------------------------------------------------------ process and time

def test_process_and_time(exe):
    p = run(exe["misc"], "a", "b c", env={"NEVE_TEST_VAR": "hello"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f'["{exe["misc"]}", "a", "b c"]'
    assert lines[1:4] == ["hello", "dflt", ""]
    assert re.fullmatch(r"Elapsed time: 0\.0[5-9]\d seconds\.|Elapsed time: 0\.[1-9]\d\d seconds\.",
                        lines[4])
    assert lines[5:] == ["slept 1 timer 1", "epoch 1", "bf16 3f80 3f80 3f82 7fc0 3.14062",
                         "half 3c00 7c00 0001 c000 0.333252 5.96046e-08"]
