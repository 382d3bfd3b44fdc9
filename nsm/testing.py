"""`nsm test`: runs a package's built tests/*.nv and checks each against its golden-program directives."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import click

from .errors import NsmError
from .golden import DirectiveError, Program, RunResult, check, parse_program

TIMEOUT_S = 300
STDERR_SHOWN = 20      # lines of a failed test's stderr printed under it

# Directives of the grammar a built test cannot honour: every tests/*.nv is compiled with the
# package, so a test that must fail to compile fails the whole build, and nsm options are the
# build's, not a test's.
_UNSUPPORTED = {
    ("error", "error-anywhere"): (
        "compile-error directives ('# error', '# error-anywhere') are",
        "every test is built with the package, so a program that must fail to compile fails "
        "the build; keep it outside tests/ and check it with nsm check FILE"),
    ("flags",): ("'# flags:' is", "nsm options apply to the whole build: use nsm test --release"),
}


def package_tests(root: Path) -> dict[str, Path]:
    """The package's tests by name: tests/<name>.nv, as the build plans them."""
    folder = root / "tests"
    return {p.stem: p for p in sorted(folder.glob("*.nv"))} if folder.is_dir() else {}


def load_tests(root: Path, files: dict[str, Path]) -> dict[str, Program]:
    """The directives of each test file; NsmError naming the file and line for a malformed
    directive or one that `nsm test` does not support."""
    progs = {}
    for name, path in files.items():
        shown = path.relative_to(root)
        try:
            prog = parse_program(path, covers_required=False)
        except DirectiveError as e:
            raise NsmError(e.located(shown)) from None
        for names, (what, hint) in _UNSUPPORTED.items():
            lines = [prog.directive_lines[n] for n in names if n in prog.directive_lines]
            if lines:
                raise NsmError(f"{shown}:{min(lines)}: {what} not supported in nsm test", hint)
        progs[name] = prog
    return progs


def run_one(prog: Program, exe: Path, root: Path, timeout: float = TIMEOUT_S) -> RunResult:
    """Run a built test from the package root with the test's arguments, stdin and environment."""
    argv = [str(exe), *prog.args]
    env = {**os.environ, **prog.env}
    try:
        p = subprocess.run(argv, cwd=root, env=env, input=(prog.stdin_text or "").encode(),
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return RunResult(argv, -1, (e.stdout or b"").decode("utf-8", "replace"),
                         (e.stderr or b"").decode("utf-8", "replace"), timed_out=True, cwd=root,
                         timeout_s=timeout)
    return RunResult(argv, p.returncode, p.stdout.decode("utf-8", "replace"),
                     p.stderr.decode("utf-8", "replace"), cwd=root)


def run_tests(root: Path, tests: dict[str, Path], programs: dict[str, Program]) -> int:
    """Run each test executable (`tests`: name -> built executable) and check it against its
    directives (`programs`); print one line per test, the problems of those that fail, and a
    summary; return the number that failed."""
    failed = 0
    t0 = time.perf_counter()
    for name, exe in tests.items():
        res = run_one(programs[name], exe, root)
        problems = check(programs[name], res, via_nsm=False)
        click.echo(f"test {name} ... {'FAILED' if problems else 'ok'}")
        if not problems:
            continue
        failed += 1
        for p in problems:
            click.echo("  " + p.replace("\n", "\n    "))
        err = res.stderr.strip().split("\n") if res.stderr.strip() else []
        for line in err[:STDERR_SHOWN]:
            click.echo("  stderr: " + line)
        if len(err) > STDERR_SHOWN:
            click.echo(f"  stderr: ... ({len(err) - STDERR_SHOWN} more lines)")
    passed = len(tests) - failed
    click.echo(f"{passed} passed, {failed} failed in {time.perf_counter() - t0:.2f} s")
    return failed
