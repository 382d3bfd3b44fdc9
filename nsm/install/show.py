"""What `nsm list` and `nsm tree` print: installed packages and the locked dependency tree."""
from __future__ import annotations

from .. import paths
from . import store
from .context import Context


def list_rows(ctx: Context) -> list[tuple[str, str, str, str, str]]:
    """Rows (name, version, commit, source, state): the lock's packages in a package; every
    installed folder outside one (state `locked` marks the version scripts use)."""
    lock = ctx.read_lock()
    rows = []
    if ctx.in_package:
        for name, p in sorted(lock.packages.items()):
            mark = store.read_marker(paths.installed_package_dir(name, p.version))
            state = "installed" if mark and mark.get("commit") == p.commit else "missing"
            rows.append((name, p.version, p.commit[:12], p.source, state))
        return rows
    lib = paths.lib_dir()
    for d in sorted(lib.iterdir()) if lib.is_dir() else ():
        name, at, version = d.name.rpartition("@")
        mark = store.read_marker(d) if at else None
        if mark is None:
            continue
        p = lock.packages.get(name)
        state = "locked" if p and p.version == version else ""
        rows.append((name, version, mark.get("commit", "")[:12], mark.get("source", ""), state))
    return rows


def tree_lines(ctx: Context) -> list[str]:
    """The dependency tree from the roots (manifest or global requests), as text lines."""
    lock = ctx.read_lock()
    roots = ctx.manifest.dependencies if ctx.in_package else lock.roots
    lines = [f"{ctx.manifest.name} {ctx.manifest.version}" if ctx.in_package else "(global)"]

    def walk(name: str, prefix: str, last: bool, seen: tuple[str, ...]) -> None:
        p = lock.packages.get(name)
        label = f"{name} {p.version} ({p.commit[:12]})" if p else f"{name} (not locked)"
        if name in seen:
            label += " (cycle)"
        lines.append(prefix + ("└── " if last else "├── ") + label)
        if p and name not in seen:
            kids = list(p.dependencies)
            for i, k in enumerate(kids):
                walk(k, prefix + ("    " if last else "│   "), i == len(kids) - 1, seen + (name,))

    names = sorted(roots)
    for i, n in enumerate(names):
        walk(n, "", i == len(names) - 1, ())
    return lines
