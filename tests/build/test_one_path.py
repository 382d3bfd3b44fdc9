"""One build path (issue 13): `nsm run FILE` plans and runs the same graph, cache and link step as
`nsm build`; units compiled by one are reused by the other; bundled packages build in place; the
compiler is fed its imports and parses each module once."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nsm import paths

REPO = Path(__file__).resolve().parents[2]
NSM = Path(sys.executable).parent / "nsm"


def nsm(*args, cwd, home, **env_extra):
    env = dict(os.environ, NEVE_HOME=str(home), **env_extra)
    return subprocess.run([str(NSM), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def units(home: Path) -> set[str]:
    """The keys in the content-addressed store (`units/<2 hex>/<key>/`)."""
    d = home / "cache" / "units"
    return {p.name for p in d.glob("*/*") if (p / "MANIFEST").is_file()}


def package(root: Path, name: str = "app") -> Path:
    (root / "src").mkdir(parents=True)
    (root / "neve.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\nsrc = "src"\n')
    (root / "src" / "util.nv").write_text("def int twice(int x)\n    return 2 * x\n")
    (root / "src" / "main.nv").write_text("import util\nmain\n    print(util.twice(21))\n")
    return root


def test_run_and_build_reuse_each_others_units(tmp_path):
    """A script run first compiles std; the package built next compiles only its own two modules
    (std's unit is the script's); a new script after that compiles only itself."""
    home = tmp_path / "home"
    script = tmp_path / "s.nv"
    script.write_text('main\n    print("script")\n')
    r = nsm("run", str(script), cwd=tmp_path, home=home)
    assert (r.returncode, r.stdout) == (0, "script\n"), r.stderr
    after_run = units(home)
    assert len(after_run) == 2                       # std and the script
    pkg = package(tmp_path / "app")
    r = nsm("build", cwd=pkg, home=home)
    assert r.returncode == 0, r.stderr
    assert len(units(home) - after_run) == 2         # util and main; std reused
    assert subprocess.run([str(pkg / "build" / "debug" / "bin" / "app")], capture_output=True,
                          text=True).stdout == "42\n"
    after_build = units(home)
    other = tmp_path / "t.nv"
    other.write_text('main\n    print("other")\n')
    r = nsm("run", str(other), cwd=tmp_path, home=home)
    assert (r.returncode, r.stdout) == (0, "other\n"), r.stderr
    assert len(units(home) - after_build) == 1       # only t.nv


def test_a_file_inside_a_package_builds_in_the_package(tmp_path):
    home = tmp_path / "home"
    pkg = package(tmp_path / "app")
    (pkg / "tools").mkdir()
    (pkg / "tools" / "probe.nv").write_text("import util\nmain\n    print(util.twice(5))\n")
    r = nsm("run", "tools/probe.nv", cwd=pkg, home=home)
    assert (r.returncode, r.stdout) == (0, "10\n"), r.stderr
    runs = list((pkg / "build" / "debug" / "run").iterdir())
    assert [p.name.split("-")[0] for p in runs] == ["probe"]
    assert not (home / "cache" / "programs").exists()
    r = nsm("build", cwd=pkg, home=home)                # the package's own build keeps working
    assert r.returncode == 0 and "Finished debug build of app" in r.stderr, r.stderr


def test_traces_do_not_depend_on_the_compile_directory(tmp_path):
    """Objects hold real paths; the runtime names them relative to its working directory."""
    home = tmp_path / "home"
    (tmp_path / "sub").mkdir()
    prog = tmp_path / "sub" / "boom.nv"
    prog.write_text("def int f(int z)\n    return 1 // z\nmain\n    print(f(0))\n")
    r1 = nsm("run", "boom.nv", cwd=tmp_path / "sub", home=home)
    r2 = nsm("run", "sub/boom.nv", cwd=tmp_path, home=home)
    assert r1.returncode == r2.returncode == 1
    assert r1.stderr.startswith("boom.nv:2:14: runtime error: integer division by zero"), r1.stderr
    assert r2.stderr.startswith("sub/boom.nv:2:14: runtime error"), r2.stderr
    assert "  at f (sub/boom.nv:2:14)" in r2.stderr


@pytest.mark.parametrize("name", ["std", "frost"])
def test_bundled_packages_build_in_place(name, neve_home):
    root = REPO / "packages" / name
    r = nsm("build", cwd=root, home=neve_home)
    assert r.returncode == 0 and f"Finished debug build of {name}" in r.stderr, r.stderr
    r = nsm("test", cwd=root, home=neve_home)
    assert r.returncode == 0, r.stderr
    r = nsm("build", "--emit", "ptx", cwd=root, home=neve_home)
    assert r.returncode == 0, r.stderr
    if name == "frost":                 # its optimizers and element-wise ops are kernels
        listed = {Path(line).stem for line in r.stdout.split()}
        assert {"frost__elementwise", "frost__optim"} <= listed, r.stdout


def _count_parses(monkeypatch) -> dict[str, int]:
    import compiler.parser as P
    counts: dict[str, int] = {}
    real = P.parse_module

    def counting(tokens, path, *a, **kw):
        counts[path] = counts.get(path, 0) + 1
        return real(tokens, path, *a, **kw)

    monkeypatch.setattr(P, "parse_module", counting)
    import compiler.modules as M
    if hasattr(M, "parse_module"):
        monkeypatch.setattr(M, "parse_module", counting)
    return counts


def test_each_module_is_parsed_once_per_compile(tmp_path, monkeypatch):
    """Whole-program and unit compiles parse every module they read exactly once (an import
    cycle and a `from` import of a class included)."""
    from compiler.unit import compile_unit
    from nsm.build.orchestrate import import_map_for, whole_program
    (tmp_path / "a.nv").write_text("import b\nclass Box\n    int v\ndef int fa()\n    return b.fb()\n")
    (tmp_path / "b.nv").write_text("import a\ndef int fb()\n    return 1\n")
    (tmp_path / "m.nv").write_text("from a import Box\nimport a\nmain\n    Box x = new Box()\n"
                                   "    x.v = a.fa()\n    print(x.v)\n")
    counts = _count_parses(monkeypatch)
    res = whole_program(tmp_path / "m.nv", check_only=True)
    assert res.ok, res.diags.render_all()
    assert set(counts.values()) == {1} and len(counts) == 4, counts   # std, a, b, m
    counts.clear()
    nvi = tmp_path / "nvi"
    nvi.mkdir()
    r = compile_unit([tmp_path / "a.nv", tmp_path / "b.nv"], nvi,
                     import_map_for(tmp_path / "a.nv"))
    assert r.ok or "missing interface" in r.diagnostics, r.diagnostics
    assert counts and set(counts.values()) == {1}, counts


def test_compiler_imports_only_what_the_map_says(tmp_path):
    """A module the map does not list is an internal error, not a search of the file system."""
    from compiler.driver import compile_file
    from compiler.imports import ImportMap, ModuleEntry
    p = tmp_path / "x.nv"
    p.write_text("import y\nmain\n    print(1)\n")
    (tmp_path / "y.nv").write_text("def int g()\n    return 1\n")
    imap = ImportMap(None, {str(p.resolve()): ModuleEntry("x", {"y": None}, {"y": ["nowhere/y.nv"]})})
    res = compile_file(str(p), imap, check_only=True)
    assert not res.ok
    assert "cannot find module 'y' (tried nowhere/y.nv)" in res.diags.render_all()


def test_only_the_manifest_module_reads_neve_toml():
    """nsm/manifest.py is the one neve.toml reader; tomllib elsewhere reads other formats."""
    allowed = {"nsm/manifest.py", "nsm/lock.py", "nsm/registry/source.py"}
    users = {str(p.relative_to(REPO)) for d in ("nsm", "compiler")
             for p in (REPO / d).rglob("*.py") if "tomllib" in p.read_text()}
    assert users <= allowed, users - allowed


def test_one_import_scanner():
    """The planner and the loader both use the parser's pre-scan; nothing else scans for imports."""
    import re
    pattern = re.compile(r"""re\.compile\(r?["'][^"']*(import|from)\b""")
    hits = [str(p.relative_to(REPO)) for d in ("nsm", "compiler") for p in (REPO / d).rglob("*.py")
            if pattern.search(p.read_text())]
    assert hits == [], hits
    assert "scan_imports" in (REPO / "nsm" / "build" / "graph.py").read_text()


def test_builds_show_their_steps_off_a_terminal(tmp_path):
    """One `[i/n] STEP` line per step on stderr when the build takes longer than
    NSM_PROGRESS_AFTER (default one second); none with NSM_QUIET=1."""
    home = tmp_path / "home"
    pkg = package(tmp_path / "app")
    r = nsm("build", cwd=pkg, home=home, NSM_QUIET="0", NSM_PROGRESS_AFTER="0")
    assert r.returncode == 0, r.stderr
    steps = [line for line in r.stderr.splitlines() if line.startswith("[")]
    assert any(line.startswith("[1/") and "CXX" in line for line in steps), r.stderr   # the runtime
    assert any("NEVE app__src_util" in line for line in steps), r.stderr
    assert any(line.startswith("[") and "LINK" in line for line in steps), r.stderr
    (pkg / "src" / "util.nv").write_text("def int twice(int x)\n    return x + x\n")
    r = nsm("build", cwd=pkg, home=home, NSM_QUIET="1", NSM_PROGRESS_AFTER="0")
    assert r.returncode == 0 and not [l for l in r.stderr.splitlines() if l.startswith("[")]


def test_a_plan_made_for_another_neve_home_is_made_again(tmp_path):
    """A package's build folder outlives NEVE_HOME (tests, a cleaned cache): executables must not
    keep pointing at a runtime or native library that is gone."""
    import shutil
    pkg = package(tmp_path / "app")
    first = tmp_path / "home1"
    assert nsm("build", cwd=pkg, home=first).returncode == 0
    shutil.rmtree(first)
    r = nsm("run", cwd=pkg, home=tmp_path / "home2")
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
