"""Golden programs: one test per tests/programs/**/*.nv, its expectations written inside it.

Programs with compile-error directives are checked with `nsm check`; all others run with `nsm run`.
The directive grammar and the comparison live in nsm/golden/ (docs/testing.md, tests/README.md).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from programs_runner import (  # noqa: E402
    PROGRAMS_DIR, check, discover, parse_program, report, run_program, split_comment,
    update_expectations,
)

PROGRAMS = discover()


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.relative_to(PROGRAMS_DIR).as_posix() for p in PROGRAMS])
def test_program(path: Path, update_golden: bool) -> None:
    prog = parse_program(path)
    res = run_program(prog)
    if update_golden and prog.kind == "run" and res.returncode == prog.expected_exit:
        if update_expectations(prog, res.stdout):
            prog = parse_program(path)
    problems = check(prog, res)
    if problems:
        pytest.fail(report(prog, res, problems), pytrace=False)


# ------------------------------------------------------------------ the runner itself (no compiler)

def _write(tmp_path: Path, text: str, name: str = "p.nv") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


def test_comment_split_ignores_hash_in_literals() -> None:
    assert split_comment('print("# expect: no")  # expect: yes') == ('print("# expect: no")  ', "# expect: yes")
    assert split_comment("char c = '#'") == ("char c = '#'", None)
    assert split_comment(r'str s = "a\"#"  # x') == (r'str s = "a\"#"  ', "# x")


def test_directives(tmp_path: Path) -> None:
    p = _write(tmp_path, "\n".join([
        "# covers: 4.2 10.1",
        "# args: a 'b c'",
        "# stdin: one",
        "# stdin:",
        "main",
        "    print(1)  # expect: 1",
        "    print()   # expect:",
        "    # expect-re: \\d+",
        "    int x = 1 // 0  # runtime-error@15: integer division by zero",
        "    # trace: main 9:15",
        "",
    ]))
    prog = parse_program(p)
    assert prog.covers == ["4.2", "10.1"]
    assert prog.args == ["a", "b c"]
    assert prog.stdin_text == "one\n\n"
    assert [(e.text, e.regex) for e in prog.expects] == [("1", False), ("", False), ("\\d+", True)]
    assert prog.kind == "runtime-error" and prog.expected_exit == 1
    assert (prog.runtime_error.line, prog.runtime_error.col) == (9, 15)
    assert prog.trace[0].fn == "main" and prog.trace[0].col == 15


def test_error_directive_below_code_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "# covers: 2.4\r\nmain\r\n    str s = \"abc\r\n    # error@13\r\n    # hint: close it\r\n")
    prog = parse_program(p)
    assert prog.kind == "compile-error" and not prog.uses_nsm_run
    e = prog.errors[0]
    assert (e.line, e.col, e.message, e.hints) == (3, 13, None, ["close it"])


def test_update_rewrites_expectations(tmp_path: Path) -> None:
    p = _write(tmp_path, "# covers: 10.2\nmain\n    print(1)  # expect: 2\n    print(2)\n    # expect: x\n    # expect: y\n")
    prog = parse_program(p)
    assert update_expectations(prog, "1\n\n")
    assert p.read_text() == "# covers: 10.2\nmain\n    print(1)  # expect: 1\n    print(2)\n    # expect:\n"
    prog = parse_program(p)
    assert update_expectations(prog, "1\n\n3\n")
    assert p.read_text().endswith("    # expect:\n    # expect: 3\n")
