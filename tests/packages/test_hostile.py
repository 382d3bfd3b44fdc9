"""Hostile trees and forged locks (issue 14): a chain of inward-looking symlinks that leaves
the package, a file name that is not UTF-8, a forged lock's extra package and traversal in a
version, `nsm remove pkg@1.0.0/src`, and git's own `fatal:` line kept in errors."""
from __future__ import annotations

from nsm import lock as lockfile
from nsm import paths

from .conftest import nsm
from .gitrepos import git as run_git


def _tree_commit(reg, pkg: str, entries: list[tuple[str, str, bytes]]) -> None:
    """Tag v1.0.0 of a fresh bare repo `pkg` at a commit holding `entries` (mode, path, data),
    nested folders made with mktree (so any name or link target git can store)."""
    bare = reg.repo(pkg)
    bare.parent.mkdir(parents=True, exist_ok=True)
    run_git(reg.base, "init", "-q", "--bare", str(bare))
    toml = f'[package]\nname = "{pkg}"\nversion = "1.0.0"\n'.encode()
    tree: dict = {}
    for mode, path, data in [("100644", "neve.toml", toml), *entries]:
        *dirs, leaf = path.split("/")
        node = tree
        for d in dirs:
            node = node.setdefault(d, {})
        node[leaf] = (mode, data)

    def write(node: dict) -> str:
        lines = []
        for name, v in sorted(node.items()):
            if isinstance(v, dict):
                lines.append(f"040000 tree {write(v)}\t{name}")
            else:
                sha = run_git(bare, "hash-object", "-w", "--stdin", input=v[1]).strip()
                lines.append(f"{v[0]} blob {sha}\t{name}")
        text = "\n".join(lines) + "\n"
        return run_git(bare, "mktree", input=text.encode("utf-8", "surrogateescape")).strip()

    commit = run_git(bare, "commit-tree", write(tree), "-m", "evil").strip()
    run_git(bare, "tag", "v1.0.0", commit)


def _snapshot(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if "remote" not in p.relative_to(root).parts[:1])


def test_symlink_chain_through_links_is_refused(reg, tmp_path):
    chain = [("120000", "a/up", b".."), ("120000", "a/e1", b"up/..")]
    chain += [("120000", f"a/e{k}", f"e{k - 1}/..".encode()) for k in range(2, 17)]
    chain += [("120000", "include.nv", b"a/e16/etc/passwd")]
    _tree_commit(reg, "evil", chain)
    work = tmp_path / "w"
    work.mkdir()
    before = _snapshot(tmp_path)
    r = nsm("install", "alice/evil@v1.0.0", cwd=work)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[0] == ("error: evil 1.0.0: refused: symlink 'a/e1' -> 'up/..' "
                                        "points outside the package")
    new = set(_snapshot(tmp_path)) - set(before)
    assert sorted(p for p in new if not p.startswith("home/cache/")) == \
        ["home", "home/cache", "home/lib", "home/lib/.staging"]
    assert not any(paths.staging_dir().iterdir())


def test_symlink_loop_and_inward_chain(reg, tmp_path):
    _tree_commit(reg, "loop", [("120000", "x", b"y/z"), ("120000", "y", b"x")])
    r = nsm("install", "alice/loop@v1.0.0", cwd=tmp_path)
    assert r.returncode == 1
    assert "loop 1.0.0: refused: symlink 'x' goes through more than 40 symlinks" in r.stderr
    # A chain that stays inside is still fine.
    _tree_commit(reg, "ok", [("100644", "d/f.nv", b"# f\n"), ("120000", "a/up", b".."),
                             ("120000", "a/f", b"up/d/f.nv")])
    r = nsm("install", "alice/ok@v1.0.0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (paths.lib_dir() / "ok@1.0.0" / "a" / "f").read_text() == "# f\n"


def test_file_name_not_utf8_installs_and_hashes(reg, tmp_path):
    name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    _tree_commit(reg, "latin", [("100644", name, b"x")])
    r = nsm("install", "alice/latin@v1.0.0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (paths.lib_dir() / "latin@1.0.0" / name).read_bytes() == b"x"
    assert lockfile.read(paths.global_lock_file()).packages["latin"].hash.startswith("sha256:")


def _app(tmp_path, deps: str):
    app = tmp_path / "app"
    app.mkdir()
    (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n\n'
                                   f"[dependencies]\n{deps}")
    return app


def test_forged_lock_extra_package_and_traversal(reg, tmp_path):
    reg.publish("csv", "1.0.0")
    reg.publish("evil", "1.0.0")
    app = _app(tmp_path, 'csv = { git = "alice/csv" }\n')
    assert nsm("install", cwd=app).returncode == 0
    text = (app / "neve.lock").read_text()
    evil_commit = run_git(reg.repo("evil"), "rev-parse", "v1.0.0").strip()
    csv = lockfile.read(app / "neve.lock").packages["csv"]
    extra = (f'\n[[package]]\nname = "evil"\nversion = "1.0.0"\nsource = "alice/evil"\n'
             f'commit = "{evil_commit}"\ntree = "{csv.tree}"\nhash = "{csv.hash}"\n')
    (app / "neve.lock").write_text(text + extra)
    r = nsm("install", "--locked", cwd=app)
    assert r.returncode == 1
    assert r.stderr == (f"error: {app / 'neve.lock'} locks 'evil', which no dependency of "
                        f"{app / 'neve.toml'} reaches\n"
                        "hint: run `nsm install` without --locked to rewrite the lock\n")
    assert not (paths.lib_dir() / "evil@1.0.0").exists()
    bad = text.replace('version = "1.0.0"', 'version = "1.0.0/../../../owned"')
    (app / "neve.lock").write_text(bad)
    line = bad.splitlines().index('version = "1.0.0/../../../owned"') + 1
    for args in (["install", "--locked"], ["install"], ["list"], ["tree"], ["update"]):
        r = nsm(*args, cwd=app)
        assert r.returncode == 1, args
        assert r.stderr.splitlines()[0] == (f"error: {app / 'neve.lock'}:{line}: invalid "
                                            "version '1.0.0/../../../owned'"), args
    assert not (tmp_path / "owned").exists() and not (paths.neve_home().parent / "owned").exists()
    assert (app / "neve.lock").read_text() == bad


def test_remove_refuses_a_version_that_is_not_one(reg, tmp_path):
    reg.publish("csv", "1.0.0", files={"src/a.nv": "# a\n"})
    assert nsm("install", "alice/csv", cwd=tmp_path).returncode == 0
    r = nsm("remove", "csv@1.0.0/src", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith(
        "error: '1.0.0/src' in 'csv@1.0.0/src' is not a version\n")
    assert (paths.lib_dir() / "csv@1.0.0" / "src" / "a.nv").is_file()
    app = _app(tmp_path, 'csv = { git = "alice/csv" }\n')
    manifest = (app / "neve.toml").read_text()
    for spec in ("csv@1.0.0/src", "csv@1.0.0"):
        r = nsm("remove", spec, cwd=app)
        assert r.returncode == 1 and "Traceback" not in r.stderr, spec
    assert (app / "neve.toml").read_text() == manifest
    assert r.stderr == ("error: in a package, `nsm remove` takes a dependency name, not "
                        "'csv@1.0.0'\nhint: `nsm remove csv` drops the dependency; `nsm remove "
                        "--global csv@1.0.0` deletes the installed folder\n")
    r = nsm("remove", "--global", "csv@1.0.0", cwd=app)     # the hint works
    assert (r.returncode, r.stdout) == (0, "removed csv@1.0.0\n"), r.stderr
    assert not (paths.lib_dir() / "csv@1.0.0").exists()
    assert nsm("install", "alice/csv", cwd=tmp_path).returncode == 0
    r = nsm("remove", "csv@1.0.0", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "removed csv@1.0.0\n")


def test_messages_name_packages_and_remove_prints_once(reg, tmp_path):
    reg.publish("json", "1.0.0")
    reg.publish("csv", "1.0.0", {"json": "^1"})
    app = _app(tmp_path, 'csv = { git = "alice/csv" }\n')
    assert nsm("install", cwd=app).returncode == 0
    r = nsm("install", cwd=app)
    assert r.stdout == "2 package(s) already installed: csv 1.0.0, json 1.0.0\n"
    r = nsm("remove", "csv", cwd=app)
    assert (r.returncode, r.stdout) == (0, "removed csv\nremoved json\n")


def test_git_fatal_line_is_kept(reg, tmp_path):
    r = nsm("install", "alice/nope", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == (f"error: git failed for {reg.repo('nope')}: fatal: repository "
                        f"'{reg.repo('nope')}' does not exist\n")


def test_installed_lock_is_not_fetched_and_sources_are_spelled(reg, tmp_path):
    reg.publish("csv", "1.0.0")
    app = _app(tmp_path, 'csv = { git = "alice/csv" }\n')
    assert nsm("install", cwd=app).returncode == 0
    assert lockfile.read(app / "neve.lock").packages["csv"].source == "alice/csv"
    reg.repo("csv").rename(tmp_path / "gone.git")        # any fetch would now fail
    for args in (["install"], ["install", "--locked"]):
        r = nsm(*args, cwd=app)
        assert (r.returncode, r.stdout) == (0, "1 package(s) already installed: csv 1.0.0\n"), \
            r.stderr
    # A mirror serves the locked install: the lock names alice/csv, not a URL.
    mirror = tmp_path / "mirror"
    (mirror / "alice").mkdir(parents=True)
    (tmp_path / "gone.git").rename(mirror / "alice" / "csv.git")
    r = nsm("install", "--locked", cwd=app,
            env={"NEVE_HOME": str(tmp_path / "home2"), "NSM_GIT_BASE": str(mirror)})
    assert r.returncode == 0 and r.stdout.startswith("installed csv 1.0.0"), r.stderr
