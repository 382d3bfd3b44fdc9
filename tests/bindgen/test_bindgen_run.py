"""Generated bindings run (issue 15): an asm label links to its symbol, constants are
foreign constants used as names, and out-parameters (`char**`, `void**`) are one-element buffers read
back (docs/interop.md)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nsm.build.bindgen import generate

NSM = Path(sys.executable).parent / "nsm"

HEADER = """\
#define ANSWER (40 + 2)
#define NAME "neve"
enum level { LOW = 1, HIGH = LOW << 4 };
extern double cube_root (double __x) __asm__ ("" "cbrt") __attribute__ ((__nothrow__));
extern long strtol (const char* __s, char** __endp, int __base);
extern int posix_memalign (void** __memptr, long __align, long __size);
extern void free (void* __p);
"""

MAIN = """\
main
    print(int(cube_root(1000.0) + 0.5), " ", ANSWER, " ", NAME, " ", HIGH)
    char[][] endp = buffer<char[]>(1)
    print(strtol("123abc", endp, 10), " ", endp[0][0])
    u8[][] slot = buffer<u8[]>(1)
    int rc = posix_memalign(slot, 64, 100)
    any block = slot[0]
    print(rc, " ", block != nil)
    free(block)
"""


def test_generated_bindings_run(tmp_path):
    (tmp_path / "api.h").write_text(HEADER)
    b = generate(tmp_path / "api.h")
    assert b.problems == []
    assert "proto f64 cbrt(f64 __x)\ndef f64 cube_root(f64 a1)\n    return cbrt(a1)\n" in b.text
    assert "proto i32 posix_memalign(u8[][] __memptr, int __align, int __size)" in b.text
    (tmp_path / "prog.nv").write_text(b.text + MAIN)
    env = dict(os.environ, NEVE_HOME=str(tmp_path / "home"))
    r = subprocess.run([str(NSM), "run", "prog.nv"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "10 42 neve 16\n123 a\n0 true\n"
