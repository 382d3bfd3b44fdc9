"""`nsm test`: run built test programs and compare their output with their expectations.

A test file states its expected standard output with `# expect: TEXT` comments (one per
output line, in order; `# expect:` alone is an empty line) and its exit status with
`# exit: N` (default 0). A test without expectations passes when it exits as expected.
"""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import click

_EXPECT = re.compile(r"#\s*expect:(.*)$")
_EXIT = re.compile(r"#\s*exit:\s*(-?\d+)\s*$")
TIMEOUT_S = 300


def expectations(source: str) -> tuple[list[str], int]:
    """The expected output lines (`# expect:`) and exit status (`# exit:`, default 0)."""
    lines, status = [], 0
    for line in source.splitlines():
        m = _EXPECT.search(line)
        if m:
            text = m.group(1)
            lines.append(text[1:] if text.startswith(" ") else text)
        m = _EXIT.search(line)
        if m:
            status = int(m.group(1))
    return lines, status


def run_tests(root: Path, tests: dict[str, Path]) -> int:
    """Run each test executable (named after tests/<name>.nv); print one line per test and a
    summary; return the number that failed."""
    failed = 0
    t0 = time.perf_counter()
    for name, exe in tests.items():
        src = root / "tests" / f"{name}.nv"
        want, status = expectations(src.read_text(errors="replace"))
        try:
            p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=TIMEOUT_S,
                               cwd=root)
            got, rc, err = p.stdout.splitlines(), p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            got, rc, err = [], None, f"timed out after {TIMEOUT_S} s\n"
        ok = rc == status and (got == want or not want)
        click.echo(f"test {name} ... {'ok' if ok else 'FAILED'}")
        if not ok:
            failed += 1
            if rc != status:
                click.echo(f"  exit status {rc}, expected {status}")
            if want and got != want:
                for i in range(max(len(want), len(got))):
                    w = want[i] if i < len(want) else "<nothing>"
                    g = got[i] if i < len(got) else "<nothing>"
                    if w != g:
                        click.echo(f"  line {i + 1}: expected {w!r}, got {g!r}")
                        break
            if err.strip():
                click.echo("  stderr: " + err.strip().replace("\n", "\n  stderr: "))
    passed = len(tests) - failed
    click.echo(f"{passed} passed, {failed} failed in {time.perf_counter() - t0:.2f} s")
    return failed
