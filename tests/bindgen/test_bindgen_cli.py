"""`nsm bindgen HEADER [-o OUT] [-I DIR]... [-D NAME[=VAL]]...` (nsm/cli.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsm.cli import cli

HEADERS = Path(__file__).resolve().parent / "headers"
NSM = Path(sys.executable).parent / "nsm"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("NEVE_HOME", str(tmp_path / "home"))


def bindgen(*args: str):
    return CliRunner().invoke(cli, ["bindgen", *args])


def test_prints_bindings_and_warnings(monkeypatch):
    monkeypatch.chdir(HEADERS)
    r = bindgen("unbindable.h")
    assert r.exit_code == 0
    assert r.stdout == (HEADERS / "unbindable.nv").read_text()
    assert r.stderr == "".join(f"warning: {p}\n" for p in
                               (HEADERS / "unbindable.problems").read_text().splitlines())


def test_writes_output_file(tmp_path, monkeypatch):
    monkeypatch.chdir(HEADERS)
    out = tmp_path / "tally.nv"
    r = bindgen("tally.h", "-o", str(out))
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""
    assert out.read_text() == (HEADERS / "tally.nv").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_include_dirs_and_defines(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "cfg.h").write_text("#define REAL double\n")
    h = tmp_path / "api.h"
    h.write_text('#include "cfg.h"\n#if LEVEL > 1\nREAL deep(REAL x);\n#endif\n')
    r = bindgen(str(h), "-I", str(tmp_path / "inc"), "-D", "LEVEL=2")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["proto f64 deep(f64 x)"]


def test_missing_header(tmp_path):
    out = tmp_path / "out.nv"
    r = bindgen(str(tmp_path / "nope.h"), "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr == f"error: cannot read header {tmp_path / 'nope.h'}: no such file\n"
    assert not out.exists() and r.stdout == ""


def test_syntax_error_costs_only_its_declaration(tmp_path, monkeypatch):
    """Issue 15 fault 2: one declaration the parser rejects is a located warning; the rest
    binds and the exit status is 0."""
    monkeypatch.chdir(tmp_path)
    Path("bad.h").write_text("/* ok */\nint fine(int x);\nint f(int x) int y;\nint last(void);\n")
    r = bindgen("bad.h", "-o", "out.nv")
    assert r.exit_code == 0
    assert r.stderr == ("warning: bad.h:3: cannot bind 'f': cannot parse the declaration "
                        "(unexpected 'int', expected ',' or ';')\n")
    assert Path("out.nv").read_text().splitlines()[1:] == [
        "proto i32 fine(i32 x)", "proto i32 last()"]


def test_preprocessor_error_is_located(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("inc.h").write_text("int a(void);\n#include \"gone.h\"\n")
    r = bindgen("inc.h")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("error: inc.h:2:10: fatal error: gone.h: No such file")
    Path("err.h").write_text("#error unsupported platform\n")
    r = bindgen("err.h")
    assert r.exit_code == 1
    assert r.stderr == "error: err.h:1:2: error: #error unsupported platform\n"


def test_failed_run_keeps_the_previous_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("api.h").write_text("int a(void);\n")
    assert bindgen("api.h", "-o", "api.nv").exit_code == 0
    before = Path("api.nv").read_text()
    Path("api.h").write_text("#error no\nint a(void);\n")
    assert bindgen("api.h", "-o", "api.nv").exit_code == 1
    assert Path("api.nv").read_text() == before


def test_unwritable_output(tmp_path):
    r = bindgen(str(HEADERS / "imgio.h"), "-o", str(tmp_path / "no" / "dir" / "x.nv"))
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: cannot write {tmp_path / 'no' / 'dir' / 'x.nv'}")


def test_console_script_has_no_traceback(tmp_path):
    bad = tmp_path / "bad.hpp"
    bad.write_text('#include "gone.h"\nextern "C" { int f(int x); }\n')
    for args in (["bindgen", str(tmp_path / "missing.h")], ["bindgen", str(bad)]):
        r = subprocess.run([str(NSM), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 1
        assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    r = subprocess.run([str(NSM), "bindgen", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "-I DIR" in r.stdout and "NAME[=VAL]" in r.stdout
