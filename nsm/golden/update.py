"""Rewrites a golden program's `# expect:` lines from the stdout it actually printed."""
from __future__ import annotations

import re

from .compare import split_output
from .grammar import Program, split_comment


def update_expectations(prog: Program, stdout: str) -> bool:
    """Rewrite the `# expect:` lines of a run program from its actual stdout; True if changed.

    The n-th expectation directive receives the n-th output line (an `# expect-re:` that still
    matches is kept); surplus directives are removed; extra output lines are added as comment
    lines after the last directive (or at the end of the file). Line endings and BOM are kept.
    """
    if prog.kind != "run":
        raise ValueError("only programs without error directives can be updated")
    raw = prog.path.read_bytes().decode("utf-8", errors="surrogateescape")
    bom = raw.startswith("\ufeff")
    body = raw[1:] if bom else raw
    newline = "\r\n" if "\r\n" in body else "\n"
    phys = body.split("\n")
    trailing = phys[-1] == ""
    if trailing:
        phys.pop()
    phys = [ln[:-1] if ln.endswith("\r") else ln for ln in phys]
    actual, _ = split_output(stdout)
    slots = prog.expects
    out = list(phys)
    deleted = set()
    for i, slot in enumerate(slots):
        idx = slot.lineno - 1
        code, comment = split_comment(out[idx])
        if i < len(actual):
            line = actual[i]
            if slot.regex and re.fullmatch(slot.text, line):
                continue
            new_comment = "# expect:" + (" " + line if line else "")
            out[idx] = code + new_comment
        else:
            if code.strip():
                out[idx] = code.rstrip()
            else:
                deleted.add(idx)
    extra = actual[len(slots):]
    if extra:
        if slots:
            anchor = slots[-1].lineno - 1
            pad = re.match(r"[ \t]*", phys[anchor])[0]
        else:
            anchor = len(out) - 1
            pad = ""
        insert = [pad + "# expect:" + (" " + ln if ln else "") for ln in extra]
        out[anchor + 1:anchor + 1] = insert
        deleted = {d if d <= anchor else d + len(insert) for d in deleted}
    out = [ln for i, ln in enumerate(out) if i not in deleted]
    new = ("\ufeff" if bom else "") + newline.join(out) + (newline if trailing else "")
    if new == raw:
        return False
    prog.path.write_bytes(new.encode("utf-8", errors="surrogateescape"))
    return True
