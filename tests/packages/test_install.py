"""Install, update and remove round trips against local bare repos: transitive dependencies,
the lock honoured, --locked refusing drift, moved tags, two projects with two versions of one
package, manifest errors, and a Neve program importing an installed package."""
from __future__ import annotations

import shutil

import pytest

from nsm import lock as lockfile
from nsm import paths
from nsm.errors import NsmError
from nsm.install import ops
from nsm.install.context import find
from nsm.progress import Progress
from nsm.registry.installed import locate
from nsm.registry.names import parse_spec

from .conftest import nsm


def install(cwd, *specs, **kw):
    return ops.install(find(cwd), [parse_spec(s) for s in specs], progress=Progress(), **kw)


def project(tmp_path, name, deps: str = "") -> object:
    root = tmp_path / name
    root.mkdir()
    (root / "neve.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n'
                                    f"[dependencies]\n{deps}")
    return root


def test_global_install_transitive_list_tree_remove(reg, tmp_path):
    reg.publish("json", "1.0.0")
    reg.publish("json", "1.1.0")
    reg.publish("csv", "1.2.0", {"json": "^1.0"})
    reg.publish("csvx", "1.0.0")
    out = install(tmp_path, "alice/csv", "alice/csvx")
    assert sorted((p.name, p.version) for p in out.installed) == \
        [("csv", "1.2.0"), ("csvx", "1.0.0"), ("json", "1.1.0")]
    lk = lockfile.read(paths.global_lock_file())
    assert lk.packages["csv"].dependencies == ("json",) and lk.roots["csv"].version == "^1.2.0"
    assert locate("json") == paths.installed_package_dir("json", "1.1.0")
    assert not any(paths.staging_dir().iterdir())
    r = nsm("tree", cwd=tmp_path)
    assert r.stdout.splitlines()[1:3] == [f"├── csv 1.2.0 ({lk.packages['csv'].commit[:12]})",
                                          f"│   └── json 1.1.0 ({lk.packages['json'].commit[:12]})"]
    assert "csvx" in nsm("list", cwd=tmp_path).stdout
    again = install(tmp_path, "alice/csv")
    assert not again.installed and len(again.reused) == 2
    r = nsm("remove", "alice/csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(d.name for d in paths.lib_dir().iterdir() if d.name[0] != ".") == \
        ["csvx@1.0.0", "json@1.1.0"]
    assert "csv" not in lockfile.read(paths.global_lock_file()).packages and locate("csv") is None
    r = nsm("remove", "alice/csv", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr == "error: package 'csv' is not installed\n"


def test_install_at_tag_branch_and_commit(reg, tmp_path):
    c1 = reg.publish("csv", "1.0.0")
    reg.publish("csv", "2.0.0")
    out = install(tmp_path, "alice/csv@v1.0.0")
    assert [(p.version, p.commit) for p in out.installed] == [("1.0.0", c1)]
    assert locate("csv") == paths.installed_package_dir("csv", "1.0.0")
    install(tmp_path, "alice/csv@main")
    assert locate("csv") == paths.installed_package_dir("csv", "2.0.0")
    install(tmp_path, f"alice/csv@{c1[:10]}")
    assert lockfile.read(paths.global_lock_file()).packages["csv"].commit == c1


def test_package_add_lock_update_and_remove(reg, tmp_path):
    reg.publish("json", "1.0.0")
    reg.publish("csv", "1.2.0", {"json": "^1.0"})
    app = project(tmp_path, "app")
    r = nsm("add", "alice/csv", "--version", "^1.2", cwd=app)
    assert r.returncode == 0, r.stderr
    assert 'csv = { git = "alice/csv", version = "^1.2" }' in (app / "neve.toml").read_text()
    text = (app / "neve.lock").read_text()
    reg.publish("json", "1.3.0")
    reg.publish("csv", "1.4.0", {"json": "^1.3"})
    install(app)                                    # the lock is honoured
    assert (app / "neve.lock").read_text() == text
    out = ops.update(find(app), [], progress=Progress())
    assert sorted((p.name, p.version) for p in out.installed) == [("csv", "1.4.0"), ("json", "1.3.0")]
    assert locate("csv", app / "main.nv") == paths.installed_package_dir("csv", "1.4.0")
    out = ops.remove(find(app), parse_spec("alice/csv"))
    assert out.removed == ["csv", "json"]
    assert "csv" not in (app / "neve.toml").read_text()
    assert lockfile.read(app / "neve.lock").packages == {}
    assert paths.installed_package_dir("csv", "1.4.0").is_dir()     # shared: kept


def test_locked_refuses_drift_and_moved_tags(reg, tmp_path):
    reg.publish("csv", "1.0.0")
    app = project(tmp_path, "app", 'csv = { git = "alice/csv", version = "^1.0" }\n')
    install(app)
    (app / "neve.toml").write_text((app / "neve.toml").read_text().replace("^1.0", "^2.0"))
    r = nsm("install", "--locked", cwd=app)
    assert r.returncode == 1
    assert r.stderr == (f"error: {app / 'neve.lock'} disagrees with the manifest: the manifest "
                        "asks csv ^2.0, the lock has 1.0.0\n"
                        "hint: run `nsm install` without --locked to update the lock\n")
    (app / "neve.toml").write_text((app / "neve.toml").read_text().replace("^2.0", "^1.0"))
    old = lockfile.read(app / "neve.lock").packages["csv"].commit
    new = reg.publish("csv", "1.0.0", files={"x.nv": "# moved\n"})     # re-tag v1.0.0
    # An installed lock is not fetched again; with its folder gone the move is caught.
    shutil.rmtree(paths.installed_package_dir("csv", "1.0.0"))
    for args in (["install", "--locked"], ["install"]):
        r = nsm(*args, cwd=app)
        assert r.returncode == 1, args
        assert f"now points to {new[:12]}, but the lock records {old[:12]}" in r.stderr
    assert lockfile.read(app / "neve.lock").packages["csv"].commit == old


def test_two_projects_two_versions(reg, tmp_path):
    reg.publish("csv", "1.5.0")
    reg.publish("csv", "2.1.0")
    a = project(tmp_path, "a", 'csv = { git = "alice/csv", version = "^1" }\n')
    b = project(tmp_path, "b", 'csv = { git = "alice/csv", version = "^2" }\n')
    install(a)
    install(b)
    assert locate("csv", a / "m.nv") == paths.installed_package_dir("csv", "1.5.0")
    assert locate("csv", b / "m.nv") == paths.installed_package_dir("csv", "2.1.0")
    assert locate("csv", tmp_path / "script.nv") is None      # nothing installed globally


def test_offline_uses_only_the_cache(reg, tmp_path):
    reg.publish("csv", "1.0.0")
    with pytest.raises(NsmError, match=r"not in the cache \(--offline\)"):
        install(tmp_path, "alice/csv", offline=True)
    install(tmp_path, "alice/csv")
    ops.remove(find(tmp_path), parse_spec("csv", need_user=False))
    reg.repo("csv").rename(tmp_path / "gone.git")
    assert [p.name for p in install(tmp_path, "alice/csv", offline=True).installed] == ["csv"]


def test_conflict_and_missing_package_messages(reg, tmp_path):
    reg.publish("d", "1.0.0")
    reg.publish("d", "2.0.0")
    reg.publish("b", "1.0.0", {"d": "^1"})
    reg.publish("c", "1.0.0", {"d": "^2"})
    app = project(tmp_path, "app", 'b = { git = "alice/b" }\nc = { git = "alice/c" }\n')
    r = nsm("install", cwd=app)
    assert r.returncode == 1 and not (app / "neve.lock").exists()
    assert r.stderr == ("error: no version of d satisfies every requirement:\n"
                        "  root -> b 1.0.0 requires d ^1\n  root -> c 1.0.0 requires d ^2\n")
    r = nsm("install", "alice/nope", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("error: git failed for ")
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("toml,msg", [
    ('[package]\nname = "a"\nversion = "1"\n[dependencies]\nx = "^1"\n',
     "neve.toml:5: dependency 'x' needs a source"),
    ('[package]\nname = "a"\nversion = "1.0"\n\n[dependencies]\nx = { git = "u/x", version = "^^1" }\n',
     "neve.toml:6: invalid version constraint '^^1'"),
    ('[package]\nname = "a b"\nversion = "1.0"\n', "neve.toml:2: invalid package name 'a b'"),
    ('[package]\nname = "a"\nversion = "1.0"\n[dependencies]\nx = { git = "u/x", tag = "-x" }\n',
     "neve.toml:5: invalid git ref '-x'"),
    ('[package\n', "neve.toml: Expected ']'"),
    ('package = "app"\n', "neve.toml:1: package must be a table"),
    ('[package]\nname = ["app"]\nversion = "1.0"\n', "neve.toml:2: [package] name must be a string"),
])
def test_manifest_errors_are_located(reg, tmp_path, toml, msg):
    (tmp_path / "neve.toml").write_text(toml)
    r = nsm("install", cwd=tmp_path)
    assert r.returncode == 1 and msg in r.stderr and "Traceback" not in r.stderr


def test_native_package_says_where_its_native_part_is_built(reg, tmp_path):
    reg.publish("fast", "1.0.0", extra='\n[native]\nsources = ["native/f.cpp"]\n',
                files={"native/f.cpp": "int f() { return 1; }\n"})
    r = nsm("install", "alice/fast", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    built = list((tmp_path / "home" / "cache" / "native").glob("fast-*"))
    assert len(built) == 1 and (built[0] / "debug" / "libfast.so").is_file(), r.stderr
    assert f"note: fast 1.0.0 has native code; its native part is built in {built[0]}" in r.stderr


def test_program_imports_an_installed_package(reg, tmp_path):
    reg.publish("greet", "1.0.0", files={"extra/more.nv": "def int answer()\n    return 42\n"})
    app = project(tmp_path, "app", 'greet = { git = "alice/greet", version = "^1" }\n')
    (app / "main.nv").write_text('import greet\nimport greet/extra/more\n\nmain\n'
                                 '    print(greet.version(), " ", more.answer())\n')
    assert nsm("install", cwd=app).returncode == 0
    r = nsm("run", "main.nv", cwd=app, timeout=300)
    assert (r.returncode, r.stdout) == (0, "greet 1.0.0 42\n"), r.stderr
    (tmp_path / "s.nv").write_text("import greet\n\nmain\n    print(greet.version())\n")
    r = nsm("check", "s.nv", cwd=tmp_path)
    assert r.returncode == 1 and "nsm install <user>/greet" in r.stderr
