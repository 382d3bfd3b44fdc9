"""The features of nsm lsp on one checked program, in process (nsm/lsp/features.py over
nsm/lsp/index.py): what hover, definition, completion and signature help answer for each kind
of name."""
from __future__ import annotations

from pathlib import Path

import pytest

from nsm.lsp import completion as C, features as F, signatures as S
from nsm.lsp.engine import Engine
from nsm.lsp.index import Index

from .helpers import write_program

APP = """\
import helper
from helper import Point

# A counter.
class Counter
    int n
    ctor(int start)
        self.n = start

    def void bump()
        self.n += 1

def str Counter_label(Counter c)
    return f"{c.n}"

main
    Counter c = new Counter(3)
    c.bump()
    Point p = new Point()
    str s = "ab"
    print(c.n, p.x, s.size(), c.label(), helper.add(1, 2))
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory):
    folder = tmp_path_factory.mktemp("features")
    write_program(folder)
    (folder / "app.nv").write_text(APP)
    e = Engine(natives=False)
    a = e.analyse(folder / "app.nv")
    assert a.diagnostics == []
    return Index(a)


def at(needle: str, offset: int = 0, nth: int = 0) -> tuple[int, int]:
    i = -1
    for _ in range(nth + 1):
        i = APP.index(needle, i + 1)
    i += offset
    return APP.count("\n", 0, i) + 1, i - (APP.rfind("\n", 0, i) + 1) + 1


def hover_text(ix, needle, offset=0, nth=0):
    h = F.hover(ix, None, *at(needle, offset, nth))
    return h.contents.value if h is not None else None


def test_hover_kinds(ix):
    assert hover_text(ix, "c.n", 2, 1) == "```neve\nint Counter.n\n```"
    assert hover_text(ix, "c.n}", 2) == "```neve\nint Counter.n\n```"        # in an f-string
    assert hover_text(ix, "bump()", 0, 1) == "```neve\ndef void Counter.bump()\n```"
    assert hover_text(ix, "Counter c") == "```neve\nclass Counter\n```\n\nA counter."
    assert hover_text(ix, "Counter(3)") == "```neve\nclass Counter\n```\n\nA counter."
    assert hover_text(ix, "label()") == "```neve\ndef str Counter_label(Counter c)\n```"
    assert hover_text(ix, "start\n") == "```neve\nint start\n```"
    assert hover_text(ix, '"ab"') == "```neve\nstr\n```"


def test_definitions(ix):
    def where(needle, offset=0, nth=0):
        locs = F.definition(ix, None, *at(needle, offset, nth))
        return [(Path(loc.uri).name, loc.range.start.line, loc.range.start.character) for loc in locs]
    assert where("c.n", 2, 1) == [("app.nv", 5, 8)]           # the field
    assert where("bump()", 0, 1) == [("app.nv", 9, 13)]       # the method
    assert where("label()") == [("app.nv", 12, 8)]            # by naming, Counter_label
    assert where("p.x", 2) == [("helper.nv", 6, 8)]           # a field of an imported class
    assert where("Point p") == [("helper.nv", 5, 6)]          # a class imported by name
    assert where("Point\n") == [("helper.nv", 5, 6)]          # the from-import itself
    assert where("import helper", 8)[0][0] == "helper.nv"     # the module


def test_completions(ix):
    def labels(line_text_prefix_end):
        ln, col = at(line_text_prefix_end)
        return {i.label for i in C.completion(ix, None, ln, col + len(line_text_prefix_end))}
    assert {"n", "bump", "label"} <= labels("    c.")
    assert {"size", "split", "find"} <= labels("s.") - {"n"}
    assert {"add", "Point"} <= labels("helper.")
    got = labels("    Counter")
    assert {"Counter", "c", "Counter_label", "while", "print"} <= got


def test_signature_help_and_symbols(ix):
    ln, col = at("helper.add(1, ", len("helper.add(1, "))
    sh = S.signature_help(ix, None, ln, col)
    assert (sh.signatures[0].label, sh.active_parameter) == ("def int add(int a, int b)", 1)
    ln, col = at("Counter(3", len("Counter("))
    sh = S.signature_help(ix, None, ln, col)
    assert sh.signatures[0].label == "ctor Counter(int start)"
    names = [(s.name, [c.name for c in s.children or []]) for s in F.document_symbols(ix)]
    assert names == [("Counter", ["n", "ctor", "bump"]), ("Counter_label", []), ("main", [])]
