"""The coverage rule for tests/programs (see tests/README.md):

1. every in-scope subsection of LANGUAGE.md has at least MIN_RUN_PROGRAMS *run* programs (programs
   executed with `nsm run`: no compile-error directives) naming it in their `# covers:` line;
2. every in-scope message of 13.1 and 13.2 is expected, with line and column, by some error
   program (`# error@COL:` or `# runtime-error@COL:`), except the messages whose location the
   spec leaves open, which need the message alone;
3. every program's directives parse, and a program in sNN_* covers some part of section NN.

This checks the programs only; it needs no compiler.
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from programs_runner import PROGRAMS_DIR, Program, discover, parse_program  # noqa: E402

MIN_RUN_PROGRAMS = 3

# In scope for this suite. 3.4 counts for its str, array, map, any, tuple, T[N] and channel parts
# (not buffers); C interop (11) and 12.5 (error programs only) are not counted here.
IN_SCOPE_SUBSECTIONS = [
    "2.1", "2.2", "2.3", "2.4",
    "3.1", "3.2", "3.3", "3.4", "3.5",
    "4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7",
    "5.1", "5.2", "5.3", "5.4",
    "6.1", "6.2", "6.3", "6.4", "6.5",
    "7.1", "7.2", "7.3", "7.4", "7.5",
    "8",
    "9.1", "9.2", "9.3", "9.4", "9.5", "9.6", "9.7",
    "10.1", "10.2", "10.3",
    "12.1", "12.2", "12.3", "12.4",
    "13.1", "13.2", "13.3",
    "14.1", "14.2", "14.3", "14.4", "14.5", "14.6", "14.7", "14.8",
]

# Compile-time messages (13.1, and those given verbatim elsewhere in sections in scope).
COMPILE_MESSAGES = [
    "unknown variable 'totl'",
    "unknown variable 'x'",
    "unknown type 'Foo'",
    "argument 2 of scale: expected int, got str",
    "statement outside main",
    "missing main",
    "comparisons do not chain",
    "nesting too deep (limit 256)",
    "inconsistent dedent",
    "unexpected indent",
    "expected '..' in range loop",
    "type alias cycle: a -> b -> a",
    "generic instantiation too deep",
    "no member 'withdraw' in Account",
    "'my_nv_file' is ambiguous: two imports bind it",
    "cannot assign to captured variable 'n' inside a thread",
    "split arguments are only allowed in asyncs calls",
    "cannot send str on channel<int>",
    "a thread body cannot return a value",
    "class inheritance cycle: A -> B -> A",
    "cannot instantiate abstract class C: m() is abstract",
    # 14.4, 14.5 (issue 16)
    "cannot sort an array of P",
    "sort has no option 'order'",
    "no member 'push' in StrBuilder",
    # The unresolved-import error of 8 names absolute paths; s08_modules/app_unresolved checks its
    # location and hint only.
]

# Runtime messages (13.2) of the constructs in scope.
RUNTIME_MESSAGES = [
    "block of 2048 threads exceeds 1024",
    "index 7 out of range for array of length 5",
    "integer division by zero",
    "integer modulo by zero",
    "pop from empty array",
    "min of empty array",
    'to_int: invalid integer "12x"',
    "assertion failed: math is broken",
    "stack overflow",
    'key not found: "x"',
    "map modified during iteration",
    "failed cast: any holds Foo, not Bar",
    "failed cast: Layer holds Conv, not Scale",
    "called deposit() on nil Account",
    "read field 'n' of nil Counter",
    "wrote field 'n' of nil Counter",
    "called nil Function",
    "global initialization cycle: $A -> $B -> $A",
    'cannot open file "/neve_test_surely_missing_dir/none.txt"',
    "send on closed channel",
    "send on nil channel",
    "receive on nil channel",
    "asyncs with negative count -1",
    "lock on nil object",
    "deadlock: all threads are blocked",
    # 14.4, 14.5, 14.7 (issue 16)
    "str repeated a negative number of times: -2",
    "called add() on nil StrBuilder",
    'cannot remove file "/neve_test_surely_missing_dir/none.txt": no such file or folder',
    'cannot remove folder "/neve_test_surely_missing_dir": no such file or folder',
    'cannot rename "/neve_test_surely_missing_dir/a" to "/neve_test_surely_missing_dir/b": '
    'no such file or folder',
    'cannot list folder "/neve_test_surely_missing_dir": no such file or folder',
    'cannot make folder "/neve_test_surely_missing_dir/a/b": no such file or folder',
]

# The spec gives no location for these: the message alone must be matched.
LOCATION_UNSPECIFIED = {"missing main", "stack overflow"}


def _programs() -> list[Program]:
    return [parse_program(p) for p in discover()]


PROGRAMS = _programs()


def test_programs_exist() -> None:
    assert len(PROGRAMS) > 0, f"no programs under {PROGRAMS_DIR}"


@pytest.mark.parametrize("section", IN_SCOPE_SUBSECTIONS)
def test_subsection_has_run_programs(section: str) -> None:
    runs = [p for p in PROGRAMS if p.uses_nsm_run and p.kind != "compile-error" and section in p.covers]
    names = [p.path.relative_to(PROGRAMS_DIR).as_posix() for p in runs]
    assert len(runs) >= MIN_RUN_PROGRAMS, (
        f"LANGUAGE.md {section} is covered by {len(runs)} run program(s) {names}; "
        f"at least {MIN_RUN_PROGRAMS} are required")


def _expected_messages() -> dict[str, list[tuple[str, bool]]]:
    """message -> [(program, located with line and column)]."""
    found: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for p in PROGRAMS:
        name = p.path.relative_to(PROGRAMS_DIR).as_posix()
        for e in p.errors:
            if e.message is not None:
                found[e.message].append((name, e.line is not None and e.col is not None))
        if p.runtime_error:
            r = p.runtime_error
            found[r.message].append((name, r.line is not None and r.col is not None))
    return found


@pytest.mark.parametrize("message", COMPILE_MESSAGES + RUNTIME_MESSAGES)
def test_message_is_expected_exactly(message: str) -> None:
    hits = _expected_messages().get(message, [])
    assert hits, f"no error program expects {message!r}"
    if message not in LOCATION_UNSPECIFIED:
        assert any(located for _, located in hits), (
            f"{message!r} is expected only without a line and column: {hits}")


@pytest.mark.parametrize("path", discover(), ids=lambda p: p.relative_to(PROGRAMS_DIR).as_posix())
def test_program_is_filed_by_section(path: Path) -> None:
    prog = parse_program(path)
    folder = path.relative_to(PROGRAMS_DIR).parts[0]
    m = re.fullmatch(r"s(\d\d)_\w+", folder)
    if m is None:
        assert folder == "limits", f"unexpected folder {folder!r}"
        return
    section = str(int(m.group(1)))
    assert any(c.split(".")[0] == section for c in prog.covers), (
        f"{path.name} is in {folder} but covers {prog.covers}")


def test_error_programs_have_an_expectation() -> None:
    """A compile-error program expects each error with a line; a bare `# error` needs a line too."""
    for p in PROGRAMS:
        for e in p.errors:
            assert e.line is not None or e.message is not None, p.path
