"""neve.lock: per package the source (as the manifest spells it), the ref it came from, the
exact commit, the git tree hash and the content hash of the installed tree. Output is
deterministic (sorted keys, sorted packages) and written atomically; $NEVE_HOME/neve.lock also
keeps the requests (`[roots]`) made outside any package, so `nsm update` can re-resolve them.
Reading validates every field: a hand-edited or forged lock is one located error."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from .errors import NsmError
from .files import write_atomic
from .manifest import Dependency, parse_dependency

LOCK = "neve.lock"
# 2: sources are written as the manifest spells them (`alice/pkg`), not as expanded URLs.
# 3: path dependencies are recorded in [[path]] tables (name, path, version; no commit).
FORMAT = 3
HEADER = "# Written by nsm: the exact packages this package (or script) uses. Do not edit.\n"
HINT = "neve.lock is written by nsm: delete it and run `nsm install` to write a new one"
_HEX40 = re.compile(r"[0-9a-f]{40}\Z")
_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")
_KEYS = {"name", "version", "source", "commit", "tree", "hash", "ref", "dependencies"}


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


@dataclass(frozen=True)
class LockedPath:
    """A path dependency (used in place, so no commit): its folder relative to the lock's."""
    name: str
    path: str
    version: str


@dataclass
class Lock:
    """A whole lock: packages by name, and (global lock only) the requested roots. `format`
    is the version of the file it was read from (older ones are rewritten on the next write)."""
    packages: dict[str, LockedPackage] = field(default_factory=dict)
    roots: dict[str, Dependency] = field(default_factory=dict)
    format: int = FORMAT
    paths: dict[str, LockedPath] = field(default_factory=dict)


def source_url(source: str) -> str:
    """The git URL a locked source names (`alice/pkg` through NSM_GIT_BASE, or a URL)."""
    from .registry.source import resolve_source
    return resolve_source(source)


def _line(lines: list[str], header: str, nth: int, key: str | None) -> int:
    """The 1-based line of `key` in the `nth` table named `header` (its header line when
    `key` is None or absent); 1 if the table is not found."""
    seen, start = -1, None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("["):
            if start is not None:
                break
            if s == header:
                seen += 1
                if seen == nth:
                    start = i
            continue
        if start is not None and key and re.match(rf'"?{re.escape(key)}"?\s*=', s):
            return i + 1
    return start + 1 if start is not None else 1


def _top_line(lines: list[str], key: str) -> int:
    """The 1-based line of top-level `key` (before any table header), else 1."""
    for i, line in enumerate(lines):
        if line.strip().startswith("["):
            break
        if re.match(rf'"?{re.escape(key)}"?\s*=', line.strip()):
            return i + 1
    return 1


def _check_package(p: dict, fail) -> LockedPackage:
    from .registry.names import check_ref, check_segment
    from .registry.source import resolve_source
    from .resolver.version import parse_version, show
    for key in sorted(set(p) - _KEYS):
        fail(f"unknown key '{key}'", key)
    for key in ("name", "version", "source", "commit", "tree", "hash"):
        if key not in p:
            fail(f"missing key '{key}'", None)
    for key in sorted(_KEYS - {"dependencies"}):
        if key in p and not isinstance(p[key], str):
            fail(f"{key} must be a string", key)
    deps = p.get("dependencies", [])
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        fail("dependencies must be a list of package names", "dependencies")
    checks = [("name", lambda v: check_segment(v, "package name")),
              ("version", parse_version),
              ("source", resolve_source),
              ("ref", lambda v: v == "" or check_ref(v))]
    for key, check in checks:
        try:
            check(p.get(key, ""))
        except NsmError as e:
            fail(e.message, key)
    if show(parse_version(p["version"])) != p["version"]:
        fail(f"version '{p['version']}' is not written as nsm writes it "
             f"({show(parse_version(p['version']))})", "version")
    if not _HEX40.match(p["commit"]):
        fail("commit must be 40 hex digits", "commit")
    if not _HEX40.match(p["tree"]):
        fail("tree must be 40 hex digits", "tree")
    if not _HASH.match(p["hash"]):
        fail("hash must be sha256: and 64 hex digits", "hash")
    for d in deps:
        try:
            check_segment(d, "dependency name")
        except NsmError as e:
            fail(e.message, "dependencies")
    return LockedPackage(p["name"], p["version"], p["source"], p["commit"], p["tree"], p["hash"],
                         p.get("ref", ""), tuple(deps))


def parse(text: str, where: str) -> Lock:
    """Parse and validate lock `text` (shown as `where` in errors); NsmError if invalid."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NsmError(f"{where}: {e}", HINT) from None
    lines = text.splitlines()

    def fail(msg: str, line: int) -> None:
        raise NsmError(f"{where}:{line}: {msg}", HINT)

    fmt = data.get("version")
    top = _top_line(lines, "version")
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        fail("version (the lock format) must be an integer" if "version" in data else
             "missing the lock format `version = N`", top)
    if fmt > FORMAT:
        raise NsmError(f"{where}:{top}: lock format {fmt} is newer than this nsm's "
                       f"(format {FORMAT})", "upgrade nsm to read it")
    if fmt < 1:
        fail(f"unknown lock format {fmt}", top)
    for key in sorted(set(data) - {"version", "package", "roots", "path"}):
        fail(f"unknown key '{key}'", _top_line(lines, key))
    raw = data.get("package", [])
    if not isinstance(raw, list) or not all(isinstance(p, dict) for p in raw):
        fail("package must be an array of [[package]] tables", 1)
    pkgs: dict[str, LockedPackage] = {}
    for i, p in enumerate(raw):
        def fail_at(msg: str, key: str | None, i=i) -> None:
            fail(msg, _line(lines, "[[package]]", i, key))
        lp = _check_package(p, fail_at)
        if lp.name in pkgs:
            fail_at(f"package '{lp.name}' is locked twice", "name")
        pkgs[lp.name] = lp
    for i, p in enumerate(raw):
        for d in p.get("dependencies", []):
            if d not in pkgs:
                fail(f"dependency '{d}' of '{p['name']}' has no [[package]] entry",
                     _line(lines, "[[package]]", i, "dependencies"))
    roots_raw = data.get("roots", {})
    if not isinstance(roots_raw, dict):
        fail("roots must be a table", _top_line(lines, "roots"))
    roots = {}
    for name, spec in roots_raw.items():
        try:
            roots[name] = parse_dependency(name, spec)
        except NsmError as e:
            fail(f"[roots] {e.message}", _line(lines, f"[roots.{name}]", 0, None))
    return Lock(pkgs, roots, fmt, _paths(data.get("path", []), lines, fail))


def _paths(raw, lines: list[str], fail) -> dict[str, LockedPath]:
    """The [[path]] tables: name, path (relative, inside no URL) and version, all strings."""
    from .registry.names import check_segment
    from .resolver.version import parse_version
    if not isinstance(raw, list) or not all(isinstance(p, dict) for p in raw):
        fail("path must be an array of [[path]] tables", 1)
    out: dict[str, LockedPath] = {}
    for i, p in enumerate(raw):
        def at(key):
            return _line(lines, "[[path]]", i, key)
        for key in sorted(set(p) - {"name", "path", "version"}):
            fail(f"unknown key '{key}'", at(key))
        for key in ("name", "path", "version"):
            if not isinstance(p.get(key), str):
                fail(f"{key} must be a string" if key in p else f"missing key '{key}'", at(key))
        try:
            check_segment(p["name"], "package name")
            parse_version(p["version"])
        except NsmError as e:
            fail(e.message, at("name"))
        if p["name"] in out:
            fail(f"path dependency '{p['name']}' is locked twice", at("name"))
        out[p["name"]] = LockedPath(p["name"], p["path"], p["version"])
    return out


def read(path: Path) -> Lock:
    """The lock at `path`; an empty Lock if there is none; NsmError if it is malformed."""
    if not path.is_file():
        return Lock()
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise NsmError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})", HINT) from None
    except OSError as e:
        raise NsmError(f"cannot read {path}: {e.strerror or e}") from None
    return parse(text, str(path))


def dumps(lock: Lock) -> str:
    """The lock as text: stable for equal locks."""
    data: dict = {"version": FORMAT}
    if lock.roots:
        data["roots"] = {n: {k: v for k, v in vars(d).items() if k != "name" and v is not None}
                         for n, d in sorted(lock.roots.items())}
    data["package"] = [
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(p).items()}
        for _, p in sorted(lock.packages.items())]
    if lock.paths:
        data["path"] = [vars(p) for _, p in sorted(lock.paths.items())]
    return HEADER + tomli_w.dumps(data)


def write(path: Path, lock: Lock) -> None:
    """Write `lock` to `path` atomically, only if its text changed."""
    text = dumps(lock)
    if path.is_file() and path.read_bytes() == text.encode():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
