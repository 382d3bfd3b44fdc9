"""Native parts of packages (LANGUAGE.md 11.2): C++ built by nsm into a shared library, bindings
generated from the headers, used from Neve with no glue; header and flag changes rebuild
exactly the C++ they affect, by content (a touch or a date in 2099 builds nothing); globs are
expanded at every build; an installed package's native part is built at install, in the cache,
and a project build leaves the installed folder untouched."""
from __future__ import annotations

import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from packages.gitrepos import Registry

from .helpers import Package, nsm

IMGIO_H = """#pragma once
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct image image;
image* image_create(const char* path);
int64_t image_width(image* im);
void image_destroy(image* im);
#ifdef __cplusplus
}
#endif
"""
IMGIO_CPP = """#include "imgio.h"
#include <cstdio>

struct image { int64_t width; };

// Reads the width from a PNG file's IHDR chunk (bytes 16-19, big-endian).
image* image_create(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return nullptr;
    unsigned char b[24];
    size_t n = std::fread(b, 1, sizeof b, f);
    std::fclose(f);
    if (n < sizeof b) return nullptr;
    return new image{(int64_t(b[16]) << 24) | (b[17] << 16) | (b[18] << 8) | b[19]};
}
int64_t image_width(image* im) { return im->width; }
void image_destroy(image* im) { delete im; }
"""


def png(path: Path, width: int, height: int) -> None:
    """A valid greyscale PNG of the given size."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


FUTURE = 4_102_444_800 * 10**9       # 2100-01-01


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `folder`: its bytes and mtime."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


GEO = """[native]
sources = ["native/*.cpp"]
cflags = ["-DSCALE=2"]
"""


@pytest.fixture
def geo(tmp_path):
    p = Package(tmp_path / "geo", "geo", manifest_extra=GEO, files={
        "include/geo.h": '#include <stdint.h>\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
                         "int64_t geo__scaled(int64_t x);\ndouble geo__half(double x);\n"
                         "#ifdef __cplusplus\n}\n#endif\n",
        "native/scale.h": "#define FACTOR 10\n",
        "native/scaled.cpp": '#include "geo.h"\n#include "scale.h"\n'
                             "int64_t geo__scaled(int64_t x) { return x * FACTOR * SCALE; }\n",
        "native/half.cpp": '#include "geo.h"\ndouble geo__half(double x) { return x / 2; }\n',
        "src/main.nv": "import include as geo\nmain\n    print(geo.scaled(2), \" \", geo.half(3.0))\n",
    })
    b = p.build()
    assert b.rc == 0, b.stderr
    assert b.cxx == ["half.cpp", "scaled.cpp"]
    assert p.run_exe("geo") == "40 1.5\n"
    return p


def test_native_noop_and_header_change(geo):
    assert geo.build().ran == []
    geo.write("native/scale.h", "#define FACTOR 100\n")
    b = geo.build()
    assert b.cxx == ["scaled.cpp"]                 # half.cpp does not include scale.h
    assert geo.run_exe("geo") == "400 1.5\n"
    assert b.compiled == []                      # the bindings did not change: no Neve rebuilt


def test_native_flag_change_rebuilds(geo):
    text = (geo.root / "neve.toml").read_text().replace("-DSCALE=2", "-DSCALE=3")
    geo.write("neve.toml", text)
    b = geo.build()
    assert b.cxx == ["half.cpp", "scaled.cpp"]
    assert geo.run_exe("geo") == "60 1.5\n"


def test_native_compile_error_shows_the_compilers_message(geo):
    geo.write("native/half.cpp", '#include "geo.h"\ndouble geo__half(double x) { return x / ; }\n')
    b = geo.build()
    assert b.rc == 1
    assert "half.cpp:2:" in b.stderr and "error" in b.stderr and "Traceback" not in b.stderr
    assert geo.run_exe("geo") == "40 1.5\n"      # the previous executable still works


def test_imgio_installed_from_git_and_used_without_glue(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("NEVE_HOME", str(home))
    monkeypatch.setenv("NSM_GIT_BASE", str(tmp_path / "remote"))
    (tmp_path / "remote").mkdir()
    reg = Registry(tmp_path / "remote")
    reg.publish("imgio", "1.0.0", extra='\n[native]\nsources = ["native/imgio.cpp"]\n'
                                        'headers = ["include/imgio.h"]\n',
                files={"include/imgio.h": IMGIO_H, "native/imgio.cpp": IMGIO_CPP})
    app = Package(tmp_path / "app", "app", files={
        "src/main.nv": 'import imgio\nmain\n    var im = new imgio.image("a.png")\n'
                       "    print(im.width())\n    print(imgio.version())\n"})
    r = nsm("install", "alice/imgio", cwd=app.root)
    assert r.returncode == 0, r.stderr
    installed = home / "lib" / "imgio@1.0.0"
    assert not (installed / "build").exists()          # built in the cache, not in lib/
    assert [p.name for p in (home / "cache" / "native").glob("imgio-*/debug/libimgio.so")] == ["libimgio.so"]
    before = snapshot(installed)
    png(app.root / "a.png", 37, 5)
    b = app.build()
    assert b.rc == 0, b.stderr
    assert b.cxx == []                                 # install built it; the build reuses it
    os.utime(installed / "include" / "imgio.h", ns=(FUTURE, FUTURE))
    before = snapshot(installed)
    assert app.build().ran == []
    assert snapshot(installed) == before
    exe = app.root / "build" / "debug" / "bin" / "app"
    # runs without nsm: no NEVE_HOME, no Python on the path
    p = subprocess.run([str(exe)], cwd=app.root, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin"})
    assert (p.returncode, p.stdout) == (0, "37\nimgio 1.0.0\n"), p.stderr
    # a script outside any package uses the globally installed package too
    r = nsm("install", "alice/imgio", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    script = tmp_path / "show.nv"
    script.write_text('import imgio\nmain\n    imgio.image im("app/a.png")\n    print(im.width())\n')
    r = nsm("run", str(script), cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "37\n"), r.stderr
    assert snapshot(installed) == before


def test_native_touch_zero_and_future_mtimes_build_nothing(geo):
    for rel in ("native/scale.h", "include/geo.h", "native/half.cpp"):
        os.utime(geo.root / rel, ns=(FUTURE, FUTURE))
    assert geo.build().ran == []
    assert geo.build().ran == []                 # not once per build, as with mtimes
    for rel in ("native/scale.h", "native/scaled.cpp"):
        os.utime(geo.root / rel, ns=(0, 0))
    assert geo.build().ran == []
    (geo.root / "include" / "geo.h").touch()
    assert geo.build().ran == []


def test_native_real_edit_of_a_future_dated_header_rebuilds_its_users(geo):
    geo.write("native/scale.h", "#define FACTOR 10\n", mtime_ns=FUTURE)
    assert geo.build().ran == []                 # same bytes
    geo.write("native/scale.h", "#define FACTOR 7\n", mtime_ns=FUTURE)
    b = geo.build()
    assert (b.cxx, b.compiled) == (["scaled.cpp"], [])
    assert geo.run_exe("geo") == "28 1.5\n"
    assert geo.build().ran == []


def test_native_edit_of_a_shared_header_rebuilds_sources_and_bindings(geo):
    text = (geo.root / "include" / "geo.h").read_text()
    geo.write("include/geo.h", text.replace("double geo__half", "int64_t geo__twice(int64_t x);\n"
                                                               "double geo__half"))
    geo.write("native/twice.cpp", '#include "geo.h"\nint64_t geo__twice(int64_t x) { return 2 * x; }\n')
    geo.write("src/main.nv", "import include as geo\nmain\n    print(geo.twice(21))\n")
    b = geo.build()
    assert b.rc == 0, b.stderr
    assert b.cxx == ["half.cpp", "scaled.cpp", "twice.cpp"]      # twice.cpp: new, matched by the glob
    assert any(r.startswith("BINDGEN ") for r in b.ran)
    assert geo.run_exe("geo") == "42\n"


def test_native_renamed_header_and_deleted_source_need_no_clean(geo):
    geo.write("include/extra.h", "#include <stdint.h>\nint64_t geo__extra(void);\n")
    geo.write("native/extra.cpp", '#include <stdint.h>\nextern "C" int64_t geo__extra(void) { return 5; }\n')
    geo.write("src/main.nv", "import include as geo\nmain\n    print(geo.extra())\n")
    b = geo.build()
    assert b.rc == 0, b.stderr
    assert geo.run_exe("geo") == "5\n"
    (geo.root / "include" / "extra.h").rename(geo.root / "include" / "more.h")
    b = geo.build()
    assert b.rc == 0, b.stderr
    assert "ninja: error" not in b.stderr
    assert geo.run_exe("geo") == "5\n"
    geo.write("native/more.cpp", '#include <stdint.h>\nextern "C" int64_t geo__more(void) { return 6; }\n')
    assert geo.build().cxx == ["more.cpp"]       # a new file matching the glob, nothing else new
    geo.write("src/main.nv", "import include as geo\nmain\n    print(geo.half(5.0))\n")
    (geo.root / "native" / "extra.cpp").unlink()
    (geo.root / "include" / "more.h").unlink()
    b = geo.build()
    assert b.rc == 0, b.stderr
    assert geo.run_exe("geo") == "2.5\n"


def test_native_included_header_deleted_is_a_compile_error_not_a_ninja_error(geo):
    (geo.root / "native" / "scale.h").unlink()
    b = geo.build()
    assert b.rc == 1
    assert "scale.h" in b.stderr and "ninja: error" not in b.stderr and "Traceback" not in b.stderr
    geo.write("native/scaled.cpp", '#include "geo.h"\nint64_t geo__scaled(int64_t x) { return x; }\n')
    b = geo.build()
    assert (b.rc, b.cxx) == (0, ["scaled.cpp"]), b.stderr
    assert geo.run_exe("geo") == "2 1.5\n"


ZMAIN = ("import include as z\nmain\n    print(z.zError(z.Z_STREAM_ERROR), \" \", z.Z_OK)\n"
         "    print(z.with_x())\n")
WITH_X_H = ('#include <stdint.h>\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
            "#ifdef WITH_X\nint64_t with_x(void);\n#endif\n"
            "#ifdef __cplusplus\n}\n#endif\n")


@pytest.mark.parametrize("sources", ['sources = ["native/x.c"]\n', ""])
def test_native_system_header_libs_and_cflags_reach_bindgen(tmp_path, sources):
    """`headers = ["<zlib.h>"]` binds the system header by name, `libs` links it, and the
    -D and -I of cflags reach bindgen (with_x is declared only under -DWITH_X); without
    sources the package is bindings and link flags only."""
    x_c = '#include <stdint.h>\nint64_t with_x(void) { return 7; }\n'
    files = {"src/main.nv": ZMAIN, "hdr/x.h": WITH_X_H}
    if sources:
        files["native/x.c"] = x_c
    else:        # no C of its own: with_x comes from a library built beforehand
        lib = tmp_path / "lib"
        lib.mkdir()
        (lib / "x.c").write_text(x_c)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(lib / "libwx.so"), str(lib / "x.c")],
                       check=True)
        sources = f'ldflags = ["-L{lib}", "-Wl,-rpath,{lib}", "-lwx"]\n'
    p = Package(tmp_path / "zp", "zp", files=files, manifest_extra=(
        '[native]\nheaders = ["<zlib.h>", "hdr/x.h"]\nlibs = ["z"]\n'
        f'cflags = ["-DWITH_X", "-I{tmp_path / "zp" / "hdr"}"]\n' + sources))
    b = p.build()
    assert b.rc == 0, b.stderr
    assert b.cxx == (["x.c"] if "native/x.c" in sources else [])
    assert p.run_exe("zp") == "stream error 0\n7\n"
    bindings = (p.root / "build" / "native" / "bindings.nv").read_text()
    assert "proto str zlibVersion()" in bindings and "proto int with_x()" in bindings
    assert p.build().ran == []


def test_nsm_run_after_a_source_edit_rebuilds_the_native_part(geo):
    # `nsm run FILE`'s no-op path must still look at the native part's files.
    def run() -> str:
        r = nsm("run", "src/main.nv", cwd=geo.root)
        assert r.returncode == 0, r.stderr
        return r.stdout
    assert run() == "40 1.5\n"
    assert run() == "40 1.5\n"
    geo.write("native/half.cpp", '#include "geo.h"\ndouble geo__half(double x) { return x / 4; }\n')
    assert run() == "40 0.75\n"
