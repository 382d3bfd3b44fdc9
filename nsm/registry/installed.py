"""Which installed package an import names (LANGUAGE.md 8 (c)): the version the root file's
package locks, or, for a script outside a package (or a package without a lock), the version
recorded by the last `nsm install` in $NEVE_HOME/neve.lock."""
from __future__ import annotations

from pathlib import Path

from .. import lock as lockfile
from .. import paths
from ..errors import NsmError

_cache: dict[Path, tuple[int, lockfile.Lock]] = {}


def _lock(path: Path) -> lockfile.Lock | None:
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    hit = _cache.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        lk = lockfile.read(path)
    except NsmError:
        return None
    _cache[path] = (mtime, lk)
    return lk


def lock_for(root_file: Path | None) -> Path:
    """The lock that decides installed versions for a program whose root file is `root_file`."""
    if root_file is not None:
        from ..project import package_root, workspace_root
        pkg = package_root(Path(root_file))
        if pkg is not None:
            pkg = workspace_root(pkg) or pkg          # a workspace shares the lock at its root
        if pkg is not None and (pkg / lockfile.LOCK).is_file():
            return pkg / lockfile.LOCK
    return paths.global_lock_file()


def locate(name: str, root_file: Path | None = None) -> Path | None:
    """The folder of installed package `name` for the program rooted at `root_file`, or None
    when that lock has no such package or it is not installed (completely)."""
    lk = _lock(lock_for(root_file))
    p = lk.packages.get(name) if lk else None
    if p is None:
        return None
    folder = paths.installed_package_dir(name, p.version)
    from ..install.store import read_marker
    mark = read_marker(folder)
    return folder if mark and mark.get("commit") == p.commit else None
