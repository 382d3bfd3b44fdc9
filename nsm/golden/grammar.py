"""The golden-program grammar: reads the directive comments of a Neve program into a Program.

Directives are whole comments (`# expect: 3`, on a code line or a line of its own); a `#` inside a
string or char literal is text. The user's reference is docs/testing.md; tests/README.md adds what
the repository's golden suite requires on top (every program opens with `# covers:`).

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
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

DIRECTIVES = {
    "covers", "expect", "expect-re", "unordered", "args", "stdin", "exit", "stderr", "env", "flags",
    "run", "error", "hint", "error-anywhere", "runtime-error", "runtime-error-anywhere", "trace",
    "trace-top", "hint-has", "stderr-line",
}
_DIRECTIVE_RE = re.compile(r"#\s?(?P<name>[a-z][a-z-]*)(?:@(?P<at>\S+?))?(?::(?P<rest>.*))?\s*$")
_SUSPECT_RE = re.compile(r"#\s*(expect|error|runtime-error|covers|stdin|args|exit|trace|hint|stderr)[\w-]*(@\S*)?:")


class DirectiveError(Exception):
    """A malformed or inconsistent directive in a program file, at `line` (None: the whole file)."""

    def __init__(self, message: str, line: int | None = None, path: Path | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.path = message, line, path

    def located(self, shown: Path | str | None = None) -> str:
        """`FILE:LINE: message`, naming the file as `shown` (default: the parsed path)."""
        where = [str(shown if shown is not None else self.path or "<program>")]
        if self.line is not None:
            where.append(str(self.line))
        return ":".join(where) + ": " + self.message

    def __str__(self) -> str:
        return self.located()


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
    directive_lines: dict[str, int] = field(default_factory=dict)   # name -> first line using it

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
        raise DirectiveError(f"{what} must be an integer, not {value!r}", lineno) from None


def _rest_text(rest: str | None) -> str:
    """The text after ':' with the single separating space removed ('' for an empty rest)."""
    if rest is None:
        return ""
    return rest[1:] if rest.startswith(" ") else rest


def parse_program(path: Path | str, *, covers_required: bool = True) -> Program:
    """The directives of the program at `path`; DirectiveError for a malformed or inconsistent one.
    With `covers_required` (the golden suite) the first line must be `# covers: ...`."""
    path = Path(path)
    try:
        return _parse(path, covers_required)
    except DirectiveError as e:
        e.path = path
        raise


def _parse(path: Path, covers_required: bool) -> Program:
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
                raise DirectiveError(f"comment looks like a misspelt directive: {comment!r}", lineno)
            continue
        name, at, rest = m.group("name"), m.group("at"), m.group("rest")
        prog.directive_lines.setdefault(name, lineno)
        text_rest = _rest_text(rest)
        target_line = lineno if has_code else last_code_line
        if at is not None and name not in ("error", "runtime-error"):
            raise DirectiveError(f"'@' is only for error and runtime-error", lineno)
        if name == "covers":
            if lineno != 1:
                raise DirectiveError(f"'# covers:' must be the first line", lineno)
            prog.covers = text_rest.split()
            for c in prog.covers:
                if not re.fullmatch(r"\d+(\.\d+)?", c):
                    raise DirectiveError(f"bad subsection {c!r} in covers", 1)
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
                raise DirectiveError(f"'# stderr-line:' needs a text", lineno)
            prog.stderr_has.append(text_rest)
        elif name == "env":
            key, sep, value = text_rest.partition("=")
            if not sep:
                raise DirectiveError(f"'# env:' needs NAME=VALUE", lineno)
            prog.env[key.strip()] = value
        elif name == "flags":
            prog.flags += shlex.split(text_rest)
        elif name == "run":
            prog.force_run = True
        elif name == "error":
            if target_line is None:
                raise DirectiveError(f"error directive with no code line above", lineno)
            col = _int(at, "column", lineno) if at is not None else None
            last_error = CompileErrorExpect(target_line, col, text_rest or None, lineno)
            prog.errors.append(last_error)
        elif name == "error-anywhere":
            if not text_rest:
                raise DirectiveError(f"error-anywhere needs a message", lineno)
            last_error = CompileErrorExpect(None, None, text_rest, lineno)
            prog.errors.append(last_error)
        elif name in ("hint", "hint-has"):
            if last_error is None:
                raise DirectiveError(f"'# {name}:' must follow an error directive", lineno)
            (last_error.hints if name == "hint" else last_error.hint_parts).append(text_rest)
        elif name in ("runtime-error", "runtime-error-anywhere"):
            if prog.runtime_error is not None:
                raise DirectiveError(f"only one runtime error per program", lineno)
            if not text_rest and name == "runtime-error-anywhere":
                raise DirectiveError(f"{name} needs a message", lineno)
            if name == "runtime-error":
                if target_line is None:
                    raise DirectiveError(f"runtime-error with no code line above", lineno)
                col = _int(at, "column", lineno) if at is not None else None
                prog.runtime_error = RuntimeErrorExpect(target_line, col, text_rest or None)
            else:
                prog.runtime_error = RuntimeErrorExpect(None, None, text_rest)
        elif name == "trace-top":
            if not text_rest.strip():
                raise DirectiveError(f"'# trace-top:' needs a function name", lineno)
            prog.trace_top = text_rest.strip()
        elif name == "trace":
            m2 = re.fullmatch(r"(\S+)\s+(\d+)(?::(\d+))?", text_rest.strip())
            if not m2:
                raise DirectiveError(f"'# trace:' needs FN LINE[:COL]", lineno)
            prog.trace.append(TraceFrame(m2.group(1), int(m2.group(2)),
                                         int(m2.group(3)) if m2.group(3) else None))
    if covers_required and not prog.covers:
        raise DirectiveError("the first line must be '# covers: ...'")
    if prog.errors and (prog.expects or prog.runtime_error or prog.stdin_lines is not None):
        if not prog.force_run or prog.runtime_error:
            raise DirectiveError("compile-error programs cannot expect output or runtime errors")
    if (prog.trace or prog.trace_top) and not prog.runtime_error:
        raise DirectiveError("'# trace:' needs a runtime-error directive")
    prog.errors.sort(key=lambda e: (e.line is None, e.line or 0, e.col or 0))
    return prog
