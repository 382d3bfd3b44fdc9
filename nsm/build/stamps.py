"""The stat-then-hash layer between the file system and ninja.

Ninja decides by modification times; nsm decides by content. Every source a build reads is
hashed once per change of its stat tuple (mtime, size, inode, ctime), and ninja depends on a
*stamp* file per source that nsm rewrites only when the content hash changes. So a `touch`,
or a `git checkout` back and forth, or an mtime of 0 or in the future, compiles nothing, while
an edit always does (stat tuples are compared for equality, never for order).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from ..files import write_if_changed  # noqa: F401 - the build layer imports it from here

DB_VERSION = 1


def stat_key(st: os.stat_result) -> list[int]:
    """What identifies a file's version without reading it: mtime and ctime (ns), size, inode.
    Compared for equality only, so clock skew and mtime 0 do no harm."""
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]



class FileDB:
    """Remembered stat tuples and content hashes of the files a build reads, plus the
    facts derived from a file's content (its imports), stored in `path` as JSON."""

    def __init__(self, path: Path | None = None) -> None:
        """The database stored at `path`, or one in memory only when `path` is None."""
        self.path = path
        self.files: dict[str, dict] = {}
        self.dirty = False
        if path is None:
            return
        try:
            data = json.loads(path.read_text())
            if data.get("version") == DB_VERSION:
                self.files = data["files"]
        except (OSError, ValueError, KeyError, TypeError):
            pass

    def unchanged(self, path: str) -> bool:
        """Whether `path` has the stat tuple it had when last recorded (no hashing)."""
        rec = self.files.get(path)
        try:
            st = os.stat(path)
        except OSError:
            return rec is not None and rec.get("absent", False)
        return rec is not None and rec.get("stat") == stat_key(st)

    def digest(self, path: str) -> str | None:
        """sha256 of the file's bytes (None if unreadable), rehashing only on a stat change."""
        rec = self.files.get(path)
        try:
            st = os.stat(path)
        except OSError:
            if rec != {"absent": True}:
                self.files[path] = {"absent": True}
                self.dirty = True
            return None
        key = stat_key(st)
        if rec is not None and rec.get("stat") == key and "sha" in rec:
            return rec["sha"]
        try:
            sha = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            return None
        # A stat taken after reading: an edit racing the read gives a new tuple next time.
        new = {"stat": key, "sha": sha}
        if rec is not None and rec.get("sha") == sha:      # touched only: keep derived facts
            new = {**rec, **new}
        self.files[path] = new
        self.dirty = True
        return sha

    def watch(self, path: str) -> None:
        """Record a folder's (or an absent file's) stat tuple: creating a file in a watched
        folder changes it, which makes the next build plan again (an import may now resolve
        elsewhere)."""
        try:
            st = os.stat(path)
            rec = {"stat": stat_key(st)}
        except OSError:
            rec = {"absent": True}
        if self.files.get(path) != rec:
            self.files[path] = rec
            self.dirty = True

    def fact(self, path: str, name: str):
        rec = self.files.get(path)
        return None if rec is None else rec.get(name)

    def set_fact(self, path: str, name: str, value) -> None:
        rec = self.files.setdefault(path, {})
        if rec.get(name) != value:
            rec[name] = value
            self.dirty = True

    def all_unchanged(self) -> bool:
        return bool(self.files) and all(self.unchanged(p) for p in self.files)

    def prune(self, keep: set[str]) -> None:
        for p in set(self.files) - keep:
            del self.files[p]
            self.dirty = True

    def save(self) -> None:
        if self.dirty and self.path is not None:
            write_if_changed(self.path, json.dumps({"version": DB_VERSION, "files": self.files},
                                                   sort_keys=True).encode())
            self.dirty = False


def stamp(stamp_dir: Path, name: str, digest: str) -> Path:
    """The stamp file `name` holding `digest`, rewritten only when the digest changed."""
    p = stamp_dir / f"{name}.stamp"
    write_if_changed(p, digest.encode() + b"\n")
    return p
