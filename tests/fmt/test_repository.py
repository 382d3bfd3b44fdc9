"""nsm fmt on every .nv file of the repository (without writing any): the layout is idempotent
and leaves the syntax tree as it was (compared through compiler/astdump.py's dump, positions
left out); files that do not parse (golden programs of errors) are refused, never changed."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from compiler.astdump import dump
from nsm.fmt.command import FormatError, format_text, format_with_trees, on_deep_stack, same_tree

REPO = Path(__file__).resolve().parents[2]
POSITIONS = re.compile(r" @\d+:\d+|Span\(file='[^']*', line=\d+, col=\d+\)|\S+:\d+:\d+")
DEEP = 8_000         # bytes: larger files (limits/) compare by walking the trees (a dump is slow)


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.nv"], cwd=REPO, capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return [REPO / p for p in out.stdout.split()]
    return sorted(p for p in REPO.rglob("*.nv") if ".venv" not in p.parts)


def test_every_file_idempotent_and_same_tree():
    on_deep_stack(check_every_file)


def check_every_file():
    files = tracked()
    assert len(files) > 300
    formatted = refused = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        name = str(f.relative_to(REPO))
        try:
            out, before, after = format_with_trees(text, name)
        except FormatError as e:
            assert "nsm fmt" not in str(e), str(e)        # refused: it does not parse
            refused += 1
            continue
        formatted += 1
        assert format_text(out, name) == out, f"{name}: a second pass changes it"
        if len(text) < DEEP:
            assert POSITIONS.sub("", dump(after)) == POSITIONS.sub("", dump(before)), name
        else:
            assert same_tree(after, before), name
    assert formatted > 10 * refused
