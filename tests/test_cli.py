"""nsm's command line: run/check/emit, forwarding of args, stdin, stdout and exit status,
diagnostics format, the executable cache."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def nsm(*args: str, cwd: Path | None = None, stdin: str | None = None, tool: str = "nsm"):
    return subprocess.run([str(BIN / tool), *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=300)


def write(tmp_path: Path, text: str, name: str = "prog.nv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_help_lists_commands():
    r = nsm("--help")
    assert r.returncode == 0
    assert "run" in r.stdout and "check" in r.stdout
    r = nsm("run", "--help")
    assert r.returncode == 0 and "--release" in r.stdout and "--emit" in r.stdout


def test_hello_example_runs_with_args():
    r = nsm("run", "examples/hello.nv", "1", "2", "39", cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Hello from Neve!\nsum of arguments: 42\n"
    r2 = nsm("examples/hello.nv", cwd=ROOT, tool="neve")
    assert r2.returncode == 0 and r2.stdout == "Hello from Neve!\n"


def test_exit_status_and_stdin_are_forwarded(tmp_path):
    p = write(tmp_path, "main\n    var lines = read_stdin_lines()\n")
    p = write(tmp_path, 'main\n    print("bye")\n    exit(7)\n')
    r = nsm("run", str(p))
    assert (r.returncode, r.stdout) == (7, "bye\n")


def test_compile_error_is_located_with_caret_and_hint(tmp_path):
    p = write(tmp_path, 'main\n    int total = 3\n    print("sum: ", totl)\n')
    r = nsm("run", str(p))
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == (f"{p}:3:20: error: unknown variable 'totl'\n"
                        '    print("sum: ", totl)\n'
                        "                   ^\n"
                        "hint: did you mean 'total'?\n")


def test_check_only_type_checks(tmp_path):
    good = write(tmp_path, "main\n    int x = 1\n", "good.nv")
    assert nsm("check", str(good)).returncode == 0
    bad = write(tmp_path, 'main\n    int x = "a"\n', "bad.nv")
    r = nsm("check", str(bad))
    assert r.returncode == 1 and "expected int, got str" in r.stderr


def test_runtime_error_trace_and_exit_status(tmp_path):
    p = write(tmp_path, "def int average(array<int> xs)\n    return xs.sum() // xs.size()\n\n"
                        "main\n    array<int> empty\n    print(average(empty))\n")
    r = nsm("run", str(p))
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"{p}:2:21: runtime error: integer division by zero",
        f"  at average ({p}:2:21)",
        f"  at main ({p}:6:11)",
    ]


@pytest.mark.parametrize("stage,needle", [
    ("tokens", "KW 'main'"), ("ast", "MainDef"), ("typed", "Builtin"), ("ir", "define"),
    ("llvm", "define"), ("asm", "main"),
])
def test_emit_stages(tmp_path, stage, needle):
    p = write(tmp_path, 'main\n    print("hi")\n')
    r = nsm("run", "--emit", stage, str(p))
    assert r.returncode == 0, r.stderr
    assert needle in r.stdout


def test_emit_obj_writes_object_file(tmp_path):
    p = write(tmp_path, 'main\n    print("hi")\n')
    r = nsm("run", "--emit", "obj", str(p), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "prog.o").read_bytes()[:4] == b"\x7fELF"


def test_unchanged_program_reuses_cached_executable(tmp_path):
    from nsm.build.orchestrate import build_file
    p = write(tmp_path, 'main\n    print("cached")\n')
    first, exe1 = build_file(p)
    second, exe2 = build_file(p)
    assert first.ok and first.ran and second.ok and not second.ran and exe1 == exe2
    assert subprocess.run([str(exe2)], capture_output=True, text=True).stdout == "cached\n"
    p.write_text('main\n    print("changed")\n')
    third, exe3 = build_file(p)
    assert third.ok and any("NEVE" in r for r in third.ran)
    assert subprocess.run([str(exe3)], capture_output=True, text=True).stdout == "changed\n"


def test_missing_file_is_a_clean_error(tmp_path):
    r = nsm("run", str(tmp_path / "nope.nv"))
    assert r.returncode == 1 and "Traceback" not in r.stderr and "nope.nv" in r.stderr
