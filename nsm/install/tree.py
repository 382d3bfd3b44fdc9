"""Checks a commit's tree before anything is written (no path leaving the package, no
symlink escaping it, no names colliding on a case-insensitive filesystem, no submodules),
then writes it into a staging folder and hashes its content."""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ..errors import NsmError
from ..registry.git import Mirror, TreeEntry

SYMLINK, GITLINK = 0o120000, 0o160000
MARKER = ".nsm-installed.json"      # written by the installer; a tree may not bring its own


def verify(entries: list[TreeEntry], link_targets: dict[str, str], what: str) -> None:
    """NsmError naming the first offending path of `what` if the tree is unsafe to write.
    `link_targets` maps each symlink's path to its target; each target is resolved through
    the tree's other links, so a chain of inward-looking links cannot leave the package."""
    seen: dict[str, str] = {}
    links = {e.path for e in entries if e.mode == SYMLINK}
    for e in entries:
        p = e.path
        parts = p.split("/")
        bad = (not p or p.startswith("/") or "\\" in p or "\0" in p or
               any(x in ("", ".", "..") for x in parts) or
               any(x.lower() == ".git" for x in parts) or p == MARKER)
        if bad:
            raise NsmError(f"{what}: refused: path '{p}' would be written outside the package "
                           "or into git's own folder")
        if e.mode == GITLINK:
            raise NsmError(f"{what}: refused: '{p}' is a git submodule (not supported)")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in links:
                raise NsmError(f"{what}: refused: '{p}' lies under the symlink "
                               f"'{'/'.join(parts[:i])}'")
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            low = prefix.lower()
            if seen.setdefault(low, prefix) != prefix:
                raise NsmError(f"{what}: refused: '{seen[low]}' and '{prefix}' differ only in "
                               "case (they collide on case-insensitive filesystems)")
    for p, target in sorted(link_targets.items()):
        try:
            inside = _walk(p.split("/")[:-1], target.split("/"), link_targets, [_MAX_HOPS], p)
        except NsmError as e:
            raise NsmError(f"{what}: {e.message}") from None
        if target.startswith("/") or "\0" in target or inside is None:
            raise NsmError(f"{what}: refused: symlink '{p}' -> '{target}' points outside "
                           "the package")


_MAX_HOPS = 40                      # as the kernel's ELOOP limit


def _walk(base: list[str], parts: list[str], links: dict[str, str], budget: list[int],
          link: str) -> list[str] | None:
    """The package-relative components `parts` reach from folder `base`, following the
    tree's own symlinks as the kernel would (at most `budget[0]` of them in all); None if the
    path leaves the package."""
    out = list(base)
    for x in parts:
        if x in ("", "."):
            continue
        if x == "..":
            if not out:
                return None
            out.pop()
            continue
        out.append(x)
        target = links.get("/".join(out))
        if target is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise NsmError(f"refused: symlink '{link}' goes through more than {_MAX_HOPS} "
                               "symlinks (a loop?)")
            if target.startswith("/"):
                return None
            got = _walk(out[:-1], target.split("/"), links, budget, link)
            if got is None:
                return None
            out = got
    return out


def export(mirror: Mirror, commit: str, dest: Path, what: str, on_file=None) -> str:
    """Verify `commit`'s tree, write it under the empty folder `dest`, and return its content
    hash (sha256 over sorted path, mode and content). `on_file(path)` is called per file."""
    entries = mirror.entries(commit)
    # surrogateescape: names and link targets that are not UTF-8 keep their bytes.
    links = {e.path: mirror.blob(e.sha).decode("utf-8", "surrogateescape")
             for e in entries if e.mode == SYMLINK}
    verify(entries, links, what)
    h = hashlib.sha256()
    root = os.path.realpath(dest)
    for e in sorted(entries, key=lambda e: e.path):
        target = dest / e.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not os.path.realpath(target.parent).startswith(root):
            raise NsmError(f"{what}: refused: '{e.path}' resolves outside the package")
        if e.mode == SYMLINK:
            data = links[e.path].encode("utf-8", "surrogateescape")
            os.symlink(links[e.path], target)
        else:
            data = mirror.blob(e.sha)
            mode = 0o755 if e.mode & stat.S_IXUSR else 0o644
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        h.update(f"{e.mode:o} {e.path}\0{hashlib.sha256(data).hexdigest()}\n"
                 .encode("utf-8", "surrogateescape"))
        if on_file:
            on_file(e.path)
    return "sha256:" + h.hexdigest()
