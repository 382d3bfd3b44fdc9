"""Where an operation applies: inside a package (its neve.toml and the neve.lock beside it)
or outside any package ($NEVE_HOME/neve.lock, shared by scripts)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import lock as lockfile
from .. import manifest, paths
from ..manifest import Manifest
from ..project import package_root


@dataclass
class Context:
    """The package being worked on (None outside a package), its lock file, and in a
    workspace the manifests of every member (they share the one lock at its root)."""
    manifest: Manifest | None
    lock_path: Path
    members: tuple[Manifest, ...] = ()

    @property
    def in_package(self) -> bool:
        return self.manifest is not None

    def read_lock(self) -> lockfile.Lock:
        """The current lock (empty if none)."""
        return lockfile.read(self.lock_path)

    def guard(self):
        """The OS lock serializing writers of this context's lock file."""
        import hashlib
        from ..waitlock import held
        key = hashlib.sha256(str(self.lock_path).encode()).hexdigest()[:16]
        return held(paths.locks_dir() / f"lockfile-{key}.lock", str(self.lock_path))


def find(cwd: Path, global_: bool = False) -> Context:
    """The context for a command run in `cwd` (`global_` forces the global lock)."""
    root = None if global_ else package_root(cwd)
    if root is None:
        return Context(None, paths.global_lock_file())
    from .. import project
    ws = project.workspace_root(root)
    if ws is None:
        return Context(manifest.load(root), root / lockfile.LOCK)
    members = tuple(project.manifest(d) for d in project.workspace_members(ws))
    return Context(project.manifest(root), ws / lockfile.LOCK, members)
