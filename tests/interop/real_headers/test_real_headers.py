"""bindgen over 15 real system headers (issue 15): each generated file passes `nsm check`,
and the named declarations of `<name>.golden` are bound with their Neve signature, refused
with their reason, or bound as constants with their type and value. Named, not counted, so a
Debian header update that adds declarations does not break the tests.

A header that is not installed skips its test, except under CI=true, where it fails (the
README's set-up line installs every -dev package).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nsm.build.bindgen import generate
from nsm.build.bindgen.preprocess import find_system_header
from nsm.errors import NsmError

HERE = Path(__file__).resolve().parent
NAMES = sorted(p.stem for p in HERE.glob("*.golden"))
NSM = Path(sys.executable).parent / "nsm"


def golden(name: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(header, [(kind, declaration name, expectation)]) of `<name>.golden`."""
    header, entries = None, []
    for line in (HERE / f"{name}.golden").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        kind, _, rest = line.partition(" ")
        if kind == "header":
            header = rest
            continue
        decl, _, want = rest.partition(": ")
        entries.append((kind, decl, want))
    assert header is not None, name
    return header, entries


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """name -> (Bindings, module path), every present header generated once per session."""
    out = tmp_path_factory.mktemp("real_headers")
    result = {}
    for name in NAMES:
        header, _ = golden(name)
        try:
            find_system_header(header[1:-1])
        except NsmError:
            continue
        b = generate(header)
        path = out / f"{name}.nv"
        path.write_text(b.text)
        result[name] = (b, path)
    return result


def need(name: str, generated):
    if name not in generated:
        header, _ = golden(name)
        if os.environ.get("CI") == "true":
            pytest.fail(f"{header} is not installed (CI installs it in the set-up line)")
        pytest.skip(f"{header} is not installed (apt-get install its -dev package)")
    return generated[name]


@pytest.mark.parametrize("name", NAMES)
def test_named_declarations(name: str, generated):
    b, _ = need(name, generated)
    _, entries = golden(name)
    problems = {}
    for p in b.problems:
        m = re.search(r": cannot bind '([^']+)': (.*)$", p)
        problems.setdefault(m.group(1), m.group(2))
    lines = b.text.splitlines()
    for kind, decl, want in entries:
        if kind == "bound":
            assert want in lines, f"{decl}: {problems.get(decl, 'not bound')}"
        elif kind == "refused":
            assert problems.get(decl) == want, decl
        elif kind == "const":
            typ, _, value = want.partition(" ")
            assert f"proto {typ} {decl} = {value}" in lines, decl
        elif kind == "struct":               # its header line, or one line of its block
            assert want in struct_block(lines, decl), f"{decl}: {want}"
        else:
            raise AssertionError(f"{name}.golden: unknown kind {kind!r}")


def struct_block(lines: list[str], name: str) -> list[str]:
    """The `proto struct NAME(SIZE)` line and its field lines (stripped)."""
    out = []
    for i, line in enumerate(lines):
        if line.startswith(f"proto struct {name}("):
            out.append(line)
            for field in lines[i + 1:]:
                if not field.startswith("    "):
                    break
                out.append(field.strip())
    return out


def test_every_generated_file_type_checks(generated, tmp_path):
    """One `nsm check` of a program importing every generated module (one compiler start)."""
    if not generated:
        need(NAMES[0], generated)
    for name, (_, path) in generated.items():
        (tmp_path / f"bind_{name}.nv").write_text(path.read_text())
    (tmp_path / "all.nv").write_text(
        "".join(f"import bind_{n}\n" for n in generated) + "main\n    pass\n")
    env = dict(os.environ, NEVE_HOME=str(tmp_path / "home"))
    r = subprocess.run([str(NSM), "check", "all.nv"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stderr == ""


def test_check_rejects_what_bindgen_must_not_write(tmp_path):
    """The type-check above can fail: `T**` written as `str[]` / `any[]` (fault 3) is an
    error of `nsm check`."""
    (tmp_path / "bad.nv").write_text("proto void f(str[] a, any[] b)\n")
    (tmp_path / "all.nv").write_text("import bad\nmain\n    pass\n")
    env = dict(os.environ, NEVE_HOME=str(tmp_path / "home"))
    r = subprocess.run([str(NSM), "check", "all.nv"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 1 and "str[] cannot cross to C" in r.stderr
