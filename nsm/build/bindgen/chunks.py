"""Split preprocessed header text into top-level declarations, each parsed on its own.

One declaration the parser cannot read (glibc's `__asm__` labels, GNU extensions, C11
keywords) then costs only itself: `collect` reports it with its location and binds the rest.
`extern "C" { ... }` blocks are transparent (their declarations come out one by one, marked
C linkage); namespaces and other braced blocks stay whole. `#define` lines (from `-dD`) come
out apart, with their location.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# `# 12 "dir/x.h" 1 3` (GNU cpp line marker): line, file, flags (1 enter, 2 return, 3 system)
MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
_DEFINE = re.compile(r"^#define ([A-Za-z_]\w*)(\(?)\s*(.*)$")
_UNDEF = re.compile(r"^#undef ([A-Za-z_]\w*)")
_EXTERN_C = re.compile(r'^extern\s*"C"\s*$')


@dataclass
class Chunk:
    """One top-level declaration: where it starts, its text, whether it is inside an
    `extern "C"` block."""
    file: str
    line: int
    text: str
    extern_c: bool = False


@dataclass
class Define:
    """An object-like `#define NAME BODY` (function-like macros are not kept)."""
    file: str
    line: int
    name: str
    body: str


@dataclass
class Split:
    chunks: list[Chunk]
    defines: dict[str, Define]      # by name, `#undef` applied, in definition order
    main: str | None                # the first file the preprocessor entered
    files: list[str]                # every file entered, in order of first entry
    system: set[str]                # files the preprocessor entered as system headers
    includer: dict[str, str]        # file -> the file that first included it


def split(output: str) -> Split:
    """Chunks and defines of the preprocessor output `output` (line markers kept)."""
    s = _Splitter()
    for raw in output.split("\n"):
        s.feed_line(raw)
    s.flush()
    return Split(s.chunks, s.defines, s.main, s.files, s.system, s.includer)


class _Splitter:
    def __init__(self) -> None:
        self.chunks: list[Chunk] = []
        self.defines: dict[str, Define] = {}
        self.main: str | None = None
        self.files: list[str] = []
        self.system: set[str] = set()
        self.includer: dict[str, str] = {}
        self.file, self.line = "<unknown>", 1
        self.buf: list[str] = []          # text of the declaration being read
        self.start: tuple[str, int] | None = None
        self.depth = 0                    # brace depth inside the declaration
        self.parens = 0
        self.extern_c = 0                 # open `extern "C" {` blocks
        self.block_is_body = False        # the open depth-0 brace is a function body/namespace

    def feed_line(self, raw: str) -> None:
        m = MARKER.match(raw)
        if m:
            flags = m.group(3).split()
            if "1" in flags:
                self.includer.setdefault(m.group(2), self.file)
            self.file, self.line = m.group(2), int(m.group(1))
            if not self.file.startswith("<"):
                if self.main is None:
                    self.main = self.file
                if self.file not in self.files:
                    self.files.append(self.file)
                if "3" in flags and self.file != self.main:
                    self.system.add(self.file)
            if self.buf:
                self.buf.append(raw)      # keeps locations inside a declaration exact
            return
        if raw.startswith("#"):
            self._directive(raw)
        else:
            self._text(raw)
        self.line += 1

    def _directive(self, raw: str) -> None:
        m = _DEFINE.match(raw)
        if m and not m.group(2) and not self.file.startswith("<"):
            self.defines.pop(m.group(1), None)        # a redefinition moves it last
            self.defines[m.group(1)] = Define(self.file, self.line, m.group(1),
                                              m.group(3).strip())
            return
        m = _UNDEF.match(raw)
        if m:
            self.defines.pop(m.group(1), None)

    def _text(self, raw: str) -> None:
        i, n = 0, len(raw)
        piece_start = 0
        while i < n:
            ch = raw[i]
            if ch in "\"'":                            # skip a literal
                j = i + 1
                while j < n and raw[j] != ch:
                    j += 2 if raw[j] == "\\" else 1
                i = j + 1
                continue
            if self.start is None and not ch.isspace():
                self.start = (self.file, self.line)
            if ch == "(":
                self.parens += 1
            elif ch == ")":
                self.parens -= 1
            elif ch == "{":
                if self.depth == 0:
                    head = self._head(raw[piece_start:i])
                    if _EXTERN_C.match(head):             # transparent linkage block
                        self.extern_c += 1
                        self._reset()
                        piece_start = i + 1
                        i += 1
                        continue
                    self.block_is_body = head.endswith(")") or head.startswith("namespace")
                self.depth += 1
            elif ch == "}":
                if self.depth == 0:
                    if self.extern_c:                     # closes `extern "C" {`
                        self.extern_c -= 1
                        self._emit(raw[piece_start:i])
                        piece_start = i + 1
                    i += 1
                    continue
                self.depth -= 1
                if self.depth == 0 and self.block_is_body:
                    self._emit(raw[piece_start:i + 1])
                    piece_start = i + 1
            elif ch == ";" and self.depth == 0 and self.parens <= 0:
                self._emit(raw[piece_start:i + 1])
                piece_start = i + 1
            i += 1
        rest = raw[piece_start:]
        if rest.strip() or self.buf:
            self.buf.append(rest)

    def _head(self, tail: str) -> str:
        """The declaration text read so far, `tail` included, on one line."""
        text = "\n".join(ln for ln in self.buf + [tail] if not MARKER.match(ln))
        return " ".join(text.split())

    def _emit(self, tail: str) -> None:
        self.buf.append(tail)
        text = "\n".join(self.buf)
        if text.strip(" \t\n;") and self.start is not None:
            file, line = self.start
            self.chunks.append(Chunk(file, line, text, self.extern_c > 0))
        self._reset()

    def _reset(self) -> None:
        self.buf, self.start = [], None
        self.depth = self.parens = 0
        self.block_is_body = False

    def flush(self) -> None:
        if self.buf and "".join(self.buf).strip():
            self._emit("")
