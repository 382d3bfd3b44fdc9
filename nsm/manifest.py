"""neve.toml: read and validate (errors name the file and line), and edit [dependencies]
in place keeping the rest of the text (comments included) unchanged."""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import NsmError
from .files import write_atomic
from .registry.names import check_ref, check_segment

MANIFEST = "neve.toml"
_DEP_KEYS = {"git", "path", "version", "tag", "branch", "rev"}


@dataclass(frozen=True)
class Dependency:
    """One [dependencies] entry: a git source (`user/pkg` or URL) with at most one of tag,
    branch, rev and an optional version constraint, or a local `path`."""
    name: str
    git: str | None = None
    path: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None
    rev: str | None = None

    @property
    def ref(self) -> str | None:
        return self.tag or self.branch or self.rev


@dataclass(frozen=True)
class Bin:
    """One [[bin]] entry: an executable `name` built from the module at `path` (relative to
    the package root)."""
    name: str
    path: str


@dataclass
class Manifest:
    """A parsed neve.toml. `root` is the package root (the manifest's folder)."""
    root: Path
    name: str
    version: str
    description: str = ""
    entry: str | None = None
    src: str | None = None
    dependencies: dict[str, Dependency] = field(default_factory=dict)
    native: dict | None = None                       # the [native] table, if any (nsm.build.native)
    bins: tuple["Bin", ...] = ()                     # [[bin]] entries
    members: tuple[str, ...] = ()                    # [workspace] members (folders)
    virtual: bool = False                            # a [workspace] with no [package]

    @property
    def path(self) -> Path:
        return self.root / MANIFEST


def _line_of(text: str, key: str, section: str | None = None) -> int:
    """The 1-based line where `key` is set (inside [section] when given), else 1."""
    in_section = section is None
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("["):
            in_section = section is None or s.strip("[] ") == section
            continue
        if in_section and re.match(rf'"?{re.escape(key)}"?\s*=', s):
            return i
    return 1


def parse_dependency(name: str, spec: object) -> Dependency:
    """One validated [dependencies] entry `name = spec`; NsmError (not located) if invalid."""
    from .resolver.version import parse_constraint
    if not isinstance(name, str):
        raise NsmError("dependency names must be strings")
    if isinstance(spec, str):
        raise NsmError(f"dependency '{name}' needs a source",
                       f'write {name} = {{ git = "user/{name}", version = "{spec}" }}')
    if not isinstance(spec, dict):
        raise NsmError(f"dependency '{name}' must be a table")
    unknown = set(spec) - _DEP_KEYS
    if unknown:
        raise NsmError(f"dependency '{name}': unknown key '{sorted(unknown)[0]}'",
                       "keys are git, path, version, tag, branch, rev")
    if any(not isinstance(v, str) for v in spec.values()):
        raise NsmError(f"dependency '{name}': values must be strings")
    check_segment(name, "dependency name")
    dep = Dependency(name, **spec)
    if (dep.git is None) == (dep.path is None):
        raise NsmError(f"dependency '{name}' needs exactly one of git and path")
    if sum(x is not None for x in (dep.tag, dep.branch, dep.rev)) > 1:
        raise NsmError(f"dependency '{name}' has more than one of tag, branch and rev")
    if dep.ref:
        check_ref(dep.ref)
    if dep.version is not None:
        parse_constraint(dep.version)
    return dep


def parse(text: str, where: str, root: Path) -> Manifest:
    """Parse and validate manifest `text` (shown as `where` in errors); NsmError if invalid."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NsmError(f"{where}: {e}")

    def fail(msg: str, key: str, section: str | None = None, hint: str | None = None):
        raise NsmError(f"{where}:{_line_of(text, key, section)}: {msg}", hint)

    from .resolver.version import parse_version
    ws = data.get("workspace")
    members: tuple[str, ...] = ()
    if ws is not None:
        if not isinstance(ws, dict) or set(ws) - {"members"}:
            fail("[workspace] is a table with one key, members", "workspace", None,
                 '[workspace]\nmembers = ["app", "lib"]')
        raw_m = ws.get("members", [])
        if not isinstance(raw_m, list) or not all(isinstance(m, str) for m in raw_m):
            fail("[workspace] members must be a list of folder names", "members", "workspace")
        for m in raw_m:
            if Path(m).is_absolute() or ".." in Path(m).parts:
                fail(f"[workspace] member '{m}' must be a folder inside the workspace", "members",
                     "workspace")
        members = tuple(raw_m)
    pkg = data.get("package")
    if "package" in data and not isinstance(pkg, dict):
        fail("package must be a table", "package", None)
    if pkg is None and ws is not None:           # a virtual manifest: the workspace alone
        if set(data) - {"workspace"}:
            fail("a [workspace] without [package] holds nothing else", sorted(set(data) - {"workspace"})[0])
        return Manifest(root, root.name, "0.0.0", members=members, virtual=True)
    if not isinstance(pkg, dict):
        raise NsmError(f"{where}:1: missing [package] table", "add [package] with name and version")
    for key in ("name", "version"):
        if not isinstance(pkg.get(key), str):
            fail(f"[package] {key} must be a string", key, "package")
    for key in ("description", "entry", "src"):
        if key in pkg and not isinstance(pkg[key], str):
            fail(f"[package] {key} must be a string", key, "package")
    try:
        check_segment(pkg["name"], "package name")
        parse_version(pkg["version"])
    except NsmError as e:
        fail(e.message, "name" if "name" in e.message else "version", "package", e.hint)
    deps = {}
    raw = data.get("dependencies", {})
    if not isinstance(raw, dict):
        fail("[dependencies] must be a table", "dependencies")
    for name, spec in raw.items():
        try:
            deps[name] = parse_dependency(name, spec)
        except NsmError as e:
            fail(e.message, name, "dependencies", e.hint)
    native = data.get("native")
    if native is not None and not isinstance(native, dict):
        fail("[native] must be a table", "native")
    bins = []
    raw_bins = data.get("bin", [])
    if not isinstance(raw_bins, list) or not all(isinstance(b, dict) for b in raw_bins):
        fail("[[bin]] must be an array of tables", "bin", None, '[[bin]]\nname = "tool"\npath = "src/tool.nv"')
    for b in raw_bins:
        if not isinstance(b.get("path"), str) or not isinstance(b.get("name", ""), str):
            fail("[[bin]] entries need a path (and a name, both strings)", "path", "bin",
                 '[[bin]]\nname = "tool"\npath = "src/tool.nv"')
        bins.append(Bin(b.get("name") or Path(b["path"]).stem, b["path"]))
    return Manifest(root, pkg["name"], pkg["version"], pkg.get("description", ""),
                    pkg.get("entry"), pkg.get("src"), deps, native, tuple(bins), members)


def load(root: Path) -> Manifest:
    """Read and validate `root`/neve.toml; NsmError (located) if unreadable or invalid."""
    path = root / MANIFEST
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise NsmError(f"cannot read {path}: {e}")
    return parse(text, str(path), root)


def _dep_line(dep: Dependency) -> str:
    fields = [(k, getattr(dep, k)) for k in ("git", "path", "tag", "branch", "rev", "version")]
    inner = ", ".join(f'{k} = "{v}"' for k, v in fields if v is not None)
    return f"{dep.name} = {{ {inner} }}"


def set_dependency(root: Path, dep: Dependency | None, name: str) -> None:
    """Add, replace (`dep`) or delete (`dep` None) the [dependencies] entry `name` in
    `root`/neve.toml, leaving every other line as it was; the result is validated first."""
    path = root / MANIFEST
    lines = path.read_text().splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip() == "[dependencies]"), None)
    new = [_dep_line(dep)] if dep else []
    if start is None:
        if dep:
            lines += ["", "[dependencies]", *new]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("[")),
                   len(lines))
        hit = next((i for i in range(start + 1, end)
                    if re.match(rf'\s*"?{re.escape(name)}"?\s*=', lines[i])), None)
        if hit is not None:
            lines[hit:hit + 1] = new
        else:
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            lines[end:end] = new
    text = "\n".join(lines) + "\n"
    parse(text, str(path), root)
    write_atomic(path, text)
