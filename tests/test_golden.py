"""nsm/golden without a compiler: directive errors are located, `# covers:` is the suite's rule
only, and the comparison names the first differing line."""
from __future__ import annotations

from pathlib import Path

import pytest

from nsm.golden import DirectiveError, RunResult, check, first_difference, parse_program


def _prog(tmp_path: Path, text: str, **kw):
    p = tmp_path / "t.nv"
    p.write_text(text)
    return parse_program(p, **kw)


def test_directive_errors_name_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(DirectiveError) as e:
        _prog(tmp_path, "main\n    exit(2)  # exit: two\n", covers_required=False)
    assert (e.value.line, e.value.message) == (2, "exit must be an integer, not 'two'")
    assert e.value.located("tests/t.nv") == "tests/t.nv:2: exit must be an integer, not 'two'"
    assert str(e.value) == f"{tmp_path / 't.nv'}:2: exit must be an integer, not 'two'"


def test_covers_is_required_only_when_asked(tmp_path: Path) -> None:
    with pytest.raises(DirectiveError, match="the first line must be '# covers: ...'$"):
        _prog(tmp_path, "main\n    print(1)  # expect: 1\n")
    prog = _prog(tmp_path, "main\n    print(1)  # expect: 1\n", covers_required=False)
    assert [e.text for e in prog.expects] == ["1"]
    assert prog.directive_lines == {"expect": 2}


def test_first_difference(tmp_path: Path) -> None:
    prog = _prog(tmp_path, "main\n# expect: a\n# expect-re: \\d+\n# expect: c\n", covers_required=False)
    assert first_difference(prog.expects, ["a", "42", "c"]) is None
    assert first_difference(prog.expects, ["a", "x", "c"]) == "line 2: expected /\\d+/, got 'x'"
    assert first_difference(prog.expects, ["a", "1"]) == "line 3: expected 'c', got <nothing>"
    assert first_difference(prog.expects, ["a", "1", "c", "d"]) == "line 4: expected <nothing>, got 'd'"


def test_runtime_error_anywhere_may_be_in_an_imported_module(tmp_path: Path) -> None:
    err = "src/lib.nv:5:18: runtime error: boom\n  at f (src/lib.nv:5:18)\n  at main (t.nv:2:5)\n"
    anywhere = _prog(tmp_path, "main\n    f()  # runtime-error-anywhere: boom\n", covers_required=False)
    assert check(anywhere, RunResult(["t"], 1, "", err), via_nsm=False) == []
    here = _prog(tmp_path, "main\n    f()  # runtime-error: boom\n", covers_required=False)
    assert check(here, RunResult(["t"], 1, "", err), via_nsm=False) == [
        "runtime error differs: expected 'FILE:2:*: runtime error: boom', got "
        "'src/lib.nv:5:18: runtime error: boom'"]


def test_exit_3_is_an_internal_error_only_from_nsm(tmp_path: Path) -> None:
    prog = _prog(tmp_path, "main\n    exit(3)\n", covers_required=False)
    res = RunResult(["t"], 3, "", "")
    assert check(prog, res, via_nsm=False) == ["exit status 3, expected 0"]
    assert check(prog, res) == ["internal compiler error", "exit status 3, expected 0"]
    timed = RunResult(["t"], -1, "", "", timed_out=True, timeout_s=300)
    assert check(prog, timed) == ["timed out after 300 s"]
