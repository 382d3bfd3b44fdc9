"""The resolver's Index over git mirrors: versions are the tags in semver form, a package's
dependencies are read from neve.toml at the candidate's commit. Each mirror is synced (cloned
or fetched) at most once per run."""
from __future__ import annotations

from pathlib import Path

from ..errors import NsmError
from ..manifest import Dependency, parse
from ..registry.git import Mirror
from ..registry.source import resolve_source
from ..resolver.types import Candidate, Requirement
from ..resolver.version import ANY, parse_constraint, parse_tag


def requirement(dep: Dependency, index: "GitIndex | None" = None) -> Requirement:
    """The resolver requirement for a manifest dependency (git sources only); `index`
    remembers how the manifest spelled the source, for the lock."""
    if dep.git is None:
        raise NsmError(f"dependency '{dep.name}': a package fetched from git cannot have path "
                       "dependencies (its folder is not yours to point into)", "use a git source")
    constraint = parse_constraint(dep.version) if dep.version else ANY
    url = resolve_source(dep.git)
    if index is not None:
        index.spelled.setdefault(url, dep.git)
    return Requirement(dep.name, url, constraint, dep.ref)


class GitIndex:
    """Package metadata read from bare mirrors in the cache. `log(msg)` reports progress."""

    def __init__(self, offline: bool = False, log=None) -> None:
        self.offline = offline
        self.log = log or (lambda msg: None)
        self.mirrors: dict[str, Mirror] = {}
        self.native: dict[tuple[str, str], bool] = {}
        self.spelled: dict[str, str] = {}       # URL -> the source as a manifest wrote it
        self._cands: dict[tuple[str, str], list[Candidate]] = {}

    def mirror(self, name: str, source: str) -> Mirror:
        """The synced mirror of `source` (package `name`)."""
        m = self.mirrors.get(source)
        if m is None:
            self.log(f"fetching {name} from {source}")
            m = Mirror(source, name)
            m.sync(self.offline)
            self.mirrors[source] = m
        return m

    def prefetch(self, sources: dict[str, str], workers: int = 8) -> None:
        """Sync the mirrors of `sources` (name -> URL) in parallel (git does the waiting)."""
        from concurrent.futures import ThreadPoolExecutor
        todo = {u: n for n, u in sources.items() if u not in self.mirrors}
        if len(todo) < 2:
            return
        with ThreadPoolExecutor(min(workers, len(todo))) as pool:
            futures = {u: pool.submit(self._sync, n, u) for u, n in todo.items()}
        for u, f in futures.items():
            self.mirrors[u] = f.result()

    def _sync(self, name: str, source: str) -> Mirror:
        m = Mirror(source, name)
        m.sync(self.offline)
        return m

    def candidates(self, name: str, source: str) -> list[Candidate]:
        """One candidate per version tag (`v1.2.0` preferred over `1.2.0` for one version)."""
        key = (name, source)
        if key not in self._cands:
            by_version: dict = {}
            for tag, commit in sorted(self.mirror(name, source).tags().items(), reverse=True):
                v = parse_tag(tag)
                if v is not None and v not in by_version:
                    by_version[v] = Candidate(name, v, source, commit, tag)
            self._cands[key] = list(by_version.values())
        return self._cands[key]

    def ref_candidate(self, name: str, source: str, ref: str) -> Candidate:
        """The candidate a tag, branch or commit names; its version is the tag's, else the
        one in its neve.toml."""
        for c in self.candidates(name, source):
            if c.ref == ref:
                return c
        commit = self.mirror(name, source).resolve(ref)
        version = parse_tag(self._manifest(name, source, commit).version)
        return Candidate(name, version, source, commit, ref)

    def _manifest(self, name: str, source: str, commit: str):
        text = self.mirror(name, source).read_file(commit, "neve.toml")
        where = f"{name} ({source} at {commit[:12]}): neve.toml"
        if text is None:
            raise NsmError(f"{where} is missing", "a package needs a neve.toml at its root")
        m = parse(text.decode("utf-8", "replace"), where, Path("."))
        if m.name != name:
            raise NsmError(f"{where} names the package '{m.name}', not '{name}'")
        self.native[(name, commit)] = bool(m.native)
        return m

    def dependencies(self, cand: Candidate) -> list[Requirement]:
        """The requirements in `cand`'s neve.toml."""
        m = self._manifest(cand.name, cand.source, cand.commit)
        return [requirement(d, self) for _, d in sorted(m.dependencies.items())]
