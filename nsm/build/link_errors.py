"""Linker failures in Neve's terms: an undefined C symbol is reported at the `proto` that
declares it (file:line:col, 13.1's form) with the `[native] libs` hint, before the linker's own
lines, so a missing library never shows as a bare ninja dump."""
from __future__ import annotations

import os
import re
from pathlib import Path

# GNU ld and gold: "undefined reference to `foo'"; lld and mold: "undefined symbol: foo"
_UNDEFINED = re.compile(r"undefined reference to [`']([^'`]+)'|undefined symbol: (\S+)")
# ld names the object or library that needs the symbol first on the line
_NEEDED_BY = re.compile(r"^(?:/usr/bin/)?ld[^:]*: ([^:]+\.so[.\d]*): ")
# a proto is one line: the name is the identifier before the parameter list
_PROTO = re.compile(r"^proto\b[^(#]*?\b([A-Za-z_]\w*)\s*\(")
KEPT_LINES = 20


def undefined_symbols(output: str) -> dict[str, str | None]:
    """Symbols the linker could not find, in order, each with the shared library that needs it
    (None: a Neve object)."""
    found: dict[str, str | None] = {}
    for line in output.splitlines():
        for m in _UNDEFINED.finditer(line):
            name = m.group(1) or m.group(2)
            lib = _NEEDED_BY.match(line)
            if name not in found:
                found[name] = lib.group(1) if lib else None
    return found


def proto_sites(files: list[str], names: set[str]) -> dict[str, list[tuple[str, int, int, str]]]:
    """(file, line, col, source line) of each proto declaring one of `names`."""
    sites: dict[str, list] = {}
    for f in files:
        try:
            text = Path(f).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            m = _PROTO.match(line)
            if m and m.group(1) in names:
                sites.setdefault(m.group(1), []).append((f, i, m.start(1) + 1, line))
    return sites


def _shown(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def explain(output: str, bdir: Path) -> str | None:
    """The report of a failed link whose `output` names undefined symbols, the protos found
    through the build folder's import map; None when the failure is of another kind."""
    missing = undefined_symbols(output)
    if not missing:
        return None
    from compiler.imports import ImportMap
    try:
        imap = ImportMap.read(bdir / "imports.json")
        files = sorted(set(imap.modules) | {e.bindings for e in imap.modules.values() if e.bindings})
    except (OSError, ValueError):
        files = []
    sites = proto_sites(files, set(missing))
    hint = ('hint: add the library that defines it to the package\'s neve.toml: [native] '
            'libs = ["NAME"] links libNAME.so')
    out = []
    for name, lib in missing.items():
        for f, line, col, text in sites.get(name, []) if lib is None else []:
            out += [f"{_shown(f)}:{line}:{col}: error: undefined symbol '{name}': no linked "
                    f"library defines the C function of proto '{name}'",
                    text.replace("\t", "    "), " " * (col - 1) + "^", hint]
        if lib is not None or name not in sites:
            by = f"the native library {_shown(lib)}" if lib else "the program"
            out += [f"error: undefined symbol '{name}', needed by {by} (declared by no proto)",
                    hint]
    raw = [l for l in output.splitlines() if l.strip()]
    out.append("note: the linker said:")
    out += ["  " + l for l in raw[:KEPT_LINES]]
    if len(raw) > KEPT_LINES:
        out.append(f"  ... {len(raw) - KEPT_LINES} more lines")
    return "\n".join(out) + "\n"
