"""nsm fmt on every .nv file of the repository (without writing any): the layout is idempotent
and leaves the syntax tree as it was (compared through compiler/astdump.py's dump, positions
left out); files that do not parse (golden programs of errors) are refused, never changed."""
from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

from compiler.astdump import dump
from nsm.fmt.command import FormatError, format_text, parse, same_tree

REPO = Path(__file__).resolve().parents[2]
POSITIONS = re.compile(r" @\d+:\d+|Span\(file='[^']*', line=\d+, col=\d+\)|\S+:\d+:\d+")
DEEP = 8_000         # bytes: larger files (limits/) compare by walking the trees (a dump is slow)


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.nv"], cwd=REPO, capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return [REPO / p for p in out.stdout.split()]
    return sorted(p for p in REPO.rglob("*.nv") if ".venv" not in p.parts)


def deep(fn):
    """fn() on a thread with the compiler's deep stack (syntax trees nest deeply)."""
    from compiler.driver import DEEP_RECURSION_LIMIT, DEEP_STACK_BYTES
    box = []

    def work():
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        try:
            box.append(fn())
        except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
            box.append(e)
        finally:
            sys.setrecursionlimit(old)
    old = threading.stack_size(DEEP_STACK_BYTES)
    try:
        t = threading.Thread(target=work)
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def test_every_file_idempotent_and_same_tree():
    files = tracked()
    assert len(files) > 300
    formatted = refused = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        name = str(f.relative_to(REPO))
        try:
            out = format_text(text, name)
        except FormatError as e:
            assert "nsm fmt" not in str(e), str(e)        # refused: it does not parse
            refused += 1
            continue
        formatted += 1
        assert format_text(out, name) == out, f"{name}: a second pass changes it"
        _, before = deep(lambda: parse(text, name))
        _, after = deep(lambda: parse(out, name))
        if len(text) < DEEP:
            assert deep(lambda: POSITIONS.sub("", dump(after)) == POSITIONS.sub("", dump(before))), name
        else:
            assert same_tree(after, before), name
    assert formatted > 10 * refused
