"""nsm fmt's layout (nsm/fmt/layout.py) on written samples, and its command line: --check,
formatting in place, refusing files that do not parse with the compiler's diagnostic."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nsm.fmt.command import FormatError, format_text, layout_kept

BIN = Path(sys.executable).parent

MESSY = """\
import frost/nn
from helper import   add ,Point
# Adds.
def int plus(int a,int b=2)
  return a+b*-1
class Box<T>
  T item
  ctor(T item)
    self.item=item
  def T get()
    return self.item
  def void set(T v)   # sets
    self.item = v
main
  array<int> xs=[1,2,
    3]
  print(plus(1,b=3), xs[0:2], - xs[1])
  var m = {"a": 1,"b":2}
# a comment kept as written:   x=1 
  if xs.size()>2 and not false
    print( xs reduce + )



  print("end")
"""

TIDY = """\
import frost/nn
from helper import add, Point

# Adds.
def int plus(int a, int b = 2)
    return a + b * -1

class Box<T>
    T item
    ctor(T item)
        self.item = item

    def T get()
        return self.item

    def void set(T v)   # sets
        self.item = v

main
    array<int> xs = [1, 2,
        3]
    print(plus(1, b = 3), xs[0:2], -xs[1])
    var m = {"a": 1, "b": 2}
    # a comment kept as written:   x=1 
    if xs.size() > 2 and not false
        print(xs reduce +)

    print("end")
"""


def test_canonical_layout_and_idempotence():
    assert format_text(MESSY, "m.nv") == TIDY
    assert format_text(TIDY, "m.nv") == TIDY


@pytest.mark.parametrize("src,want", [
    ("main\n    f(a,\n      b\n    )\n", "main\n    f(a,\n        b,\n    )\n"),     # trailing comma
    ("main\n    f(\n      a\n    )\n", "main\n    f(\n        a\n    )\n"),       # one item: none
    ("main\n    launch [1]  [2] k(x)\n", "main\n    launch [1] [2] k(x)\n"),
    ("main\n    [0..2,\n      0..3\n    ] i, j\n        pass\n",                  # no comma
     "main\n    [0..2,\n        0..3\n    ] i, j\n        pass\n"),
    ("main\n    print(a[1][2], $Config.n, -(x), not y)\n",
     "main\n    print(a[1][2], $Config.n, -(x), not y)\n"),
    ("main\n    asyncs 4 work(>xs, :ys)\n", "main\n    asyncs 4 work(>xs, :ys)\n"),
    ("class Box<T>\n    T x\nmain\n    Box<int> b = new Box<int>()\n    [0..n-1] i\n        pass\n",
     "class Box<T>\n    T x\n\nmain\n    Box<int> b = new Box<int>()\n    [0..n - 1] i\n        pass\n"),
    ("def Vec +(Vec a, Vec b)\n    return a\ndef bool and(Vec a, Vec b)\n    return true\n",
     "def Vec +(Vec a, Vec b)\n    return a\n\ndef bool and(Vec a, Vec b)\n    return true\n"),
    ("\ufeff\tmain\n\t\tprint(1)\t# c\n", "main\n    print(1)  # c\n"),
    # compile-time lists stay tight after `)`; a spaced `<` after `)` compares (docs/phase2.md)
    ("main\n    launch [1] [4]  on s  k(x)<4,2*8>\n    print(f(x) <3, f(x)<3)\n",
     "main\n    launch [1] [4] on s k(x)<4, 2 * 8>\n    print(f(x) < 3, f(x)<3)\n"),
    # a list starting with a negative value (`<-` glued to `)`) or closing after `)`
    ("main\n    launch [1] [4] k(x)<-3+n>\n    launch [1] [4] k(x)<-(2*3),(4)>\n",
     "main\n    launch [1] [4] k(x)<-3 + n>\n    launch [1] [4] k(x)<-(2 * 3), (4)>\n"),
])
def test_rules(src, want):
    assert format_text(src, "r.nv") == want
    assert format_text(want, "r.nv") == want


def nsm(*args, cwd):
    return subprocess.run([str(BIN / "nsm"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_command_check_then_format(tmp_path: Path):
    (tmp_path / "a.nv").write_text(MESSY)
    (tmp_path / "b.nv").write_text(TIDY)
    r = nsm("fmt", "--check", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "a.nv\n", "")
    assert (tmp_path / "a.nv").read_text() == MESSY
    r = nsm("fmt", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert (tmp_path / "a.nv").read_text() == TIDY
    r = nsm("fmt", "--check", "a.nv", "b.nv", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")


def test_refuses_what_does_not_parse(tmp_path: Path):
    bad = "main\n    print(1 +\n"
    (tmp_path / "bad.nv").write_text(bad)
    r = nsm("fmt", "bad.nv", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == "bad.nv:2:10: error: '(' was never closed\n    print(1 +\n         ^\n"
    assert (tmp_path / "bad.nv").read_text() == bad
    with pytest.raises(FormatError):
        format_text("main\n  \tx = 'ab'\n", "t.nv")


@pytest.mark.parametrize("text,kept", [
    ("# covers: 2.1\n# nsm fmt: off\nmain\n  print(1)\n", True),
    ("\ufeff# nsm fmt: off   \r\n\r\nmain\r\n", True),
    ("# a note\n\n    # nsm fmt: off\nmain\n", True),
    ("main\n    # nsm fmt: off\n", False),                 # below the first line of code
    ("# nsm fmt: off, please\nmain\n", False),
    ("# nsm fmt: on\nmain\n", False),
])
def test_marker_in_the_leading_comment_block(text, kept):
    assert layout_kept(text) is kept


def test_command_skips_marked_files(tmp_path: Path):
    kept = "# covers: 2.2\n# nsm fmt: off\n" + MESSY
    broken = "# nsm fmt: off\nmain\n    print(1 +\n"      # skipped without being parsed
    (tmp_path / "kept.nv").write_text(kept)
    (tmp_path / "broken.nv").write_text(broken)
    (tmp_path / "tidy.nv").write_text(TIDY)
    r = nsm("fmt", "--check", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = nsm("fmt", "-v", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr == "broken.nv: skipped (# nsm fmt: off)\nkept.nv: skipped (# nsm fmt: off)\n"
    assert (tmp_path / "kept.nv").read_text() == kept
    assert (tmp_path / "broken.nv").read_text() == broken
