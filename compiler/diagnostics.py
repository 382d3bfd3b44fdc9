"""Diagnostics as values: every error the user sees is a Diagnostic, collected, then rendered once.

Format (LANGUAGE.md 13.1):
    file:line:col: error: message
    <the source line as written, tabs expanded to multiples of 4>
    <caret under the column>
    hint: ...
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

MAX_ERRORS = 20


@dataclass(frozen=True)
class Span:
    """A source location: file path, 1-based line and column (characters; a tab is one)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    span: Span | None
    message: str
    hint: str | None = None
    notes: tuple[str, ...] = ()


class CompileError(Exception):
    """Raised to abandon a stage after its diagnostics have been recorded in a Diagnostics."""


class InternalError(Exception):
    """An unexpected failure inside the compiler, reported as `internal compiler error`."""


class Diagnostics:
    """Collects diagnostics for one compilation; sources are kept to echo the offending line."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.sources: dict[str, str] = {}
        self._seen: set[tuple] = set()

    def add_source(self, path: str, text: str) -> None:
        self.sources[path] = text

    def error(self, span: Span | None, message: str, hint: str | None = None,
              notes: tuple[str, ...] = ()) -> None:
        key = (span, message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.items.append(Diagnostic(span, message, hint, tuple(notes)))
        if len(self.items) >= MAX_ERRORS:
            raise CompileError()

    @property
    def has_errors(self) -> bool:
        return bool(self.items)

    def sorted(self) -> list[Diagnostic]:
        def key(d: Diagnostic):
            s = d.span
            return (0, "", 0, 0) if s is None else (1, s.file, s.line, s.col)
        return sorted(self.items, key=key)[:MAX_ERRORS]

    def render(self, d: Diagnostic) -> str:
        return render(d, self.sources)

    def render_all(self) -> str:
        return "".join(self.render(d) for d in self.sorted())

    def print(self, stream=None) -> None:
        (stream or sys.stderr).write(self.render_all())


def _expand_tabs(line: str, col: int) -> tuple[str, int]:
    """Expand tabs to the next multiple of 4; return the line and the caret's 0-based offset."""
    out = []
    caret = None
    for i, ch in enumerate(line):
        if i == col - 1:
            caret = len("".join(out))
        if ch == "\t":
            width = len("".join(out))
            out.append(" " * (4 - width % 4))
        else:
            out.append(ch)
    text = "".join(out)
    if caret is None:
        caret = len(text) + max(0, col - 1 - len(line))
    return text, caret


def render(d: Diagnostic, sources: dict[str, str]) -> str:
    if d.span is None:
        head = f"error: {d.message}\n"
    else:
        head = f"{d.span}: error: {d.message}\n"
        text = sources.get(d.span.file)
        if text is not None:
            lines = text.splitlines()
            if 1 <= d.span.line <= len(lines):
                src = lines[d.span.line - 1].rstrip("\r")
                expanded, caret = _expand_tabs(src, d.span.col)
                head += f"{expanded}\n{' ' * caret}^\n"
    for n in d.notes:
        head += f"note: {n}\n"
    if d.hint:
        head += f"hint: {d.hint}\n"
    return head
