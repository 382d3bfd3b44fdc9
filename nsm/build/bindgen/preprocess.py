"""Run the C preprocessor over a header (LANGUAGE.md 11.2) and find headers named `<x.h>`.

The output keeps line markers (`# LINE "FILE" FLAGS`), so every declaration maps back to its
original file and line, and `#define` lines (`-dD`), which become constants. `cflags` (-D,
-U, -I, -std, -x) reach this run, so a declaration compiled under `-DWITH_X` is bound.
"""
from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

from ...errors import NsmError

_SYSTEM_PREFIXES = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/")
_C_SUFFIXES = (".h", ".c")


def is_system_path(path: str) -> bool:
    return path.startswith("<") or path.startswith(_SYSTEM_PREFIXES)


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
    cmd = [preprocessor(), "-E", "-dD", "-x", lang, "-fno-diagnostics-show-caret",
           "-fdiagnostics-color=never"]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    cmd += list(cflags)
    return cmd + [str(header)]


def run(header: Path, include_dirs=(), defines=(), cflags=()) -> str:
    """The preprocessor's output for `header`, line markers and `#define`s (`-dD`) kept;
    NsmError with the preprocessor's own diagnostics on failure."""
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
    return proc.stdout


def find_system_header(name: str, include_dirs=(), cflags=()) -> Path:
    """The file `#include <name>` reads: the -I folders, then the compiler's own search path
    (as `cpp -v` lists it). NsmError when no folder has it."""
    dirs = [Path(d) for d in include_dirs]
    dirs += [Path(f[2:]) for f in cflags if f.startswith("-I") and len(f) > 2]
    lang = language_of(Path(name), tuple(cflags))
    for d in dirs + list(_search_path(lang)):
        candidate = d / name
        if candidate.is_file():
            return candidate
    raise NsmError(f"cannot find system header <{name}> in the include path",
                   "install the library's -dev package, or add its folder with -I")


@functools.lru_cache(maxsize=4)
def _search_path(lang: str) -> tuple[Path, ...]:
    try:
        proc = subprocess.run([preprocessor(), "-E", "-x", lang, "-v", "-"], input="",
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return (Path("/usr/local/include"), Path("/usr/include"))
    out, on = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            on = True
        elif line.startswith("End of search list"):
            break
        elif on and line.startswith(" "):
            out.append(Path(line.strip()))
    return tuple(out)
