"""Golden-program runner: reads the directives inside a tests/programs/**/*.nv file, runs nsm on it and
compares what happened with what the file expects. Used by tests/test_programs.py, tests/test_coverage.py
and, for one-off checks, from the command line:

    python tests/programs_runner.py [--update] tests/programs/s04_expressions/floor_div.nv ...

Directives are comments (the directive grammar is documented in tests/README.md):

    # covers: 4.2 4.5            first line: the LANGUAGE.md subsections the program covers
    # expect: TEXT               next stdout line is TEXT (one space after ':' is dropped;
                                 `# expect:` alone is an empty line)
    # expect-re: REGEX           next stdout line matches REGEX (Python re.fullmatch)
    # unordered                  compare stdout lines as a multiset
    # args: a "b c"              program arguments (shell-like quoting)
    # stdin: TEXT                one line of standard input (repeatable; joined with newlines,
                                 with a final newline)
    # exit: N                    expected exit status (default 0; 1 with a runtime error)
    # stderr: TEXT               next stderr line (if any are given, stderr must match exactly)
    # stderr-line: TEXT          stderr has a line that is exactly TEXT (any kind of program; for
                                 the per-thread lines of a deadlock report or a thread's trace)
    # env: NAME=VALUE            extra environment variable for the program
    # flags: --release           nsm options placed before the file name
    # run                        run (not just check) a program with compile errors
    # error@COL: MESSAGE         compile error on this line (or, on a comment-only line, on the
                                 nearest code line above), at column COL, with exactly MESSAGE;
                                 `@COL` may be left out (any column) and so may `: MESSAGE`
                                 (any message)
    # hint: TEXT                 the preceding error's diagnostic carries `hint: TEXT`
    # hint-has: TEXT             the preceding error's diagnostic has a hint containing TEXT
    # error-anywhere: MESSAGE    compile error with MESSAGE at any location or none
    # runtime-error@COL: MESSAGE the first stderr line is FILE:LINE:COL: runtime error: MESSAGE
                                 with LINE this line (`@COL` and `: MESSAGE` optional)
    # runtime-error-anywhere: MESSAGE   the same, at any line and column
    # trace: FN LINE[:COL]       the runtime error's trace lines, innermost first (if any are
                                 given, the `  at` lines must match them exactly)
    # trace-top: FN              the innermost trace line is in function FN (for long traces)

A file whose first line is exactly `# module` is a helper module imported by other programs (multi-file
programs keep theirs in a subfolder); discover() skips it, so it is not a test of its own.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
DEFAULT_TIMEOUT_S = float(os.environ.get("NEVE_PROGRAM_TIMEOUT", "180"))

DIRECTIVES = {
    "covers", "expect", "expect-re", "unordered", "args", "stdin", "exit", "stderr", "env", "flags",
    "run", "error", "hint", "error-anywhere", "runtime-error", "runtime-error-anywhere", "trace",
    "trace-top", "hint-has", "stderr-line",
}
_DIRECTIVE_RE = re.compile(r"#\s?(?P<name>[a-z][a-z-]*)(?:@(?P<at>\S+?))?(?::(?P<rest>.*))?\s*$")
_SUSPECT_RE = re.compile(r"#\s*(expect|error|runtime-error|covers|stdin|args|exit|trace|hint|stderr)[\w-]*(@\S*)?:")
_DIAG_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")
_UNLOCATED_DIAG_RE = re.compile(r"^error: (?P<msg>.*)$")
_RUNTIME_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): runtime error: (?P<msg>.*)$")
_TRACE_RE = re.compile(r"^  at (?P<fn>\S+) \((?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\)$")


class DirectiveError(Exception):
    """A malformed or inconsistent directive in a program file."""


@dataclass
class ExpectLine:
    text: str
    regex: bool
    lineno: int          # the file line holding the directive


@dataclass
class CompileErrorExpect:
    line: int | None     # None: anywhere
    col: int | None      # None: any column
    message: str | None  # None: any message
    directive_line: int
    hints: list[str] = field(default_factory=list)
    hint_parts: list[str] = field(default_factory=list)

    def describe(self) -> str:
        where = "anywhere" if self.line is None else f"{self.line}:{self.col if self.col else '*'}"
        return f"{where}: error: {self.message if self.message is not None else '*'}"


@dataclass
class RuntimeErrorExpect:
    line: int | None
    col: int | None
    message: str | None  # None: any message


@dataclass
class TraceFrame:
    fn: str
    line: int
    col: int | None


@dataclass
class Program:
    path: Path
    covers: list[str] = field(default_factory=list)
    expects: list[ExpectLine] = field(default_factory=list)
    unordered: bool = False
    args: list[str] = field(default_factory=list)
    stdin_lines: list[str] | None = None
    exit_code: int | None = None
    stderr_lines: list[str] | None = None
    stderr_has: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    force_run: bool = False
    errors: list[CompileErrorExpect] = field(default_factory=list)
    runtime_error: RuntimeErrorExpect | None = None
    trace: list[TraceFrame] = field(default_factory=list)
    trace_top: str | None = None
    source_lines: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """'compile-error', 'runtime-error' or 'run'."""
        if self.errors:
            return "compile-error"
        if self.runtime_error:
            return "runtime-error"
        return "run"

    @property
    def uses_nsm_run(self) -> bool:
        return self.kind != "compile-error" or self.force_run

    @property
    def expected_exit(self) -> int:
        if self.exit_code is not None:
            return self.exit_code
        return 0 if self.kind == "run" else 1

    @property
    def stdin_text(self) -> str | None:
        if self.stdin_lines is None:
            return None
        return "".join(line + "\n" for line in self.stdin_lines)


# ---------------------------------------------------------------------------------- parsing

def split_comment(line: str) -> tuple[str, str | None]:
    """Split a source line into (code, comment); '#' inside string and char literals is text."""
    quote = None
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i], line[i:]
        i += 1
    return line, None


def source_lines(text: str) -> list[str]:
    """Physical lines as the compiler numbers them: BOM dropped, LF or CRLF endings."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _int(value: str, what: str, lineno: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise DirectiveError(f"line {lineno}: {what} must be an integer, not {value!r}") from None


def _rest_text(rest: str | None) -> str:
    """The text after ':' with the single separating space removed ('' for an empty rest)."""
    if rest is None:
        return ""
    return rest[1:] if rest.startswith(" ") else rest


def parse_program(path: Path | str) -> Program:
    path = Path(path)
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    lines = source_lines(text)
    prog = Program(path=path, source_lines=lines)
    last_code_line = None
    last_error: CompileErrorExpect | None = None
    for lineno, line in enumerate(lines, start=1):
        code, comment = split_comment(line)
        has_code = code.strip() != ""
        if has_code:
            last_code_line = lineno
        if comment is None:
            continue
        m = _DIRECTIVE_RE.match(comment)
        if not m or m.group("name") not in DIRECTIVES:
            if _SUSPECT_RE.match(comment):
                raise DirectiveError(f"line {lineno}: comment looks like a misspelt directive: {comment!r}")
            continue
        name, at, rest = m.group("name"), m.group("at"), m.group("rest")
        text_rest = _rest_text(rest)
        target_line = lineno if has_code else last_code_line
        if at is not None and name not in ("error", "runtime-error"):
            raise DirectiveError(f"line {lineno}: '@' is only for error and runtime-error")
        if name == "covers":
            if lineno != 1:
                raise DirectiveError(f"line {lineno}: '# covers:' must be the first line")
            prog.covers = text_rest.split()
            for c in prog.covers:
                if not re.fullmatch(r"\d+(\.\d+)?", c):
                    raise DirectiveError(f"line 1: bad subsection {c!r} in covers")
        elif name == "expect":
            prog.expects.append(ExpectLine(text_rest, False, lineno))
        elif name == "expect-re":
            prog.expects.append(ExpectLine(text_rest, True, lineno))
        elif name == "unordered":
            prog.unordered = True
        elif name == "args":
            prog.args = shlex.split(text_rest)
        elif name == "stdin":
            prog.stdin_lines = (prog.stdin_lines or []) + [text_rest]
        elif name == "exit":
            prog.exit_code = _int(text_rest.strip(), "exit", lineno)
        elif name == "stderr":
            prog.stderr_lines = (prog.stderr_lines or []) + [text_rest]
        elif name == "stderr-line":
            if not text_rest:
                raise DirectiveError(f"line {lineno}: '# stderr-line:' needs a text")
            prog.stderr_has.append(text_rest)
        elif name == "env":
            key, sep, value = text_rest.partition("=")
            if not sep:
                raise DirectiveError(f"line {lineno}: '# env:' needs NAME=VALUE")
            prog.env[key.strip()] = value
        elif name == "flags":
            prog.flags += shlex.split(text_rest)
        elif name == "run":
            prog.force_run = True
        elif name == "error":
            if target_line is None:
                raise DirectiveError(f"line {lineno}: error directive with no code line above")
            col = _int(at, "column", lineno) if at is not None else None
            last_error = CompileErrorExpect(target_line, col, text_rest or None, lineno)
            prog.errors.append(last_error)
        elif name == "error-anywhere":
            if not text_rest:
                raise DirectiveError(f"line {lineno}: error-anywhere needs a message")
            last_error = CompileErrorExpect(None, None, text_rest, lineno)
            prog.errors.append(last_error)
        elif name in ("hint", "hint-has"):
            if last_error is None:
                raise DirectiveError(f"line {lineno}: '# {name}:' must follow an error directive")
            (last_error.hints if name == "hint" else last_error.hint_parts).append(text_rest)
        elif name in ("runtime-error", "runtime-error-anywhere"):
            if prog.runtime_error is not None:
                raise DirectiveError(f"line {lineno}: only one runtime error per program")
            if not text_rest and name == "runtime-error-anywhere":
                raise DirectiveError(f"line {lineno}: {name} needs a message")
            if name == "runtime-error":
                if target_line is None:
                    raise DirectiveError(f"line {lineno}: runtime-error with no code line above")
                col = _int(at, "column", lineno) if at is not None else None
                prog.runtime_error = RuntimeErrorExpect(target_line, col, text_rest or None)
            else:
                prog.runtime_error = RuntimeErrorExpect(None, None, text_rest)
        elif name == "trace-top":
            if not text_rest.strip():
                raise DirectiveError(f"line {lineno}: '# trace-top:' needs a function name")
            prog.trace_top = text_rest.strip()
        elif name == "trace":
            m2 = re.fullmatch(r"(\S+)\s+(\d+)(?::(\d+))?", text_rest.strip())
            if not m2:
                raise DirectiveError(f"line {lineno}: '# trace:' needs FN LINE[:COL]")
            prog.trace.append(TraceFrame(m2.group(1), int(m2.group(2)),
                                         int(m2.group(3)) if m2.group(3) else None))
    if not prog.covers:
        raise DirectiveError(f"{path}: the first line must be '# covers: ...'")
    if prog.errors and (prog.expects or prog.runtime_error or prog.stdin_lines is not None):
        if not prog.force_run or prog.runtime_error:
            raise DirectiveError(f"{path}: compile-error programs cannot expect output or runtime errors")
    if (prog.trace or prog.trace_top) and not prog.runtime_error:
        raise DirectiveError(f"{path}: '# trace:' needs a runtime-error directive")
    prog.errors.sort(key=lambda e: (e.line is None, e.line or 0, e.col or 0))
    return prog


MODULE_MARK = "# module"


def is_helper_module(path: Path) -> bool:
    """A file whose first line is `# module` is imported by other programs and is not a test itself."""
    with open(path, "rb") as f:
        first = f.readline().decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r\n")
    return first.strip() == MODULE_MARK


def discover(root: Path = PROGRAMS_DIR) -> list[Path]:
    return sorted(p for p in root.rglob("*.nv") if not is_helper_module(p))


# ---------------------------------------------------------------------------------- running

def nsm_command() -> list[str]:
    """The nsm console script installed next to this interpreter by `pip install -e '.[test]'`."""
    script = Path(sys.executable).parent / ("nsm.exe" if os.name == "nt" else "nsm")
    if script.exists():
        return [str(script)]
    # Same entry point, for interpreters whose scripts live elsewhere (pip install --user).
    return [sys.executable, "-c", "import sys; from nsm.cli import main; sys.exit(main())"]


@dataclass
class RunResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False


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
        return RunResult(argv, -1, out, err, timed_out=True)
    return RunResult(argv, cp.returncode, cp.stdout.decode("utf-8", "surrogateescape"),
                     cp.stderr.decode("utf-8", "surrogateescape"))


# ---------------------------------------------------------------------------------- comparing

def _lines(text: str) -> tuple[list[str], bool]:
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


def compare_stdout(prog: Program, stdout: str) -> list[str]:
    problems = []
    actual, ends = _lines(stdout)
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
    ok = len(actual) == len(expected) and all(
        (re.fullmatch(e.text, a) is not None) if e.regex else e.text == a
        for e, a in zip(expected, actual))
    if not ok:
        shown = [("/" + e.text + "/") if e.regex else e.text for e in expected]
        diff = "\n".join(difflib.unified_diff(shown, actual, "expected", "actual", lineterm=""))
        problems.append("stdout differs:\n" + diff)
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
    problems = []
    lines = res.stderr.split("\n")
    exp = prog.runtime_error
    m = _RUNTIME_RE.match(lines[0]) if lines else None
    want = (f"FILE:{exp.line if exp.line else '*'}:{exp.col if exp.col else '*'}: runtime error: "
            f"{exp.message if exp.message is not None else '*'}")
    if not m:
        problems.append(f"first stderr line is not a runtime error; expected {want!r}, got {lines[0]!r}")
        return problems
    if not (_same_file(m["file"], prog) and (exp.message is None or m["msg"] == exp.message)
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


def check(prog: Program, res: RunResult) -> list[str]:
    """Every way the run differs from the program's directives; empty when it passes."""
    if res.timed_out:
        return [f"timed out after {DEFAULT_TIMEOUT_S:.0f} s"]
    problems = []
    expected_exit = 1 if prog.kind == "compile-error" else prog.expected_exit
    if (res.returncode == 3 and expected_exit != 3) or "internal compiler error" in res.stderr:
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
        err_lines, _ = _lines(res.stderr)
        problems += [f"stderr has no line {want!r}" for want in prog.stderr_has if want not in err_lines]
    if prog.kind == "runtime-error":
        problems += compare_runtime_error(prog, res)
    elif prog.stderr_lines is not None:
        actual, _ = _lines(res.stderr)
        if actual != prog.stderr_lines:
            problems.append("stderr differs:\n" + "\n".join(difflib.unified_diff(
                prog.stderr_lines, actual, "expected", "actual", lineterm="")))
    return problems


def report(prog: Program, res: RunResult, problems: list[str]) -> str:
    def clip(s: str, n: int = 4000) -> str:
        return s if len(s) <= n else s[:n] + f"\n... ({len(s) - n} more characters)"
    return "\n".join([
        f"{prog.path}: {len(problems)} problem(s)",
        *("  - " + p.replace("\n", "\n    ") for p in problems),
        f"command: {shlex.join(res.argv)}   (cwd {prog.path.parent})",
        f"exit status: {res.returncode}",
        "---- stdout ----", clip(res.stdout),
        "---- stderr ----", clip(res.stderr),
    ])


# ---------------------------------------------------------------------------------- updating

def update_expectations(prog: Program, stdout: str) -> bool:
    """Rewrite the `# expect:` lines of a run program from its actual stdout; True if changed.

    The n-th expectation directive receives the n-th output line (an `# expect-re:` that still
    matches is kept); surplus directives are removed; extra output lines are added as comment
    lines after the last directive (or at the end of the file). Line endings and BOM are kept.
    """
    if prog.kind != "run":
        raise ValueError("only programs without error directives can be updated")
    raw = prog.path.read_bytes().decode("utf-8", errors="surrogateescape")
    bom = raw.startswith("\ufeff")
    body = raw[1:] if bom else raw
    newline = "\r\n" if "\r\n" in body else "\n"
    phys = body.split("\n")
    trailing = phys[-1] == ""
    if trailing:
        phys.pop()
    phys = [ln[:-1] if ln.endswith("\r") else ln for ln in phys]
    actual, _ = _lines(stdout)
    slots = prog.expects
    out = list(phys)
    deleted = set()
    for i, slot in enumerate(slots):
        idx = slot.lineno - 1
        code, comment = split_comment(out[idx])
        if i < len(actual):
            line = actual[i]
            if slot.regex and re.fullmatch(slot.text, line):
                continue
            new_comment = "# expect:" + (" " + line if line else "")
            out[idx] = code + new_comment
        else:
            if code.strip():
                out[idx] = code.rstrip()
            else:
                deleted.add(idx)
    extra = actual[len(slots):]
    if extra:
        if slots:
            anchor = slots[-1].lineno - 1
            pad = re.match(r"[ \t]*", phys[anchor])[0]
        else:
            anchor = len(out) - 1
            pad = ""
        insert = [pad + "# expect:" + (" " + ln if ln else "") for ln in extra]
        out[anchor + 1:anchor + 1] = insert
        deleted = {d if d <= anchor else d + len(insert) for d in deleted}
    out = [ln for i, ln in enumerate(out) if i not in deleted]
    new = ("\ufeff" if bom else "") + newline.join(out) + (newline if trailing else "")
    if new == raw:
        return False
    prog.path.write_bytes(new.encode("utf-8", errors="surrogateescape"))
    return True


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
