"""Malicious input: names and refs attempting option injection or shell metacharacters (no
git process started, nothing written), trees with ../ paths, escaping symlinks and case
collisions (nothing written outside staging); an install killed with SIGKILL then repaired;
two concurrent installs of one package."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import git
import pytest

from nsm import paths
from nsm.errors import NsmError
from nsm.install import ops
from nsm.install.context import find
from nsm.progress import Progress
from nsm.registry.names import parse_spec

from .conftest import BIN, nsm
from .gitrepos import git as run_git


def install(cwd, *specs):
    return ops.install(find(cwd), [parse_spec(s) for s in specs], progress=Progress())


@pytest.mark.parametrize("spec", [
    "--upload-pack=touch /tmp/x/y", "alice/-x", "-alice/x", "alice/x@--upload-pack=evil",
    "alice/x;rm -rf ~", "alice/$(touch pwned)", "alice/x@a..b", "alice/..", "alice/x/../../y",
    "ext::sh -c touch% /tmp/pwned", "alice/x@HEAD@{1}", "alice/x y", "alice/x@v1|id",
    "alice/x`id`", "alice/.hidden",
])
def test_bad_names_start_no_git(reg, tmp_path, monkeypatch, spec):
    calls = []
    monkeypatch.setattr(git.cmd.Git, "execute", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(a))
    with pytest.raises(NsmError, match="invalid"):
        install(tmp_path, spec)
    assert calls == [] and not paths.neve_home().exists()


def test_bad_name_on_the_command_line(reg, tmp_path):
    r = nsm("install", "alice/x@--upload-pack=touch pwned", cwd=tmp_path)
    assert (r.returncode, r.stderr.splitlines()[0]) == (1, "error: invalid git ref "
                                                           "'--upload-pack=touch pwned'")
    assert not paths.neve_home().exists() and not (tmp_path / "pwned").exists()


def _evil_commit(reg, pkg: str, entries: list[str]) -> None:
    """Tag v1.0.0 of `pkg` as a commit whose root tree holds `entries` (mktree lines; the
    placeholders {toml} and {blob} are blob ids of a manifest and of 'x')."""
    bare = reg.repo(pkg)
    bare.parent.mkdir(parents=True, exist_ok=True)
    run_git(reg.base, "init", "-q", "--bare", str(bare))
    toml = run_git(bare, "hash-object", "-w", "--stdin",
                   input=f'[package]\nname = "{pkg}"\nversion = "1.0.0"\n'.encode()).strip()
    blob = run_git(bare, "hash-object", "-w", "--stdin", input=b"x").strip()
    lines = [f"100644 blob {toml}\tneve.toml"] + [e.format(toml=toml, blob=blob) for e in entries]
    tree = run_git(bare, "mktree", input=("\n".join(lines) + "\n").encode()).strip()
    commit = run_git(bare, "commit-tree", tree, "-m", "evil").strip()
    run_git(bare, "tag", "v1.0.0", commit)


def _link(bare, target: str) -> str:
    return run_git(bare, "hash-object", "-w", "--stdin", input=target.encode()).strip()


@pytest.mark.parametrize("kind,msg", [
    ("dotdot", "path '../escape' would be written outside the package"),
    ("abslink", "symlink 'l' -> '/etc/passwd' points outside the package"),
    ("uplink", "symlink 'l' -> '../../../outside' points outside the package"),
    ("case", "'README' and 'readme' differ only in case"),
    ("dotgit", "path '.git/config' would be written outside the package or into git's own"),
])
def test_malicious_trees_write_nothing(reg, tmp_path, kind, msg):
    bare = reg.repo("evil")
    if kind == "dotdot":
        reg.publish("evil", "0.0.1")             # make the repo, then a tree with '..'
        sub = run_git(bare, "mktree", input=f"100644 blob {_link(bare, 'x')}\tescape\n".encode())
        _evil_commit_in(bare, [f"040000 tree {sub.strip()}\t.."])
    elif kind == "dotgit":
        reg.publish("evil", "0.0.1")
        sub = run_git(bare, "mktree", input=f"100644 blob {_link(bare, 'x')}\tconfig\n".encode())
        _evil_commit_in(bare, [f"040000 tree {sub.strip()}\t.git"])
    else:
        reg.publish("evil", "0.0.1")
        entries = {"abslink": [f"120000 blob {_link(bare, '/etc/passwd')}\tl"],
                   "uplink": [f"120000 blob {_link(bare, '../../../outside')}\tl"],
                   "case": [f"100644 blob {_link(bare, 'a')}\tREADME",
                            f"100644 blob {_link(bare, 'b')}\treadme"]}[kind]
        _evil_commit_in(bare, entries)
    before = sorted(p for p in tmp_path.rglob("*") if "home" not in p.parts and "remote" not in p.parts)
    with pytest.raises(NsmError) as e:
        install(tmp_path, "alice/evil@v1.0.0")
    assert msg in e.value.message
    after = sorted(p for p in tmp_path.rglob("*") if "home" not in p.parts and "remote" not in p.parts)
    assert after == before
    assert not (paths.lib_dir() / "evil@1.0.0").exists() and not any(paths.staging_dir().iterdir())
    assert not (tmp_path / "home" / "outside").exists()


def _evil_commit_in(bare, extra: list[str]) -> None:
    toml = run_git(bare, "hash-object", "-w", "--stdin",
                   input=b'[package]\nname = "evil"\nversion = "1.0.0"\n').strip()
    lines = [f"100644 blob {toml}\tneve.toml", *extra]
    tree = run_git(bare, "mktree", input=("\n".join(lines) + "\n").encode()).strip()
    commit = run_git(bare, "commit-tree", tree, "-m", "evil").strip()
    run_git(bare, "tag", "-f", "v1.0.0", commit)


def test_manifest_name_must_match(reg, tmp_path):
    reg.publish("csv", "1.0.0", name="other")
    with pytest.raises(NsmError, match="names the package 'other', not 'csv'"):
        install(tmp_path, "alice/csv")


def test_sigkill_mid_install_is_repaired(reg, tmp_path):
    reg.publish("big", "1.0.0", files={f"m{i}.nv": f"# {i}\n" for i in range(20)})
    env = {**os.environ, "NSM_TEST_STALL_AFTER_FILES": "5"}
    p = subprocess.Popen([str(BIN / "nsm"), "install", "alice/big"], cwd=tmp_path, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        staged = list(paths.staging_dir().glob("big@1.0.0.*")) if paths.staging_dir().is_dir() else []
        if staged and len(list(staged[0].iterdir())) >= 5:
            break
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert staged and not (paths.lib_dir() / "big@1.0.0").exists()
    assert not paths.global_lock_file().exists()
    r = nsm("install", "alice/big", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(list((paths.lib_dir() / "big@1.0.0").glob("m*.nv"))) == 20
    assert not any(paths.staging_dir().iterdir())


def test_two_concurrent_installs_share_one_tree(reg, tmp_path):
    reg.publish("csv", "1.0.0", files={f"m{i}.nv": "# x\n" for i in range(30)})
    procs = [subprocess.Popen([str(BIN / "nsm"), "install", "alice/csv"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    assert [r[0] for r in results] == [0, 0], results
    assert sorted(d.name for d in paths.lib_dir().iterdir()) == [".staging", "csv@1.0.0"]
    assert not any(paths.staging_dir().iterdir())
    assert not list(paths.git_cache_dir().glob("*.tmp-*"))
