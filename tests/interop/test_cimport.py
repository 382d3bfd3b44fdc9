"""The one-line form (docs/interop.md): `import c"zlib.h"` binds a system header with no
package, `nsm run -l z` links its library, through the build's native part and bindgen cache;
a missing header, a header with no module name and a bad `-l` are located errors."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

NSM = str(Path(sys.executable).parent / "nsm")

PROG = """\
import c"zlib.h"
import c"zlib.h" as z

main
    zlib.z_stream s = new zlib.z_stream()
    print(zlib.Z_OK, " ", z.Z_STREAM_END, " ", size_of<z.z_stream>(), " ", s.avail_in)
    print(zlib.zlibVersion() == zlib.ZLIB_VERSION)
"""


def nsm(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([NSM, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_header_import_runs_with_its_library_and_replans_when_libs_change(tmp_path):
    (tmp_path / "prog.nv").write_text(PROG)
    r = nsm(tmp_path, "run", "-l", "z", "prog.nv")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "0 1 112 0\ntrue\n"
    again = nsm(tmp_path, "run", "-l", "z", "prog.nv")
    assert again.stdout == r.stdout and "BINDGEN" not in again.stderr   # cached, not rebuilt
    bare = nsm(tmp_path, "run", "prog.nv")          # -l dropped: planned again, link fails
    assert bare.returncode != 0 and "Traceback" not in bare.stderr
    assert "zlibVersion" in bare.stderr
    checked = nsm(tmp_path, "check", "prog.nv")
    assert (checked.returncode, checked.stderr) == (0, "")


def test_missing_header_and_nameless_header_are_located_errors(tmp_path):
    (tmp_path / "bad.nv").write_text('import c"no_such_header_zz.h"\nmain\n    pass\n')
    r = nsm(tmp_path, "run", "bad.nv")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "bad.nv:1:1: error: cannot find system header <no_such_header_zz.h>" in r.stderr
    (tmp_path / "dash.nv").write_text('import c"zlib.h"\nimport c"x-y.h"\nmain\n    pass\n')
    r = nsm(tmp_path, "check", "dash.nv")
    assert r.returncode == 1
    assert "dash.nv:2:8: error: the header <x-y.h> gives no module name" in r.stderr
    assert 'hint: name it: import c"x-y.h" as NAME' in r.stderr


def test_bad_library_name_is_refused(tmp_path):
    (tmp_path / "p.nv").write_text("main\n    pass\n")
    r = nsm(tmp_path, "run", "-l", "z m", "p.nv")
    assert r.returncode == 1
    assert r.stderr == ("error: -l 'z m' is not a library name\n"
                        "hint: name the library as cc -l does: -l z links libz\n")
