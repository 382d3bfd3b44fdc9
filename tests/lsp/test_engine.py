"""The checks behind nsm lsp (nsm/lsp/engine.py), in process: an edit re-parses only the edited
module, a dependency's edit re-parses its importer, unsaved texts are what is checked, and the
re-check of a 600-line module after an edit is timed (docs/editors.md records the numbers)."""
from __future__ import annotations

import statistics
from pathlib import Path

from nsm.lsp.engine import Engine
from nsm.lsp.index import Index

from .helpers import HELPER, MAIN, write_program


def big_program(funcs: int = 55) -> str:
    out = ["import frost", ""]
    for i in range(funcs):
        out += [f"# Function number {i}.", f"def int f{i}(int a, int b)", f"    int s = a + b * {i}",
                "    for k = 0, k < a", f"        s += k * {i}", "        if s > 1000",
                "            s = s % 97", "    array<int> xs = [a, b, s]", "    return s + xs.size()", ""]
    out += ["main", "    var t = frost.zeros([2, 3])"] + [f"    print(f{i}({i}, 2))" for i in range(funcs)]
    return "\n".join(out) + "\n"


def test_edit_reparses_the_edited_module_only(tmp_path: Path):
    main, helper = write_program(tmp_path)
    e = Engine(natives=False)
    first = e.analyse(main)
    assert first.diagnostics == [] and len(first.reparsed) > 3      # std, frost, helper, main
    e.set_text(main, MAIN.replace("print(total + p.norm2())", "print(total)"))
    again = e.analyse(main)
    assert again.reparsed == [again.root.path]
    e.set_text(helper, HELPER.replace("def int add(", "def int plus("))   # unsaved
    third = e.analyse(main)
    assert sorted(Path(p).name for p in third.reparsed) == ["helper.nv", "main.nv"]
    assert [d.message for d in third.diagnostics] == ["module 'helper' has no function 'add'"]


def test_recheck_of_600_lines_after_an_edit(tmp_path: Path):
    text = big_program()
    assert len(text.splitlines()) >= 600
    p = tmp_path / "big.nv"
    p.write_text(text)
    e = Engine(natives=False)
    assert e.analyse(p).diagnostics == []
    times = []
    for i in range(5):
        e.set_text(p, text.replace("b * 3\n", f"b * {i + 40}\n"))
        a = e.analyse(p)
        assert a.diagnostics == [] and a.reparsed == [a.root.path]
        times.append(a.seconds)
    ix = Index(a)
    assert ix.at[(4, 9)].detail == "def int f0(int a, int b)"
    print(f"re-check of {len(text.splitlines())} lines: median {statistics.median(times) * 1000:.0f} ms")
    assert statistics.median(times) < 2.0       # the goal is 0.2 s; CI machines are shared
