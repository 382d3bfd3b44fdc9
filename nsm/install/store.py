"""The installed packages under $NEVE_HOME/lib/<name>@<version>/: each is staged beside lib/,
verified, completed with a marker and renamed into place in one step, under a per-package OS
file lock (released by the OS if the process dies), so concurrent installs wait and reuse,
and a killed install leaves only a staging folder that the next run removes."""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..errors import NsmError
from ..registry.git import Mirror
from .tree import MARKER, export


@dataclass(frozen=True)
class Installed:
    """An installed package folder and what its marker records."""
    path: Path
    commit: str
    tree: str
    hash: str
    fresh: bool = False          # written by this call


def folder(name: str, version: str) -> Path:
    """lib/<name>@<version>/, after checking both are what nsm writes (no path can hide in
    either: a forged lock or a typed `pkg@1.0.0/src` never names another folder)."""
    from ..registry.names import check_segment
    from ..resolver.version import parse_version, show
    check_segment(name, "package name")
    if show(parse_version(version)) != version:
        raise NsmError(f"invalid installed version '{version}' of {name}",
                       "a version is written as 1.2.0")
    return paths.installed_package_dir(name, version)


def read_marker(folder: Path) -> dict | None:
    """The completion marker of an installed package folder, or None (absent or unreadable)."""
    try:
        return json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return None


def package_lock(name: str, version: str):
    """The OS file lock serializing installs and removals of `name`@`version`."""
    from ..waitlock import held
    return held(paths.locks_dir() / f"pkg-{name}@{version}.lock", f"{name} {version}")


def _clean_staging(name: str, version: str) -> None:
    # Called with the package lock held: any staging folder of this package is a dead run's.
    for stale in paths.staging_dir().glob(f"{name}@{version}.*"):
        shutil.rmtree(stale, ignore_errors=True)


def _stall(count: int) -> None:
    # Test hook: NSM_TEST_STALL_AFTER_FILES=N stops an install after N files (to kill it).
    limit = os.environ.get("NSM_TEST_STALL_AFTER_FILES")
    if limit and count >= int(limit):
        time.sleep(3600)


def install(name: str, version: str, commit: str, expected_hash: str, mirror: Mirror,
            source: str, log=None, replace: bool = False) -> Installed:
    """Install `name` `version` at `commit` from `mirror` unless that exact commit is already
    installed. NsmError if the tree is unsafe, its manifest names another package, its content
    hash differs from `expected_hash` (when given), or the folder holds another commit (with
    `replace`, the folder is then swapped for the new tree in one step instead)."""
    dest = folder(name, version)
    with package_lock(name, version):
        _clean_staging(name, version)
        mark = read_marker(dest)
        old = None
        if mark is not None:
            if mark.get("commit") == commit:
                return Installed(dest, commit, str(mark.get("tree", "")), str(mark.get("hash", "")))
            if not replace:
                raise NsmError(f"{dest} holds {name} {version} at commit "
                               f"{str(mark.get('commit', '?'))[:12]}, not {commit[:12]}",
                               f"the ref moved upstream; run `nsm update {name}` to accept it")
            old = dest
        elif dest.exists():                     # no marker: not ours, or damaged: repair
            _discard(dest, name, version)
        what = f"{name} {version}"
        text = mirror.read_file(commit, "neve.toml")
        if text is None:
            raise NsmError(f"{what} ({source} at {commit[:12]}) has no neve.toml")
        from ..manifest import parse
        got = parse(text.decode("utf-8", "replace"), f"{what}: neve.toml", dest).name
        if got != name:
            raise NsmError(f"{what}: its neve.toml names the package '{got}', not '{name}'")
        stage = paths.staging_dir() / f"{name}@{version}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        stage.mkdir(parents=True)
        try:
            count = 0

            def on_file(path: str) -> None:
                nonlocal count
                count += 1
                _stall(count)
                if log:
                    log(f"  {what}: {path}")
            content = export(mirror, commit, stage, what, on_file)
            if expected_hash and content != expected_hash:
                raise NsmError(f"{what}: content hash {content} differs from the lock's "
                               f"{expected_hash}")
            tree = mirror.tree_sha(commit)
            (stage / MARKER).write_text(json.dumps(
                {"name": name, "version": version, "source": source, "commit": commit,
                 "tree": tree, "hash": content}, indent=1, sort_keys=True) + "\n")
            if old is None:
                os.rename(stage, dest)
            else:
                _exchange(stage, dest)          # stage now holds the old tree
                shutil.rmtree(stage, ignore_errors=True)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        _build_native(dest, name, version, log)
        return Installed(dest, commit, tree, content, fresh=True)


def _build_native(dest: Path, name: str, version: str, log) -> None:
    """Build the package's native part from its final folder, into the cache (never into
    lib/: nsm.project.native_build_dir); if it fails, the install is undone and the
    compiler's message raised."""
    from ..build.native import ensure_native
    try:
        if log:
            log(f"  {name} {version}: building native code")
        ensure_native(dest)
    except BaseException:
        _discard(dest, name, version)
        raise


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE); elsewhere, two renames."""
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        fn = None
    if fn is not None:
        at_fdcwd, exchange = -100, 2
        if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), exchange) == 0:
            return
    tmp = a.with_name(a.name + ".old")
    os.rename(b, tmp)
    os.rename(a, b)
    os.rename(tmp, a)


def _discard(folder: Path, name: str, version: str) -> None:
    # Rename first so the folder disappears in one step, then delete.
    paths.staging_dir().mkdir(parents=True, exist_ok=True)
    gone = paths.staging_dir() / f"{name}@{version}.removed-{uuid.uuid4().hex[:8]}"
    os.rename(folder, gone)
    shutil.rmtree(gone, ignore_errors=True)


def installed_versions(name: str) -> list[str]:
    """The versions of `name` with a folder in lib/ (exactly that name, nothing sharing a prefix)."""
    out = []
    if paths.lib_dir().is_dir():
        for d in paths.lib_dir().iterdir():
            n, at, v = d.name.rpartition("@")
            if at and n == name and d.is_dir():
                out.append(v)
    return sorted(out)


def remove(name: str, version: str) -> bool:
    """Delete lib/<name>@<version>/ (and nothing else); False if it was not there."""
    dest = folder(name, version)
    with package_lock(name, version):
        if not dest.is_dir():
            return False
        _discard(dest, name, version)
        return True
