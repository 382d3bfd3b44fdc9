"""Moved refs (issue 14 item 4): a force-moved tag and an advanced branch are refused by
`nsm install`, whose hint (`nsm update pkga`) is then run and works: the folder keeps its
lib/<name>@<version>/ name and is replaced in one step; every printed hint is run."""
from __future__ import annotations

import re
import shutil

from nsm import lock as lockfile
from nsm import paths

from .conftest import nsm


def _hint_command(stderr: str) -> list[str]:
    m = re.search(r"run `(nsm [^`]+)`", stderr)
    assert m, stderr
    return m.group(1).split()[1:]


def _app(tmp_path, dep: str):
    app = tmp_path / "app"
    app.mkdir()
    (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n\n'
                                   f"[dependencies]\n{dep}\n")
    return app


def test_force_moved_tag_is_accepted_by_the_hinted_update(reg, tmp_path):
    reg.publish("pkga", "1.0.0")
    app = _app(tmp_path, 'pkga = { git = "alice/pkga", version = "^1" }')
    assert nsm("install", cwd=app).returncode == 0
    folder = paths.installed_package_dir("pkga", "1.0.0")
    new = reg.publish("pkga", "1.0.0", files={"moved.nv": "# moved\n"})
    other = tmp_path / "other"          # a second project whose install meets the old folder
    other.mkdir()
    (other / "neve.toml").write_text((app / "neve.toml").read_text().replace('"app"', '"other"'))
    r = nsm("install", cwd=other)
    assert r.returncode == 1
    assert f"{folder} holds pkga 1.0.0 at commit" in r.stderr
    hint = _hint_command(r.stderr)
    assert hint == ["update", "pkga"]
    r = nsm(*hint, cwd=other)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"installed pkga 1.0.0 ({new[:12]})\n"
    assert (folder / "moved.nv").read_text() == "# moved\n"
    assert lockfile.read(other / "neve.lock").packages["pkga"].commit == new
    assert sorted(p.name for p in paths.lib_dir().iterdir()) == [".staging", "pkga@1.0.0"]
    assert not any(paths.staging_dir().iterdir())
    # The first project's lock still names the old commit: install refuses, its hint works.
    again = nsm("install", cwd=app)
    assert again.returncode == 1 and "now points to" in again.stderr
    hint = _hint_command(again.stderr)
    assert hint == ["update", "pkga"]
    assert nsm(*hint, cwd=app).returncode == 0
    assert nsm("install", "--locked", cwd=app).returncode == 0


def test_advanced_branch_is_accepted_by_the_hinted_update(reg, tmp_path):
    reg.publish("pkga", "1.0.0")
    app = _app(tmp_path, 'pkga = { git = "alice/pkga", branch = "main" }')
    assert nsm("install", cwd=app).returncode == 0
    old = lockfile.read(app / "neve.lock").packages["pkga"].commit
    new = reg.publish("pkga", "1.0.0", files={"more.nv": "# more\n"}, tag="keep-v1")
    folder = paths.installed_package_dir("pkga", "1.0.0")
    r = nsm("install", cwd=app)                 # installed: not fetched, still the old commit
    assert r.returncode == 0 and lockfile.read(app / "neve.lock").packages["pkga"].commit == old
    r = nsm("update", cwd=app)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"installed pkga 1.0.0 ({new[:12]})\n"
    assert (folder / "more.nv").is_file()
    lk = lockfile.read(app / "neve.lock").packages["pkga"]
    assert (lk.commit, lk.ref) == (new, "main")
    r = nsm("update", cwd=app)
    assert (r.returncode, r.stdout) == (0, "1 package(s) already installed: pkga 1.0.0\n"
                                            "lock up to date\n")


def test_locked_install_hint_after_a_moved_tag(reg, tmp_path):
    reg.publish("pkga", "1.0.0")
    app = _app(tmp_path, 'pkga = { git = "alice/pkga", tag = "v1.0.0" }')
    assert nsm("install", cwd=app).returncode == 0
    reg.publish("pkga", "1.0.0", files={"x.nv": "# x\n"})
    shutil.rmtree(paths.installed_package_dir("pkga", "1.0.0"))    # so install must fetch
    r = nsm("install", "--locked", cwd=app)
    assert r.returncode == 1 and "'v1.0.0' now points to" in r.stderr
    hint = _hint_command(r.stderr)
    assert nsm(*hint, cwd=app).returncode == 0
    assert nsm("install", "--locked", cwd=app).returncode == 0
    assert (paths.installed_package_dir("pkga", "1.0.0") / "x.nv").is_file()
