"""nsm.build.link_errors on linker output of each kind (GNU ld, lld) without running a build."""
from __future__ import annotations

from pathlib import Path

from nsm.build.link_errors import explain, undefined_symbols

LD = """/usr/bin/ld: /b/obj/app__main.o: in function `neve_main':
<string>:(.text+0x5c): undefined reference to `inflate_fast'
/usr/bin/ld: /b/native/debug/libcalc.so: undefined reference to `deflateEnd'
collect2: error: ld returned 1 exit status
"""


def test_symbols_of_ld_and_lld():
    assert undefined_symbols(LD) == {"inflate_fast": None,
                                     "deflateEnd": "/b/native/debug/libcalc.so"}
    assert undefined_symbols("ld.lld: error: undefined symbol: sqlite3_open\n") == \
        {"sqlite3_open": None}
    assert undefined_symbols("ld: cannot find -lfoo\n") == {}


def test_symbol_needed_by_a_native_library_has_no_proto(tmp_path: Path):
    text = explain(LD, tmp_path)            # no import map: no proto to point at
    lines = text.splitlines()
    assert lines[0] == "error: undefined symbol 'inflate_fast', needed by the program (declared by no proto)"
    assert lines[2] == ("error: undefined symbol 'deflateEnd', needed by the native library "
                        "/b/native/debug/libcalc.so (declared by no proto)")
    assert lines[1] == lines[3] and lines[1].startswith("hint: add the library")
    assert lines[4] == "note: the linker said:" and lines[-1] == "  collect2: error: ld returned 1 exit status"
    assert explain("ld: cannot find -lfoo\n", tmp_path) is None
