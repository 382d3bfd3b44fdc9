"""`nsm build` does the minimum work: ninja edges run only for what really changed
(content, not mtimes), interfaces cut rebuilds off early, and the result is always correct."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from .helpers import BIN, Package

MAIN = """import util
import shapes
import other

main
    print(util.double(21))
    print(shapes.area(3, 4))
    print(other.greet())
"""
UTIL = """# helpers shared by everyone
def int double(int x)
    return x * 2
"""
SHAPES = """import util

def int area(int w, int h)
    return util.double(w * h) // 2
"""
OTHER = """def str greet()
    return "hi"   # a greeting
"""


def key(pkg: Package, mod: str) -> str:
    from nsm.project import module_key
    return module_key(pkg.root / "src" / f"{mod}.nv")


@pytest.fixture
def pkg(tmp_path):
    p = Package(tmp_path / "app", files={"src/main.nv": MAIN, "src/util.nv": UTIL,
                                         "src/shapes.nv": SHAPES, "src/other.nv": OTHER})
    first = p.build()
    assert first.rc == 0, first.stderr
    assert first.linked
    assert p.run_exe() == "42\n12\nhi\n"
    return p


def test_noop_build_runs_nothing(pkg):
    again = pkg.build()
    assert again.rc == 0 and again.ran == []
    assert "nothing to do" in again.stderr


def test_touch_and_odd_mtimes_compile_nothing(pkg):
    util = pkg.root / "src" / "util.nv"
    os.utime(util)                                   # touch
    assert pkg.build().ran == []
    os.utime(util, ns=(0, 0))                        # mtime 0
    assert pkg.build().ran == []
    future = time.time_ns() + 10 ** 12               # ~17 minutes ahead
    os.utime(util, ns=(future, future))
    assert pkg.build().ran == []


def test_checkout_back_and_forth_compiles_nothing(pkg):
    pkg.write("src/util.nv", UTIL.replace("x * 2", "x * 3"))
    pkg.write("src/util.nv", UTIL)                   # back: same bytes, new mtime
    assert pkg.build().ran == []


def test_body_change_recompiles_its_module_and_relinks(pkg):
    pkg.write("src/util.nv", UTIL.replace("x * 2", "x + x + 1"))
    b = pkg.build()
    assert b.compiled == [key(pkg, "util")]
    assert b.linked
    assert pkg.run_exe() == "43\n12\nhi\n"           # area: (12 + 12 + 1) // 2


def test_signature_change_recompiles_exactly_the_importers(pkg):
    pkg.write("src/util.nv", UTIL.replace("def int double(int x)", "def int double(int x, int k = 2)")
              .replace("x * 2", "x * k"))
    b = pkg.build()
    assert b.compiled == sorted([key(pkg, "util"), key(pkg, "shapes"), key(pkg, "main")])
    assert key(pkg, "other") not in b.compiled
    assert pkg.run_exe() == "42\n12\nhi\n"


def test_comment_only_change_does_not_relink(pkg):
    pkg.write("src/other.nv", OTHER.replace("# a greeting", "# a friendly greeting"))
    b = pkg.build()
    assert b.compiled == [key(pkg, "other")]
    assert not b.linked
    assert pkg.build().ran == []


def test_edit_keeping_mtime_and_size_is_seen(pkg):
    util = pkg.root / "src" / "util.nv"
    st = util.stat()
    pkg.write("src/util.nv", UTIL.replace("x * 2", "x * 4"), mtime_ns=st.st_mtime_ns)
    assert util.stat().st_size == st.st_size and util.stat().st_mtime_ns == st.st_mtime_ns
    b = pkg.build()                                  # the ctime moved: rehashed
    assert b.compiled == [key(pkg, "util")]
    assert pkg.run_exe() == "84\n24\nhi\n"


def test_edit_during_a_build_is_built_next_time(pkg):
    pkg.write("src/util.nv", UTIL.replace("x * 2", "x * 5"))
    proc = subprocess.Popen([str(BIN / "nsm"), "build"], cwd=pkg.root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.4)
    pkg.write("src/util.nv", UTIL.replace("x * 2", "x * 6"))
    proc.wait(timeout=300)
    assert pkg.build().rc == 0
    assert pkg.run_exe() == "126\n36\nhi\n"
    assert pkg.build().ran == []


def test_new_file_shadowing_an_import_is_picked_up(tmp_path):
    p = Package(tmp_path / "app", files={
        "src/main.nv": "import sub/user\nmain\n    print(user.run())\n",
        "src/sub/user.nv": "import helpers\ndef int run()\n    return helpers.f()\n",
        "src/helpers.nv": "def int f()\n    return 1\n"})     # found at the module root
    assert p.build().rc == 0 and p.run_exe() == "1\n"
    p.write("src/sub/helpers.nv", "def int f()\n    return 2\n")   # now next to the importer
    assert p.build().rc == 0 and p.run_exe() == "2\n"


def test_compile_error_keeps_previous_outputs(pkg):
    exe = pkg.root / "build" / "debug" / "bin" / "app"
    before = exe.stat().st_mtime_ns
    pkg.write("src/util.nv", UTIL.replace("return x * 2", "return x * \"2\""))
    b = pkg.build()
    assert b.rc == 1
    assert "util.nv:3:" in b.stderr and "error" in b.stderr
    assert "FAILED" not in b.stderr and "Traceback" not in b.stderr
    assert exe.stat().st_mtime_ns == before and pkg.run_exe() == "42\n12\nhi\n"
    pkg.write("src/util.nv", UTIL)
    b = pkg.build()
    assert b.rc == 0 and b.compiled == [key(pkg, "util")]


def test_release_profile_is_separate(pkg):
    b = pkg.build("--release")
    assert b.rc == 0 and b.linked
    assert pkg.run_exe(profile="release") == "42\n12\nhi\n"
    assert pkg.build().ran == [] and pkg.build("--release").ran == []
