"""nsm fmt on every .nv file of the repository (without writing any): the layout is idempotent
and leaves the syntax tree as it was (compared through compiler/astdump.py's dump, positions
left out); files that do not parse (golden programs of errors) are refused, never changed; and
`nsm fmt --check` passes on the repository's files (CI keeps them in the canonical layout)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from compiler.astdump import dump
from nsm.fmt.command import FormatError, format_text, format_with_trees, on_deep_stack, same_tree

REPO = Path(__file__).resolve().parents[2]
POSITIONS = re.compile(r" @\d+:\d+|Span\(file='[^']*', line=\d+, col=\d+\)|\S+:\d+:\d+")
BINDGEN_GOLDENS = "tests/bindgen/headers/"   # nsm bindgen's exact output (test_bindgen_golden.py)
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


def test_repository_is_formatted():
    files = [str(f.relative_to(REPO)) for f in tracked()]
    files = [f for f in files if not f.startswith(BINDGEN_GOLDENS)]
    assert len(files) > 300
    r = subprocess.run([str(Path(sys.executable).parent / "nsm"), "fmt", "--check", *files],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.stdout == "", ("these files are not in nsm fmt's layout (run `nsm fmt` on them, or "
                            "mark those whose layout is what they test `# nsm fmt: off`, "
                            "docs/editors.md):\n" + r.stdout)
    assert (r.returncode, r.stderr) == (0, "")
