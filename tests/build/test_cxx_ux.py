"""The build as a C++ user expects it (issue 15): `-v` prints the command lines ninja runs,
compile_commands.json holds the exact flags of the native compiles, debug compiles C/C++ with
`-O0 -g` and release with `-O2` (switching back compiles nothing), and an executable keeps
working when its package folder is moved ($ORIGIN-relative rpath, SONAME)."""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

from .helpers import Package, nsm

HEADER = ('#include <stdint.h>\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
          "int64_t twice(int64_t x);\nint64_t plus_one(int64_t x);\n"
          "#ifdef __cplusplus\n}\n#endif\n")
FILES = {
    "include/calc.h": HEADER,
    "native/twice.c": '#include "calc.h"\nint64_t twice(int64_t x) { return 2 * x; }\n',
    "native/plus.cpp": '#include "calc.h"\nint64_t plus_one(int64_t x) { return x + 1; }\n',
    "src/main.nv": "import include as calc\nmain\n    print(calc.twice(calc.plus_one(20)))\n",
}
MANIFEST = '[native]\nsources = ["native/*.c", "native/*.cpp"]\ncflags = ["-DCALC=1"]\n'


def readelf(path: Path, *flags: str) -> str:
    return subprocess.run(["readelf", *flags, str(path)], capture_output=True, text=True,
                          check=True).stdout


def test_verbose_commands_compile_commands_profiles_and_moving(tmp_path):
    p = Package(tmp_path / "calc", "calc", FILES, MANIFEST)
    v = nsm("build", "-v", cwd=p.root)
    assert v.returncode == 0, v.stderr
    native = (p.root / "build" / "native").resolve()

    # -v: the command lines as run, with the debug flags
    lines = v.stderr.splitlines()
    cc = [l for l in lines if l.startswith("gcc -MMD")]
    assert len(cc) == 1 and f"-fPIC -O0 -g -I{p.root.resolve() / 'include'} -DCALC=1 -c " in cc[0]
    assert any(l.startswith("g++ -MMD") and "native/plus.cpp" in l for l in lines)
    assert any(l.startswith("g++ -shared") and "-Wl,-soname,libcalc.so" in l for l in lines)
    assert any(l.startswith("g++ -o ") and "/build/debug/bin/calc.tmp" in l for l in lines)

    # compile_commands.json: the same flags, one entry per source, linked from build/
    db = json.loads((p.root / "build" / "debug" / "compile_commands.json").read_text())
    assert sorted(Path(e["file"]).name for e in db) == ["plus.cpp", "twice.c"]
    for e in db:
        assert e["output"] == str(native / "debug" / "obj" / "native" / (Path(e["file"]).stem + ".o"))
        flags = " ".join(shlex.quote(a) for a in e["arguments"][1:-4])
        ran = next(l for l in lines if f"-c {e['file']} " in l)
        assert ran.startswith(e["arguments"][0] + " -MMD") and f" {flags} -c {e['file']} -o " in ran
        assert e["directory"] == str(p.root.resolve())
    assert (p.root / "build" / "compile_commands.json").resolve() == \
        (p.root / "build" / "debug" / "compile_commands.json").resolve()

    # the quiet default prints no command
    p.write("native/twice.c", '#include "calc.h"\nint64_t twice(int64_t x) { return x * 2; }\n')
    q = nsm("build", cwd=p.root)
    assert q.returncode == 0 and "gcc" not in q.stderr and "-MMD" not in q.stderr, q.stderr

    # profiles: release is -O2 without debug info, in its own folder; back to debug compiles nothing
    r = p.build("--release")
    assert r.rc == 0 and r.cxx == ["plus.cpp", "twice.c"], r.stderr
    rel = json.loads((p.root / "build" / "release" / "compile_commands.json").read_text())
    assert all(e["arguments"][1:3] == ["-fPIC", "-O2"] for e in rel)
    assert ".debug_info" in readelf(native / "debug" / "libcalc.so", "-S")
    assert ".debug_info" not in readelf(native / "release" / "libcalc.so", "-S")
    assert p.build().ran == [] and p.build("--release").ran == []
    assert p.run_exe("calc", "release") == "42\n"

    # moving the package folder: the library is found by its SONAME through $ORIGIN
    exe = p.root / "build" / "debug" / "bin" / "calc"
    dyn = readelf(exe, "-d")
    assert "[libcalc.so]" in dyn and "[$ORIGIN/../../native/debug]" in dyn, dyn
    assert "Library soname: [libcalc.so]" in readelf(native / "debug" / "libcalc.so", "-d")
    moved = tmp_path / "elsewhere" / "calc2"
    shutil.copytree(p.root, moved, symlinks=True)
    shutil.rmtree(p.root)
    for profile in ("debug", "release"):
        run = subprocess.run([str(moved / "build" / profile / "bin" / "calc")],
                             capture_output=True, text=True, timeout=60)
        assert (run.returncode, run.stdout) == (0, "42\n"), run.stderr


def test_nsm_run_verbose_prints_the_commands(tmp_path):
    (tmp_path / "hi.nv").write_text('main\n    print("hi")\n')
    r = nsm("run", "-v", "hi.nv", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "hi\n", r.stderr
    assert any(" -m nsm.build.neve_edge " in l and l.endswith("hi.nv") for l in r.stderr.splitlines())
    assert any(l.startswith("g++ -o ") for l in r.stderr.splitlines())
    again = nsm("run", "hi.nv", cwd=tmp_path)
    assert again.stdout == "hi\n" and again.stderr == ""


def test_undefined_symbol_names_the_proto_and_suggests_libs(tmp_path):
    main = ('proto int crc32(int crc, str buf, i32 len)\n\nmain\n'
            '    print(crc32(0, "hello", 5))\n')
    p = Package(tmp_path / "zip", "zip", {"src/main.nv": main})
    b = nsm("build", cwd=p.root)
    assert b.returncode == 1
    err = b.stderr.splitlines()
    assert err[:4] == [
        "src/main.nv:1:11: error: undefined symbol 'crc32': no linked library defines the C "
        "function of proto 'crc32'",
        "proto int crc32(int crc, str buf, i32 len)",
        "          ^",
        'hint: add the library that defines it to the package\'s neve.toml: [native] '
        'libs = ["NAME"] links libNAME.so']
    assert "note: the linker said:" in err and any("undefined reference to `crc32'" in l for l in err)
    assert err[-1] == "error: build failed" and "FAILED:" not in b.stderr
    p.write("native/none.c", "int zip_unused(void) { return 0; }\n")
    p.write("neve.toml", (p.root / "neve.toml").read_text()
            + '[native]\nsources = ["native/none.c"]\nlibs = ["z"]\n')
    assert p.build().rc == 0
    assert p.run_exe() == "907060870\n"           # Python: zlib.crc32(b"hello")
