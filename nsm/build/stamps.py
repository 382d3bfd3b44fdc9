"""The stat-then-hash layer between the file system and ninja.

Ninja decides by modification times; nsm decides by content. Every source a build reads is
hashed once per change of its stat tuple (mtime, size, inode, ctime), and ninja depends on a
*stamp* file per source that nsm rewrites only when the content hash changes. So a `touch`,
or a `git checkout` back and forth, or an mtime of 0 or in the future, compiles nothing, while
an edit always does (stat tuples are compared for equality, never for order).

Native parts (nsm.build.native) stamp their C/C++ sources, headers and the headers the
compiler reports: `restamp_native` before ninja runs, and `stamp_depfile` inside a compile edge,
which rewrites the compiler's depfile to name stamps instead of headers. A stamp first made
inside an edge is dated 1970 (the file was read by that very command, which is therefore not
stale); nsm then keeps it current like the others.

    python -m nsm.build.stamps RAW_DEPFILE DEPFILE STAMP_DIR     # the edge side
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
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


EDGE_MADE_MTIME_NS = 1_000_000_000       # 1970: older than every command that read the file


def native_stamp(stamp_dir: Path, path: str) -> Path:
    """The stamp file of native input `path` (a real path): its name and a hash of the path."""
    tag = hashlib.sha256(path.encode()).hexdigest()[:12]
    return stamp_dir / f"{os.path.basename(path)}-{tag}.stamp"


def _stamp_text(digest: str, path: str) -> bytes:
    return f"{digest} {path}\n".encode()


def restamp_native(stamp_dir: Path, db: FileDB, explicit: list[str]) -> None:
    """Bring the stamps of `explicit` inputs and of every header an edge recorded in
    `stamp_dir` up to date with their content (hashing only files whose stat changed); a
    vanished file loses its stamp, so the edges that read it run again (and say why)."""
    stamp_dir.mkdir(parents=True, exist_ok=True)
    present = set(os.listdir(stamp_dir))
    known = {rec["stamp"]: p for p, rec in db.files.items() if "stamp" in rec}
    for name in present - known.keys():         # recorded by an edge since the last build
        try:
            _, path = (stamp_dir / name).read_text().rstrip("\n").split(" ", 1)
        except (OSError, ValueError):
            continue
        known[name] = path
    for p in explicit:
        known[native_stamp(stamp_dir, p).name] = p
    for name, p in known.items():
        if name in present and db.fact(p, "stamp") == name and db.unchanged(p):
            continue
        d = db.digest(p)
        if d is None:
            (stamp_dir / name).unlink(missing_ok=True)
            db.files.pop(p, None)
            db.dirty = True
            continue
        write_if_changed(stamp_dir / name, _stamp_text(d, p))
        db.set_fact(p, "stamp", name)


def native_stamps_known(stamp_dir: Path, db: FileDB) -> bool:
    """Whether `db` knows every stamp in `stamp_dir` (edges record new headers there)."""
    try:
        present = set(os.listdir(stamp_dir))
    except OSError:
        return False
    return present <= {rec["stamp"] for rec in db.files.values() if "stamp" in rec}


def _depfile_paths(text: str) -> list[str]:
    """The prerequisites of a make-style depfile (gcc -MMD): continuations joined, `\\ `,
    `\\#` and `$$` unescaped."""
    text = text.replace("\\\n", " ")
    _, sep, rest = text.partition(": ")
    if not sep:
        return []
    out, cur, i = [], [], 0
    while i < len(rest):
        c = rest[i]
        if c == "\\" and i + 1 < len(rest) and rest[i + 1] in " #":
            cur.append(rest[i + 1])
            i += 2
            continue
        if c == "$" and rest[i + 1:i + 2] == "$":
            cur.append("$")
            i += 2
            continue
        if c.isspace():
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append("".join(cur))
    return out


def stamp_depfile(output: str, read: list[str], depfile: Path, stamp_dir: Path) -> None:
    """Write `depfile` naming the stamps of the files `read` by the edge making `output`,
    making (dated 1970) the stamps that do not exist yet."""
    stamps = []
    for f in dict.fromkeys(os.path.realpath(f) for f in read):
        s = native_stamp(stamp_dir, f)
        if not s.exists():
            try:
                d = hashlib.sha256(Path(f).read_bytes()).hexdigest()
            except OSError:
                continue                   # gone already: nothing to depend on
            write_if_changed(s, _stamp_text(d, f))
            os.utime(s, ns=(EDGE_MADE_MTIME_NS, EDGE_MADE_MTIME_NS))
        stamps.append(str(s).replace(" ", "\\ "))
    depfile.write_text(f"{output}: {' '.join(stamps)}\n")


def main(argv: list[str]) -> int:
    """The compile edge's step: RAW_DEPFILE (gcc's) -> DEPFILE (stamps)."""
    if len(argv) != 3:
        sys.stderr.write("usage: python -m nsm.build.stamps RAW_DEPFILE DEPFILE STAMP_DIR\n")
        return 2
    raw, dep, stamp_dir = argv
    text = Path(raw).read_text()
    output = text.partition(": ")[0].strip()
    stamp_depfile(output, _depfile_paths(text), Path(dep), Path(stamp_dir))
    Path(raw).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
