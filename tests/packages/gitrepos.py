"""Test helpers: local bare git repositories acting as the package registry
({base}/{user}/{pkg}.git, reached through NSM_GIT_BASE), built with the git command line."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True,
                          input=input).stdout.decode()


def manifest(name: str, version: str, deps: dict[str, str] | None = None,
             extra: str = "") -> str:
    """neve.toml text; `deps` maps name -> version constraint (source user `alice`)."""
    text = f'[package]\nname = "{name}"\nversion = "{version}"\n{extra}'
    if deps:
        text += "\n[dependencies]\n" + "".join(
            f'{d} = {{ git = "alice/{d}", version = "{c}" }}\n' for d, c in deps.items())
    return text


class Registry:
    """A folder of bare repos; `publish` commits files to alice/<pkg> and tags them."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.work = base.parent / (base.name + "-work")

    def repo(self, pkg: str, user: str = "alice") -> Path:
        return self.base / user / f"{pkg}.git"

    def publish(self, pkg: str, version: str, deps: dict[str, str] | None = None,
                files: dict[str, str] | None = None, tag: str | None = None,
                user: str = "alice", extra: str = "", name: str | None = None) -> str:
        """Commit a version of `pkg` (neve.toml + include.nv + files), tag it v<version>,
        push it to the bare repo; returns the commit."""
        work = self.work / user / pkg
        if not work.is_dir():
            work.mkdir(parents=True)
            git(work, "init", "-q", "-b", "main")
        (work / "neve.toml").write_text(manifest(name or pkg, version, deps, extra))
        (work / "include.nv").write_text(f'def str version()\n    return "{pkg} {version}"\n')
        for rel, text in (files or {}).items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_text(text)
        git(work, "add", "-A")
        git(work, "commit", "-q", "--allow-empty", "-m", f"{pkg} {version}")
        git(work, "tag", "-f", tag or f"v{version}")
        bare = self.repo(pkg, user)
        if not bare.is_dir():
            bare.parent.mkdir(parents=True, exist_ok=True)
            git(self.base, "init", "-q", "--bare", str(bare))
        git(work, "push", "-q", "--force", str(bare), "main", "--tags")
        return git(work, "rev-parse", "HEAD").strip()
