"""The operations behind `nsm install | add | update | remove`: resolve (or take the lock),
install every package, then write the lock (and the manifest) only once all succeeded."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from .. import lock as lockfile
from .. import paths
from ..errors import NsmError
from ..lock import Lock, LockedPackage, LockedPath, source_url
from ..manifest import Dependency, set_dependency
from ..registry.names import PackageSpec
from ..resolver import Resolution, resolve
from ..resolver.version import parse_tag, show
from . import store
from .context import Context
from .gitindex import GitIndex, requirement


@dataclass
class Outcome:
    """What an operation did: packages installed now, packages already present, notes."""
    installed: list[LockedPackage] = field(default_factory=list)
    reused: list[LockedPackage] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def spec_dependency(spec: PackageSpec, version: str | None = None) -> Dependency:
    """The manifest dependency for `user/pkg[@ref]` (a version-like ref is a tag)."""
    ref = spec.ref
    if ref and parse_tag(ref) is not None:
        return Dependency(spec.pkg, git=spec.repo, tag=ref, version=version)
    return Dependency(spec.pkg, git=spec.repo, rev=ref, version=version)


def _roots(ctx: Context, lock: Lock) -> dict[str, Dependency]:
    """What resolution starts from: the package's git dependencies and those of its path
    dependencies (used in place, transitively), or outside a package the global roots."""
    if not ctx.in_package:
        return dict(lock.roots)
    return _package_roots(ctx)[0]


def _package_roots(ctx: Context) -> tuple[dict[str, Dependency], dict[str, LockedPath]]:
    """git_roots of the package, or of every member of its workspace (one lock for all)."""
    gits: dict[str, Dependency] = {}
    local: dict[str, LockedPath] = {}
    for m in ctx.members or (ctx.manifest,):
        g, p = git_roots(m)
        for name, dep in g.items():
            if name in gits and gits[name].git != dep.git:
                raise NsmError(f"{m.path}: '{name}' comes from {dep.git}, but another member of "
                               f"the workspace takes it from {gits[name].git}")
            gits.setdefault(name, dep)
        root = ctx.lock_path.parent
        for name, lp in p.items():
            folder = (m.root / lp.path).resolve()
            local.setdefault(name, LockedPath(name, os.path.relpath(folder, root), lp.version))
    return gits, local


def git_roots(m) -> tuple[dict[str, Dependency], dict[str, LockedPath]]:
    """The git dependencies reached from manifest `m` through its path dependencies, and the
    path dependencies themselves (for the lock: name, path relative to `m`'s folder, version).
    NsmError when a path dependency has no manifest or two packages name one dependency with
    different sources."""
    from .. import project
    gits: dict[str, Dependency] = {}
    local: dict[str, LockedPath] = {}
    todo, seen = [m], {project.resolved(m.root)}
    while todo:
        cur = todo.pop()
        for name, dep in sorted(cur.dependencies.items()):
            if dep.path is None:
                old = gits.get(name)
                if old is not None and old.git != dep.git:
                    raise NsmError(f"{cur.path}: '{name}' comes from {dep.git}, but another "
                                   f"package of this build takes it from {old.git}")
                gits.setdefault(name, dep)
                continue
            folder = project.resolved(cur.root / dep.path)
            if folder in seen:
                continue
            seen.add(folder)
            sub = project.manifest(folder) if (folder / "neve.toml").is_file() else None
            if sub is None:
                raise NsmError(f"{cur.path}: path dependency '{name}' has no neve.toml at {folder}",
                               "the path is relative to the folder of the manifest that names it")
            local[name] = LockedPath(name, os.path.relpath(folder, m.root), sub.version)
            todo.append(sub)
    return gits, local


def _check_moved(res: Resolution, lock: Lock) -> None:
    for name, c in res.packages.items():
        old = lock.packages.get(name)
        if old and source_url(old.source) == c.source and old.version == show(c.version) and \
                old.ref == c.ref and old.commit != c.commit:
            raise NsmError(f"{name} {old.version}: '{c.ref}' now points to {c.commit[:12]}, "
                           f"but the lock records {old.commit[:12]}",
                           f"a moved tag or branch is not followed; run `nsm update {name}` to "
                           "accept it")


def _materialize(res: Resolution, lock: Lock, index: GitIndex, progress, out: Outcome,
                 check_hash: bool, replace: bool = False) -> dict[str, LockedPackage]:
    """Install every resolved package (`replace`: a folder holding another commit of the same
    version is replaced, for a moved ref `nsm update` accepts); the lock entries."""
    entries = {}
    for name in sorted(res.packages):
        c = res.packages[name]
        version = show(c.version)
        old = lock.packages.get(name)
        expected = old.hash if check_hash and old and old.commit == c.commit else ""
        progress.step(f"installing {name} {version}")
        got = store.install(name, version, c.commit, expected, index.mirror(name, c.source),
                            c.source, progress.detail, replace=replace)
        lp = LockedPackage(name, version, index.spelled.get(c.source, c.source), c.commit,
                           got.tree, got.hash, c.ref, res.dependencies.get(name, ()))
        (out.installed if got.fresh else out.reused).append(lp)
        entries[name] = lp
        if index.native.get((name, c.commit)):
            from ..project import native_build_dir
            out.notes.append(f"note: {name} {version} has native code; its native part is built in "
                             f"{native_build_dir(paths.installed_package_dir(name, version))}")
    return entries


def _resolve(roots: dict[str, Dependency], index: GitIndex, prefer: dict[str, str], progress):
    progress.step("resolving dependencies")
    return resolve([requirement(d, index) for _, d in sorted(roots.items())], index, prefer)


def install(ctx: Context, specs: list[PackageSpec], *, version: str | None = None,
            locked: bool = False, offline: bool = False, progress) -> Outcome:
    """`nsm install [user/pkg[@ref]...]` (and `nsm add`): with specs, add them to the package's
    manifest (or the global roots) and install; without, install what the manifest (or the
    global lock) asks for, keeping locked versions. `locked` installs the lock exactly and
    refuses any drift. When the lock satisfies the manifest and is installed, nothing is
    fetched."""
    out = Outcome()
    index = GitIndex(offline, progress.step)
    with ctx.guard():
        lock = ctx.read_lock()
        if locked:
            if specs:
                raise NsmError("--locked installs the lock as it is; it takes no package names")
            _install_locked(ctx, lock, index, progress, out)
            return out
        if not specs and _all_installed(ctx, lock, out):
            return out                          # nothing to fetch: the lock is installed
        roots = _roots(ctx, lock)
        new = {s.pkg: spec_dependency(s, version) for s in specs}
        for name, dep in new.items():
            if name in roots and ctx.in_package and roots[name].git != dep.git:
                raise NsmError(f"{ctx.manifest.path}: '{name}' already comes from "
                               f"{roots[name].git}, not {dep.git}")
        if ctx.in_package:
            roots.update(new)
            targets = roots
        else:
            targets = new or roots
        prefer = {n: p.commit for n, p in lock.packages.items() if n not in new}
        progress.step("fetching")
        index.prefetch({n: source_url(p.source) for n, p in lock.packages.items()})
        res = _resolve(targets, index, prefer, progress)
        _check_moved(res, lock)
        entries = _materialize(res, lock, index, progress, out, check_hash=True)
        for name, dep in new.items():           # record ^version for a bare `add user/pkg`
            if dep.version is None and dep.ref is None:
                new[name] = dataclasses.replace(dep, version=f"^{entries[name].version}")
        if ctx.in_package:
            lock = Lock(entries, paths=_package_roots(ctx)[1])
        else:
            lock.packages.update(entries)
            lock.roots.update(new)
        lockfile.write(ctx.lock_path, lock)
        if ctx.in_package:
            for name, dep in new.items():
                set_dependency(ctx.manifest.root, dep, name)
    return out


def _drift(ctx: Context, lock: Lock) -> None:
    """NsmError if the lock does not satisfy the manifest (or the global requests), or (in a
    package) locks a package its dependencies do not reach."""
    roots = _roots(ctx, lock)
    where = ctx.lock_path
    for name, dep in sorted(roots.items()):
        p = lock.packages.get(name)
        req = requirement(dep)
        why = None
        if p is None:
            why = f"the manifest needs {name} but the lock has no entry for it"
        elif source_url(p.source) != req.source:
            why = f"the manifest takes {name} from {req.source}, the lock from {p.source}"
        elif req.ref and req.ref not in (p.ref, p.commit):
            why = f"the manifest asks {name} @{req.ref}, the lock has @{p.ref}"
        elif not req.ref and not req.constraint.allows(parse_tag(p.version)):
            why = f"the manifest asks {name} {req.constraint}, the lock has {p.version}"
        if why:
            raise NsmError(f"{where} disagrees with the manifest: {why}",
                           "run `nsm install` without --locked to update the lock")
    if ctx.in_package:
        stray = sorted(set(lock.packages) - _reachable(roots, lock))
        if stray:
            raise NsmError(f"{where} locks '{stray[0]}', which no dependency of "
                           f"{ctx.manifest.path} reaches",
                           "run `nsm install` without --locked to rewrite the lock")


def _all_installed(ctx: Context, lock: Lock, out: Outcome) -> bool:
    """True (and `out.reused` filled) when the lock satisfies the manifest and every locked
    package is installed at its commit: then nothing needs fetching."""
    if not lock.packages:
        return False
    try:
        _drift(ctx, lock)
    except NsmError:
        return False
    for name, p in lock.packages.items():
        mark = store.read_marker(store.folder(name, p.version))
        if not mark or mark.get("commit") != p.commit:
            return False
    out.reused = [p for _, p in sorted(lock.packages.items())]
    if lock.format < lockfile.FORMAT:
        lockfile.write(ctx.lock_path, lock)     # an older lock format is rewritten
    return True


def _install_locked(ctx: Context, lock: Lock, index: GitIndex, progress, out: Outcome) -> None:
    where = ctx.lock_path
    _drift(ctx, lock)
    if _all_installed(ctx, lock, out):
        return
    index.prefetch({n: source_url(p.source) for n, p in lock.packages.items()})
    for name, p in sorted(lock.packages.items()):
        mirror = index.mirror(name, source_url(p.source))
        if p.ref and not index.offline:
            now = mirror.resolve(p.ref)
            if now != p.commit:
                raise NsmError(f"{name} {p.version}: '{p.ref}' now points to {now[:12]}, but the "
                               f"lock records {p.commit[:12]}",
                               f"a moved tag or branch is not followed; run `nsm update {name}` "
                               "to accept it")
        if not mirror.has_commit(p.commit):
            raise NsmError(f"{name}: commit {p.commit[:12]} recorded in {where} is not in "
                           f"{p.source}")
        progress.step(f"installing {name} {p.version}")
        got = store.install(name, p.version, p.commit, p.hash, mirror, mirror.url,
                            progress.detail)
        (out.installed if got.fresh else out.reused).append(p)
    if lock.format < lockfile.FORMAT:
        lockfile.write(ctx.lock_path, lock)


def update(ctx: Context, names: list[str], *, offline: bool = False, progress) -> Outcome:
    """`nsm update [name...]`: re-resolve within the constraints (only `names` may move when
    given; moved tags are accepted) and rewrite the lock."""
    out = Outcome()
    index = GitIndex(offline, progress.step)
    with ctx.guard():
        lock = ctx.read_lock()
        roots = _roots(ctx, lock)
        for n in names:
            if n not in lock.packages and n not in roots:
                raise NsmError(f"'{n}' is not in {ctx.lock_path}")
        prefer = {n: p.commit for n, p in lock.packages.items() if names and n not in names}
        index.prefetch({n: source_url(p.source) for n, p in lock.packages.items()})
        if ctx.in_package:
            res = _resolve(roots, index, prefer, progress)
            lock = Lock(_materialize(res, lock, index, progress, out, False, replace=True))
        else:
            for n, dep in sorted(roots.items()):
                if names and n not in names:
                    continue
                res = _resolve({n: dep}, index, prefer, progress)
                lock.packages.update(_materialize(res, lock, index, progress, out, False, True))
        lockfile.write(ctx.lock_path, lock)
    return out


def remove(ctx: Context, spec: PackageSpec) -> Outcome:
    """`nsm remove [user/]pkg[@version]`: in a package, drop it from the manifest and the lock
    (with locked packages nothing else needs); outside, drop it from the global lock and delete
    its folders under lib/ (only that version when given). Nothing else is touched."""
    out = Outcome()
    name = spec.pkg
    if spec.ref is not None:
        v = parse_tag(spec.ref)
        if v is None:
            raise NsmError(f"'{spec.ref}' in '{name}@{spec.ref}' is not a version",
                           f"write `nsm remove --global {name}@1.2.0` (a version as `nsm list "
                           f"--global` shows it), or `nsm remove {name}`")
        spec = dataclasses.replace(spec, ref=show(v))
        if ctx.in_package:
            raise NsmError(f"in a package, `nsm remove` takes a dependency name, not "
                           f"'{name}@{spec.ref}'",
                           f"`nsm remove {name}` drops the dependency; `nsm remove --global "
                           f"{name}@{spec.ref}` deletes the installed folder")
    with ctx.guard():
        lock = ctx.read_lock()
        roots = _roots(ctx, lock)
        if ctx.in_package:
            if name not in roots:
                raise NsmError(f"{ctx.manifest.path} has no dependency '{name}'")
            del roots[name]
            keep = _reachable(roots, lock)
            out.removed = [name] + sorted(n for n in lock.packages if n not in keep and n != name)
            lock = Lock({n: p for n, p in lock.packages.items() if n in keep})
            lockfile.write(ctx.lock_path, lock)
            set_dependency(ctx.manifest.root, None, name)
            return out
        versions = [spec.ref] if spec.ref else store.installed_versions(name)
        if name not in lock.packages and not versions:
            raise NsmError(f"package '{name}' is not installed")
        locked = lock.packages.get(name)
        if locked and (not spec.ref or spec.ref == locked.version):
            del lock.packages[name]
            lock.roots.pop(name, None)
            lockfile.write(ctx.lock_path, lock)
        for v in versions:
            if store.remove(name, v):
                out.removed.append(f"{name}@{v}")
        if spec.ref and not out.removed:
            raise NsmError(f"{name}@{spec.ref} is not installed")
    return out


def _reachable(roots: dict[str, Dependency], lock: Lock) -> set[str]:
    seen: set[str] = set()
    todo = [n for n in roots if n in lock.packages]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += [d for d in lock.packages[n].dependencies if d in lock.packages]
    return seen

