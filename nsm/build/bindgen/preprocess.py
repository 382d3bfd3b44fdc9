"""Run the C preprocessor over a header and keep what bindgen reads (LANGUAGE.md 11.2).

The output keeps line markers (`# LINE "FILE" FLAGS`), so every declaration maps back to its
original file and line. Text from system headers (entered with flag 3, or under /usr/include)
is dropped before parsing: cxxheaderparser cannot read glibc or libstdc++, and only the
package's own declarations are bound. Simple `typedef` statements of system headers are kept
apart so names such as `time_t` still resolve.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import NsmError

# `# 12 "dir/x.h" 1 3` (GNU cpp line marker): line, file, flags (1 enter, 2 return, 3 system)
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
_SYSTEM_PREFIXES = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/")
_C_SUFFIXES = (".h", ".c")


@dataclass
class Preprocessed:
    """The preprocessor's output split for the parser.

    `text`: the non-system text with its line markers; `system_typedefs`: simple `typedef ...;`
    statements of system headers; `files`: the non-system files read, main header first, as
    the preprocessor names them; `language`: "c" or "c++"."""
    text: str
    system_typedefs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    language: str = "c"


def language_of(header: Path, cflags: tuple[str, ...]) -> str:
    """"c" for a `.h` (or `.c`) header, "c++" otherwise; an explicit `-x LANG` in cflags wins."""
    lang = "c" if header.suffix in _C_SUFFIXES else "c++"
    it = iter(cflags)
    for flag in it:
        value = next(it, "") if flag == "-x" else flag[2:] if flag.startswith("-x") else None
        if value in ("c", "c-header"):
            lang = "c"
        elif value in ("c++", "c++-header"):
            lang = "c++"
    return lang


def preprocessor() -> str:
    """The preprocessor driver: g++, else clang++ (both accept `-E -x c` and `-x c++`)."""
    for name in ("g++", "clang++", "c++"):
        found = shutil.which(name)
        if found:
            return found
    raise NsmError("no C/C++ preprocessor found (looked for g++, clang++, c++)",
                   "install g++ (e.g. apt-get install g++)")


def command(header: Path, include_dirs, defines, cflags) -> list[str]:
    """The preprocessor command line (the language first, so `-x` in cflags overrides it)."""
    lang = language_of(header, tuple(cflags))
    cmd = [preprocessor(), "-E", "-x", lang, "-fno-diagnostics-show-caret",
           "-fdiagnostics-color=never"]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    cmd += list(cflags)
    return cmd + [str(header)]


def run(header: Path, include_dirs=(), defines=(), cflags=()) -> Preprocessed:
    """Preprocess `header`; raise NsmError with the preprocessor's own diagnostics on failure."""
    cmd = command(header, include_dirs, defines, cflags)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise NsmError(f"cannot run the preprocessor {cmd[0]}: {e}") from None
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines()
                 if ln.strip() and not ln.startswith("compilation terminated")]
        raise NsmError("\n".join(lines) or f"{cmd[0]} -E failed on {header}")
    return split(proc.stdout, language_of(header, tuple(cflags)))


def split(output: str, language: str) -> Preprocessed:
    """Separate the non-system text (markers kept) from system headers' typedefs."""
    system: set[str] = set()
    main: str | None = None
    user: list[str] = []
    sys_text: list[str] = []
    files: list[str] = []
    in_system = False
    for line in output.split("\n"):
        m = _MARKER.match(line)
        if m:
            name, flags = m.group(2), m.group(3).split()
            if main is None and not name.startswith("<"):
                main = name
            if "1" in flags and "3" in flags and name != main:
                system.add(name)
            in_system = (name.startswith("<") or name in system
                         or name.startswith(_SYSTEM_PREFIXES))
            if in_system:
                sys_text.append(";")      # a file boundary also ends a statement
            else:
                user.append(line)
                if name not in files:
                    files.append(name)
            continue
        if in_system:
            if not line.startswith("#"):      # #pragma and the like
                sys_text.append(line)
        else:
            user.append(line)
    text = "\n".join(user)
    if language == "c":
        text = re.sub(r"\b_Bool\b", "bool", text)    # C's spelling of bool (stdbool.h)
    return Preprocessed(text, _simple_typedefs("\n".join(sys_text)), files, language)


def _simple_typedefs(text: str) -> list[str]:
    """`typedef A B;` statements at file scope with no braces or parentheses."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
            start = i + 1
        elif ch == ";":
            if depth == 0:
                stmt = " ".join(text[start:i].split()).replace("__extension__ ", "")
                if stmt.startswith("typedef ") and "(" not in stmt and "[" not in stmt \
                        and "{" not in stmt and "}" not in stmt:
                    out.append(stmt + ";")
            start = i + 1
    return out
