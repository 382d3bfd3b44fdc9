"""Long runtime-error traces (13.2): omitted frames are counted, never dropped silently."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs" / "limits"
NSM = Path(sys.executable).parent / "nsm"


def _trace(name: str) -> list[str]:
    r = subprocess.run([str(NSM), "run", name], cwd=PROGRAMS, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, r.stderr
    return [l for l in r.stderr.splitlines() if l.startswith("  ")]


def test_frameless_recursion_says_how_many_frames_it_omits():
    lines = _trace("stack_overflow_frameless.nv")
    assert len(lines) == 3, lines
    assert lines[0] in ("  at ping (stack_overflow_frameless.nv:5:9)",
                        "  at pong (stack_overflow_frameless.nv:8:9)"), lines[0]
    assert re.fullmatch(r"  \.\.\. \d{4,} more frames \.\.\.", lines[1]), lines[1]
    assert lines[2] == "  at main (stack_overflow_frameless.nv:12:11)"


def test_recursion_with_frames_has_every_frame_located():
    lines = _trace("stack_overflow_mutual.nv")
    assert lines[0] == "  at ping (stack_overflow_mutual.nv:4:9)"
    assert lines[1] == "  at pong (stack_overflow_mutual.nv:10:12)"
    assert all(re.fullmatch(r"  at \w+ \(\S+:\d+:\d+\)|  \.\.\. \d+ more frames \.\.\.", l)
               for l in lines), lines
    assert lines[-1] == "  at main (stack_overflow_mutual.nv:14:11)"
    assert any("more frames" in l for l in lines)


def test_frameless_recursion_in_a_thread_counts_its_frames():
    # the stack probe fires on the thread's own stack limit; the omitted frames are counted
    # by unwinding that stack, and the trace ends with the thread's origin
    r = subprocess.run([str(NSM), "run", "stack_overflow_thread.nv"], cwd=PROGRAMS,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    err = r.stderr.splitlines()
    assert err[0] == "stack_overflow_thread.nv:5:9: runtime error: stack overflow"
    assert err[1] == "  at dive (stack_overflow_thread.nv:5:9)"
    assert re.fullmatch(r"  \.\.\. \d{5,} more frames \.\.\.", err[2]), err[2]
    assert err[3] == "  at worker (stack_overflow_thread.nv:9:11)"
    assert err[-1].startswith("in thread tid="), err[-1]
