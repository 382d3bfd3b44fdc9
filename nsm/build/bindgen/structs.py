"""`proto struct` blocks for the complete C structs that bound declarations point to.

Sizes and offsets are the C compiler's own: one probe program (the header, then `sizeof` and
`offsetof` of every struct and field) is compiled with the header's flags and run, so packing,
attributes and ABI rules need no model here. Each field binds with its 11.3 type; an unsigned
C integer with no Neve type of its width reads as `int` from its C storage
(`int avail_in @ 8 uint32_t`). A field named by a Neve reserved word gets a trailing `_`
(cJSON's `type` is `type_`). Fields with no Neve form (bit-fields, inline arrays, structs
by value, function pointers) are left out with a comment saying why. The result is cached
with the rest of the bindings (`cache`).
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from cxxheaderparser import types as cx

from .typemap import Scope, Unbindable, is_neve_name


def struct_blocks(scope: Scope, header: Path, language: str, command_flags: list[str],
                  problems: list[str]) -> list[str]:
    """Neve text of every struct in `scope.structs`, and of those their fields point to."""
    mapped: dict[str, list] = {}    # Neve name -> [(C field, Neve field, type or None, why)]
    done: set[str] = set()
    while len(done) < len(scope.structs):
        for name, tag in list(scope.structs.items()):
            if name in done:
                continue
            done.add(name)
            mapped[name] = [_field(scope, f) for f in scope.records[tag].fields] \
                if tag in scope.records else []
    if not mapped:
        return []
    spelled = {name: _c_spelling(scope, tag) for name, tag in scope.structs.items()}
    layout = probe(header, language, command_flags,
                   {name: (spelled[name], [c for c, _, t, _ in mapped[name] if t is not None])
                    for name in mapped}, problems)
    if layout is None:
        return []
    out = ["# C structs reached through pointers: size and fields at byte offsets "
           "(docs/interop.md)."]
    for name, fields in mapped.items():
        size, offsets = layout[name]
        out.append(f"proto struct {name}({size})")
        for cname, fname, t, why in fields:
            if t is None:
                out.append(f"    # {fname}: {why}")
                continue
            off, width = offsets[cname]
            if t == "unsigned":              # no Neve type of its width yet (3.1)
                out.append(f"    int {fname} @ {off} uint{8 * width}_t")
            else:
                out.append(f"    {t} {fname} @ {off}")
    return out


def _field(scope: Scope, f) -> tuple[str, str, str | None, str]:
    """(C name, Neve name, Neve type or "unsigned", or None with the reason it is left out)."""
    cname, dtype, bits = f
    t, label, why = _field_type(scope, cname, dtype, bits)
    return cname, label, t, why


def _field_type(scope: Scope, name, dtype, bits) -> tuple[str | None, str, str]:
    label = name or "(anonymous member)"
    if bits is not None:
        return None, label, "a bit-field"
    if not name:
        return None, label, "an anonymous struct or union member"
    if not is_neve_name(name):
        if not is_neve_name(name + "_"):
            return None, label, f"'{name}' is not a Neve identifier"
        label = name + "_"                  # `type` binds as `type_`, as Rust's bindgen does
    if isinstance(dtype, cx.Array):
        return None, label, "an inline array"
    try:
        t = scope.neve(dtype)
    except Unbindable as e:
        if str(e).startswith("unsigned") and isinstance(scope._resolve(dtype)[1], cx.Type):
            return "unsigned", label, ""
        return None, label, str(e).replace(" passed by value", " held by value")
    if t.startswith("Function<"):
        return None, label, "a function pointer"
    return t, label, ""


def _c_spelling(scope: Scope, tag: str) -> str:
    """How the probe names the struct: `struct tag`, or the typedef of an anonymous one."""
    if tag.startswith("#"):
        return scope.names.get(tag, tag)
    return f"{scope.records[tag].kind} {tag}" if tag in scope.records else tag


def probe(header: Path, language: str, command_flags: list[str],
          queries: dict[str, tuple[str, list[str]]], problems: list[str]):
    """{name: (size, {field: (offset, size)})} measured by the C compiler, or None (with one
    problem line) when the probe does not build or run."""
    lines = [f'#include "{os.path.abspath(header)}"', "#include <stddef.h>",
             "#include <stdio.h>", "int main(void) {"]
    for name, (c, fields) in queries.items():
        lines.append(f'    printf("S %zu\\n", sizeof({c}));')
        for f in fields:
            lines.append(f'    printf("F %zu %zu\\n", offsetof({c}, {f}), '
                         f'sizeof((({c}*)0)->{f}));')
    lines.append("    return 0;\n}\n")
    with tempfile.TemporaryDirectory(prefix="nsm-probe-") as d:
        src = Path(d) / ("probe.c" if language == "c" else "probe.cpp")
        exe = Path(d) / "probe"
        src.write_text("\n".join(lines))
        cmd = [command_flags[0], "-x", language, *command_flags[1:], str(src), "-o", str(exe)]
        try:
            built = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            if built.returncode != 0:
                first = next((ln for ln in built.stderr.splitlines() if "error" in ln),
                             built.stderr.strip()[:200])
                problems.append(f"{header}: cannot measure struct layouts (they stay opaque): "
                                f"{first}")
                return None
            ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"{header}: cannot measure struct layouts: {e}")
            return None
    values = ran.stdout.split("\n")
    out, i = {}, 0
    for name, (_, fields) in queries.items():
        size = int(values[i].split()[1])
        i += 1
        offsets = {}
        for f in fields:
            _, off, width = values[i].split()
            offsets[f] = (int(off), int(width))
            i += 1
        out[name] = (size, offsets)
    return out
