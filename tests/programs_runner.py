"""Golden-suite driver: finds the tests/programs/**/*.nv programs, runs nsm on each and checks the
run against the program's directives (the grammar and the comparison live in nsm/golden/). Used by
tests/test_programs.py, tests/test_coverage.py and, for one-off checks, from the command line:

    python tests/programs_runner.py [--update] tests/programs/s04_expressions/floor_div.nv ...

The directives are listed in nsm/golden/grammar.py and documented in docs/testing.md; what this
suite adds (every program opens with `# covers:`, the layout, the coverage rule) is in
tests/README.md.

A file whose first line is exactly `# module` is a helper module imported by other programs (multi-file
programs keep theirs in a subfolder); discover() skips it, so it is not a test of its own.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # nsm/, when run as a script
from nsm.golden import (  # noqa: E402,F401  (re-exported for the test modules)
    DirectiveError, Program, RunResult, check, parse_program, report, split_comment,
    update_expectations,
)

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
DEFAULT_TIMEOUT_S = float(os.environ.get("NEVE_PROGRAM_TIMEOUT", "180"))


MODULE_MARK = "# module"


def is_helper_module(path: Path) -> bool:
    """A file whose first line is `# module` is imported by other programs and is not a test itself."""
    with open(path, "rb") as f:
        first = f.readline().decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r\n")
    return first.strip() == MODULE_MARK


def discover(root: Path = PROGRAMS_DIR) -> list[Path]:
    """Every golden program under `root`, sorted, helper modules left out, and so are the
    generated files in a package's `build/` folder (its native bindings, 11.2)."""
    return sorted(p for p in root.rglob("*.nv")
                  if "build" not in p.relative_to(root).parts[:-1] and not is_helper_module(p))


# ---------------------------------------------------------------------------------- running

def nsm_command() -> list[str]:
    """The nsm console script installed next to this interpreter by `pip install -e '.[test]'`."""
    script = Path(sys.executable).parent / ("nsm.exe" if os.name == "nt" else "nsm")
    if script.exists():
        return [str(script)]
    # Same entry point, for interpreters whose scripts live elsewhere (pip install --user).
    return [sys.executable, "-c", "import sys; from nsm.cli import main; sys.exit(main())"]


def run_program(prog: Program, timeout: float = DEFAULT_TIMEOUT_S) -> RunResult:
    """Run `nsm run` (or `nsm check`) on the program, from its own folder, by its file name."""
    sub = "run" if prog.uses_nsm_run else "check"
    argv = nsm_command() + [sub] + prog.flags + [prog.path.name]
    if sub == "run":
        argv += prog.args
    env = dict(os.environ)
    env.update(prog.env)
    stdin = prog.stdin_text
    try:
        cp = subprocess.run(argv, cwd=prog.path.parent, env=env, timeout=timeout,
                            input=(stdin or "").encode(), capture_output=True)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return RunResult(argv, -1, out, err, timed_out=True, cwd=prog.path.parent,
                         timeout_s=timeout)
    return RunResult(argv, cp.returncode, cp.stdout.decode("utf-8", "surrogateescape"),
                     cp.stderr.decode("utf-8", "surrogateescape"), cwd=prog.path.parent)


# ---------------------------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="programs (default: all under tests/programs)")
    ap.add_argument("--update", action="store_true", help="rewrite # expect: lines from actual output")
    ns = ap.parse_args(argv)
    files = ns.files or discover()
    failed = 0
    for f in files:
        prog = parse_program(f)
        res = run_program(prog)
        if ns.update and prog.kind == "run" and update_expectations(prog, res.stdout):
            prog = parse_program(f)
            print(f"updated {f}")
        problems = check(prog, res)
        if problems:
            failed += 1
            print(report(prog, res, problems), end="\n\n")
        else:
            print(f"ok {f}")
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
