"""`nsm test` checks a package's tests/*.nv against the golden-program directives (docs/testing.md):
stdin, args, exit status, runtime errors, stderr lines; failures name the first differing line;
directives it cannot honour are refused before anything is built."""
from __future__ import annotations

import re
from pathlib import Path

from .helpers import Package, nsm

SUMMARY = re.compile(r"(\d+) passed, (\d+) failed in \d+\.\d\d s")

LIB = ("def int twice(int x)\n    return 2 * x\n\n"
       "def int at(array<int> a, int i)\n    return a[i]\n")

PASSING = {
    "tests/t_args.nv": (
        '# args: one "two three"\n'
        "main\n"
        "    array<str> a = argv()\n"
        '    print(a[1:])  # expect: ["one", "two three"]\n'),
    "tests/t_stdin.nv": (
        "# stdin: hello\n"
        "# stdin:\n"
        "# stdin: world\n"
        "main\n"
        '    for line in read_lines("/dev/stdin")\n'
        '        print("[", line, "]")\n'
        "# expect: [hello]\n"
        "# expect: []\n"
        "# expect: [world]\n"),
    "tests/t_exit.nv": (
        "import include as app\n"
        "main\n"
        "    print(app.twice(21))  # expect: 42\n"
        "    exit(3)\n"
        "# exit: 3\n"),
    "tests/t_runtime.nv": (
        "def int pick(array<int> a, int i)\n"
        "    return a[i]  # runtime-error@13: index 5 out of range for array of length 2\n"
        "main\n"
        '    print("before")  # expect: before\n'
        "    pick([1, 2], 5)\n"
        "# trace: pick 2:13\n"
        "# trace: main 5:5\n"),
    "tests/t_anywhere.nv": (
        "main\n"
        '    assert(1 + 1 == 3, "math is broken")\n'
        "# runtime-error-anywhere: assertion failed: math is broken\n"),
    "tests/t_lib_error.nv": (
        "import include as app\n"
        "main\n"
        "    app.at([7], 1)\n"
        "# runtime-error-anywhere: index 1 out of range for array of length 1\n"
        "# trace-top: at\n"),
    "tests/t_stderr.nv": (
        "main\n"
        '    eprint("note: starting")\n'
        '    eprint("note: done")\n'
        "# stderr-line: note: done\n"),
}


def _package(tmp_path: Path, tests: dict[str, str]) -> Package:
    return Package(tmp_path / "app", files={"src/include.nv": LIB, **tests})


def _summary(out: str) -> tuple[int, int]:
    m = SUMMARY.fullmatch(out.splitlines()[-1])
    assert m, out
    return int(m[1]), int(m[2])


def test_directives_of_the_golden_grammar_pass(tmp_path: Path) -> None:
    pkg = _package(tmp_path, PASSING)
    p = nsm("test", cwd=pkg.root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[:-1] == [
        f"test {n} ... ok"
        for n in ("t_anywhere", "t_args", "t_exit", "t_lib_error", "t_runtime", "t_stderr",
                  "t_stdin")]
    assert _summary(p.stdout) == (7, 0)


def test_failures_show_what_differs(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "tests/a_ok.nv": 'main\n    print("fine")  # expect: fine\n',
        "tests/b_stdout.nv": ('main\n    print("a")  # expect: a\n    print("b")  # expect: B\n'
                              '    print("c")  # expect: c\n'),
        "tests/c_exit.nv": "main\n    exit(0)\n# exit: 2\n",
        "tests/d_runtime.nv": ("main\n    array<int> a = [1]\n"
                               "    print(a[3])  # runtime-error@5: index 3 out of range for array of length 1\n"),
        "tests/e_silent.nv": 'main\n    print("unexpected")\n',
        "tests/f_stderr.nv": 'main\n    eprint("x")\n# stderr-line: y\n',
    })
    p = nsm("test", cwd=pkg.root)
    assert p.returncode == 1
    out = p.stdout.splitlines()
    assert out[0] == "test a_ok ... ok"
    b = out.index("test b_stdout ... FAILED")
    assert out[b + 1] == "  stdout differs at line 2: expected 'B', got 'b'"
    assert out[b + 2:b + 4] == ["    --- expected", "    +++ actual"]
    c = out.index("test c_exit ... FAILED")
    assert out[c + 1] == "  exit status 0, expected 2"
    d = out.index("test d_runtime ... FAILED")
    assert out[d + 1] == ("  runtime error differs: expected 'FILE:3:5: runtime error: index 3 out of "
                          "range for array of length 1', got 'tests/d_runtime.nv:3:12: runtime error: "
                          "index 3 out of range for array of length 1'")
    assert "  stderr:   at main (tests/d_runtime.nv:3:12)" in out
    e = out.index("test e_silent ... FAILED")
    assert out[e + 1] == "  stdout differs at line 1: expected <nothing>, got 'unexpected'"
    f = out.index("test f_stderr ... FAILED")
    assert out[f + 1:f + 3] == ["  stderr has no line 'y'", "  stderr: x"]
    assert _summary(p.stdout) == (1, 5)


def test_named_tests_only(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"tests/one.nv": PASSING["tests/t_exit.nv"],
                              "tests/two.nv": "main\n    exit(1)\n"})
    p = nsm("test", "one", cwd=pkg.root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[0] == "test one ... ok"
    assert _summary(p.stdout) == (1, 0)
    p = nsm("test", "three", cwd=pkg.root)
    assert p.returncode == 1
    assert p.stderr == f"error: no test named 'three' in {pkg.root / 'tests'}\n"


def test_bad_directive_is_located_and_nothing_is_built(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"tests/ok.nv": "main\n    print(1)  # expect: 1\n",
                              "tests/typo.nv": "main\n    print(1)  # expects: 1\n"})
    p = nsm("test", cwd=pkg.root)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == "error: tests/typo.nv:2: comment looks like a misspelt directive: '# expects: 1'\n"
    assert not (pkg.root / "build").exists()


def test_compile_error_expectations_are_refused(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {"tests/bad.nv": "main\n    int x = \"s\"  # error@13\n"})
    p = nsm("test", cwd=pkg.root)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.splitlines() == [
        "error: tests/bad.nv:2: compile-error directives ('# error', '# error-anywhere') are not "
        "supported in nsm test",
        "hint: every test is built with the package, so a program that must fail to compile fails "
        "the build; keep it outside tests/ and check it with nsm check FILE",
    ]
    pkg.write("tests/bad.nv", "# flags: --release\nmain\n    print(1)  # expect: 1\n")
    p = nsm("test", cwd=pkg.root)
    assert p.returncode == 1
    assert p.stderr.splitlines()[0] == "error: tests/bad.nv:1: '# flags:' is not supported in nsm test"
    assert not (pkg.root / "build").exists()
