"""The global content-addressed store of compiled units: `$NEVE_HOME/cache/units/<key>/`.

A unit's key hashes everything its outputs depend on (compiler version, flags, source bytes,
the interfaces it imports), so the same unit is compiled once however many packages or build
folders contain it. Entries are written to a temporary folder and renamed into place, so a
reader sees a whole entry or none.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from .. import paths


def units_dir() -> Path:
    """The store's folder: $NEVE_HOME/cache/units/."""
    return paths.units_cache_dir()


def compiler_version() -> str:
    """Hash of the compiler's own sources, so any change to it invalidates compiled units."""
    root = paths.toolchain_root() / "compiler"
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def key_of(parts: list[bytes]) -> str:
    """sha256 (40 hex digits) of `parts`, each length-prefixed so no two lists collide."""
    h = hashlib.sha256()
    for p in parts:
        h.update(b"%d:" % len(p))
        h.update(p)
    return h.hexdigest()[:40]


def lookup(key: str) -> dict[str, bytes] | None:
    """The files of entry `key` by name, or None when absent."""
    d = units_dir() / key[:2] / key
    try:
        names = json.loads((d / "MANIFEST").read_text())
        return {n: (d / n).read_bytes() for n in names}
    except (OSError, ValueError):
        return None


def store(key: str, files: dict[str, bytes]) -> None:
    """Add entry `key`; a concurrent writer of the same key wins harmlessly."""
    final = units_dir() / key[:2] / key
    if final.exists():
        return
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
    try:
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        (tmp / "MANIFEST").write_text(json.dumps(sorted(files)))
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
