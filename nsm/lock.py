"""neve.lock: per package the source URL, the ref it came from, the exact commit, the git
tree hash and the content hash of the installed tree. Output is deterministic (sorted keys,
sorted packages) and written atomically; $NEVE_HOME/neve.lock also keeps the requests
(`[roots]`) made outside any package, so `nsm update` can re-resolve them."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from .errors import NsmError
from .manifest import Dependency, write_atomic

LOCK = "neve.lock"
FORMAT = 1
HEADER = "# Written by nsm: the exact packages this package (or script) uses. Do not edit.\n"


@dataclass(frozen=True)
class LockedPackage:
    """One locked package."""
    name: str
    version: str
    source: str
    commit: str
    tree: str
    hash: str
    ref: str = ""
    dependencies: tuple[str, ...] = ()


@dataclass
class Lock:
    """A whole lock: packages by name, and (global lock only) the requested roots."""
    packages: dict[str, LockedPackage] = field(default_factory=dict)
    roots: dict[str, Dependency] = field(default_factory=dict)


def read(path: Path) -> Lock:
    """The lock at `path`; an empty Lock if there is none; NsmError if it is malformed."""
    if not path.is_file():
        return Lock()
    try:
        data = tomllib.loads(path.read_text())
        if data.get("version") != FORMAT:
            raise NsmError(f"{path}: unsupported lock format {data.get('version')!r}")
        pkgs = {}
        for p in data.get("package", []):
            p = dict(p)
            p["dependencies"] = tuple(p.get("dependencies", ()))
            lp = LockedPackage(**p)
            pkgs[lp.name] = lp
        roots = {n: Dependency(n, **d) for n, d in data.get("roots", {}).items()}
        return Lock(pkgs, roots)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, TypeError) as e:
        raise NsmError(f"{path}: malformed lock file ({e})",
                       "delete it and run nsm install to write a new one")


def dumps(lock: Lock) -> str:
    """The lock as text: stable for equal locks."""
    data: dict = {"version": FORMAT}
    if lock.roots:
        data["roots"] = {n: {k: v for k, v in vars(d).items() if k != "name" and v is not None}
                         for n, d in sorted(lock.roots.items())}
    data["package"] = [
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(p).items()}
        for _, p in sorted(lock.packages.items())]
    return HEADER + tomli_w.dumps(data)


def write(path: Path, lock: Lock) -> None:
    """Write `lock` to `path` atomically, only if its text changed."""
    text = dumps(lock)
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
