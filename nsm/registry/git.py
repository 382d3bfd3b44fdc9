"""Bare git mirrors in the cache (gitpython): clone or fetch, list version tags, resolve refs,
read files and trees at a commit. Every name and ref reaching here is already validated."""
from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import git

from .. import paths
from ..errors import NsmError


@dataclass(frozen=True)
class TreeEntry:
    """One blob of a commit's tree: posix path, git mode (0o100644, 0o100755, 0o120000...), sha."""
    path: str
    mode: int
    sha: str


def mirror_path(url: str, name: str) -> Path:
    """The cache folder of the bare mirror of `url` (named after the package, keyed by URL)."""
    return paths.git_cache_dir() / f"{name}-{hashlib.sha256(url.encode()).hexdigest()[:12]}.git"


def git_cause(e: git.GitCommandError) -> str:
    """git's own reason for a failure: its `fatal:` (else `error:`, else last) stderr line.
    gitpython wraps stderr as `\n  stderr: '...'`, so the quoting is taken off."""
    text = str(e.stderr or "").strip()
    if text.startswith("stderr:"):
        text = text[len("stderr:"):].strip()
    text = text.strip("'").strip()
    lines = [l.strip() for l in text.splitlines() if l.strip() and l.strip() != "'"]
    for prefix in ("fatal:", "error:"):
        hit = next((l for l in lines if l.startswith(prefix)), None)
        if hit:
            return hit
    return lines[-1] if lines else f"exit status {e.status}"


class Mirror:
    """The bare mirror of one package source."""

    def __init__(self, url: str, name: str) -> None:
        self.url, self.name = url, name
        self.path = mirror_path(url, name)
        self._repo: git.Repo | None = None

    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            self._repo = git.Repo(self.path)
        return self._repo

    def sync(self, offline: bool) -> None:
        """Clone the mirror, or fetch it (tags that moved are updated: the lock catches them).
        Offline, only check it is cached. NsmError when the source cannot be reached."""
        paths.locks_dir().mkdir(parents=True, exist_ok=True)
        from ..waitlock import held
        with held(paths.locks_dir() / f"git-{self.path.name}.lock", f"the mirror of {self.url}"):
            for stale in self.path.parent.glob(f"{self.path.name}.tmp-*"):
                shutil.rmtree(stale, ignore_errors=True)
            if self.path.is_dir():
                if not offline:
                    self._git(lambda: git.Repo(self.path).git.fetch("--prune", "--force",
                                                                    "origin"))
                return
            if offline:
                raise NsmError(f"{self.url} is not in the cache (--offline)",
                               "run the same command once without --offline")
            tmp = self.path.with_name(f"{self.path.name}.tmp-{uuid.uuid4().hex[:8]}")
            tmp.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._git(lambda: git.Repo.clone_from(self.url, tmp, mirror=True,
                                                      env={"GIT_TERMINAL_PROMPT": "0"}))
                os.rename(tmp, self.path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)

    def _git(self, fn):
        try:
            return fn()
        except git.GitCommandError as e:
            raise NsmError(f"git failed for {self.url}: {git_cause(e)}") from None

    def tags(self) -> dict[str, str]:
        """Every tag name -> the commit it points to (annotated tags peeled)."""
        out = self.repo.git.for_each_ref("--format=%(refname:strip=2) %(objectname) %(*objectname)",
                                         "refs/tags")
        tags = {}
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 2:
                tags[parts[0]] = parts[-1]
        return tags

    def resolve(self, ref: str) -> str:
        """The commit a tag, branch or (abbreviated) commit names; NsmError if none."""
        for full in (f"refs/tags/{ref}", f"refs/heads/{ref}", ref):
            try:
                return self.repo.git.rev_parse("--verify", "--quiet", "--end-of-options",
                                               f"{full}^{{commit}}")
            except git.GitCommandError:
                continue
        raise NsmError(f"{self.url} has no tag, branch or commit '{ref}'")

    def has_commit(self, commit: str) -> bool:
        """Whether the mirror holds `commit`."""
        try:
            self.repo.git.cat_file("-e", f"{commit}^{{commit}}")
            return True
        except git.GitCommandError:
            return False

    def tree_sha(self, commit: str) -> str:
        """The git tree hash of `commit`."""
        return self.repo.git.rev_parse("--verify", f"{commit}^{{tree}}")

    def read_file(self, commit: str, path: str) -> bytes | None:
        """The bytes of `path` at `commit`, or None if it is not a file there."""
        # git itself, not gitpython's tree parser (which refuses hostile trees before we can
        # explain what is wrong with them).
        try:
            return self.repo.git.cat_file("blob", f"{commit}:{path}", stdout_as_string=False,
                                          strip_newline_in_stdout=False)
        except git.GitCommandError:
            return None

    def entries(self, commit: str) -> list[TreeEntry]:
        """Every non-tree entry of `commit`'s tree, recursively, as git stores it (unchecked)."""
        raw = self.repo.git.ls_tree("-r", "-z", "--full-tree", commit, stdout_as_string=False)
        out = raw.decode("utf-8", "surrogateescape")    # a name that is not UTF-8 keeps its bytes
        entries = []
        for rec in out.split("\0"):
            if not rec:
                continue
            meta, _, path = rec.partition("\t")
            mode, _kind, sha = meta.split()
            entries.append(TreeEntry(path, int(mode, 8), sha))
        return entries

    def blob(self, sha: str) -> bytes:
        """The content of blob `sha`."""
        return self.repo.odb.stream(bytes.fromhex(sha)).read()
