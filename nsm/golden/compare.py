"""Compares what a run of a golden program did (exit status, stdout, stderr) with its directives."""
from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from .grammar import CompileErrorExpect, ExpectLine, Program

_DIAG_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")
_UNLOCATED_DIAG_RE = re.compile(r"^error: (?P<msg>.*)$")
_RUNTIME_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): runtime error: (?P<msg>.*)$")
_TRACE_RE = re.compile(r"^  at (?P<fn>\S+) \((?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\)$")


@dataclass
class RunResult:
    """What one run did. `timeout_s` is the limit it ran under (reported when it timed out)."""
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    cwd: Path | None = None
    timeout_s: float | None = None


def split_output(text: str) -> tuple[list[str], bool]:
    """Split output into lines; the flag says whether it ended with a newline (or was empty)."""
    if text == "":
        return [], True
    ends = text.endswith("\n")
    body = text[:-1] if ends else text
    return body.split("\n"), ends


def _same_file(reported: str, prog: Program) -> bool:
    return Path(reported).name == prog.path.name


def _expand_tabs(line: str, col: int) -> tuple[str, int]:
    out = ""
    caret = None
    for i, ch in enumerate(line):
        if i == col - 1:
            caret = len(out)
        out += " " * (4 - len(out) % 4) if ch == "\t" else ch
    if caret is None:
        caret = len(out) + max(0, col - 1 - len(line))
    return out, caret


def _matches(e: ExpectLine, line: str) -> bool:
    return re.fullmatch(e.text, line) is not None if e.regex else e.text == line


def first_difference(expected: list[ExpectLine], actual: list[str]) -> str | None:
    """`line N: expected 'A', got 'B'` for the first output line that misses its expectation
    (None when all match); a missing line shows as <nothing>, a pattern as /REGEX/."""
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else None
        a = actual[i] if i < len(actual) else None
        if e is not None and a is not None and _matches(e, a):
            continue
        want = "<nothing>" if e is None else (f"/{e.text}/" if e.regex else repr(e.text))
        got = "<nothing>" if a is None else repr(a)
        return f"line {i + 1}: expected {want}, got {got}"
    return None


def compare_stdout(prog: Program, stdout: str) -> list[str]:
    """Stdout against the `# expect:`/`# expect-re:` lines (as a multiset with `# unordered`);
    it must end with a newline unless empty."""
    problems = []
    actual, ends = split_output(stdout)
    if not ends:
        problems.append("stdout does not end with a newline")
    expected = prog.expects
    if prog.unordered:
        literal = sorted(e.text for e in expected if not e.regex)
        patterns = [e.text for e in expected if e.regex]
        rest = list(actual)
        for pat in patterns:
            hit = next((a for a in rest if re.fullmatch(pat, a)), None)
            if hit is None:
                problems.append(f"no stdout line matches /{pat}/")
            else:
                rest.remove(hit)
        if sorted(rest) != literal:
            diff = "\n".join(difflib.unified_diff(literal, sorted(rest), "expected (sorted)",
                                                  "actual (sorted)", lineterm=""))
            problems.append("stdout differs (unordered):\n" + diff)
        return problems
    first = first_difference(expected, actual)
    if first is not None:
        shown = [("/" + e.text + "/") if e.regex else e.text for e in expected]
        diff = "\n".join(difflib.unified_diff(shown, actual, "expected", "actual", lineterm=""))
        problems.append(f"stdout differs at {first}\n" + diff)
    return problems


def _parse_diagnostics(stderr: str) -> list[dict]:
    """Diagnostics of 13.1: header, echoed source line, caret line, then note:/hint: lines."""
    lines = stderr.split("\n")
    diags = []
    for i, line in enumerate(lines):
        m = _DIAG_RE.match(line)
        if m:
            d = {"file": m["file"], "line": int(m["line"]), "col": int(m["col"]), "msg": m["msg"],
                 "echo": lines[i + 1] if i + 1 < len(lines) else None,
                 "caret": lines[i + 2] if i + 2 < len(lines) else None, "hints": []}
            j = i + 3
        elif _UNLOCATED_DIAG_RE.match(line):
            d = {"file": None, "line": None, "col": None, "msg": _UNLOCATED_DIAG_RE.match(line)["msg"],
                 "echo": None, "caret": None, "hints": []}
            j = i + 1
        else:
            continue
        while j < len(lines) and (lines[j].startswith("hint: ") or lines[j].startswith("note: ")):
            if lines[j].startswith("hint: "):
                d["hints"].append(lines[j][len("hint: "):])
            j += 1
        diags.append(d)
    return diags


def _fmt_diag(d: dict) -> str:
    where = "(no location)" if d["line"] is None else f"{d['line']}:{d['col']}"
    return f"{where}: error: {d['msg']}"


def compare_compile_errors(prog: Program, res: RunResult) -> list[str]:
    """Exit status 1 and exactly the expected diagnostics (13.1) in source order, each echoing
    its source line with a caret under the column; hints as the `# hint` directives say."""
    problems = []
    if res.returncode != 1:
        problems.append(f"exit status {res.returncode}, expected 1 (compile errors)")
    if prog.force_run and res.stdout:
        problems.append(f"a program with compile errors wrote to stdout: {res.stdout[:200]!r}")
    diags = _parse_diagnostics(res.stderr)
    remaining = list(diags)
    for e in prog.errors:
        if e.line is None:
            hit = next((d for d in remaining if d["msg"] == e.message), None)
            if hit is None:
                problems.append(f"missing diagnostic anywhere: error: {e.message}")
            else:
                remaining.remove(hit)
                problems += _check_hints(e, hit)
    located = [e for e in prog.errors if e.line is not None]
    matched = len(located) == len(remaining) and all(
        d["line"] == e.line and (e.col is None or d["col"] == e.col)
        and (e.message is None or d["msg"] == e.message)
        and d["file"] is not None and _same_file(d["file"], prog)
        for e, d in zip(located, remaining))
    if not matched:
        diff = "\n".join(difflib.unified_diff([e.describe() for e in located],
                                              [_fmt_diag(d) for d in remaining],
                                              "expected", "actual", lineterm=""))
        problems.append("diagnostics differ:\n" + diff)
    else:
        for e, d in zip(located, remaining):
            problems += _check_hints(e, d)
    for d in diags:
        if d["line"] is None or not (1 <= d["line"] <= len(prog.source_lines)):
            continue
        expanded, caret = _expand_tabs(prog.source_lines[d["line"] - 1], d["col"])
        if d["echo"] != expanded or d["caret"] != " " * caret + "^":
            problems.append(f"diagnostic at {d['line']}:{d['col']} is not followed by the source line "
                            f"and a caret (13.1): got {d['echo']!r} / {d['caret']!r}")
    return problems


def _check_hints(e: CompileErrorExpect, d: dict) -> list[str]:
    problems = [f"diagnostic {_fmt_diag(d)} lacks 'hint: {h}' (hints: {d['hints']})"
                for h in e.hints if h not in d["hints"]]
    problems += [f"diagnostic {_fmt_diag(d)} has no hint containing {part!r} (hints: {d['hints']})"
                 for part in e.hint_parts if not any(part in h for h in d["hints"])]
    return problems


def compare_runtime_error(prog: Program, res: RunResult) -> list[str]:
    """The first stderr line is the expected `FILE:LINE:COL: runtime error: MESSAGE` (13.2),
    followed by a trace (none for a deadlock report) matching the `# trace` directives."""
    problems = []
    lines = res.stderr.split("\n")
    exp = prog.runtime_error
    m = _RUNTIME_RE.match(lines[0]) if lines else None
    want = (f"FILE:{exp.line if exp.line else '*'}:{exp.col if exp.col else '*'}: runtime error: "
            f"{exp.message if exp.message is not None else '*'}")
    if not m:
        problems.append(f"first stderr line is not a runtime error; expected {want!r}, got {lines[0]!r}")
        return problems
    # `anywhere` includes other files: the error may be raised in a module the program imports
    if not ((exp.line is None or _same_file(m["file"], prog))
            and (exp.message is None or m["msg"] == exp.message)
            and (exp.line is None or int(m["line"]) == exp.line)
            and (exp.col is None or int(m["col"]) == exp.col)):
        problems.append(f"runtime error differs: expected {want!r}, got {lines[0]!r}")
    frames = [_TRACE_RE.match(ln) for ln in lines[1:]]
    frames = [f for f in frames if f]
    if not frames and not m["msg"].startswith("deadlock:"):
        # a deadlock report (9.6) lists the waiting threads instead of a trace
        problems.append("runtime error without '  at fn (file:line:col)' trace lines (13.2)")
    if prog.trace_top and frames and frames[0]["fn"] != prog.trace_top:
        problems.append(f"innermost trace frame is in {frames[0]['fn']!r}, expected {prog.trace_top!r}: "
                        f"{frames[0].group(0).strip()!r}")
    if prog.trace:
        got = [f"{f['fn']} {f['line']}:{f['col']}" for f in frames]
        ok = len(got) == len(prog.trace) and all(
            f["fn"] == t.fn and int(f["line"]) == t.line and (t.col is None or int(f["col"]) == t.col)
            for f, t in zip(frames, prog.trace))
        if not ok:
            shown = [f"{t.fn} {t.line}:{t.col if t.col else '*'}" for t in prog.trace]
            problems.append("trace differs:\n" + "\n".join(
                difflib.unified_diff(shown, got, "expected", "actual", lineterm="")))
    return problems


def check(prog: Program, res: RunResult, *, via_nsm: bool = True) -> list[str]:
    """Every way the run differs from the program's directives; empty when it passes.
    `via_nsm`: `res` is a run of nsm itself, whose exit status 3 means an internal compiler error
    (False for a built executable run directly, as by `nsm test`)."""
    if res.timed_out:
        limit = f" after {res.timeout_s:.0f} s" if res.timeout_s is not None else ""
        return [f"timed out{limit}"]
    problems = []
    expected_exit = 1 if prog.kind == "compile-error" else prog.expected_exit
    if ((via_nsm and res.returncode == 3 and expected_exit != 3)
            or "internal compiler error" in res.stderr):
        problems.append("internal compiler error")
    if "Traceback (most recent call last)" in res.stderr:
        problems.append("a Python traceback reached the user")
    if prog.kind == "compile-error":
        problems += compare_compile_errors(prog, res)
        return problems
    if res.returncode != prog.expected_exit:
        problems.append(f"exit status {res.returncode}, expected {prog.expected_exit}")
    problems += compare_stdout(prog, res.stdout)
    if prog.stderr_has:
        err_lines, _ = split_output(res.stderr)
        problems += [f"stderr has no line {want!r}" for want in prog.stderr_has if want not in err_lines]
    if prog.kind == "runtime-error":
        problems += compare_runtime_error(prog, res)
    elif prog.stderr_lines is not None:
        actual, _ = split_output(res.stderr)
        if actual != prog.stderr_lines:
            problems.append("stderr differs:\n" + "\n".join(difflib.unified_diff(
                prog.stderr_lines, actual, "expected", "actual", lineterm="")))
    return problems


def report(prog: Program, res: RunResult, problems: list[str]) -> str:
    """A failed run's problems, command, exit status, stdout and stderr (clipped), for a person."""
    def clip(s: str, n: int = 4000) -> str:
        return s if len(s) <= n else s[:n] + f"\n... ({len(s) - n} more characters)"
    return "\n".join([
        f"{prog.path}: {len(problems)} problem(s)",
        *("  - " + p.replace("\n", "\n    ") for p in problems),
        f"command: {shlex.join(res.argv)}   (cwd {res.cwd or prog.path.parent})",
        f"exit status: {res.returncode}",
        "---- stdout ----", clip(res.stdout),
        "---- stderr ----", clip(res.stderr),
    ])
